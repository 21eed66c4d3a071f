import ARSim
import ARSimMath
import Foundation
import Testing

@Suite struct ImageReductionTests {
  @Test func takesRoundedBlockMeansAndLeavesPartialBlocksOut() {
    let image = GrayImage(
      width: 5, height: 3, pixels: [0, 1, 2, 3, 4, 10, 12, 12, 14, 14, 20, 21, 22, 23, 24])
    let half = image.reduced(by: 2)
    #expect(half.width == 2 && half.height == 1)
    // (0 + 1 + 10 + 12) / 4 = 5.75 and (2 + 3 + 12 + 14) / 4 = 7.75; the fifth column and third row are
    // no whole block.
    #expect(half.pixels == [6, 8])
    #expect(image.reduced(by: 1) == image)
    let none = image.reduced(by: 8)
    #expect(none.width == 0 && none.height == 0)
  }

  /// Pixel centre `u` of the reduced image lies at `(u + 0.5)·factor − 0.5` in the full one: a blob's
  /// centroid maps back to where it is in the full image.
  @Test(arguments: [2, 4]) func keepsPixelCentresWhereTheIntrinsicsSay(factor: Int) {
    let (width, height) = (64, 48)
    let centre = SIMD2<Double>(27.3, 19.6)
    var pixels = [UInt8](repeating: 0, count: width * height)
    for y in 0..<height {
      for x in 0..<width {
        let d = SIMD2(Double(x), Double(y)) - centre
        pixels[y * width + x] = UInt8((240 * exp(-simd_length_squared(d) / 18)).rounded())
      }
    }
    let full = GrayImage(width: width, height: height, pixels: pixels)
    let reduced = full.reduced(by: factor)
    #expect(reduced.width == width / factor && reduced.height == height / factor)
    let mapped = (Self.centroid(reduced) + 0.5) * Double(factor) - 0.5
    #expect(
      simd_length(mapped - Self.centroid(full)) < 0.05, "centroid \(mapped) against \(Self.centroid(full))")
  }

  @Test func tracksLargeImagesAtTheLargestPowerOfTwoFractionThatFits() {
    var options = TrackerOptions()
    func reduction(_ width: Int, _ height: Int) -> Int {
      options.trackingReduction(
        for: CameraIntrinsics(fx: 1, fy: 1, cx: 0, cy: 0, width: width, height: height))
    }
    #expect(options.trackingMaxSide == 960)
    #expect(reduction(1440, 1920) == 2)
    #expect(reduction(720, 960) == 1)
    #expect(reduction(256, 192) == 1)
    #expect(reduction(3840, 2880) == 4)
    options.trackingMaxSide = 0
    #expect(reduction(3840, 2880) == 1)
  }

  private static func centroid(_ image: GrayImage) -> SIMD2<Double> {
    var sum = SIMD2<Double>.zero
    var mass = 0.0
    for y in 0..<image.height {
      for x in 0..<image.width {
        let v = Double(image[x, y])
        sum += v * SIMD2(Double(x), Double(y))
        mass += v
      }
    }
    return sum / mass
  }
}
