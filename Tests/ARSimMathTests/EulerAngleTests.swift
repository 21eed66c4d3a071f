import ARSimMath
import Foundation
import Testing

@Suite struct EulerAngleTests {
  func rotation(_ angle: Double, _ axis: SIMD3<Double>) -> simd_double3x3 {
    simd_double3x3(simd_quatd(angle: angle, axis: axis))
  }

  @Test func singleAxisRotations() {
    #expect(isClose(simd_double3x3.identity.eulerAngles, .zero, 0))
    #expect(isClose(rotation(0.3, SIMD3(1, 0, 0)).eulerAngles, SIMD3(0.3, 0, 0), 1e-15))
    #expect(isClose(rotation(0.5, SIMD3(0, 1, 0)).eulerAngles, SIMD3(0, 0.5, 0), 1e-15))
    #expect(isClose(rotation(-0.7, SIMD3(0, 0, 1)).eulerAngles, SIMD3(0, 0, -0.7), 1e-15))
    #expect(isClose(rotation(3, SIMD3(0, 1, 0)).eulerAngles, SIMD3(0, 3, 0), 1e-14))
  }

  @Test func rollThenPitchThenYaw() {
    // ARKit applies roll (z) first, then pitch (x), then yaw (y): R = Ry · Rx · Rz.
    let (pitch, yaw, roll) = (0.4, -1.2, 2.0)
    let r = rotation(yaw, SIMD3(0, 1, 0)) * rotation(pitch, SIMD3(1, 0, 0)) * rotation(roll, SIMD3(0, 0, 1))
    #expect(isClose(r.eulerAngles, SIMD3(pitch, yaw, roll), 1e-14))
    #expect(maxDifference(simd_double3x3(eulerAngles: SIMD3(pitch, yaw, roll)), r) < 1e-15)
    var transform = simd_float4x4(simd_quatf(simd_float3x3(r)))
    transform.columns.3 = SIMD4(1, 2, 3, 1)
    #expect(isClose(transform.eulerAngles, SIMD3<Float>(0.4, -1.2, 2.0), 1e-5))
    #expect(
      isClose(
        simd_float4x4(eulerAngles: SIMD3<Float>(0.4, -1.2, 2.0)).eulerAngles, SIMD3(0.4, -1.2, 2.0), 1e-5))
  }

  @Test func cameraLookingLeftAndUp() {
    // A camera turned 30° to the left (about +y) and tilted 10° up (about its x axis).
    let cameraRotation =
      simd_quatd(angle: .pi / 6, axis: SIMD3(0, 1, 0)) * simd_quatd(angle: .pi / 18, axis: SIMD3(1, 0, 0))
    let angles = simd_double4x4(cameraRotation).eulerAngles
    #expect(isClose(angles, SIMD3(.pi / 18, .pi / 6, 0), 1e-15))
  }

  @Test func roundTripOverRandomAngles() {
    var rng = SplitMix64(seed: 18)
    for _ in 0..<500 {
      let angles = SIMD3(rng.uniform(-1.5, 1.5), rng.uniform(-3.1, 3.1), rng.uniform(-3.1, 3.1))
      let r = simd_double3x3(eulerAngles: angles)
      #expect(isClose(r.eulerAngles, angles, 1e-12))
      #expect(maxDifference(r.transpose * r, .identity) < 1e-14)
    }
  }

  @Test func gimbalLock() {
    // Pitch +90°: only yaw − roll... is determined; roll is reported as 0 and the matrix is reproduced.
    let r = simd_double3x3(eulerAngles: SIMD3(.pi / 2, 0.3, 0.2))
    let angles = r.eulerAngles
    #expect(abs(angles.x - .pi / 2) < 1e-7)
    #expect(angles.z == 0)
    #expect(maxDifference(simd_double3x3(eulerAngles: angles), r) < 1e-7)
  }
}
