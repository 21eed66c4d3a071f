import ARSim
import Foundation
import Testing

/// Feature alignment against a reference patch (SVO's): the position to a hundredth of a pixel through
/// an affine warp and an exposure change, and the refusals.
@Suite struct FeatureAlignmentTests {
  /// A smooth texture as a function of continuous coordinates: sines at five orientations, periods
  /// 7.5...19 px (the patch holds structure in every direction).
  static func texture(_ p: SIMD2<Double>) -> Double {
    let waves: [(direction: SIMD2<Double>, period: Double, phase: Double)] = [
      (SIMD2(0.95, 0.31), 9, 0.4), (SIMD2(-0.39, 0.92), 13, 1.1), (SIMD2(0.6, -0.8), 7.5, 2),
      (SIMD2(0.2, 0.98), 19, 0.3), (SIMD2(0.99, -0.12), 11, 2.7),
    ]
    return waves.reduce(128) { $0 + 22 * sin(2 * .pi * ($1.direction * p).sum() / $1.period + $1.phase) }
  }

  /// An 80x80 image whose pixel p shows the texture at `from + inverse · (p - to)`, times `gain` plus
  /// `offset`: the texture's point `from` seen at `to`, image offsets being `inverse`⁻¹ times the
  /// texture's (columns of `inverse`).
  static func render(
    from: SIMD2<Double> = .zero, to: SIMD2<Double> = .zero,
    inverse: (SIMD2<Double>, SIMD2<Double>) = (SIMD2(1, 0), SIMD2(0, 1)), gain: Double = 1, offset: Double = 0
  ) -> GrayImage {
    let size = 80
    var pixels = [UInt8](repeating: 0, count: size * size)
    for y in 0..<size {
      for x in 0..<size {
        let d = SIMD2(Double(x), Double(y)) - to
        let value = gain * texture(from + inverse.0 * d.x + inverse.1 * d.y) + offset
        pixels[y * size + x] = UInt8(max(0, min(255, value.rounded())))
      }
    }
    return GrayImage(width: size, height: size, pixels: pixels)
  }

  static let from = SIMD2<Double>(40.3, 39.6)
  static let to = SIMD2<Double>(41.75, 38.2)
  static let reference = render()

  /// The reference around `from`, with the warp `inverse` (region pixels per image pixel).
  static func input(_ inverse: (SIMD2<Double>, SIMD2<Double>), region size: Int = 25)
    -> FeatureAlignment.Reference
  {
    let (region, origin) = FeatureAlignment.region(of: reference, around: SIMD2(from), size: size)
    return FeatureAlignment.Reference(
      region: region, origin: origin, regionFromImage: (SIMD2(inverse.0), SIMD2(inverse.1)))
  }

  /// A rotation by `degrees` and a scale, as the inverse's columns.
  static func rotation(_ degrees: Double, scale: Double) -> (SIMD2<Double>, SIMD2<Double>) {
    let (c, s) = (cos(degrees * .pi / 180) * scale, sin(degrees * .pi / 180) * scale)
    return (SIMD2(c, s), SIMD2(-s, c))
  }

  static let warps: [(SIMD2<Double>, SIMD2<Double>)] = [
    (SIMD2(1, 0), SIMD2(0, 1)), rotation(12, scale: 1.2), rotation(-8, scale: 0.85),
    (SIMD2(1.1, 0.15), SIMD2(-0.05, 0.9)),
  ]

  /// From a start 1.1 px off, with the image 15% darker and 14 levels brighter, each warp (identity,
  /// rotated and scaled both ways, sheared) is aligned to within 0.05 px, as KLT finds a shift
  /// (``LucasKanadeTests``); what remains comes from the 8-bit images and the two bilinear readings.
  @Test(arguments: 0..<4) func findsThePointThroughAWarpAndAnExposureChange(warp index: Int) throws {
    let inverse = Self.warps[index]
    let image = Self.render(from: Self.from, to: Self.to, inverse: inverse, gain: 0.85, offset: 14)
    let start = SIMD2<Float>(Self.to) + SIMD2(0.9, -0.65)
    let found = try FeatureAlignment.align(
      in: image, references: [Self.input(inverse)], regionSize: 25, points: [start])
    let point = try #require(found[0])
    let error = simd_length(SIMD2<Double>(point) - Self.to)
    #expect(error < 0.05, "aligned \(error) px off")
  }

  /// The warp matters: the rotated and scaled view aligned with no warp lands off the point (or fails),
  /// many times farther than with its warp.
  @Test func aWrongWarpMissesThePoint() throws {
    let inverse = Self.warps[1]
    let image = Self.render(from: Self.from, to: Self.to, inverse: inverse)
    let start = [SIMD2<Float>(Self.to) + SIMD2(0.3, 0.2)]
    let right = try #require(
      try FeatureAlignment.align(in: image, references: [Self.input(inverse)], regionSize: 25, points: start)[
        0])
    let wrong = try FeatureAlignment.align(
      in: image, references: [Self.input(Self.warps[0])], regionSize: 25, points: start)[0]
    let rightError = simd_length(SIMD2<Double>(right) - Self.to)
    let wrongError = wrong.map { simd_length(SIMD2<Double>($0) - Self.to) } ?? .infinity
    #expect(rightError < 0.05 && wrongError > 0.3, "with the warp \(rightError) px, without \(wrongError) px")
  }

  /// Nothing to align to: a flat reference, an unknown region (outside its image), a patch off the
  /// image, a warp needing more than the region holds, or a start too far to reach within the
  /// largest shift. Each leaves its point to the caller; the others in the same call still align.
  @Test func refusesWhatItCannotAlign() throws {
    let image = Self.render(from: Self.from, to: Self.to)
    let good = Self.input(Self.warps[0])
    let identity = (SIMD2<Float>(1, 0), SIMD2<Float>(0, 1))
    let flat = FeatureAlignment.Reference(
      region: [Float](repeating: 128, count: 625), origin: SIMD2(12, 12), regionFromImage: identity)
    let unknown = FeatureAlignment.Reference(
      region: [Float](repeating: -1, count: 625), origin: SIMD2(12, 12), regionFromImage: identity)
    let tooSmall = FeatureAlignment.Reference(
      region: good.region, origin: good.warp.origin, regionFromImage: (SIMD2(3, 0), SIMD2(0, 3)))
    let target = SIMD2<Float>(Self.to)
    let found = try FeatureAlignment.align(
      in: image, references: [flat, unknown, good, tooSmall, good, good], regionSize: 25,
      points: [target, target, SIMD2(1.5, 40), target, target + SIMD2(4, 0), target + SIMD2(0.2, 0.1)])
    #expect(found.prefix(5).allSatisfy { $0 == nil }, "\(found)")
    let last = try #require(found[5])
    #expect(simd_length(SIMD2<Double>(last) - Self.to) < 0.05)
  }

  /// A reference made at a pixel that is not finite, or far off the image, holds nothing (no trap).
  @Test func aRegionOffTheImageIsUnknown() {
    for pixel in [SIMD2<Float>(.nan, 3), SIMD2(.infinity, 0), SIMD2(1e30, -1e30), SIMD2(-200, 40)] {
      let (region, _) = FeatureAlignment.region(of: Self.reference, around: pixel, size: 25)
      #expect(region.count == 625 && region.allSatisfy { $0 == -1 }, "\(pixel)")
    }
  }

  /// A store's regions are the regions `region(of:around:size:)` reads, in slots of their own that
  /// are used again once freed; aligned from the store, a feature lands where it lands from its
  /// region, bit for bit.
  @Test func storedRegionsAlignAsTheirRegions() throws {
    var store = FeatureAlignment.RegionStore(regionSize: 25)
    let pixels: [SIMD2<Float>] = [SIMD2(Self.from), SIMD2(20.4, 31.6), SIMD2(-3, 5), SIMD2(60.5, 22.2)]
    let slots = pixels.map { store.store(Self.reference, around: $0).slot }
    #expect(slots == [0, 1, 2, 3])
    for (pixel, slot) in zip(pixels, slots) {
      let (region, _) = FeatureAlignment.region(of: Self.reference, around: pixel, size: 25)
      #expect(Array(store.values[Int(slot) * 625..<(Int(slot) + 1) * 625]) == region)
    }
    store.free(1)
    #expect(store.store(Self.reference, around: SIMD2(Self.from), in: nil).slot == 1)
    #expect(store.slotCount == 4)

    let inverse = Self.warps[1]
    let image = Self.render(from: Self.from, to: Self.to, inverse: inverse, gain: 0.9, offset: 6)
    let start = [SIMD2<Float>(Self.to) + SIMD2(0.7, -0.4)]
    let reference = Self.input(inverse)
    let fromRegion = try FeatureAlignment.align(
      in: image, references: [reference], regionSize: 25, points: start)
    let fromStore = try FeatureAlignment.align(
      in: image, store: store, slots: [1], warps: [reference.warp], points: start)
    #expect(fromRegion[0] != nil && fromStore[0] == fromRegion[0])
    // A slot that is not in the store is refused.
    #expect(throws: VisionError.self) {
      try FeatureAlignment.align(in: image, store: store, slots: [4], warps: [reference.warp], points: start)
    }
  }

  @Test func rejectsBadArguments() {
    let reference = Self.input(Self.warps[0])
    #expect(throws: VisionError.self) {
      try FeatureAlignment.align(in: Self.reference, references: [reference], regionSize: 25, points: [])
    }
    #expect(throws: VisionError.self) {
      try FeatureAlignment.align(
        in: Self.reference, references: [reference], regionSize: 24, points: [SIMD2(40, 40)])
    }
    var halfPatch = FeatureAlignment.Params()
    halfPatch.halfPatch = 1
    var epsilon = FeatureAlignment.Params()
    epsilon.epsilon = .infinity
    for params in [halfPatch, epsilon] {
      #expect(throws: VisionError.self) {
        try FeatureAlignment.align(
          in: Self.reference, references: [reference], regionSize: 25, points: [SIMD2(40, 40)], params: params
        )
      }
    }
  }
}
