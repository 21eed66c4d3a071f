import ARSimMath
import Foundation
import Testing

@testable import ARSim

@Suite struct PositionFilterTests {
  /// Frames per second of the measurements (a phone's depth).
  static let rate = 60.0

  /// A hand-held camera's path: position and acceleration at `t` seconds (metres, m/s²).
  static func path(_ t: Double) -> (position: SIMD3<Double>, acceleration: SIMD3<Double>) {
    let position = SIMD3(0.4 * sin(1.3 * t), 0.1 * cos(2.1 * t), 0.3 * t)
    let acceleration = SIMD3(-0.4 * 1.69 * sin(1.3 * t), -0.1 * 4.41 * cos(2.1 * t), 0)
    return (position, acceleration)
  }

  /// Deterministic noise, uniform in (-1, 1) per axis (a linear congruential generator).
  struct Noise {
    var state: UInt64 = 12_345
    mutating func next() -> SIMD3<Double> {
      SIMD3(
        (0..<3).map { _ in
          state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
          return Double(state >> 11) / Double(1 << 53) * 2 - 1
        })
    }
  }

  /// Runs the filter over 10 s of the path, measurements with `noise` metres of uniform noise (and
  /// one `outlier` metres off at frame 300), the accelerometer's exact acceleration when
  /// `accelerometer`; returns the RMS errors of the measurements and of the filter after the first
  /// second, and the filter's position at the outlier's frame.
  static func run(
    noise amplitude: Double, accelerometer: Bool, outlier: Double = 0,
    settings: PositionFilter.Noise = .init()
  ) -> (
    measured: Double, filtered: Double, atOutlier: SIMD3<Double>
  ) {
    var noise = Noise()
    var filter = PositionFilter(position: path(0).position, noise: settings)
    var measuredSquares = 0.0
    var filteredSquares = 0.0
    var count = 0.0
    var atOutlier = SIMD3<Double>.zero
    for frame in 1...Int(10 * rate) {
      let t = Double(frame) / rate
      let truth = path(t)
      filter.predict(dt: 1 / rate, acceleration: accelerometer ? truth.acceleration : nil)
      var measured = truth.position + amplitude * noise.next()
      if frame == 300 { measured.x += outlier }
      filter.update(measured: measured, dt: 1 / rate)
      if frame == 300 { atOutlier = filter.position }
      guard t > 1 else { continue }
      measuredSquares += simd_length_squared(measured - truth.position)
      filteredSquares += simd_length_squared(filter.position - truth.position)
      count += 1
    }
    return ((measuredSquares / count).squareRoot(), (filteredSquares / count).squareRoot(), atOutlier)
  }

  @Test func theAccelerometerSmoothsNoisyMeasurements() {
    // A phone alignment's centimetre of noise: the accelerometer-driven filter removes most of it.
    let errors = Self.run(noise: 0.015, accelerometer: true)
    #expect(errors.measured > 0.012)
    #expect(errors.filtered < 0.4 * errors.measured, "\(errors)")
    // The constant-velocity model smooths less, but still.
    let constant = Self.run(noise: 0.015, accelerometer: false)
    #expect(constant.filtered < 0.8 * constant.measured, "\(constant)")
    #expect(constant.filtered > errors.filtered)
  }

  @Test func exactMeasurementsAreFollowed() {
    // Exact depth (synthetic): the learnt measurement noise falls, and the filter lags by little
    // even without the accelerometer.
    let errors = Self.run(noise: 0, accelerometer: false)
    #expect(errors.filtered < 0.001, "\(errors)")
  }

  @Test func oneWrongMeasurementMovesTheEstimateLittle() {
    // 2.5 cm off with millimetres of noise: beyond the gate, within the restart. How far the
    // outlier moves the estimate, robust and not (the same noise otherwise).
    func moved(_ settings: PositionFilter.Noise) -> Double {
      let clean = Self.run(noise: 0.005, accelerometer: true, settings: settings)
      let wrong = Self.run(noise: 0.005, accelerometer: true, outlier: 0.025, settings: settings)
      return simd_length(wrong.atOutlier - clean.atOutlier)
    }
    var plain = PositionFilter.Noise()
    plain.gate = .infinity
    plain.restartGate = .infinity
    let robust = moved(PositionFilter.Noise())
    let unguarded = moved(plain)
    #expect(robust < 0.8 * unguarded, "\(robust) against \(unguarded)")
    #expect(robust < 0.2 * 0.025, "\(robust)")
  }

  @Test func aMeasurementFarBeyondThePredictionRestartsTheFilter() {
    var filter = PositionFilter(position: .zero, noise: PositionFilter.Noise())
    for frame in 1...60 {
      filter.predict(dt: 1 / Self.rate, acceleration: nil)
      filter.update(measured: SIMD3(0.001 * Double(frame), 0, 0), dt: 1 / Self.rate)
    }
    // A 2 m jump is no outlier of a few centimetres' noise: the prediction was wrong.
    filter.predict(dt: 1 / Self.rate, acceleration: nil)
    filter.update(measured: SIMD3(2, 0, 0), dt: 1 / Self.rate)
    #expect(filter.position == SIMD3(2, 0, 0))
    #expect(filter.velocity == .zero)
  }
}
