import ARSim
import ARSimEval
import ARSimTestSupport
import Foundation
import Testing

@Suite("The session's recorded trajectory is in the final world")
struct SessionTrajectoryTests {
  /// A known rigid trajectory, recorded in worlds that keep moving: re-expressed at the end, it is the
  /// trajectory in the last world exactly, and a reset cuts the chain.
  @Test func epochsComposeEveryLaterCorrection() {
    func turn(_ degrees: Double, _ axis: SIMD3<Double>, _ t: SIMD3<Double>) -> RigidTransform {
      RigidTransform(
        rotation: simd_quatd(angle: degrees * .pi / 180, axis: simd_normalize(axis)), translation: t)
    }
    // The camera's true pose in world 0 at each frame.
    let truth = (0..<8).map { i in turn(Double(i) * 7, SIMD3(0.2, 1, 0.1), SIMD3(Double(i) * 0.1, 0, -0.05)) }
    let corrections = [
      turn(0.3, SIMD3(1, 0, 0), .zero), turn(0.2, SIMD3(0, 0, 1), SIMD3(0.01, 0, 0)),
      turn(0.1, SIMD3(1, 0, 1), .zero),
    ]
    var epochs = WorldEpochs()
    var worldFromZero = RigidTransform.identity
    for (i, pose) in truth.enumerated() {
      // A correction before frames 2, 4 and 6; each frame is delivered in the world of its time.
      if i % 2 == 0, i > 0 {
        let correction = corrections[i / 2 - 1]
        epochs.correct(by: correction)
        worldFromZero = correction * worldFromZero
      }
      epochs.record(frameIndex: i, timestamp: Double(i) / 10, worldFromCamera: worldFromZero * pose)
    }
    #expect(epochs.current == 3)
    let poses = epochs.poses()
    #expect(poses.map(\.frameIndex) == Array(0..<8))
    for (pose, expected) in zip(poses, truth) {
      let error = (worldFromZero * expected).inverse * pose.worldFromCamera
      #expect(simd_length(error.translation) < 1e-12)
      #expect(abs(error.rotation.angle) < 1e-9 || abs(error.rotation.angle - 2 * .pi) < 1e-9)
    }
    #expect(poses.last?.nowFromDelivered == .identity)

    // After a reset, earlier frames stay in the last world of their run.
    epochs.reset()
    epochs.correct(by: turn(5, SIMD3(0, 1, 0), .zero))
    epochs.record(frameIndex: 8, timestamp: 0.8, worldFromCamera: .identity)
    let after = epochs.poses()
    #expect(zip(after.prefix(8), poses).allSatisfy { $0 == $1 })
    #expect(after.last?.worldFromCamera == .identity)
  }

  /// With re-levelling on (the default), frames keep the pose they delivered, the trajectory follows
  /// the re-levels, and it is rigid: the tracked tabletop's trajectory is as accurate as the delivered
  /// poses or better, and differs from them (the world moved).
  @Test(.enabled(if: Datasets.exists("tabletop"))) func trajectoryFollowsTheRelevels() throws {
    #expect(TrackerOptions().relevelsOnceSettled)
    let (session, collector) = try FrameCollector.replay(Datasets.path("tabletop"))
    let trajectory = session.trajectory
    let delivered = Dictionary(uniqueKeysWithValues: collector.records.map { ($0.frameIndex, $0) })
    #expect(trajectory.count >= collector.records.filter { $0.state == .normal }.count)
    var moved = 0.0
    for pose in trajectory {
      let record = try #require(delivered[pose.frameIndex])
      let again = pose.nowFromDelivered * RigidTransform(matrix: record.transform)
      // The delivered transform is single precision.
      #expect(simd_length(again.translation - pose.worldFromCamera.translation) < 1e-5)
      moved = max(
        moved,
        simd_length(pose.worldFromCamera.translation - RigidTransform(matrix: record.transform).translation))
    }
    #expect(moved > 1e-4, "the world was re-levelled after the first frames (moved \(moved) m)")
    #expect(trajectory.last?.nowFromDelivered == .identity)
    // Rigid in the final world, and about as good as the poses as delivered: those were re-levelled
    // as gravity followed the odometry's drift (the gyroscope's measure of it), so they may be a little
    // better than the final world's, which holds one level for all.
    let tracked = collector.records.filter { $0.state == .normal && $0.groundTruth != nil }
    let final = Dictionary(uniqueKeysWithValues: trajectory.map { ($0.frameIndex, $0.worldFromCamera) })
    func ate(_ pose: (FrameCollector.Record) throws -> RigidTransform) throws -> Double {
      try absoluteTrajectoryError(
        reference: Trajectory(timestamps: tracked.map(\.timestamp), poses: tracked.map { $0.groundTruth! }),
        estimate: Trajectory(
          timestamps: tracked.map(\.timestamp), poses: tracked.map { try pose($0) * opticalFromCamera }),
        options: AbsoluteErrorOptions(alignment: .se3)
      ).statistics.rmse
    }
    let finalATE = try ate { try #require(final[$0.frameIndex]) }
    let deliveredATE = try ate { RigidTransform(matrix: $0.transform) }
    #expect(finalATE <= deliveredATE * 1.1, "final \(finalATE) m, delivered \(deliveredATE) m")
    #expect(finalATE < 0.01, "ATE \(finalATE) m")
  }
}
