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
}
