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
    /// Amplitude (m) of a hand tremor at ``tremorHertz`` on every axis, on top of the sway.
    var tremor = 0.0
    let tremorHertz = 4.7

    func position(_ t: Double) -> SIMD3<Double> {
      sway * SIMD3(0.3 * sin(1.3 * t), 0.1 * sin(2.1 * t + 1), 0.2 * sin(0.7 * t + 2))
        + tremor
        * SIMD3(
          sin(2 * .pi * tremorHertz * t), cos(2 * .pi * tremorHertz * t + 1),
          sin(2 * .pi * tremorHertz * t + 2))
    }
    func acceleration(_ t: Double) -> SIMD3<Double> {
      let w = 2 * .pi * tremorHertz
      return sway
        * SIMD3(-0.3 * 1.69 * sin(1.3 * t), -0.1 * 4.41 * sin(2.1 * t + 1), -0.2 * 0.49 * sin(0.7 * t + 2))
        - tremor * w * w * SIMD3(sin(w * t), cos(w * t + 1), sin(w * t + 2))
    }
    func rotation(_ t: Double) -> simd_quatd {
      simd_quatd(angle: turn * 0.6 * sin(0.9 * t), axis: SIMD3(0, 1, 0))
        * simd_quatd(angle: turn * 0.3 * sin(1.7 * t + 0.5), axis: SIMD3(1, 0, 0))
    }
  }

  /// The estimate after `seconds`; `drift(t)` is the odometry's orientation error at `t` (O's tracked
  /// orientations are `drift(t) · R(t)`), `memory` the estimator's ``GravityEstimator/memorySeconds``.
  func run(
    seconds: Double, motion: Motion = Motion(), frameRate: Int = 30, forceNoise: Double = 0.02,
    positionNoise: Double = 0.0005, memory: Double? = nil,
    drift: (Double) -> simd_quatd = { _ in simd_quatd(ix: 0, iy: 0, iz: 0, r: 1) }
  ) -> GravityEstimator.Estimate? {
    var random = SplitMix64(seed: 7)
    func gaussian() -> Double { random.gaussian() }
    var estimator = GravityEstimator()
    estimator.memorySeconds = memory
    var sampleIndex = 1
    for k in 0...Int(seconds * Double(frameRate)) {
      let t = Double(k) / Double(frameRate)
      var samples: [IMUSample] = []
      while sampleIndex * frameRate <= k * 100 {
        let s = Double(sampleIndex) / 100
        let force = motion.rotation(s).inverse.act(motion.acceleration(s) - motion.g) + motion.bias
        let noise = SIMD3(gaussian(), gaussian(), gaussian()) * forceNoise
        samples.append(IMUSample(timestamp: s, acceleration: force + noise, rotationRate: nil))
        sampleIndex += 1
      }
      let noise = SIMD3(gaussian(), gaussian(), gaussian()) * positionNoise
      estimator.add(
        time: t,
        oFromOptical: RigidTransform(
          rotation: drift(t) * motion.rotation(t), translation: motion.position(t) + noise),
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

  @Test(
    "A tremor the frames do not resolve (4.7 Hz seen at 10 fps, as the phone-profile sessions) does not tilt gravity"
  )
  func tremorBetweenSparseFrames() throws {
    // 0.3 mm at 4.7 Hz: 9 mm/s and 0.26 m/s² that a quadratic fit of the positions at 10 fps misses;
    // the samples see it. With the tracker's 3 s memory, each new segment's end velocity weighs most.
    let motion = Motion(tremor: 0.0003)
    let estimate = try #require(run(seconds: 8, motion: motion, frameRate: 10, memory: 3))
    let error = degrees(estimate.gravity, motion.g)
    // (The bias along gravity is not observable over 3 s of these turns; across it, it is.)
    #expect(error < 0.05, "gravity off by \(error)°")
  }

  @Test func improvesOverTheSession() throws {
    let motion = Motion()
    let early = try #require(run(seconds: 1.5))
    let late = try #require(run(seconds: 8))
    #expect(late.uncertaintyDegrees < early.uncertaintyDegrees)
    #expect(degrees(early.gravity, motion.g) < 0.5)
  }

  @Test(
    "With a memory the estimate follows the odometry's drifting orientation: gravity under the current camera"
  )
  func memoryFollowsDrift() throws {
    let motion = Motion()
    // The tracked orientation drifts by 0.1 degrees a second about O's x axis.
    let drift = { (t: Double) in simd_quatd(angle: 0.1 * t * .pi / 180, axis: SIMD3(1, 0, 0)) }
    let now = drift(12).act(motion.g)
    let whole = try #require(run(seconds: 12, drift: drift))
    let recent = try #require(run(seconds: 12, memory: 3, drift: drift))
    let (wholeError, recentError) = (degrees(whole.gravity, now), degrees(recent.gravity, now))
    #expect(wholeError > 0.4, "the session's average lags by \(wholeError)°")
    #expect(recentError < 0.6 * wholeError, "\(recentError)° with a 3 s memory, \(wholeError)° without")
    #expect(recent.uncertaintyDegrees > whole.uncertaintyDegrees, "less evidence")
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
