import ARSim
import ARSimMath
import ARSimSynth
import Foundation
import Testing

@Suite struct IMUTests {
  /// Gravity as an accelerometer at rest feels it: up, 9.81 m/s².
  let up = SIMD3<Double>(0, 9.81, 0)

  @Test func staticUprightCameraReadsGravityAlongMinusY() throws {
    var scene = SynthFixtures.scene()
    scene.trajectory = .init(keyframes: [
      .init(time: 0, position: SIMD3(0, 1.5, 2), lookAt: SIMD3(0, 1.5, 0)),
      .init(time: 1, position: SIMD3(0, 1.5, 2), lookAt: SIMD3(0, 1.5, 0)),
    ])
    let samples = try SceneRenderer(scene: scene).imuSamples(through: 1)
    #expect(samples.count == 201)
    for sample in samples {
      let a = try #require(sample.acceleration)
      let g = try #require(sample.rotationRate)
      #expect(simd_distance(a, SIMD3(0, -9.81, 0)) < 1e-3, "\(a)")
      #expect(simd_length(g) < 1e-6)
    }
  }

  @Test func staticTiltedCameraReadsRotatedGravity() throws {
    var scene = SynthFixtures.scene()
    scene.trajectory = .init(keyframes: [
      .init(time: 0, position: SIMD3(0, 1.5, 2), lookAt: SIMD3(0.3, 0, 0)),
      .init(time: 1, position: SIMD3(0, 1.5, 2), lookAt: SIMD3(0.3, 0, 0)),
    ])
    let renderer = try SceneRenderer(scene: scene)
    let rotation = renderer.pose(at: 0).rotation
    for sample in renderer.imuSamples(through: 1) {
      let a = try #require(sample.acceleration)
      #expect(simd_distance(a, rotation.conjugate.act(up)) < 1e-3)
      #expect(abs(simd_length(a) - 9.81) < 1e-3)
    }
  }

  @Test func movingCameraReadsRotatedGravityPlusAcceleration() throws {
    let scene = SynthFixtures.scene()
    let renderer = try SceneRenderer(scene: scene)
    let samples = renderer.imuSamples(through: scene.duration)
    #expect(samples.count == 201)
    let h = 1e-4
    var largest = 0.0
    for sample in samples {
      let t = sample.timestamp
      // Central second difference of the ground-truth positions.
      let p = { (t: Double) in renderer.pose(at: t).translation }
      let acceleration = (p(t + h) - 2 * p(t) + p(t - h)) / (h * h)
      let expected = renderer.pose(at: t).rotation.conjugate.act(acceleration + up)
      let a = try #require(sample.acceleration)
      #expect(simd_distance(a, expected) < 1e-3, "t = \(t): \(a) vs \(expected)")
      largest = max(largest, simd_length(acceleration))
      // Angular rate from a forward difference of the ground-truth orientations.
      let step = 1e-5
      let delta = renderer.pose(at: t).rotation.conjugate * renderer.pose(at: t + step).rotation
      let rate = RigidTransform.logRotation(delta) / step
      #expect(simd_distance(try #require(sample.rotationRate), rate) < 1e-3)
    }
    #expect(largest > 0.2, "the camera should accelerate")
  }

  @Test func noiseAndBiasHaveTheConfiguredStatistics() throws {
    var scene = SynthFixtures.scene()
    scene.duration = 1
    scene.sensors.imu?.accelerometerNoise = 0.05
    scene.sensors.imu?.accelerometerBias = SIMD3(0.1, -0.2, 0.3)
    scene.sensors.imu?.gyroNoise = 0.01
    scene.sensors.imu?.gyroBias = SIMD3(0.01, 0.02, -0.03)
    scene.sensors.imu?.rate = 400
    let renderer = try SceneRenderer(scene: scene)
    let samples = renderer.imuSamples(through: 1)
    var sum = SIMD3<Double>.zero
    var sumSquares = SIMD3<Double>.zero
    var gyroSum = SIMD3<Double>.zero
    for sample in samples {
      let residual =
        try #require(sample.acceleration) - renderer.trajectory.specificForce(at: sample.timestamp)
      sum += residual
      sumSquares += residual * residual
      gyroSum += try #require(sample.rotationRate) - renderer.trajectory.angularVelocity(at: sample.timestamp)
    }
    let n = Double(samples.count)
    let mean = sum / n
    let std = (sumSquares / n - mean * mean).squareRoot()
    // The mean of n samples is within 4 standard errors of the bias.
    #expect(simd_distance(mean, SIMD3(0.1, -0.2, 0.3)) < 4 * 0.05 / n.squareRoot() * 3.squareRoot())
    #expect(simd_distance(gyroSum / n, SIMD3(0.01, 0.02, -0.03)) < 4 * 0.01 / n.squareRoot() * 3.squareRoot())
    for axis in 0..<3 { #expect(abs(std[axis] - 0.05) < 0.01, "axis \(axis): \(std[axis])") }
  }
}
