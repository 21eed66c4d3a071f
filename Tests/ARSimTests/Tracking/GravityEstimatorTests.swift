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
    /// The body rate at `t` (rad/s, optical frame), as a gyroscope reads it without bias or noise.
    func rate(_ t: Double) -> SIMD3<Double> {
      let h = 1e-4
      return RigidTransform.logRotation(rotation(t - h).inverse * rotation(t + h)) / (2 * h)
    }
  }

  /// The estimate after `seconds`; `drift(t)` is the odometry's orientation error at `t` (O's tracked
  /// orientations are `drift(t) · R(t)`), `scale` the tracked units per metre (a monocular map's), and
  /// `configure` sets the estimator up (the tracker's: ``GravityEstimator/driftDegrees`` and
  /// ``GravityEstimator/learnsNoise``).
  func run(
    seconds: Double, motion: Motion = Motion(), frameRate: Int = 30, forceNoise: Double = 0.02,
    positionNoise: Double = 0.0005, scale: Double = 1,
    drift: (Double) -> simd_quatd = { _ in simd_quatd(ix: 0, iy: 0, iz: 0, r: 1) },
    jump: (Double) -> SIMD3<Double> = { _ in .zero },
    knock: (Double) -> SIMD3<Double> = { _ in .zero },
    gyroBias: SIMD3<Double>? = nil, seed: UInt64 = 7, jitter: (Int) -> Double = { _ in 0 },
    configure: (inout GravityEstimator) -> Void = { _ in }
  ) -> GravityEstimator.Estimate? {
    var random = SplitMix64(seed: seed)
    func gaussian() -> Double { random.gaussian() }
    var estimator = GravityEstimator()
    configure(&estimator)
    var sampleIndex = 1
    for k in 0...Int(seconds * Double(frameRate)) {
      let t = Double(k) / Double(frameRate) + (k > 0 ? jitter(k) : 0)
      var samples: [IMUSample] = []
      while sampleIndex * frameRate <= k * 100 {
        let s = Double(sampleIndex) / 100
        let force = motion.rotation(s).inverse.act(motion.acceleration(s) - motion.g) + motion.bias
        let noise = SIMD3(gaussian(), gaussian(), gaussian()) * forceNoise
        // A phone gyroscope's white noise (0.0017 rad/s at 100 Hz), on top of its bias.
        let rate = gyroBias.map { motion.rate(s) + $0 + SIMD3(gaussian(), gaussian(), gaussian()) * 0.0017 }
        samples.append(IMUSample(timestamp: s, acceleration: force + noise + knock(s), rotationRate: rate))
        sampleIndex += 1
      }
      let noise = SIMD3(gaussian(), gaussian(), gaussian()) * positionNoise
      estimator.add(
        time: t,
        oFromOptical: RigidTransform(
          rotation: drift(t) * motion.rotation(t), translation: (motion.position(t) + noise + jump(t)) * scale
        ),
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
    // the samples see it. As the tracker sets it up: gravity may drift, the noise is learned.
    // The same session without the tremor (the same noise) is the reference: the estimates must agree
    // far closer than either is to the true gravity (the accelerometer's and positions' noise).
    let motion = Motion(tremor: 0.0003)
    let estimate = try #require(run(seconds: 8, motion: motion, frameRate: 10, configure: Self.tracker))
    let steady = try #require(run(seconds: 8, motion: Motion(), frameRate: 10, configure: Self.tracker))
    let tilt = degrees(estimate.gravity, steady.gravity)
    #expect(tilt < 0.01, "the tremor tilts gravity by \(tilt)°")
    let error = degrees(estimate.gravity, motion.g)
    #expect(error < 0.08, "gravity off by \(error)°")
  }

  @Test(
    "A knock the positions do not show (2.2 m/s² for 0.1 s in the samples) tilts gravity about half as much when outlying segments weigh less"
  )
  func outlyingSegmentsWeighLess() throws {
    let motion = Motion()
    let knock: (Double) -> SIMD3<Double> = { t in t >= 4 && t < 4.1 ? SIMD3(2, 0, 1) : .zero }
    func estimate(seconds: Double, knocked: Bool, weighsDown: Bool) throws -> SIMD3<Double> {
      try #require(
        run(
          seconds: seconds, motion: motion, frameRate: 10, knock: knocked ? knock : { _ in .zero },
          configure: {
            Self.tracker(&$0)
            $0.weighsOutliersDown = weighsDown
          })
      ).gravity
    }
    // 0.4, 0.8 and 1.2 s after it.
    for seconds in [4.4, 4.8, 5.2] {
      let weighed = degrees(try estimate(seconds: seconds, knocked: true, weighsDown: true), motion.g)
      let full = degrees(try estimate(seconds: seconds, knocked: true, weighsDown: false), motion.g)
      #expect(weighed < 0.6 * full, "\(seconds) s: \(weighed)° against \(full)° at full weight")
    }
    // Without the knock no segment is an outlier: the same estimate either way.
    let steady = try estimate(seconds: 8, knocked: false, weighsDown: true)
    #expect(steady == (try estimate(seconds: 8, knocked: false, weighsDown: false)))
    #expect(degrees(steady, motion.g) < 0.1)
  }

  @Test func improvesOverTheSession() throws {
    let motion = Motion()
    let early = try #require(run(seconds: 1.5))
    let late = try #require(run(seconds: 8))
    #expect(late.uncertaintyDegrees < early.uncertaintyDegrees)
    #expect(degrees(early.gravity, motion.g) < 0.5)
  }

  /// The tracker's set-up (``WorldLeveller``): gravity's direction may drift by 0.1°/√s, the segments'
  /// noise is learned, segments of 0.2 s.
  static func tracker(_ estimator: inout GravityEstimator) {
    estimator.driftDegrees = 0.1
    estimator.learnsNoise = true
    estimator.segmentSeconds = 0.2
  }

  @Test(
    "Allowed to drift, gravity follows the odometry's drifting orientation: gravity under the current camera")
  func followsDrift() throws {
    let motion = Motion()
    // The tracked orientation drifts by 0.1 degrees a second about O's x axis.
    let drift = { (t: Double) in simd_quatd(angle: 0.1 * t * .pi / 180, axis: SIMD3(1, 0, 0)) }
    let now = drift(12).act(motion.g)
    let fixed = try #require(run(seconds: 12, drift: drift))
    let drifting = try #require(run(seconds: 12, drift: drift, configure: Self.tracker))
    let (fixedError, driftingError) = (degrees(fixed.gravity, now), degrees(drifting.gravity, now))
    #expect(fixedError > 0.4, "the session's average lags by \(fixedError)°")
    #expect(driftingError < 0.3 * fixedError, "\(driftingError)° allowed to drift, \(fixedError)° not")
    // The bias has no drift of its own, but gravity's leaves it less well separated (the prior's
    // 0.1 m/s² bounds it).
    #expect(simd_length(drifting.bias - motion.bias) < 0.05, "bias \(drifting.bias)")
  }

  @Test(
    "With a biased gyroscope, gravity follows the odometry's drift as the gyroscope measures it, closer than the random walk alone"
  )
  func followsDriftFromTheGyroscope() throws {
    let motion = Motion()
    // The tracked orientation wanders by up to 0.4° about two axes and back (between loop closures),
    // with no steady rate that a gyroscope bias could take for its own; the gyroscope's bias is the
    // phone profile's (0.1°/s), fitted from the tracked rotations.
    let drift = { (t: Double) in
      simd_quatd(angle: 0.3 * sin(0.5 * t) * .pi / 180, axis: SIMD3(1, 0, 0))
        * simd_quatd(angle: 0.2 * sin(0.8 * t + 1) * .pi / 180, axis: SIMD3(0, 0, 1))
    }
    // 60 s: the bias fit's error over the estimate's memory (30 s) is then well under the walk's.
    let now = drift(60).act(motion.g)
    let bias = SIMD3(0.001, -0.0015, 0.0008)
    let walk = try #require(run(seconds: 60, drift: drift, configure: Self.tracker))
    let gyro = try #require(run(seconds: 60, drift: drift, gyroBias: bias, configure: Self.tracker))
    let (walkError, gyroError) = (degrees(walk.gravity, now), degrees(gyro.gravity, now))
    #expect(gyroError < 0.5 * walkError, "\(gyroError)° with the gyroscope, \(walkError)° without")
    #expect(simd_length(gyro.bias - motion.bias) < 0.03, "bias \(gyro.bias)")
    // Without drift the gyroscope's turns change nothing that matters.
    let still = try #require(run(seconds: 12, gyroBias: bias, configure: Self.tracker))
    #expect(degrees(still.gravity, motion.g) < 0.05, "\(degrees(still.gravity, motion.g))°")
  }

  @Test("A monocular map's scale (positions 4.7 units a metre) is estimated with gravity and the bias")
  func estimatesTheScale() throws {
    let motion = Motion()
    let scale = 4.7
    let held = try #require(run(seconds: 8, scale: scale))
    let free = try #require(
      run(
        seconds: 8, scale: scale,
        configure: {
          $0.scalePriorSigma = 10
          $0.learnsNoise = true
        }))
    #expect(
      degrees(held.gravity, motion.g) > 1, "metres taken for units: \(degrees(held.gravity, motion.g))°")
    #expect(degrees(free.gravity, motion.g) < 0.05, "gravity off by \(degrees(free.gravity, motion.g))°")
    #expect(abs(free.scale * scale - 1) < 0.01, "scale \(free.scale) metres a unit")
    #expect(held.scale == 1)
  }

  @Test("The segments' noise is learned: noisier tracked positions, a wider uncertainty")
  func learnsTheNoise() throws {
    let motion = Motion()
    let learn = { (estimator: inout GravityEstimator) in estimator.learnsNoise = true }
    let fine = try #require(run(seconds: 8, configure: learn))
    let coarse = try #require(run(seconds: 8, positionNoise: 0.003, configure: learn))
    #expect(
      coarse.uncertaintyDegrees > 2 * fine.uncertaintyDegrees,
      "\(coarse.uncertaintyDegrees)° vs \(fine.uncertaintyDegrees)°")
    #expect(degrees(fine.gravity, motion.g) < 0.05)
    #expect(degrees(coarse.gravity, motion.g) < 0.3)
  }

  @Test(
    "The velocity fit's window is counted in frames: capture times jittered by 0.4 ms move no frame in or out of it"
  )
  func windowIgnoresJitter() throws {
    // At 30 fps a 0.1 s half-window ends on the third frame: by time, jitter decided whether it was in,
    // and moved gravity by 0.037° (0.0003° counted in frames).
    let jitter = { (k: Int) in k % 2 == 0 ? 0.0004 : -0.0004 }
    let window = { (estimator: inout GravityEstimator) in
      Self.tracker(&estimator)
      estimator.velocityHalfWindow = 0.1
    }
    let exact = try #require(run(seconds: 8, configure: window))
    let jittered = try #require(run(seconds: 8, jitter: jitter, configure: window))
    let moved = degrees(exact.gravity, jittered.gravity)
    #expect(moved < 0.01, "jitter moves gravity by \(moved)°")
  }

  @Test("At 30 fps, velocities over 0.2 s on each side estimate gravity better than over 0.1 s")
  func longerWindowAtThirtyFramesPerSecond() throws {
    // Tracked positions with 1.5 mm of noise, as the phone profile's RGB-D tracking gives; the mean
    // over 8 seeds.
    let motion = Motion()
    var errors: [Double: Double] = [:]
    for halfWindow in [0.1, 0.2] {
      for seed in UInt64(1)...8 {
        let estimate = try #require(
          run(
            seconds: 8, positionNoise: 0.0015, seed: seed,
            configure: {
              Self.tracker(&$0)
              $0.velocityHalfWindow = halfWindow
            }))
        errors[halfWindow, default: 0] += degrees(estimate.gravity, motion.g) / 8
      }
    }
    #expect(
      errors[0.2]! < 0.9 * errors[0.1]!, "mean error \(errors[0.2]!)° at 0.2 s, \(errors[0.1]!)° at 0.1 s")
  }

  @Test func noEstimateBeforeASegmentCloses() {
    #expect(run(seconds: 0.2) == nil)
    var estimator = GravityEstimator()
    estimator.add(time: 0, oFromOptical: RigidTransform(), samples: [])
    estimator.breakChain()
    #expect(estimator.estimate == nil)
    #expect(DenseMatrix.inverse([Double](repeating: 0, count: 49), dimension: 7) == nil)
  }
}
