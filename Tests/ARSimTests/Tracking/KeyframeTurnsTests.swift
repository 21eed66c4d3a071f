import ARSimMath
import Foundation
import Testing

@testable import ARSim

@Suite struct KeyframeTurnsTests {
  /// 100 Hz gyroscope samples in (`start`, `end`] reading `rate` plus `bias` (rad/s, optical axes).
  static func samples(_ rate: SIMD3<Double>, bias: SIMD3<Double>, after start: Double, to end: Double)
    -> [IMUSample]
  {
    stride(from: start + 0.01, through: end + 1e-9, by: 0.01).map {
      IMUSample(timestamp: $0, acceleration: nil, rotationRate: rate + bias)
    }
  }

  static func degrees(_ a: simd_quatd, _ b: simd_quatd) -> Double {
    simd_length(RigidTransform.logRotation(a.inverse * b)) * 180 / .pi
  }

  /// A camera turning steadily, frames at 10 Hz and a keyframe every third frame whose adjusted turn is
  /// the true one: once five pairs over a second are in, the prior is the true turn (the bias of
  /// 0.0015 rad/s, 0.26° over a keyframe pair, taken out), with the random walk's standard deviation
  /// (the fit's is nil on exact turns); none before.
  @Test func fitsTheBiasToTheKeyframesTurns() throws {
    let rate = SIMD3(0.2, -0.3, 0.1)
    let bias = SIMD3(0.001, -0.0015, 0.0008)
    let noise = 0.01 * Double.pi / 180
    var turns = KeyframeTurns()
    var time = 0.0
    var pairs = 0
    for frame in 1...40 {
      let next = Double(frame) / 10
      turns.add(Self.samples(rate, bias: bias, after: time, to: next))
      turns.frame(at: next)
      time = next
      guard frame.isMultiple(of: 3) else { continue }
      let truth = RigidTransform.expRotation(rate * 0.3)
      if pairs >= 5 {
        let turn = try #require(turns.turn(noise: noise))
        #expect(Self.degrees(turn.previousFromThis, truth) < 1e-3)
        #expect(abs(turn.sigma - noise * 0.3.squareRoot()) < 1e-6)
      } else if frame > 3 {
        #expect(turns.turn(noise: noise) == nil)
      }
      turns.keyframeMade(adjusted: frame > 3 ? truth : nil)
      if frame > 3 { pairs += 1 }
    }
    let fitted = try #require(turns.bias)
    // Up to the second-order term of the turns (½ b × ω dt² per pair).
    #expect(simd_length(fitted.rate - bias) < 2e-4)
  }

  /// The fit's ground truth on noisy tracking: the adjusted turns come from keyframe orientations each
  /// off by an independent error of 0.05° per axis (a tracker's orientation error, bounded by its map,
  /// not a random walk), so a pair's turn is off by the difference of two of them. The fitted bias
  /// (1.9 mrad/s true) telescopes those errors over the session: after 2 s it is within 3 mrad/s,
  /// after 20 s within 0.3 mrad/s (about three standard deviations each), and closer at 20 s than at 2 s.
  @Test func theBiasFitConvergesOnNoisyTrackedTurns() throws {
    let rate = SIMD3(0.2, -0.3, 0.1)
    let bias = SIMD3(0.001, -0.0015, 0.0008)
    var turns = KeyframeTurns()
    var random = SplitMix64(seed: 13)
    let sigma = 0.05 * Double.pi / 180
    func orientationError() -> simd_quatd {
      RigidTransform.expRotation(SIMD3(random.gaussian(), random.gaussian(), random.gaussian()) * sigma)
    }
    var time = 0.0
    var truth = simd_quatd(ix: 0, iy: 0, iz: 0, r: 1)
    var tracked: simd_quatd?
    var early: Double?
    for frame in 1...200 {
      let next = Double(frame) / 10
      turns.add(Self.samples(rate, bias: bias, after: time, to: next))
      turns.frame(at: next)
      time = next
      truth = truth * RigidTransform.expRotation(rate * 0.1)
      guard frame.isMultiple(of: 3) else { continue }
      let current = truth * orientationError()
      turns.keyframeMade(adjusted: tracked.map { $0.inverse * current })
      tracked = current
      if early == nil, next >= 2, let fitted = turns.bias { early = simd_length(fitted.rate - bias) }
    }
    let errorAt2s = try #require(early)
    let errorAt20s = simd_length(try #require(turns.bias).rate - bias)
    #expect(errorAt2s < 3e-3)
    #expect(errorAt20s < 3e-4)
    #expect(errorAt20s < errorAt2s)
  }

  /// A frame the features did not measure breaks the chain until the next keyframe; without a
  /// gyroscope there is never a turn.
  @Test func aBrokenChainOrNoGyroscopeGivesNoTurn() throws {
    let rate = SIMD3(0.0, 0.2, 0.0)
    var turns = KeyframeTurns()
    var time = 0.0
    for frame in 1...30 {
      let next = Double(frame) / 10
      turns.add(Self.samples(rate, bias: .zero, after: time, to: next))
      turns.frame(at: next)
      time = next
      if frame == 25 { turns.breakChain() }
      if frame.isMultiple(of: 2) {
        turns.keyframeMade(adjusted: frame > 2 ? RigidTransform.expRotation(rate * 0.2) : nil)
      }
      if frame == 25 { #expect(turns.turn(noise: 0.0002) == nil) }
      if frame == 27 { #expect(turns.turn(noise: 0.0002) != nil) }
    }

    var blind = KeyframeTurns()
    for frame in 1...30 {
      let next = Double(frame) / 10
      blind.add([IMUSample(timestamp: next - 0.005, acceleration: SIMD3(0, -9.8, 0), rotationRate: nil)])
      blind.frame(at: next)
      if frame.isMultiple(of: 2) { blind.keyframeMade(adjusted: .init(ix: 0, iy: 0, iz: 0, r: 1)) }
      #expect(blind.turn(noise: 0.0002) == nil)
    }
  }
}
