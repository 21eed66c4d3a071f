import ARSim
import ARSimEval
import Foundation

/// `arsim eval RECORDING...`: replays each recording and scores it against its ground truth.
enum EvalCommand {
  static let help = """
    usage: arsim eval RECORDING... [options]

    Replays each recording (as arsim replay does) and scores the result against the recording's
    ground truth: ATE (RMSE of positions after SE(3) Umeyama alignment, Sim(3) in monocular mode)
    and RPE (translation error over consecutive frames, as evo defines them), the fraction of frames
    tracked and the tracking-state time line. Results go to stdout; progress to stderr.

    options:
      --format auto|arsim|tum       recording layout (default auto)
      --intrinsics fx,fy,cx,cy      camera intrinsics in pixels (overrides the recording's)
      --mode rgbd|mono              tracking mode (default rgbd when the recording has depth)
      --scale METRES                monocular without depth: length of the initial baseline
      --trajectory FILE             also write the estimated trajectory (TUM format)
      --help                        show this help
    """

  static func run(_ arguments: [String]) throws -> Int32 {
    let args = try Arguments(
      arguments, valueOptions: ["format", "intrinsics", "mode", "scale", "trajectory", "planes"],
      flagOptions: ["help"])
    if args.flag("help") {
      print(help)
      return 0
    }
    guard !args.positional.isEmpty else { throw Arguments.UsageError("missing RECORDING (see --help)") }
    guard args.positional.count == 1 || args.value("trajectory") == nil else {
      throw Arguments.UsageError("--trajectory takes one RECORDING")
    }
    for folder in args.positional {
      let run = try ReplayRun(folder: folder, arguments: args, planes: "none")
      try run.run()
      if let path = args.value("trajectory") { try run.writeTrajectory(to: path) }
      print(try report(run))
    }
    return 0
  }

  static func report(_ run: ReplayRun) throws -> String {
    var lines = [
      "recording: \(run.folder)", "mode: \(run.configuration.tracking.mode.rawValue)" + run.sourcesSummary,
    ]
    let total = run.frames.count
    let tracked = run.frames.filter(\.isTracked).count
    lines.append(
      String(
        format: "tracked: %d of %d frames (%.1f%%)", tracked, total,
        100 * Double(tracked) / Double(max(total, 1))))
    lines.append("states: " + run.stateTimeline())
    let pairs = run.frames.filter { $0.isTracked && $0.groundTruth != nil }
    guard pairs.count >= 3 else {
      lines.append("accuracy: no ground truth to compare with")
      return lines.joined(separator: "\n")
    }
    let reference = Trajectory(timestamps: pairs.map(\.timestamp), poses: pairs.map { $0.groundTruth! })
    let estimate = Trajectory(timestamps: pairs.map(\.timestamp), poses: pairs.map(\.worldFromOptical))
    let alignment: TrajectoryAlignment = run.configuration.tracking.mode == .mono ? .sim3 : .se3
    let ate = try absoluteTrajectoryError(
      reference: reference, estimate: estimate, options: AbsoluteErrorOptions(alignment: alignment))
    let rpe = try relativePoseError(reference: reference, estimate: estimate, options: RelativeErrorOptions())
    let path = reference.pathLength
    lines.append(
      String(
        format: "ATE (%@): rmse %.4f m, median %.4f m, max %.4f m over %d poses; %.2f%% of the %.2f m path",
        alignment == .sim3 ? "Sim(3)" : "SE(3)", ate.statistics.rmse, ate.statistics.median,
        ate.statistics.max,
        ate.statistics.count, 100 * ate.statistics.rmse / max(path, 1e-9), path))
    if alignment == .sim3 { lines.append(String(format: "Sim(3) scale: %.4f", ate.alignment.scale)) }
    lines.append(
      String(
        format: "RPE (1 frame): rmse %.4f m, median %.4f m, max %.4f m over %d pairs", rpe.statistics.rmse,
        rpe.statistics.median, rpe.statistics.max, rpe.statistics.count))
    return lines.joined(separator: "\n")
  }
}
