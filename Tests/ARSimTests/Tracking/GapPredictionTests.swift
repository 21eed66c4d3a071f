import ARSimMath
import Testing

@testable import ARSim

/// The IMU's prediction across a gap in the frames (``GapPrediction``) on exact samples of a known
/// motion: a camera turning about its optical y axis at a constant rate while accelerating along O's x.
@Suite struct GapPredictionTests {
  static let gravity = GapPrediction.Gravity(inO: SIMD3(0, -9.81, 0), bias: .zero, uncertaintyDegrees: 0.5)
  static let rate = SIMD3<Double>(0, 0.3, 0)
  static let acceleration = SIMD3<Double>(0.4, 0, 0)
  static let startVelocity = SIMD3<Double>(0.2, 0, -0.1)

  /// The true pose at time `t` (from t = 0 at the origin).
  static func pose(at t: Double) -> RigidTransform {
    RigidTransform(
      rotation: RigidTransform.expRotation(rate * t),
      translation: startVelocity * t + 0.5 * acceleration * t * t)
  }

  /// Samples every 5 ms in (`from`, `to`]: the rate and what an accelerometer reads, `Rᵀ(a − g)`.
  static func samples(from: Double, to: Double) -> [IMUSample] {
    stride(from: from + 0.005, through: to + 1e-9, by: 0.005).map { t in
      IMUSample(
        timestamp: t, acceleration: pose(at: t).rotation.inverse.act(acceleration - gravity.inO),
        rotationRate: rate)
    }
  }

  /// A prediction from t = 0.1 (the frame before at 0.033, 30 fps), its samples to `end`.
  static func prediction(to end: Double) -> GapPrediction {
    let previous = GapPrediction.Step(
      time: 1.0 / 30, oFromOptical: pose(at: 1.0 / 30), samples: samples(from: 1.0 / 30, to: 0.1))
    var prediction = GapPrediction(
      time: 0.1, oFromOptical: pose(at: 0.1), previous: previous, gravity: gravity, options: .init())
    prediction.add(samples(from: 0.1, to: end))
    return prediction
  }

  @Test func predictsThePoseAcrossAGap() throws {
    let end = 1.4
    let (predicted, sigma) = try #require(Self.prediction(to: end).prediction(at: end))
    let truth = Self.pose(at: end)
    // Rectangle-rule integration over 5 ms steps: millimetres after 1.3 s.
    #expect(simd_length(predicted.translation - truth.translation) < 0.01)
    #expect((truth.inverse * predicted).angle < 0.1 * .pi / 180)
    #expect(try #require(sigma) > 0.05)
  }

  @Test func rejectsAPoseOneTexturePeriodAway() {
    let prediction = Self.prediction(to: 1.4)
    let truth = Self.pose(at: 1.4)
    #expect(prediction.agrees(with: truth, at: 1.4))
    var shifted = truth
    shifted.translation.x += 2
    #expect(!prediction.agrees(with: shifted, at: 1.4))
    let turned =
      RigidTransform(rotation: RigidTransform.expRotation(SIMD3(0, 0.3, 0)), translation: .zero) * truth
    #expect(!prediction.agrees(with: turned, at: 1.4))
  }

  /// A pause: the samples during it are missing, so nothing is predicted and every pose passes.
  @Test func predictsNothingWithoutSamplesAcrossTheGap() {
    var prediction = Self.prediction(to: 0.1)
    prediction.add(Self.samples(from: 1.3, to: 1.4))
    #expect(prediction.prediction(at: 1.4) == nil)
    var shifted = Self.pose(at: 1.4)
    shifted.translation.x += 2
    #expect(prediction.agrees(with: shifted, at: 1.4))
  }

  /// A force that is not a number (a programmatic source's samples) ends the translation's
  /// prediction instead of making the predicted pose NaN (which, after a wide motion, would be the pose).
  @Test func predictsOnlyTheOrientationAfterANonFiniteForce() throws {
    var samples = Self.samples(from: 0.1, to: 1.4)
    samples[100].acceleration = SIMD3(.nan, 0, 0)
    var prediction = GapPrediction(
      time: 0.1, oFromOptical: Self.pose(at: 0.1),
      previous: GapPrediction.Step(
        time: 1.0 / 30, oFromOptical: Self.pose(at: 1.0 / 30), samples: Self.samples(from: 1.0 / 30, to: 0.1)),
      gravity: Self.gravity, options: .init())
    prediction.add(samples)
    let (predicted, sigma) = try #require(prediction.prediction(at: 1.4))
    #expect(sigma == nil)
    #expect((Self.pose(at: 1.4).inverse * predicted).angle < 0.1 * .pi / 180)
    #expect(predicted.translation.x.isFinite && predicted.translation.y.isFinite)
  }

  /// Without gravity (no accelerometer, or no estimate yet) only the orientation is predicted.
  @Test func predictsOnlyTheOrientationWithoutGravity() throws {
    var prediction = GapPrediction(
      time: 0.1, oFromOptical: Self.pose(at: 0.1), previous: nil, gravity: nil, options: .init())
    prediction.add(Self.samples(from: 0.1, to: 1.4))
    let (predicted, sigma) = try #require(prediction.prediction(at: 1.4))
    #expect(sigma == nil)
    #expect((Self.pose(at: 1.4).inverse * predicted).angle < 0.1 * .pi / 180)
    var shifted = Self.pose(at: 1.4)
    shifted.translation.x += 2
    #expect(prediction.agrees(with: shifted, at: 1.4))
  }
}
