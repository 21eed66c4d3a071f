import ARSim
import ARSimEval
import ARSimRun
import Foundation

/// `arsim bench RECORDING...`: per-stage milliseconds per frame of a replay, as medians.
enum BenchCommand {
  static let help = """
    usage: arsim bench RECORDING... [options]
           arsim bench --raycast [--anchors N] [--boundary N] [--queries N] [--json FILE]

    Replays each recording with plane detection and prints, as medians over its frames, the
    milliseconds spent reading and decoding (with --threads 2, building the KLT pyramid too),
    tracking (KLT and new features, and the pyramid with --threads 1), pose
    (PnP and refinement, depth alignment), map upkeep, plane detection and the total without
    decoding, the whole replay's wall time per frame (its elapsed time over its frames: with
    --threads 2, decoding runs ahead on a second thread, so this approaches the slower of `read`
    and `total`), the CPU time per frame (user and system time of every thread over the replay,
    which a loaded machine does not inflate as it does wall time), plus the ATE when the recording
    has ground truth. A second line gives the timeline as means (the wall time per frame is a mean):
    the reader's decoding, and on the main thread the wait for each frame, tracking, planes and the
    rest, and the wall time over the slowest stage (decoding, or tracking + planes), which is 1 when
    the two threads overlap perfectly and nothing else runs. Timings use the monotonic
    clock; results do not depend on them. `planes` is the session's plane detection per
    frame (depth sampling, RANSAC, anchor update), a median over all frames; the JSON also gives
    `planeFrames` and `planeDetectionMilliseconds`, the median over the frames on which detection ran,
    `trackingP90Milliseconds` (track + pose + map, 90th percentile), `mapMeanMilliseconds` and
    `mapP90Milliseconds` (map upkeep: the keyframes pay the bundle adjustment). A third line
    cuts the run into fifths: each fifth's frames per second of wall time and median plane stage,
    and the whole run's rate over the first fifth's (1 when the replay keeps its speed as the map
    grows).

    With --raycast, no recording is read: times ARSession.raycast against a synthetic, seeded frame
    of plane anchors with convex boundary polygons, queries from eye height aimed at the anchors
    (three in four) or anywhere, for the existingPlaneGeometry and existingPlaneInfinite targets,
    and prints microseconds per raycast (median over batches of 1000 queries).

    options:
      --format auto|arsim|tum       recording layout (default auto)
      --intrinsics fx,fy,cx,cy      camera intrinsics in pixels
      --mode rgbd|mono|depth        tracking mode (default: what the recording supports)
      --planes LIST                 as arsim replay (default horizontal,vertical)
      --threads N                   1: read, decode and track on one thread; 2 (default): decode
                                    the next frames on a second thread, KLT shared with a helper
                                    thread (same outputs)
      --no-loop-closure             RGB-D: do not close loops (to compare)
      --frames FIRST-LAST           only those frames of each recording (as arsim replay)
      --json FILE                   also write the figures as JSON
      --trajectory FILE             write the estimated trajectory (TUM format; one RECORDING)
      --dump-points DIR             for every --every-th frame on which plane detection ran, write the
                                    world points the plane detector received (feature points, then
                                    depth points; metres) to DIR/frame_NNNNNN.npy (float32, N x 3) and
                                    list the frames with their plane milliseconds in DIR/index.json
                                    (one RECORDING)
      --every N                     frame stride of --dump-points (recording index divisible by N;
                                    default 10)
      --raycast                     the raycast benchmark instead of a replay
      --anchors N                   plane anchors in the raycast benchmark (default 50)
      --boundary N                  boundary vertices per anchor (default 20)
      --queries N                   raycasts timed per target (default 100000)
      --help                        show this help
    """

  static func run(_ arguments: [String]) throws -> Int32 {
    let args = try Arguments(
      arguments,
      valueOptions: [
        "format", "intrinsics", "mode", "planes", "json", "trajectory", "scale", "dump-points", "every",
        "threads", "frames",
        "anchors", "boundary", "queries",
      ],
      flagOptions: ["help", "raycast", "no-loop-closure"])
    if args.flag("help") {
      print(help)
      return 0
    }
    if args.flag("raycast") {
      guard args.positional.isEmpty else {
        throw Arguments.UsageError("--raycast reads no RECORDING (its scene is synthetic)")
      }
      return try BenchRaycast.run(args)
    }
    for name in ["anchors", "boundary", "queries"] where args.value(name) != nil {
      throw Arguments.UsageError("--\(name) goes with --raycast")
    }
    guard !args.positional.isEmpty else { throw Arguments.UsageError("missing RECORDING (see --help)") }
    var every = 10
    if let text = args.value("every") {
      guard let value = Int(text), value >= 1 else {
        throw Arguments.UsageError("--every must be a positive integer, got '\(text)'")
      }
      every = value
    }
    if args.value("dump-points") != nil && args.positional.count != 1 {
      throw Arguments.UsageError("--dump-points takes one RECORDING")
    }
    var reports: [JSON] = []
    print(
      "recording | frames | read | track | pose | map | planes | total (ms/frame, medians) | wall | cpu | ATE"
    )
    for folder in args.positional {
      let run = try ReplayRun(folder: folder, options: try ReplayOptions(arguments: args))
      let dump = try args.value("dump-points").map { try BenchPointDump(folder: $0, every: every) }
      if let dump { run.onFrame = { frame, record in try dump.add(frame, record: record) } }
      if let path = args.value("trajectory") { try run.writeTrajectory(to: path) }
      try run.run()
      try dump?.finish()
      let frames = run.frames
      guard !frames.isEmpty else { continue }
      func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] * 1000 }
      let stages: [(String, Double)] = [
        ("read", median(frames.map(\.readSeconds))), ("track", median(frames.map(\.timings.track))),
        ("pose", median(frames.map(\.timings.pose))), ("map", median(frames.map(\.timings.map))),
        ("planes", median(frames.map(\.planeSeconds))),
        (
          "total",
          median(frames.map { $0.timings.track + $0.timings.pose + $0.timings.map + $0.planeSeconds })
        ),
        ("tracking", median(frames.map { $0.timings.track + $0.timings.pose + $0.timings.map })),
      ]
      var ate: Double?
      let pairs = frames.filter { $0.isTracked && $0.groundTruth != nil }
      if pairs.count >= 3 {
        let reference = Trajectory(timestamps: pairs.map(\.timestamp), poses: pairs.map { $0.groundTruth! })
        let estimate = Trajectory(timestamps: pairs.map(\.timestamp), poses: pairs.map(\.worldFromOptical))
        let alignment: TrajectoryAlignment = run.mode == .mono ? .sim3 : .se3
        ate =
          try absoluteTrajectoryError(
            reference: reference, estimate: estimate, options: AbsoluteErrorOptions(alignment: alignment)
          ).statistics.rmse
      }
      let detected = frames.filter { $0.planeSeconds > 0 }.map(\.planeSeconds)
      let wall = run.wallSeconds * 1000 / Double(frames.count)
      let cpu = run.cpuSeconds * 1000 / Double(frames.count)
      let timeline = BenchTimeline(frames, wallMilliseconds: wall)
      let cells = (stages.prefix(6).map(\.1) + [wall, cpu]).map { String(format: "%.2f", $0) }
      print(
        "\(folder) | \(frames.count) | " + cells.joined(separator: " | ") + " | "
          + (ate.map { String(format: "%.4f m", $0) } ?? "-"))
      var members: [(String, JSON)] = [
        ("recording", .string(folder)), ("frames", .int(frames.count)),
        ("mode", .string(run.mode.rawValue)),
      ]
      members += stages.map { ($0.0 + "Milliseconds", JSON.number($0.1)) }
      // The tail and mean of the per-frame tracking and map upkeep (keyframes pay the bundle adjustment).
      func p90(_ values: [Double]) -> Double { values.sorted()[values.count * 9 / 10] * 1000 }
      let tracking = frames.map { $0.timings.track + $0.timings.pose + $0.timings.map }
      members.append(("trackingP90Milliseconds", .number(p90(tracking))))
      members.append(
        ("mapMeanMilliseconds", .number(frames.map(\.timings.map).reduce(0, +) * 1000 / Double(frames.count)))
      )
      members.append(("mapP90Milliseconds", .number(p90(frames.map(\.timings.map)))))
      members.append(("wallMilliseconds", .number(wall)))
      members.append(("cpuMilliseconds", .number(cpu)))
      members.append(("threads", .int(run.threads)))
      members.append(("planeFrames", .int(detected.count)))
      members.append(("planeDetectionMilliseconds", detected.isEmpty ? .null : .number(median(detected))))
      members.append(("ate", ate.map { .number($0) } ?? .null))
      // Rare and costly when they run: a mean, not a median.
      let recognition = frames.reduce(0) { $0 + $1.timings.recognition } * 1000 / Double(frames.count)
      print(String(format: "  relocalisation + loop closure: %.3f ms/frame (mean)", recognition))
      print("  " + timeline.summary)
      members += timeline.members
      if let fifths = BenchFifths(frames) {
        print("  " + fifths.summary)
        members += fifths.members
      }
      members.append(("recognitionMeanMilliseconds", .number(recognition)))
      reports.append(.object(members))
    }
    if let path = args.value("json") {
      let file = try OutputFile(path: path)
      try file.write(JSON.array(reports).text)
      try file.close()
    }
    return 0
  }
}
