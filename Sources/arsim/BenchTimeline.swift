import ARSimEval
import ARSimRun

/// Where a replay's wall time per frame goes, as means over its frames (the wall time per frame is
/// the replay's elapsed time over its frames, a mean, so the stages it is compared with are means too):
/// the reader's decoding, and on the main thread the wait for the decoded frame, tracking (track +
/// pose + map), plane detection, and the rest (session bookkeeping, frame assembly, callbacks, the
/// replay's records, and the final-world pass and trajectory at the end).
///
/// The slowest stage is what a two-thread pipeline cannot beat: the reader's decoding, or the main
/// thread's tracking + planes. `wall / slowest` is 1 for a perfect overlap with nothing else to do.
struct BenchTimeline {
  /// Milliseconds per frame, means.
  var read, wait, tracking, planes, other, wall: Double

  init(_ frames: [ReplayRun.FrameRecord], wallMilliseconds: Double) {
    func mean(_ value: (ReplayRun.FrameRecord) -> Double) -> Double {
      frames.reduce(0) { $0 + value($1) } * 1000 / Double(max(frames.count, 1))
    }
    read = mean(\.readSeconds)
    wait = mean(\.waitSeconds)
    tracking = mean { $0.timings.track + $0.timings.pose + $0.timings.map }
    planes = mean(\.planeSeconds)
    wall = wallMilliseconds
    other = wall - wait - tracking - planes
  }

  /// The slowest stage's name and milliseconds per frame.
  var slowest: (name: String, milliseconds: Double) {
    read > tracking + planes ? ("read", read) : ("tracking + planes", tracking + planes)
  }

  /// Wall time per frame over the slowest stage's.
  var ratio: Double { wall / max(slowest.milliseconds, 1e-9) }

  /// `timeline (ms/frame, means): ...` on one line.
  var summary: String {
    let cells = [
      ("read (reader thread)", read), ("wait", wait), ("tracking", tracking), ("planes", planes),
      ("other", other),
    ]
    return "timeline (ms/frame, means): "
      + cells.map { "\($0.0) " + String(format: "%.2f", $0.1) }.joined(separator: ", ")
      + String(
        format: "; wall %.2f = %.2f x slowest (%@ %.2f)", wall, ratio, slowest.name, slowest.milliseconds)
  }

  /// The figures as JSON members.
  var members: [(String, JSON)] {
    [
      ("readMeanMilliseconds", .number(read)), ("waitMeanMilliseconds", .number(wait)),
      ("trackingMeanMilliseconds", .number(tracking)), ("planesMeanMilliseconds", .number(planes)),
      ("otherMeanMilliseconds", .number(other)), ("slowestStage", .string(slowest.name)),
      ("slowestMeanMilliseconds", .number(slowest.milliseconds)), ("wallOverSlowest", .number(ratio)),
    ]
  }
}
