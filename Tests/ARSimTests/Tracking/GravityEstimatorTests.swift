import ARSimMath
import Foundation
import Testing

@testable import ARSim

@Suite struct GravityEstimatorTests {
  /// A hand-held camera: it sways (positions bounded, so its mean acceleration tends to zero but is
  /// far from zero over any second), turns about two axes, and its accelerometer has a 0.04 m/s² bias
  /// and white noise; positions come at 30 Hz with 0.5 mm noise, samples at 100 Hz.
  struct Motion {
    let g = SIMD3<Double>(0.4, 9.6, -1.9)  // gravity in O, |g| ≈ 9.79
    let bias = SIMD3<Double>(0.028, -0.024, 0.016)
    var sway = 1.0
    var turn = 1.0

    func position(_ t: Double) -> SIMD3<Double> {
      sway * SIMD3(0.3 * sin(1.3 * t), 0.1 * sin(2.1 * t + 1), 0.2 * sin(0.7 * t + 2))
    }
    func acceleration(_ t: Double) -> SIMD3<Double> {
      sway * SIMD3(-0.3 * 1.69 * sin(1.3 * t), -0.1 * 4.41 * sin(2.1 * t + 1), -0.2 * 0.49 * sin(0.7 * t + 2))
    }
    func rotation(_ t: Double) -> simd_quatd {
      simd_quatd(angle: turn * 0.6 * sin(0.9 * t), axis: SIMD3(0, 1, 0))
        * simd_quatd(angle: turn * 0.3 * sin(1.7 * t + 0.5), axis: SIMD3(1, 0, 0))
    }
  }

  func run(
    seconds: Double, motion: Motion = Motion(), forceNoise: Double = 0.02, positionNoise: Double = 0.0005
  ) -> GravityEstimator.Estimate? {
    var random = SplitMix64(seed: 7)
    func gaussian() -> Double { random.gaussian() }
    var estimator = GravityEstimator()
    var sampleIndex = 1
    for k in 0...Int(seconds * 30) {
      let t = Double(k) / 30
      var samples: [IMUSample] = []
      while sampleIndex * 30 <= k * 100 {
        let s = Double(sampleIndex) / 100
        let force = motion.rotation(s).inverse.act(motion.acceleration(s) - motion.g) + motion.bias
        let noise = SIMD3(gaussian(), gaussian(), gaussian()) * forceNoise
        samples.append(IMUSample(timestamp: s, acceleration: force + noise, rotationRate: nil))
        sampleIndex += 1
      }
      let noise = SIMD3(gaussian(), gaussian(), gaussian()) * positionNoise
      estimator.add(
        time: t,
        oFromOptical: RigidTransform(rotation: motion.rotation(t), translation: motion.position(t) + noise),
        samples: samples)
    }
    return estimator.estimate
  }

  func degrees(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double {
    atan2(simd_length(simd_cross(a, b)), simd_dot(a, b)) * 180 / .pi
  }

  @Test func recoversGravityAndBiasOfASwayingTurningCamera() throws {
    let motion = Motion()
    let estimate = try #require(run(seconds: 8))
    let error = degrees(estimate.gravity, motion.g)
    // The bias alone tilts a plain average by about 0.23°.
    #expect(error < 0.05, "gravity off by \(error)°")
    #expect(simd_length(estimate.bias - motion.bias) < 0.02, "bias \(estimate.bias)")
    #expect(abs(simd_length(estimate.gravity) - simd_length(motion.g)) < 0.02)
    #expect(estimate.uncertaintyDegrees > 0 && estimate.uncertaintyDegrees < 0.1)
    #expect(abs(estimate.seconds - 8) < 0.4)
  }

  @Test func improvesOverTheSession() throws {
    let motion = Motion()
    let early = try #require(run(seconds: 1.5))
    let late = try #require(run(seconds: 8))
    #expect(late.uncertaintyDegrees < early.uncertaintyDegrees)
    #expect(degrees(early.gravity, motion.g) < 0.5)
  }

  @Test func noEstimateBeforeASegmentCloses() {
    #expect(run(seconds: 0.2) == nil)
    var estimator = GravityEstimator()
    estimator.add(time: 0, oFromOptical: RigidTransform(), samples: [])
    estimator.breakChain()
    #expect(estimator.estimate == nil)
    #expect(GravityEstimator.inverse6([Double](repeating: 0, count: 36)) == nil)
  }
}
