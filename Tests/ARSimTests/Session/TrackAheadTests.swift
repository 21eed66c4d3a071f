import ARSim
import ARSimTestSupport
import Foundation
import Testing

/// A replay that tracks the next frame while it detects this frame's planes (``ARReplay/tracksAhead``)
/// gives what the sequential replay gives: the same callbacks in the same order, the same frames
/// (poses, states, anchors with their geometry) bit for bit and the same trajectory; the frame after
/// a gap (an interruption, whose tracking waits for the delegate's answer) is tracked in its own step.
@Suite struct TrackAheadTests {
  static let present = Datasets.exists("tabletop")

  /// The callbacks, each frame's values as text (Float and Double descriptions are exact) and the
  /// session's trajectory of the bundled tabletop without frames 60..<75, and how many frames were
  /// processed and tracked ahead.
  func replay(tracksAhead: Bool) throws -> (
    log: [String], frames: [String], trajectory: [ARTrajectoryPose], processed: Int, ahead: Int
  ) {
    let t = try TabletopSession(dropping: 60..<75)
    t.replay.tracksAhead = tracksAhead
    var frames: [String] = []
    while let outcome = try t.replay.step() {
      guard let frame = outcome.frame else { continue }
      let anchors = frame.anchors.map { anchor in
        var text = "\(anchor.identifier) \(anchor.transform)"
        if let plane = anchor as? ARPlaneAnchor {
          text +=
            " \(plane.alignment) \(plane.classification) \(plane.center) \(plane.planeExtent.width)"
            + " \(plane.planeExtent.height) \(plane.geometry.boundaryVertices)"
        }
        return text
      }
      frames.append(
        "\(frame.frameIndex) \(frame.camera.trackingState) \(frame.camera.transform) \(outcome.hasPose)"
          + " \(outcome.worldEpoch) \(frame.rawFeaturePoints?.points.count ?? -1) \(anchors)")
    }
    return (t.recorder.log, frames, t.session.trajectory, frames.count, t.session.framesTrackedAhead)
  }

  @Test func trackingAheadGivesTheSequentialReplay() throws {
    try #require(Self.present, "Datasets/tabletop is absent")
    let sequential = try replay(tracksAhead: false)
    let ahead = try replay(tracksAhead: true)
    #expect(sequential.ahead == 0)
    // Every frame but the first and the one after the gap was tracked while its predecessor's planes
    // were detected.
    #expect(sequential.processed == 151 - 15)
    #expect(ahead.ahead == sequential.processed - 2)
    #expect(sequential.log.contains("interrupted") && sequential.log.contains { $0.hasPrefix("didAdd") })
    #expect(ahead.log == sequential.log)
    #expect(ahead.frames.count == sequential.frames.count)
    for (a, s) in zip(ahead.frames, sequential.frames) where a != s {
      Issue.record("frame differs:\n\(a)\n\(s)")
      break
    }
    #expect(ahead.trajectory.map(\.worldFromCamera) == sequential.trajectory.map(\.worldFromCamera))
    #expect(ahead.trajectory.map(\.frameIndex) == sequential.trajectory.map(\.frameIndex))
  }
}
