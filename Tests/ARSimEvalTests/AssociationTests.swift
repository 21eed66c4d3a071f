import Testing

@testable import ARSimEval

@Suite struct AssociationTests {
  private func stamped(_ stamps: [Double]) -> Trajectory {
    Trajectory(
      timestamps: stamps, poses: stamps.map { RigidTransform(translation: SIMD3($0, 0, 0)) })
  }

  @Test func jitteredEstimateMatchesNearestReferencePoses() throws {
    // Reference at 100 Hz; the estimate at every third reference time (33.3 Hz) with ±4 ms jitter.
    var rng = SplitMix64(seed: 41)
    let referenceStamps = (0..<300).map { 10 + Double($0) * 0.01 }
    let chosen = Array(stride(from: 0, to: 300, by: 3))
    let estimateStamps = chosen.map { referenceStamps[$0] + rng.uniform(-0.004, 0.004) }
    let result = try associate(reference: stamped(referenceStamps), estimate: stamped(estimateStamps))
    #expect(result.matches.map(\.first) == chosen)
    #expect(result.matches.map(\.second) == Array(chosen.indices))
    #expect(result.reference.count == chosen.count && result.estimate.count == chosen.count)
    // The trajectories keep their own timestamps.
    #expect(result.estimate.timestamps == estimateStamps)
    #expect(result.reference.timestamps == chosen.map { referenceStamps[$0] })
  }

  @Test func posesOutsideMaxDifferenceAreDropped() throws {
    let reference = stamped([1.0, 2.0, 3.0, 4.0])
    let estimate = stamped([1.005, 2.02, 2.995, 5.0])
    let result = try associate(reference: reference, estimate: estimate)
    #expect(result.matches == [IndexPair(0, 0), IndexPair(2, 2)])
    let loose = try associate(reference: reference, estimate: estimate, maxDifference: 0.05)
    #expect(loose.matches == [IndexPair(0, 0), IndexPair(1, 1), IndexPair(2, 2)])
  }

  @Test func offsetShiftsTheEstimateClock() throws {
    let reference = stamped([100, 100.1, 100.2, 100.3])
    let estimate = stamped([0.1, 0.2, 0.3])
    #expect(throws: EvaluationError.self) { try associate(reference: reference, estimate: estimate) }
    let result = try associate(reference: reference, estimate: estimate, offset: 100)
    #expect(result.matches == [IndexPair(1, 0), IndexPair(2, 1), IndexPair(3, 2)])
    #expect(result.estimate.timestamps == [0.1, 0.2, 0.3])
    // Shifting the estimate's clock instead gives the same matches.
    let shifted = try associate(reference: reference, estimate: estimate.shiftedInTime(by: 100))
    #expect(shifted.matches == result.matches)
  }

  @Test func tiesGoToTheEarlierStampAndShorterReferenceIsWalked() throws {
    // 1.5 is equally far from 1.0 and 2.0 (exact in binary): the earlier one wins.
    let tie = try associate(reference: stamped([1, 2, 3]), estimate: stamped([1.5]), maxDifference: 0.5)
    #expect(tie.matches == [IndexPair(0, 0)])
    // When the reference is the shorter one, its poses are walked and matched into the estimate.
    let reference = stamped([1, 2])
    let estimate = stamped([0.9, 1.02, 1.5, 1.97, 2.5])
    let result = try associate(reference: reference, estimate: estimate, maxDifference: 0.05)
    #expect(result.matches == [IndexPair(0, 1), IndexPair(1, 3)])
  }

  @Test func unsortedStampsMatchLikeSortedOnes() throws {
    let reference = stamped([3, 1, 2, 5, 4])
    let estimate = stamped([1.001, 1.999, 4.002])
    let result = try associate(reference: reference, estimate: estimate)
    #expect(result.matches == [IndexPair(1, 0), IndexPair(2, 1), IndexPair(4, 2)])
  }
}
