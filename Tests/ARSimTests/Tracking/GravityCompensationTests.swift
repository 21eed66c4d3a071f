import ARSimMath
import Foundation
import Testing

@testable import ARSim

/// Depth-only odometry integrates the accelerometer once the sum it must add to the turned samples,
/// gravity less the turned bias (``DepthOdometry/compensation(_:rotation:)``), is known: while the
/// camera keeps its orientation that sum is exact though gravity's direction is not (the bias hides it
/// until the camera turns).
@Suite struct GravityCompensationTests {
  @Test func aCameraThatDoesNotTurnKnowsGravityLessItsBiasNotGravity() throws {
    var motion = GravityEstimatorTests.Motion()
    motion.turn = 0
    let estimate = try #require(GravityEstimatorTests().run(seconds: 8, motion: motion))
    let rotation = motion.rotation(0)
    let compensation = DepthOdometry.compensation(estimate, rotation: rotation)
    let truth = motion.g - simd_double3x3(rotation) * motion.bias
    // Gravity alone is off by about the bias (0.04 m/s², 0.23 degrees): the prior holds the bias at 0.
    let gravityError = simd_length(estimate.gravity - motion.g)
    #expect(gravityError > 0.02, "gravity off by \(gravityError) m/s²")
    let error = simd_length(compensation.value - truth)
    #expect(error < 0.2 * gravityError, "g - R b off by \(error) m/s² (gravity by \(gravityError))")
    // Its standard deviation is well below what gravity's direction alone is known to.
    let gravitySigma = estimate.uncertaintyDegrees * .pi / 180 * simd_length(estimate.gravity)
    #expect(
      compensation.sigma < 0.5 * gravitySigma, "sigma \(compensation.sigma) against \(gravitySigma) m/s²")
  }

  @Test func aTurningCameraKnowsBoth() throws {
    let motion = GravityEstimatorTests.Motion()
    let estimate = try #require(GravityEstimatorTests().run(seconds: 8, motion: motion))
    let rotation = motion.rotation(8)
    let compensation = DepthOdometry.compensation(estimate, rotation: rotation)
    let truth = motion.g - simd_double3x3(rotation) * motion.bias
    #expect(simd_length(compensation.value - truth) < 0.01)
    #expect(compensation.sigma < 0.17, "sigma \(compensation.sigma) m/s², above a degree of tilt")
  }
}
