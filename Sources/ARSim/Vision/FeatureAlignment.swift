internal import CVision

/// Feature alignment against reference patches (SVO's, Forster et al. 2014; `cv_align_features`): each
/// feature's patch as it looked in a reference image, warped by an affine map, aligned to a new
/// image in translation with a gain and an offset for the exposure.
package enum FeatureAlignment {
  package struct Params: Sendable, Equatable {
    /// The aligned patch is (2 halfPatch)² pixels (default 4: 8x8, SVO's).
    package var halfPatch = 4
    /// Gauss-Newton steps at most (default 10).
    package var maxIterations = 10
    /// Converged when a step moves the point less than this, pixels (default 0.01).
    package var epsilon: Float = 0.01
    /// A point that moves farther than this from its start fails, pixels (default 2).
    package var maxShift: Float = 2
    /// Smallest eigenvalue of the template's gradient matrix per pixel, squared intensity levels per
    /// pixel² (default 1): a flatter patch fixes no position.
    package var minEigenvalue: Float = 1

    package init() {}
  }

  /// A feature's reference: `regionSize`² intensities row by row (negative: unknown, outside the
  /// reference image), and its affine map: the region pixel seen at image offset (dx, dy) from the
  /// feature is `origin + regionFromImage · (dx, dy)` (columns of `regionFromImage`).
  package struct Reference {
    package var region: [Float]
    package var warp: Warp

    package init(region: [Float], origin: SIMD2<Float>, regionFromImage: (SIMD2<Float>, SIMD2<Float>)) {
      self.region = region
      warp = Warp(origin: origin, regionFromImage: regionFromImage)
    }
  }

  /// Where a feature lies in its reference region (`origin`) and the region's pixels per image pixel
  /// (see ``Reference``).
  package struct Warp {
    package var origin: SIMD2<Float>
    package var regionFromImage: (SIMD2<Float>, SIMD2<Float>)

    package init(origin: SIMD2<Float>, regionFromImage: (SIMD2<Float>, SIMD2<Float>)) {
      self.origin = origin
      self.regionFromImage = regionFromImage
    }
  }

  /// Reference regions of one size in one buffer, each in a slot of its own until freed (freed slots
  /// are used again), so that a frame's alignment passes them to the C kernel as they are, not copied
  /// into one buffer (some 750 KB for 300 tracks at 25²).
  package struct RegionStore {
    package let regionSize: Int
    /// The regions, slot by slot.
    package private(set) var values: [Float] = []
    private var freed: [Int32] = []

    package init(regionSize: Int) { self.regionSize = regionSize }

    /// The number of slots (in use or freed).
    package var slotCount: Int { values.count / (regionSize * regionSize) }

    /// Stores the region of `image` around `pixel` (see ``FeatureAlignment/region(of:around:size:)``)
    /// in `slot` when given, else in a free slot; returns the slot and where `pixel` lies in it.
    package mutating func store(
      _ image: GrayImage, around pixel: SIMD2<Float>, in slot: Int32? = nil
    ) -> (slot: Int32, origin: SIMD2<Float>) {
      let area = regionSize * regionSize
      let target: Int32
      if let slot {
        target = slot
      } else if let reused = freed.popLast() {
        target = reused
      } else {
        target = Int32(slotCount)
        values.append(contentsOf: repeatElement(-1, count: area))
      }
      let size = regionSize
      let origin = values.withUnsafeMutableBufferPointer { buffer in
        FeatureAlignment.write(
          image, around: pixel, size: size,
          into: UnsafeMutableBufferPointer(rebasing: buffer[Int(target) * area..<(Int(target) + 1) * area]))
      }
      return (target, origin)
    }

    /// Frees `slot` for a later region.
    package mutating func free(_ slot: Int32) { freed.append(slot) }
  }

  /// The `size`² region of `image` whose centre pixel is `pixel` rounded (intensities; -1 outside the
  /// image), and where `pixel` lies in it; all unknown for a pixel far off the image or not finite.
  package static func region(of image: GrayImage, around pixel: SIMD2<Float>, size: Int) -> (
    region: [Float], origin: SIMD2<Float>
  ) {
    var region = [Float](repeating: -1, count: size * size)
    let origin = region.withUnsafeMutableBufferPointer { write(image, around: pixel, size: size, into: $0) }
    return (region, origin)
  }

  /// Writes ``region(of:around:size:)`` into `region` (`size`² values); returns where `pixel` lies.
  private static func write(
    _ image: GrayImage, around pixel: SIMD2<Float>, size: Int, into region: UnsafeMutableBufferPointer<Float>
  ) -> SIMD2<Float> {
    let half = size / 2
    region.update(repeating: -1)
    // A pixel far off the image (or not finite) reads nothing (and must not trap in Int(_:)).
    let limit = Float(max(image.width, image.height) + size)
    guard pixel.x.magnitude <= limit, pixel.y.magnitude <= limit else {
      return SIMD2(Float(half), Float(half))
    }
    let cx = Int(pixel.x.rounded())
    let cy = Int(pixel.y.rounded())
    image.pixels.withUnsafeBufferPointer { pixels in
      for j in 0..<size {
        let y = cy - half + j
        guard y >= 0, y < image.height else { continue }
        for i in 0..<size {
          let x = cx - half + i
          guard x >= 0, x < image.width else { continue }
          region[j * size + i] = Float(pixels[y * image.width + x])
        }
      }
    }
    return SIMD2(Float(half) + pixel.x - Float(cx), Float(half) + pixel.y - Float(cy))
  }

  /// Aligns the features at `points` in `image` to their `references` (regions of `regionSize`²).
  /// Returns each one's aligned position, or nil where it could not be aligned (left to the caller).
  package static func align(
    in image: GrayImage, references: [Reference], regionSize: Int, points: [SIMD2<Float>],
    params: Params = Params()
  ) throws(VisionError) -> [SIMD2<Float>?] {
    guard references.allSatisfy({ $0.region.count == regionSize * regionSize }) else {
      throw .invalidArgument(
        "every reference region must hold regionSize² (\(regionSize * regionSize)) values")
    }
    let values = references.flatMap(\.region)
    return try align(
      in: image, regions: values, regionSize: regionSize, slots: references.indices.map { Int32($0) },
      warps: references.map(\.warp), points: points, params: params)
  }

  /// Aligns the features at `points` in `image` to their references: feature `f`'s region is slot
  /// `slots[f]` of `store`, seen through `warps[f]`. Returns each one's aligned position, or nil.
  package static func align(
    in image: GrayImage, store: RegionStore, slots: [Int32], warps: [Warp], points: [SIMD2<Float>],
    params: Params = Params()
  ) throws(VisionError) -> [SIMD2<Float>?] {
    try align(
      in: image, regions: store.values, regionSize: store.regionSize, slots: slots, warps: warps,
      points: points, params: params)
  }

  private static func align(
    in image: GrayImage, regions: [Float], regionSize: Int, slots: [Int32], warps references: [Warp],
    points: [SIMD2<Float>], params: Params
  ) throws(VisionError) -> [SIMD2<Float>?] {
    guard references.count == points.count, slots.count == points.count else {
      throw .invalidArgument(
        "references (\(references.count)), slots (\(slots.count)) and points (\(points.count)) differ in count"
      )
    }
    let count = try VisionError.int32(points.count, "points.count")
    let size = try VisionError.int32(regionSize, "regionSize")
    let regionCount = try VisionError.int32(regions.count / max(regionSize * regionSize, 1), "region count")
    let width = try VisionError.int32(image.width, "image.width")
    let height = try VisionError.int32(image.height, "image.height")
    let cParams = cv_align_params(
      half_patch: try VisionError.int32(params.halfPatch, "params.halfPatch"),
      max_iterations: try VisionError.int32(params.maxIterations, "params.maxIterations"),
      epsilon: params.epsilon, max_shift: params.maxShift, min_eigenvalue: params.minEigenvalue)
    var warps = [Float]()
    warps.reserveCapacity(6 * references.count)
    for reference in references {
      let (x, y) = reference.regionFromImage
      warps += [x.x, y.x, x.y, y.y, reference.origin.x, reference.origin.y]
    }
    var moved = [Float]()
    moved.reserveCapacity(2 * points.count)
    for p in points { moved += [p.x, p.y] }
    var aligned = [UInt8](repeating: 0, count: points.count)
    var status = cv_status()
    let code = image.pixels.withUnsafeBufferPointer { pixels in
      cv_align_features(
        cv_gray_image(pixels: pixels.baseAddress, width: width, height: height, stride: width), regions,
        regionCount, size, slots, warps, count, cParams, &moved, &aligned, &status)
    }
    try VisionError.check(code, status)
    return points.indices.map { aligned[$0] != 0 ? SIMD2(moved[2 * $0], moved[2 * $0 + 1]) : nil }
  }
}
