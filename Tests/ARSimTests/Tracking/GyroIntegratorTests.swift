import ARSimMath
import Foundation
import Testing

@testable import ARSim

@Suite struct GyroIntegratorTests {
  /// A 100 Hz gyroscope turning at `rate` (rad/s, optical axes) from `start` to `end` seconds.
  static func samples(_ rate: SIMD3<Double>, from start: Double, to end: Double) -> [IMUSample] {
    stride(from: start, through: end, by: 0.01).map {
      IMUSample(timestamp: $0, acceleration: nil, rotationRate: rate)
    }
  }

  static func degrees(_ a: simd_quatd, _ b: simd_quatd) -> Double {
    simd_length(RigidTransform.logRotation(a.inverse * b)) * 180 / .pi
  }

  @Test func integratesAConstantRateBetweenFrames() throws {
    var gyro = GyroIntegrator()
    #expect(gyro.rotation(at: 0) == nil)
    let rate = SIMD3(0.3, -0.2, 0.5)
    var all = Self.samples(rate, from: 0.005, to: 2)
    var time = 0.0
    // Frames at 60 Hz, the samples recorded up to each frame given before it.
    for frame in 1...100 {
      let next = Double(frame) / 60
      gyro.add(all.prefix { $0.timestamp <= next })
      all.removeAll { $0.timestamp <= next }
      let integrated = gyro.rotation(at: next)
      let turn = try #require(integrated)
      if frame > 1 {
        #expect(Self.degrees(turn, RigidTransform.expRotation(rate * (next - time))) < 1e-9)
      }
      time = next
    }
  }

  @Test func followsAChangingRateSampleBySample() throws {
    var gyro = GyroIntegrator()
    gyro.add([IMUSample(timestamp: 0, acceleration: nil, rotationRate: .zero)])
    _ = gyro.rotation(at: 0)
    // 0.1 s at 1 rad/s about x, then 0.1 s at 2 rad/s about y (each rate holds up to its sample).
    gyro.add(
      [0.05, 0.1].map { IMUSample(timestamp: $0, acceleration: nil, rotationRate: SIMD3(1, 0, 0)) }
        + [0.15, 0.2].map { IMUSample(timestamp: $0, acceleration: nil, rotationRate: SIMD3(0, 2, 0)) })
    let integrated = gyro.rotation(at: 0.2)
    let turn = try #require(integrated)
    let expected = RigidTransform.expRotation(SIMD3(0.1, 0, 0)) * RigidTransform.expRotation(SIMD3(0, 0.2, 0))
    #expect(Self.degrees(turn, expected) < 1e-9)
  }

  @Test func givesNothingWithoutRecentRates() {
    var gyro = GyroIntegrator()
    gyro.add([IMUSample(timestamp: 0, acceleration: SIMD3(0, -9.8, 0), rotationRate: nil)])
    #expect(gyro.rotation(at: 0.02) == nil)
    gyro.add(Self.samples(SIMD3(0, 0, 1), from: 0, to: 0.1))
    #expect(gyro.rotation(at: 0.11) != nil)
    // The samples stopped 0.3 s ago: no turn is made up.
    #expect(gyro.rotation(at: 0.4) == nil)
    gyro.reset()
    #expect(gyro.rotation(at: 0.5) == nil)
  }
}
