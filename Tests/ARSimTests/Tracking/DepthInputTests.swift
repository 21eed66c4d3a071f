import ARSimMath
import ARSimTestSupport
import Foundation
import Testing

@testable import ARSim

@Suite struct FrameDepthTests {
  /// A 16x12 image over an 8x6 depth map (one depth pixel per 2x2 image pixels, corner convention):
  /// depth 1 m + 0.01 m per depth column, a 0.5 m step right of depth column 5.
  static let image = CameraIntrinsics(fx: 20, fy: 20, cx: 7.5, cy: 5.5, width: 16, height: 12)
  static let depthCamera = CameraIntrinsics(fx: 10, fy: 10, cx: 3.5, cy: 2.5, width: 8, height: 6)
  static func depth(confidence: ConfidenceMap? = nil) -> FrameDepth {
    var metres = [Float](repeating: 0, count: 48)
    for y in 0..<6 {
      for x in 0..<8 { metres[y * 8 + x] = Float(1 + 0.01 * Double(x) + (x > 5 ? 0.5 : 0)) }
    }
    return FrameDepth(
      map: DepthImage(width: 8, height: 6, metres: metres), confidence: confidence,
      depthIntrinsics: depthCamera, imageIntrinsics: image)
  }

  @Test func depthIsReadAtTheFeaturesRayAtItsOwnResolution() throws {
    let depth = Self.depth()
    // Image pixel (6.5, 4.5) is depth pixel (3, 2); (7.5, 5.5) the principal point, depth (3.5, 2.5):
    // bilinear between columns 3 and 4.
    let at = try #require(depth.sample(atImagePixel: SIMD2(6.5, 4.5), edgeBase: 0.01, edgeSlope: 0.02))
    #expect(abs(at.depth - 1.03) < 1e-6)
    #expect(at.confidence == 2)
    let centre = try #require(depth.sample(atImagePixel: SIMD2(7.5, 5.5), edgeBase: 0.01, edgeSlope: 0.02))
    #expect(abs(centre.depth - 1.035) < 1e-6)
    // Next to the 0.5 m step (depth column 5, whose neighbours reach column 6): an edge, no depth.
    #expect(depth.sample(atImagePixel: SIMD2(10.5, 4.5), edgeBase: 0.01, edgeSlope: 0.02) == nil)
    // The image border maps to the depth border: no 3x3 neighbourhood.
    #expect(depth.sample(atImagePixel: SIMD2(0, 4.5), edgeBase: 0.01, edgeSlope: 0.02) == nil)
  }

  @Test func maskedPixelsAndConfidenceAreReported() throws {
    var levels = [UInt8](repeating: 2, count: 48)
    levels[2 * 8 + 3] = 1
    let depth = Self.depth(confidence: ConfidenceMap(width: 8, height: 6, levels: levels))
    let medium = try #require(depth.sample(atImagePixel: SIMD2(6.5, 4.5), edgeBase: 0.01, edgeSlope: 0.02))
    #expect(medium.confidence == 1)
    var holed = Self.depth()
    holed = FrameDepth(
      map: DepthImage(
        width: 8, height: 6,
        metres: holed.map.metres.enumerated().map { $0.offset == 2 * 8 + 2 ? .nan : $0.element }),
      confidence: nil, depthIntrinsics: nil, imageIntrinsics: Self.image)
    // A masked neighbour (NaN) makes the pixel unusable; without depth intrinsics the image's are
    // scaled to the map.
    #expect(holed.sample(atImagePixel: SIMD2(6.5, 4.5), edgeBase: 0.01, edgeSlope: 0.02) == nil)
    #expect(holed.depthIntrinsics.width == 8)
    #expect(abs(holed.depthIntrinsics.fx - 10) < 1e-12)
  }

  /// A 64x48 depth map (the image's own size) of a slanted plane, 1/z = 0.5 + 0.05 x + 0.08 y in
  /// normalised coordinates (about 2 m away), with Gaussian noise of `noise` metres per pixel and a
  /// 0.5 m step from depth column `step` on.
  static func plane(noise: Double, step: Int = 64, seed: UInt64 = 7) -> (
    FrameDepth, (SIMD2<Double>) -> Double
  ) {
    let camera = CameraIntrinsics(fx: 50, fy: 50, cx: 31.5, cy: 23.5, width: 64, height: 48)
    func truth(_ pixel: SIMD2<Double>) -> Double {
      1 / (0.5 + 0.05 * (pixel.x - camera.cx) / camera.fx + 0.08 * (pixel.y - camera.cy) / camera.fy)
    }
    var random = SplitMix64(seed: seed)
    var metres = [Float](repeating: 0, count: 64 * 48)
    for y in 0..<48 {
      for x in 0..<64 {
        let z = truth(SIMD2(Double(x), Double(y))) + noise * random.gaussian() + (x >= step ? 0.5 : 0)
        metres[y * 64 + x] = Float(z)
      }
    }
    let depth = FrameDepth(
      map: DepthImage(width: 64, height: 48, metres: metres), confidence: nil, depthIntrinsics: camera,
      imageIntrinsics: camera)
    return (depth, truth)
  }

  /// Sub-pixel query points away from the border.
  static let queries: [SIMD2<Float>] = (3..<45).flatMap { y in
    (3..<61).map { x in SIMD2(Float(x) + 0.3, Float(y) - 0.2) }
  }

  @Test func aPlaneFittedInInverseDepthIsExactOnAPlaneAndAveragesTheNoise() throws {
    // Noise-free: 1/z is linear in the pixel on a plane, so the fit reads the true depth wherever the
    // 5x5 block is whole (bilinear interpolation of z is not exact on a slanted plane).
    let (clean, truth) = Self.plane(noise: 0)
    for q in Self.queries {
      let fitted = try #require(
        clean.fittedSample(atImagePixel: q, edgeBase: 0.01, edgeSlope: 0.02, radius: 2, spanFactor: 1.5))
      #expect(abs(fitted.depth - truth(SIMD2(Double(q.x), Double(q.y)))) < 1e-5)
    }
    // 5 mm noise per pixel: the fit's error about a third of the bilinear reading's (25 pixels
    // against 4), and the same pixels have a depth.
    let (noisy, _) = Self.plane(noise: 0.005)
    var fittedErrors: [Double] = []
    var bilinearErrors: [Double] = []
    for q in Self.queries {
      let expected = truth(SIMD2(Double(q.x), Double(q.y)))
      let bilinear = noisy.sample(atImagePixel: q, edgeBase: 0.01, edgeSlope: 0.02)
      let fitted = noisy.fittedSample(
        atImagePixel: q, edgeBase: 0.01, edgeSlope: 0.02, radius: 2, spanFactor: 1.5)
      #expect((bilinear == nil) == (fitted == nil))
      if let bilinear, let fitted {
        bilinearErrors.append(bilinear.depth - expected)
        fittedErrors.append(fitted.depth - expected)
      }
    }
    #expect(fittedErrors.count > Self.queries.count * 9 / 10)
    func rms(_ values: [Double]) -> Double {
      (values.reduce(0) { $0 + $1 * $1 } / Double(values.count)).squareRoot()
    }
    #expect(
      rms(fittedErrors) < 0.4 * rms(bilinearErrors),
      "fit \(rms(fittedErrors)) m, bilinear \(rms(bilinearErrors)) m")
    #expect(rms(fittedErrors) < 0.3 * 0.005)
  }

  @Test func nearAnEdgeTheFitFallsBackToTheThreeByThreeBlock() throws {
    let (depth, truth) = Self.plane(noise: 0, step: 40)
    // Depth column 38: the 5x5 block reaches the step, the 3x3 one does not (its fit is exact too).
    let beside = SIMD2<Float>(38.2, 20.1)
    let fitted = try #require(
      depth.fittedSample(atImagePixel: beside, edgeBase: 0.01, edgeSlope: 0.02, radius: 2, spanFactor: 1.5))
    #expect(abs(fitted.depth - truth(SIMD2(38.2, 20.1))) < 1e-5)
    // Column 39: its 3x3 block holds the step: no depth, as without the fit.
    #expect(
      depth.fittedSample(
        atImagePixel: SIMD2(39.2, 20.1), edgeBase: 0.01, edgeSlope: 0.02, radius: 2, spanFactor: 1.5)
        == nil)
    // Radius 0 is the bilinear reading.
    let bilinear = try #require(depth.sample(atImagePixel: beside, edgeBase: 0.01, edgeSlope: 0.02))
    let plain = try #require(
      depth.fittedSample(atImagePixel: beside, edgeBase: 0.01, edgeSlope: 0.02, radius: 0, spanFactor: 1.5))
    #expect(plain.depth == bilinear.depth)
  }
}
