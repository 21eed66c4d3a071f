import Foundation
import Testing

@testable import ARSimEval

@Suite struct RelativePoseErrorTests {
  /// `count` poses along x, `step` metres apart, each turned by `k · turn` radians about z.
  private func line(count: Int, step: Double, turn: Double = 0) -> Trajectory {
    Trajectory(
      poses: (0..<count).map { k in
        RigidTransform(
          rotation: simd_quatd(angle: Double(k) * turn, axis: SIMD3(0, 0, 1)),
          translation: SIMD3(Double(k) * step, 0, 0))
      })
  }

  @Test func rigidlyMovedCopyHasNoRelativeError() throws {
    var rng = SplitMix64(seed: 31)
    let reference = wanderingTrajectory(count: 120)
    let estimate = reference.transformed(by: Similarity(rng.rigidTransform(extent: 20)))
    for options in [
      RelativeErrorOptions(), RelativeErrorOptions(delta: 7, allPairs: true),
      RelativeErrorOptions(delta: 0.5, deltaUnit: .metres),
      RelativeErrorOptions(relation: .rotationAngleDegrees),
    ] {
      let rpe = try relativePoseError(reference: reference, estimate: estimate, options: options)
      #expect(rpe.statistics.max < 1e-9)
      #expect(rpe.statistics.count > 0)
    }
  }

  @Test func constantStepErrorGivesKnownTranslationError() throws {
    // The reference moves 1 m per frame, the estimate 1.1 m: every pair of Δ frames is off by 0.1·Δ m.
    let reference = line(count: 21, step: 1)
    let estimate = line(count: 21, step: 1.1)
    let one = try relativePoseError(reference: reference, estimate: estimate)
    #expect(one.statistics.count == 20)
    #expect(abs(one.statistics.min - 0.1) < 1e-12)
    #expect(abs(one.statistics.max - 0.1) < 1e-12)
    #expect(abs(one.statistics.rmse - 0.1) < 1e-12)
    #expect(one.statistics.std < 1e-12)
    // Δ = 5 frames, consecutive pairs (0,5), (5,10), (10,15), (15,20): 0.5 m each.
    let five = try relativePoseError(reference: reference, estimate: estimate, options: .init(delta: 5))
    #expect(five.pairs == [IndexPair(0, 5), IndexPair(5, 10), IndexPair(10, 15), IndexPair(15, 20)])
    #expect(five.errors.allSatisfy { abs($0 - 0.5) < 1e-12 })
    // All pairs: (i, i + 5) for i = 0...15.
    let all = try relativePoseError(
      reference: reference, estimate: estimate, options: .init(delta: 5, allPairs: true))
    #expect(all.pairs.count == 16)
    #expect(abs(all.statistics.mean - 0.5) < 1e-12)
  }

  @Test func constantTurnErrorGivesKnownRotationError() throws {
    // Reference turns 10° per frame, the estimate 12°, both standing at the origin: 2° per frame.
    let degree = Double.pi / 180
    let reference = line(count: 10, step: 0, turn: 10 * degree)
    let estimate = line(count: 10, step: 0, turn: 12 * degree)
    let rpe = try relativePoseError(
      reference: reference, estimate: estimate, options: .init(relation: .rotationAngleDegrees))
    #expect(rpe.errors.allSatisfy { abs($0 - 2) < 1e-9 })
    let three = try relativePoseError(
      reference: reference, estimate: estimate, options: .init(delta: 3, relation: .rotationAngleDegrees))
    #expect(three.errors.allSatisfy { abs($0 - 6) < 1e-9 })
    // The translation error of a pure rotation is zero.
    let translation = try relativePoseError(reference: reference, estimate: estimate)
    #expect(translation.statistics.max < 1e-12)
  }

  @Test func constantSensorOffsetGivesKnownError() throws {
    // The estimate reports a point 0.2 m to the side of the sensor (P_k = Q_k · D, D a translation of
    // (0, 0.2, 0)) while the sensor turns 90° per frame in place: the relative error of each pair is
    // D⁻¹ Q_rel D vs Q_rel, whose translation is (R_rel − I)·d rotated back, length |R_rel d − d| =
    // 0.2·√2 m.
    let reference = line(count: 6, step: 0, turn: .pi / 2)
    let offset = RigidTransform(translation: SIMD3(0, 0.2, 0))
    let estimate = Trajectory(timestamps: reference.timestamps, poses: reference.poses.map { $0 * offset })
    let rpe = try relativePoseError(reference: reference, estimate: estimate)
    #expect(rpe.errors.allSatisfy { abs($0 - 0.2 * 2.0.squareRoot()) < 1e-12 })
    // Going straight without turning, the same offset cancels.
    let straight = line(count: 6, step: 1)
    let shifted = Trajectory(timestamps: straight.timestamps, poses: straight.poses.map { $0 * offset })
    #expect(try relativePoseError(reference: straight, estimate: shifted).statistics.max < 1e-12)
  }

  @Test func pathPairsInMetres() throws {
    let reference = line(count: 13, step: 1)
    // Consecutive: a pair ends where 3 m of path have been travelled since the previous end.
    let consecutive = try posePairs(in: reference, options: .init(delta: 3, deltaUnit: .metres))
    #expect(consecutive == [IndexPair(0, 3), IndexPair(3, 6), IndexPair(6, 9), IndexPair(9, 12)])
    // Older evo: the first pair starts at the first end, not at pose 0.
    let legacy = try posePairs(
      in: reference, options: .init(delta: 3, deltaUnit: .metres, pathPairsStartAtFirstPose: false))
    #expect(legacy == [IndexPair(3, 6), IndexPair(6, 9), IndexPair(9, 12)])
    // 2.5 m reaches at 3 m too.
    let rounded = try posePairs(in: reference, options: .init(delta: 2.5, deltaUnit: .metres))
    #expect(rounded == consecutive)
    // All pairs: j with the path from i nearest to 3 m, within 10 %.
    let all = try posePairs(in: reference, options: .init(delta: 3, deltaUnit: .metres, allPairs: true))
    #expect(all == (0..<10).map { IndexPair($0, $0 + 3) })
    // 2.5 m is 0.5 m from both 2 and 3 m: outside 10 % (0.25 m), no pair; inside 20 %, the nearer
    // tie goes to the lower index.
    #expect(
      try posePairs(in: reference, options: .init(delta: 2.5, deltaUnit: .metres, allPairs: true)).isEmpty)
    let tolerant = try posePairs(
      in: reference,
      options: .init(delta: 2.5, deltaUnit: .metres, allPairs: true, relativeDeltaTolerance: 0.2))
    #expect(tolerant == (0..<11).map { IndexPair($0, $0 + 2) })
  }

  @Test func allPathPairsPreferFirstPoseOfAStop() throws {
    // Positions 0, 1, 2, 2, 2, 3 m: from pose 0 the path of 2 m is first reached at pose 2.
    let xs: [Double] = [0, 1, 2, 2, 2, 3]
    let t = Trajectory(poses: xs.map { RigidTransform(translation: SIMD3($0, 0, 0)) })
    let pairs = try posePairs(in: t, options: .init(delta: 2, deltaUnit: .metres, allPairs: true))
    #expect(pairs.first == IndexPair(0, 2))
    #expect(pairs.contains(IndexPair(1, 5)))
  }

  @Test func sim3AlignmentRemovesScaleFromRelativeError() throws {
    // A monocular estimate at half scale in a rotated frame: unaligned RPE is half of each step; with
    // Sim(3) alignment it vanishes, with SE(3) alignment it stays (rigid motions do not change RPE).
    let reference = wanderingTrajectory(count: 90)
    let moved = Similarity(
      rotation: simd_quatd(angle: 1, axis: SIMD3(0, 1, 0)), translation: SIMD3(1, 1, 1), scale: 0.5)
    let estimate = reference.transformed(by: moved)
    let raw = try relativePoseError(reference: reference, estimate: estimate)
    let rigid = try relativePoseError(
      reference: reference, estimate: estimate, options: .init(alignment: .se3))
    let similar = try relativePoseError(
      reference: reference, estimate: estimate, options: .init(alignment: .sim3))
    let steps = (1..<90).map {
      simd_distance(reference.poses[$0].translation, reference.poses[$0 - 1].translation)
    }
    #expect(zip(raw.errors, steps).allSatisfy { abs($0 - 0.5 * $1) < 1e-12 })
    #expect(zip(rigid.errors, raw.errors).allSatisfy { abs($0 - $1) < 1e-9 })
    #expect(similar.statistics.max < 1e-9)
    #expect(abs(similar.alignment.scale - 2) < 1e-12)
  }

  @Test func invalidDeltasThrow() {
    let t = line(count: 5, step: 1)
    #expect(throws: EvaluationError.self) { try posePairs(in: t, options: .init(delta: 0)) }
    #expect(throws: EvaluationError.self) { try posePairs(in: t, options: .init(delta: 1.5)) }
    #expect(throws: EvaluationError.self) {
      try posePairs(in: t, options: .init(delta: -1, deltaUnit: .metres))
    }
    // A delta longer than the trajectory leaves no pair.
    #expect(throws: EvaluationError.self) {
      try relativePoseError(reference: t, estimate: t, options: .init(delta: 10))
    }
  }

  @Test func optionsDecodeWithDefaultsForMissingKeys() throws {
    let json = Data(#"{"delta": 10, "deltaUnit": "metres", "alignment": "sim3"}"#.utf8)
    let options = try JSONDecoder().decode(RelativeErrorOptions.self, from: json)
    #expect(options == RelativeErrorOptions(delta: 10, deltaUnit: .metres, alignment: .sim3))
    let absolute = try JSONDecoder().decode(AbsoluteErrorOptions.self, from: Data("{}".utf8))
    #expect(absolute == AbsoluteErrorOptions())
    #expect(absolute.alignment == .se3)
    let roundTrip = try JSONDecoder().decode(
      RelativeErrorOptions.self, from: JSONEncoder().encode(options))
    #expect(roundTrip == options)
  }

  @Test func pathLength() {
    #expect(abs(line(count: 11, step: 0.3).pathLength - 3) < 1e-12)
    #expect(Trajectory().pathLength == 0)
    let square = Trajectory(
      poses: [SIMD3<Double>(0, 0, 0), SIMD3(1, 0, 0), SIMD3(1, 1, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 0)].map {
        RigidTransform(translation: $0)
      })
    #expect(square.pathLength == 4)
    #expect(square.distancesFromStart == [0, 1, 2, 3, 4])
  }
}
