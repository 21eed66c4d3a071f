import ARSim
import ARSimEval
import Foundation

/// `arsim bench RECORDING...`: per-stage milliseconds per frame of a replay, as medians.
enum BenchCommand {
  static let help = """
    usage: arsim bench RECORDING... [options]

    Replays each recording with plane detection and prints, as medians over its frames, the
    milliseconds spent reading and decoding, tracking (pyramid, KLT and new features), pose
    (PnP and refinement, depth alignment), map upkeep, plane detection and the total without
    decoding, plus the ATE when the recording has ground truth. Timings use the monotonic clock
    on one thread; results do not depend on them.

    options:
      --format auto|arsim|tum       recording layout (default auto)
      --intrinsics fx,fy,cx,cy      camera intrinsics in pixels
      --mode rgbd|mono              tracking mode (default rgbd when the recording has depth)
      --planes LIST                 as arsim replay (default horizontal,vertical)
      --json FILE                   also write the figures as JSON
      --trajectory FILE             write the estimated trajectory (TUM format; one RECORDING)
      --help                        show this help
    """

  static func run(_ arguments: [String]) throws -> Int32 {
    let args = try Arguments(
      arguments, valueOptions: ["format", "intrinsics", "mode", "planes", "json", "trajectory", "scale"],
      flagOptions: ["help"])
    if args.flag("help") {
      print(help)
      return 0
    }
    guard !args.positional.isEmpty else { throw Arguments.UsageError("missing RECORDING (see --help)") }
    var reports: [JSON] = []
    print("recording | frames | read | track | pose | map | planes | total (ms/frame, medians) | ATE")
    for folder in args.positional {
      let run = try ReplayRun(folder: folder, arguments: args)
      try run.run()
      if let path = args.value("trajectory") { try run.writeTrajectory(to: path) }
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
        let alignment: TrajectoryAlignment = run.configuration.tracking.mode == .mono ? .sim3 : .se3
        ate =
          try absoluteTrajectoryError(
            reference: reference, estimate: estimate, options: AbsoluteErrorOptions(alignment: alignment)
          ).statistics.rmse
      }
      let cells = stages.prefix(6).map { String(format: "%.2f", $0.1) }
      print(
        "\(folder) | \(frames.count) | " + cells.joined(separator: " | ") + " | "
          + (ate.map { String(format: "%.4f m", $0) } ?? "-"))
      reports.append(
        .object(
          [
            ("recording", .string(folder)), ("frames", .int(frames.count)),
            ("mode", .string(run.configuration.tracking.mode.rawValue)),
          ]
            + stages.map { ($0.0 + "Milliseconds", JSON.number($0.1)) }
            + [("ate", ate.map { .number($0) } ?? .null)]))
    }
    if let path = args.value("json") {
      let file = try OutputFile(path: path)
      try file.write(JSON.array(reports).text)
      try file.close()
    }
    return 0
  }
}
