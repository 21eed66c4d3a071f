import ARSimEval
import ARSimRun

/// Where a replay's wall time per frame goes, as means over its frames (the wall time per frame is
/// the replay's elapsed time over its frames, a mean, so the stages it is compared with are means too):
/// the reader's decoding, and on the replay's thread the wait for the decoded frame, tracking (track +
/// pose + map), plane detection or, when a frame's planes ran on the plane thread beside the next
/// frame's tracking, the wait for them, and the rest (session bookkeeping, frame assembly, callbacks,
/// the replay's records, and the final-world pass and trajectory at the end).
///
/// The slowest stage is the bound for a replay that decodes on a second thread: the reader's
/// decoding, or tracking + planes. `wall / slowest` is 1 for a perfect overlap of decoding with
/// nothing else to do, and falls below 1 when planes also run beside tracking.
struct BenchTimeline {
  /// Milliseconds per frame, means.
  var read, wait, tracking, planes, other, wall: Double
  /// Milliseconds per frame, means: what plane detection cost the replay's thread (its time where it
  /// ran there, the wait for the plane thread where it ran beside the next frame's tracking).
  var planesOnReplayThread: Double
  /// The share of frames whose planes ran on the plane thread.
  var planesOverlappedShare: Double

  init(_ frames: [ReplayRun.FrameRecord], wallMilliseconds: Double) {
    func mean(_ value: (ReplayRun.FrameRecord) -> Double) -> Double {
      frames.reduce(0) { $0 + value($1) } * 1000 / Double(max(frames.count, 1))
    }
    read = mean(\.readSeconds)
    wait = mean(\.waitSeconds)
    tracking = mean { $0.timings.track + $0.timings.pose + $0.timings.map }
    planes = mean(\.planeSeconds)
    planesOnReplayThread = mean { $0.planesOverlapped ? $0.planeWaitSeconds : $0.planeSeconds }
    planesOverlappedShare = Double(frames.count { $0.planesOverlapped }) / Double(max(frames.count, 1))
    wall = wallMilliseconds
    other = wall - wait - tracking - planesOnReplayThread
  }

  /// The slowest stage's name and milliseconds per frame.
  var slowest: (name: String, milliseconds: Double) {
    read > tracking + planes ? ("read", read) : ("tracking + planes", tracking + planes)
  }

  /// Wall time per frame over the slowest stage's.
  var ratio: Double { wall / max(slowest.milliseconds, 1e-9) }

  /// `timeline (ms/frame, means): ...` on one line.
  var summary: String {
    let planesCell =
      planesOverlappedShare > 0
      ? String(
        format: "planes %.2f (beside tracking on %.0f%% of frames, waited for: %.2f)", planes,
        planesOverlappedShare * 100, planesOnReplayThread)
      : String(format: "planes %.2f", planes)
    let cells = [
      String(format: "read (reader thread) %.2f, wait %.2f, tracking %.2f", read, wait, tracking), planesCell,
      String(format: "other %.2f", other),
    ]
    return "timeline (ms/frame, means): " + cells.joined(separator: ", ")
      + String(
        format: "; wall %.2f = %.2f x slowest (%@ %.2f)", wall, ratio, slowest.name, slowest.milliseconds)
  }

  /// The figures as JSON members.
  var members: [(String, JSON)] {
    [
      ("readMeanMilliseconds", .number(read)), ("waitMeanMilliseconds", .number(wait)),
      ("trackingMeanMilliseconds", .number(tracking)), ("planesMeanMilliseconds", .number(planes)),
      ("planesOnReplayThreadMeanMilliseconds", .number(planesOnReplayThread)),
      ("planesOverlappedShare", .number(planesOverlappedShare)),
      ("otherMeanMilliseconds", .number(other)), ("slowestStage", .string(slowest.name)),
      ("slowestMeanMilliseconds", .number(slowest.milliseconds)), ("wallOverSlowest", .number(ratio)),
    ]
  }
}

/// How a replay's speed holds over its run: its frames cut into fifths, each fifth's frames per
/// second of wall time (from the previous fifth's last frame to its own last), median tracking (track
/// + pose + map) and median plane stage, and the whole run's rate over the first fifth's (1 when the replay keeps its speed as its map grows).
struct BenchFifths {
  /// Frames per second, per fifth.
  var rates: [Double] = []
  /// Tracking and plane stage milliseconds, medians per fifth.
  var tracking: [Double] = []
  var planes: [Double] = []
  /// The whole run's frames per second over the first fifth's.
  var runOverFirst = 0.0

  init?(_ frames: [ReplayRun.FrameRecord]) {
    guard frames.count >= 10 else { return nil }
    var previousEnd = 0.0
    for part in 0..<5 {
      let slice = frames[(frames.count * part / 5)..<(frames.count * (part + 1) / 5)]
      let end = slice.last!.elapsedSeconds
      rates.append(Double(slice.count) / max(end - previousEnd, 1e-9))
      previousEnd = end
      func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] * 1000 }
      tracking.append(median(slice.map { $0.timings.track + $0.timings.pose + $0.timings.map }))
      planes.append(median(slice.map(\.planeSeconds)))
    }
    runOverFirst = Double(frames.count) / max(frames.last!.elapsedSeconds, 1e-9) / rates[0]
  }

  /// `over the run (fifths): ...` on one line.
  var summary: String {
    let rateCells = rates.map { String(format: "%.1f", $0) }.joined(separator: ", ")
    func cells(_ values: [Double]) -> String {
      values.map { String(format: "%.2f", $0) }.joined(separator: ", ")
    }
    return "over the run (fifths): frames/s " + rateCells + "; ms/frame (medians): tracking "
      + cells(tracking) + ", planes " + cells(planes)
      + String(format: "; the run's rate %.2fx the first fifth's", runOverFirst)
  }

  /// The figures as JSON members.
  var members: [(String, JSON)] {
    [
      ("fifthsFramesPerSecond", .array(rates.map { .number($0) })),
      ("fifthsTrackingMilliseconds", .array(tracking.map { .number($0) })),
      ("fifthsPlanesMilliseconds", .array(planes.map { .number($0) })),
      ("runRateOverFirstFifth", .number(runOverFirst)),
    ]
  }
}
