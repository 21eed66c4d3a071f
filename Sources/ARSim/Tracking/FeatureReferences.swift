/// Each track's appearance where it was last referenced (where its landmark was made, as a rule), to
/// which it is aligned in every later frame (``FeatureAlignment``, SVO's feature alignment) after KLT
/// has found it frame to frame. KLT from the last frame passes its error on along the track (a random
/// walk, growing with the track's length); aligned to its reference a track keeps about one frame's
/// error, so its landmark stays the point that was measured. The reference patch is warped by the
/// affine map that the surface's plane through the landmark predicts from the reference view to the
/// frame: the plane's normal from the depth's slant where it was made (RGB-D), else facing the
/// reference camera. A track that cannot be aligned (near the image's border, its patch foreshortened
/// past its region, occluded, or moved far from KLT's pixel) keeps KLT's pixel and is referenced anew
/// there, on the same plane.
struct FeatureReferences {
  /// A track's reference: the image region around it (its slot in ``regions``, and where the track
  /// lies in it), the reference camera (O from its optical frame) and the pixel it saw the track at,
  /// and the surface's normal in O.
  private struct Reference {
    var slot: Int32
    var origin: SIMD2<Float>
    var oFromOptical: RigidTransform
    var pixel: SIMD2<Float>
    var normal: SIMD3<Double>
  }

  let intrinsics: CameraIntrinsics
  let params = FeatureAlignment.Params()
  /// Side of the stored regions: the template (with its gradient's border, 5.5 px from the centre at
  /// the default patch) fits while the feature appears up to 2 times smaller than in its reference
  /// (1.4 times turned by 45°).
  let regionSize = 25
  private var references: [UInt64: Reference] = [:]
  private var regions: FeatureAlignment.RegionStore

  init(intrinsics: CameraIntrinsics) {
    self.intrinsics = intrinsics
    regions = FeatureAlignment.RegionStore(regionSize: regionSize)
  }

  /// References track `id` at `pixel` of `gray`, the frame at `oFromOptical`. Its surface's normal
  /// comes from the inverse depth's gradient `slope` (1/m per pixel) at the image point `point`, seen
  /// at z-depth `depth` (RGB-D); without a slope the surface faces the camera.
  mutating func add(
    _ id: UInt64, pixel: SIMD2<Float>, gray: GrayImage, oFromOptical: RigidTransform,
    slope: (point: SIMD2<Float>, depth: Double, gradient: SIMD2<Double>)? = nil
  ) {
    var normal = -intrinsics.ray(SIMD2(Double(pixel.x), Double(pixel.y)))
    if let slope {
      // On a plane n·X = ρ, 1/z = n·(x, y, 1)/ρ in normalised coordinates (x, y): n from 1/z's gradient.
      let ray = intrinsics.ray(SIMD2(Double(slope.point.x), Double(slope.point.y)))
      let gx = slope.gradient.x * intrinsics.fx
      let gy = slope.gradient.y * intrinsics.fy
      normal = SIMD3(gx, gy, 1 / slope.depth - ray.x * gx - ray.y * gy)
    }
    reference(
      id, pixel: pixel, gray: gray, oFromOptical: oFromOptical, normal: oFromOptical.rotation.act(normal))
  }

  private mutating func reference(
    _ id: UInt64, pixel: SIMD2<Float>, gray: GrayImage, oFromOptical: RigidTransform, normal: SIMD3<Double>
  ) {
    let (slot, origin) = regions.store(gray, around: pixel, in: references[id]?.slot)
    references[id] = Reference(
      slot: slot, origin: origin, oFromOptical: oFromOptical, pixel: pixel, normal: simd_normalize(normal))
  }

  /// The surface's displacement in O for one reference pixel along x and y, on the plane through
  /// `point` (O) with the reference's normal (facing the reference camera where that plane is seen
  /// nearly edge on): X(u) = C + t(u) r(u), r the pixel's ray in O, n·(X - point) = 0.
  private func steps(_ reference: Reference, through point: SIMD3<Double>) -> (SIMD3<Double>, SIMD3<Double>) {
    let rotation = reference.oFromOptical.rotation
    let ray = rotation.act(intrinsics.ray(SIMD2(Double(reference.pixel.x), Double(reference.pixel.y))))
    var n = reference.normal
    var facing = simd_dot(n, ray)
    if abs(facing) < 0.1 * simd_length(ray) {
      n = simd_normalize(ray)
      facing = simd_dot(n, ray)
    }
    let t = simd_dot(n, point - reference.oFromOptical.translation) / facing
    func step(_ rayStep: SIMD3<Double>) -> SIMD3<Double> {
      let along = rotation.act(rayStep)
      return t * (along - ray * (simd_dot(n, along) / facing))
    }
    return (step(SIMD3(1 / intrinsics.fx, 0, 0)), step(SIMD3(0, 1 / intrinsics.fy, 0)))
  }

  /// Aligns the tracks' pixels in `gray` (the frame at `opticalFromO`, predicted) to their references,
  /// and sets their ``FeatureFrontEnd/points`` to them; tracks not aligned are referenced anew at
  /// KLT's pixel. References of tracks no longer tracked are dropped.
  mutating func align(
    _ tracks: inout FeatureFrontEnd, in gray: GrayImage, opticalFromO: RigidTransform,
    landmarks: [UInt64: SIMD3<Double>]
  ) {
    let alive = Set(tracks.ids)
    // Collected first: removing while iterating the dictionary copied it.
    for id in references.keys.filter({ !alive.contains($0) }).sorted() {
      if let lost = references.removeValue(forKey: id) { regions.free(lost.slot) }
    }
    var indices: [Int] = []
    var slots: [Int32] = []
    var warps: [FeatureAlignment.Warp] = []
    let s = Double(params.halfPatch)
    for (i, id) in tracks.ids.enumerated() {
      guard let reference = references[id], let p = landmarks[id] else { continue }
      let (stepX, stepY) = steps(reference, through: p)
      guard let centre = tracks.project(p, opticalFromO),
        let alongX = tracks.project(p + s * stepX, opticalFromO),
        let alongY = tracks.project(p + s * stepY, opticalFromO)
      else { continue }
      // Image offset per reference pixel (the affine map's columns), inverted: region per image pixel.
      let a = (alongX - centre) / s
      let b = (alongY - centre) / s
      let det = a.x * b.y - a.y * b.x
      guard det > 1e-6, det.isFinite else { continue }
      let column0 = SIMD2(Float(b.y / det), Float(-a.y / det))
      let column1 = SIMD2(Float(-b.x / det), Float(a.x / det))
      indices.append(i)
      slots.append(reference.slot)
      warps.append(.init(origin: reference.origin, regionFromImage: (column0, column1)))
    }
    let found =
      (try? FeatureAlignment.align(
        in: gray, store: regions, slots: slots, warps: warps, points: indices.map { tracks.pixels[$0] },
        params: params)) ?? Array(repeating: nil, count: indices.count)
    var aligned = [Bool](repeating: false, count: tracks.count)
    for (k, i) in indices.enumerated() {
      if let pixel = found[k] {
        tracks.pixels[i] = pixel
        aligned[i] = true
      }
    }
    tracks.points = tracks.pixels
    for (i, id) in tracks.ids.enumerated() where !aligned[i] {
      guard landmarks[id] != nil, let normal = references[id]?.normal else { continue }
      reference(id, pixel: tracks.pixels[i], gray: gray, oFromOptical: opticalFromO.inverse, normal: normal)
    }
  }
}
