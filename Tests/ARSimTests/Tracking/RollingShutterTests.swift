import ARSimMath
import Foundation
import Testing

@testable import ARSim

@Suite struct RollingShutterTests {
  static let intrinsics = CameraIntrinsics(fx: 250, fy: 250, cx: 159.5, cy: 119.5, width: 320, height: 240)

  /// A camera turning at 1 rad/s and moving at 0.6 m/s with a 20 ms readout sees static points where
  /// its row's pose puts them (found by iterating on the row); undone, they land where the camera at
  /// the frame's time sees them.
  @Test func movesFeaturesToWhereAGlobalShutterSeesThem() {
    let omega = SIMD3<Double>(0.3, -0.9, 0.25)
    let velocity = SIMD3<Double>(0.5, -0.1, 0.3)
    var shutter = RollingShutter(readout: 0.02, intrinsics: Self.intrinsics)
    shutter.angularVelocity = omega
    shutter.velocity = velocity
    var random = SplitMix64(seed: 3)
    var worst = 0.0
    var worstRotationOnly = 0.0
    var largestShift = 0.0
    for _ in 0..<200 {
      // A point in the frame-time camera, 0.8-4 m away, inside the image.
      let global = SIMD2(random.uniform(10, 310), random.uniform(10, 230))
      let z = random.uniform(0.8, 4)
      let point = Self.intrinsics.backProject(global, depth: z)
      // The row's camera (camera at t from camera at t + τ: turned by ωτ, moved by vτ) sees it at a
      // pixel whose row gives τ.
      var seen = global
      var depth = z
      for _ in 0..<20 {
        let tau = shutter.offset(row: seen.y)
        let inRow = RigidTransform.expRotation(omega * tau).inverse.act(point - velocity * tau)
        seen = Self.intrinsics.project(inRow)
        depth = inRow.z
      }
      let pixel = SIMD2<Float>(Float(seen.x), Float(seen.y))
      let undone = shutter.globalPixel(pixel, depth: depth)
      worst = max(worst, simd_length(SIMD2(Double(undone.x), Double(undone.y)) - global))
      largestShift = max(largestShift, simd_length(seen - global))
      let rotationOnly = shutter.globalPixel(pixel, depth: nil)
      worstRotationOnly = max(
        worstRotationOnly, simd_length(SIMD2(Double(rotationOnly.x), Double(rotationOnly.y)) - global))
    }
    #expect(largestShift > 2, "the shutter moves features by up to \(largestShift) px")
    #expect(worst < 0.01, "undone to within \(worst) px")
    // Without depth the turn is undone, the translation (up to 6 mm at 0.8 m: about 1.9 px) is not.
    #expect(worstRotationOnly < 2.5 && worstRotationOnly > 0.5, "rotation only: \(worstRotationOnly) px")
  }

  @Test func theMiddleRowAndAStillCameraAreUntouched() {
    var shutter = RollingShutter(readout: 0.02, intrinsics: Self.intrinsics)
    #expect(shutter.globalPixel(SIMD2(40, 10), depth: 2) == SIMD2(40, 10))
    shutter.angularVelocity = SIMD3(0, 1, 0)
    #expect(abs(shutter.offset(row: 119.5)) < 1e-12)
    #expect(abs(shutter.offset(row: -0.5) + 0.01) < 1e-12)
    let middle = shutter.globalPixel(SIMD2(40, 119.5), depth: 2)
    #expect(simd_length(middle - SIMD2(40, 119.5)) < 1e-4)
  }
}
