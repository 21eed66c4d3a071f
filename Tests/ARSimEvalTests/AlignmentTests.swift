import Foundation
import Testing

@testable import ARSimEval

@Suite struct AlignmentTests {
  @Test func se3MovedTrajectoryAlignsBackExactly() throws {
    var rng = SplitMix64(seed: 21)
    let reference = wanderingTrajectory(count: 300)
    for _ in 0..<5 {
      let moved = rng.rigidTransform(extent: 50)
      // The estimate lives in another world frame: estimateWorldFromReferenceWorld · pose.
      let estimate = reference.transformed(by: Similarity(moved))
      let alignment = try estimate.alignment(to: reference, withScale: false)
      #expect(alignment.scale == 1)
      // The alignment is the inverse of the applied motion.
      let recovered = Similarity(moved) * alignment
      #expect(abs(abs(recovered.rotation.vector.w) - 1) < 1e-12)
      #expect(simd_length(recovered.translation) < 1e-9)
      let ate = try absoluteTrajectoryError(reference: reference, estimate: estimate)
      #expect(ate.statistics.rmse < 1e-9)
      #expect(ate.statistics.max < 1e-9)
      #expect(ate.statistics.count == 300)
      // Orientations come back too.
      let rotationError = try absoluteTrajectoryError(
        reference: reference, estimate: estimate, options: .init(relation: .rotationAngleDegrees))
      #expect(rotationError.statistics.max < 1e-6)
    }
  }

  @Test func sim3MovedAndScaledTrajectoryAlignsBackExactly() throws {
    var rng = SplitMix64(seed: 22)
    let reference = wanderingTrajectory(count: 200)
    for scale in [0.01, 0.37, 2.5, 40] {
      let moved = Similarity(rotation: rng.rotation(), translation: rng.vector(-10, 10), scale: scale)
      let estimate = reference.transformed(by: moved)
      let alignment = try estimate.alignment(to: reference, withScale: true)
      #expect(abs(alignment.scale * scale - 1) < 1e-12)
      let aligned = try estimate.aligned(to: reference, withScale: true)
      #expect(maxPositionDifference(aligned, reference) < 1e-9)
      let ate = try absoluteTrajectoryError(
        reference: reference, estimate: estimate, options: .init(alignment: .sim3))
      #expect(ate.statistics.rmse < 1e-9)
      // An SE(3) alignment cannot undo the scale: the error stays large.
      let rigid = try absoluteTrajectoryError(reference: reference, estimate: estimate)
      #expect(rigid.statistics.rmse > 0.01)
    }
  }

  @Test func alignmentReturnsNewValueAndLeavesInputUnchanged() throws {
    let reference = wanderingTrajectory(count: 50)
    let estimate = reference.transformed(
      by: Similarity(rotation: simd_quatd(angle: 1, axis: SIMD3(0, 0, 1)), translation: SIMD3(3, 0, 0)))
    let copy = estimate
    let aligned = try estimate.aligned(to: reference, withScale: false)
    #expect(estimate == copy)
    #expect(maxPositionDifference(aligned, reference) < 1e-12)
    #expect(aligned.timestamps == estimate.timestamps)
  }

  @Test func knownSim3FromFourPoints() throws {
    // target = 2 · Rz(90°) · source + (1, 2, 3).
    let source: [SIMD3<Double>] = [SIMD3(0, 0, 0), SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1)]
    let target = source.map { SIMD3(-2 * $0.y, 2 * $0.x, 2 * $0.z) + SIMD3(1, 2, 3) }
    let s = try Similarity.umeyama(from: source, to: target, withScale: true)
    #expect(abs(s.scale - 2) < 1e-14)
    #expect(simd_length(s.translation - SIMD3(1, 2, 3)) < 1e-14)
    let expected = simd_quatd(angle: .pi / 2, axis: SIMD3(0, 0, 1))
    #expect(abs(abs(simd_dot(s.rotation.vector, expected.vector)) - 1) < 1e-14)
  }

  @Test func mirroredPointsGiveTheBestProperRotation() throws {
    // The corners of a 6 × 4 × 1 m box, mirrored in z: a reflection would fit exactly, but the answer
    // must be a rotation. The cross-covariance is diag(9, 4, −0.25); the best proper rotation is the
    // identity (turning 180° about x would unmirror z but mirror the wider y), which a plain SVD without
    // Umeyama's sign correction gets wrong (it returns the reflection).
    var source: [SIMD3<Double>] = []
    for x in [-3.0, 3] {
      for y in [-2.0, 2] {
        for z in [-0.5, 0.5] { source.append(SIMD3(x, y, z)) }
      }
    }
    let target = source.map { SIMD3($0.x, $0.y, -$0.z) + SIMD3(10, 0, 0) }
    let rigid = try Similarity.umeyama(from: source, to: target, withScale: false)
    #expect(simd_almost_equal_elements(simd_double3x3(rigid.rotation), .identity, 1e-14))
    #expect(simd_length(rigid.translation - SIMD3(10, 0, 0)) < 1e-14)
    // Scale = (9 + 4 − 0.25) / (9 + 4 + 0.25).
    let similar = try Similarity.umeyama(from: source, to: target, withScale: true)
    #expect(abs(similar.scale - 12.75 / 13.25) < 1e-14)
  }

  @Test func planarTrajectoryAlignsWithoutAmbiguity() throws {
    // All positions in the plane z = 0: the cross-covariance has rank 2, the rotation is still unique.
    let poses = (0..<100).map { k -> RigidTransform in
      let a = Double(k) * 0.1
      return RigidTransform(translation: SIMD3(3 * cos(a), 2 * sin(2 * a), 0))
    }
    let reference = Trajectory(poses: poses)
    let moved = Similarity(
      rotation: simd_quatd(angle: 2.2, axis: simd_normalize(SIMD3(1, -2, 0.5))), translation: SIMD3(1, 2, 3))
    let estimate = reference.transformed(by: moved)
    let ate = try absoluteTrajectoryError(reference: reference, estimate: estimate)
    #expect(ate.statistics.max < 1e-9)
  }

  @Test func originAlignmentPutsFirstPoseOnReference() throws {
    let reference = wanderingTrajectory(count: 20)
    let offset = RigidTransform(
      rotation: simd_quatd(angle: 0.3, axis: SIMD3(0, 1, 0)), translation: SIMD3(5, -1, 2))
    let estimate = reference.transformed(by: Similarity(offset))
    let aligned = try estimate.originAligned(to: reference)
    #expect(simd_distance(aligned.poses[0].translation, reference.poses[0].translation) < 1e-12)
    // A rigidly moved copy is fully recovered by its first pose.
    #expect(maxPositionDifference(aligned, reference) < 1e-12)
    let ate = try absoluteTrajectoryError(
      reference: reference, estimate: estimate, options: .init(alignment: .origin))
    #expect(ate.statistics.max < 1e-12)
  }

  @Test func alignmentOnFirstPosesOnly() throws {
    // The estimate agrees with the reference (up to a known motion) on the first 30 poses and then
    // drifts; fitting on those 30 recovers the motion exactly.
    let reference = wanderingTrajectory(count: 100)
    let moved = Similarity(
      rotation: simd_quatd(angle: 0.5, axis: SIMD3(1, 0, 0)), translation: SIMD3(0, 4, 0))
    var poses = reference.transformed(by: moved).poses
    for k in 30..<100 { poses[k].translation += SIMD3(0.01 * Double(k - 30), 0, 0) }
    let estimate = Trajectory(timestamps: reference.timestamps, poses: poses)
    let ate = try absoluteTrajectoryError(
      reference: reference, estimate: estimate, options: .init(alignmentPoseCount: 30))
    #expect(ate.errors[..<30].allSatisfy { $0 < 1e-9 })
    #expect(abs(ate.errors[99] - 0.69) < 1e-9)
    #expect(throws: EvaluationError.self) {
      try absoluteTrajectoryError(
        reference: reference, estimate: estimate, options: .init(alignmentPoseCount: 0))
    }
  }

  @Test func mismatchedOrEmptyInputsThrow() {
    let reference = wanderingTrajectory(count: 10)
    let shorter = wanderingTrajectory(count: 9)
    #expect(throws: EvaluationError.self) {
      try absoluteTrajectoryError(reference: reference, estimate: shorter)
    }
    #expect(throws: EvaluationError.self) {
      try absoluteTrajectoryError(reference: Trajectory(), estimate: Trajectory())
    }
    let still = Trajectory(poses: Array(repeating: RigidTransform.identity, count: 5))
    #expect(throws: EvaluationError.self) { try still.alignment(to: still, withScale: true) }
  }

  @Test("The yaw-and-translation fit recovers a turn about the vertical and keeps both worlds' up")
  func yawAlignmentKeepsUp() throws {
    var random = SplitMix64(seed: 21)
    let source = (0..<60).map { _ in
      SIMD3(random.uniform(-2, 2), random.uniform(-0.2, 0.2), random.uniform(-3, 1))
    }
    // The target world's up is tilted (gravity along another axis); the truth is a turn of 0.9 rad
    // about it after taking up onto up, and a shift.
    let targetUp = simd_normalize(SIMD3(0.1, 1, -0.2))
    let truth =
      simd_quatd(angle: 0.9, axis: targetUp) * simd_quatd(from: SIMD3(0, 1, 0), to: targetUp)
    let shift = SIMD3(0.4, -1.2, 2.0)
    // Position noise that a free fit would answer with a tilt: a ramp along x in the vertical.
    let target = source.map { truth.act($0) + shift + 0.004 * $0.x * targetUp }
    let fit = try Similarity.yawAligned(
      from: source, to: target, sourceUp: SIMD3(0, 1, 0), targetUp: targetUp)
    #expect(simd_length(fit.rotation.act(SIMD3(0, 1, 0)) - targetUp) < 1e-12, "up stays up")
    #expect(abs(simd_dot(fit.rotation.vector, truth.vector)).magnitude > 1 - 1e-9)
    let free = try Similarity.umeyama(from: source, to: target, withScale: false)
    let freeTilt = acos(min(1, simd_dot(free.rotation.act(SIMD3(0, 1, 0)), targetUp)))
    #expect(freeTilt * 180 / .pi > 0.1, "the free fit tilts by \(freeTilt * 180 / .pi) degrees")
    #expect(throws: EvaluationError.self) {
      try Similarity.yawAligned(from: source, to: target, sourceUp: .zero, targetUp: targetUp)
    }
  }
}
