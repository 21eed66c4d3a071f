import ARSim
import ARSimEval
import ARSimRun
import Foundation

/// `arsim eval RECORDING...`: replays each recording and scores it against its ground truth. Thin:
/// ``RecordingEvaluator`` replays and scores; this parses the options and hands the results to
/// ``EvaluationReport`` for stdout and the report files.
enum EvalCommand {
  static let help = """
    usage: arsim eval RECORDING... [options]
           arsim eval merge PART.json... [--json FILE] [--markdown FILE]

    Replays each recording (as arsim replay does, plane detection on) and scores the result
    against the recording's ground truth. Per recording:
      tracking  ATE (RMSE of optical-frame positions after SE(3) Umeyama alignment over the tracked
                frames; Sim(3) in monocular mode), RPE over consecutive tracked frames (evo's
                definitions), the fraction of frames tracked, the tracking-state time line, the
                largest distance of the camera from its first pose, estimated (session world, no
                alignment) and true, over the frames with a pose (tracked, or rotation-only while
                a monocular map initialises)
      planes    (planes.json) each ground-truth plane matched to the final anchors by normal angle
                (<= 10 deg), offset of the anchor's centre (<= 5 cm) and overlap of the polygons in the
                ground-truth plane; precision (anchors matching a plane), recall (planes of >= 0.25 m2
                seen >= 1 s), normal and offset error, polygon IoU (best anchor; union of anchors;
                planes seen whole: >= 90% of the area in view, within 5 m, unoccluded, in some
                frame), time to first detection, classification accuracy
      raycasts  (taps.txt) each tap cast at the frame nearest in time (--target, --alignment):
                hit rate over taps whose true point lies on a detected plane, and over all taps;
                error of the nearest hit in the ground-truth world, camera-relative, along the ray
    Anchors and hits are mapped into the ground-truth world by the trajectory alignment. With
    several recordings a batch table follows (mean, median, worst per metric). Tables go to
    stdout, progress to stderr; --json and --markdown are written atomically.

    Sharded (a cluster array job; Tools/cluster): --shard K/N evaluates part K of N of the
    recordings (those at positions i with i % N == K, K from 0) and --json writes the part
    (format arsim-eval-part: the whole list, the options, the shard's evaluations), rewritten after
    each recording; with --resume, recordings already in that part are not evaluated again.
    `arsim eval merge` checks that the parts belong to one run (same recordings, options and N,
    every shard once and complete) and prints and writes the report one run over the whole list
    gives.

    options:
      --format auto|arsim|tum       recording layout (default auto)
      --intrinsics fx,fy,cx,cy      camera intrinsics in pixels (overrides the recording's)
      --mode rgbd|mono|depth        tracking mode (default: what the recording supports)
      --scale METRES                monocular without depth: length of the initial baseline
      --planes LIST                 horizontal,vertical | horizontal | vertical | none
                                    (default horizontal,vertical)
      --threads N                   1: read, decode and track on one thread; 2 (default): decode
                                    the next frames on a second thread, KLT shared with a helper
                                    thread (same outputs)
      --no-loop-closure             RGB-D: do not close loops (to compare)
      --target NAME                 raycast target for the taps (default existingPlaneGeometry)
      --alignment NAME              raycast alignment for the taps (default any)
      --json FILE                   write the report as JSON
      --markdown FILE               write the report as Markdown
      --trajectory FILE             also write the estimated trajectory (TUM format; one RECORDING)
      --gravity-trace FILE          also write each frame's gravity error (time, degrees as
                                    delivered, degrees in the final world; one RECORDING)
      --shard K/N                   evaluate part K of N of the recordings; --json writes the part
      --resume                      with --shard and --json: keep the results already in the part
      --help                        show this help

    Exit status 0 on success; non-zero with a one-line error naming the file and the problem.
    """

  static func run(_ arguments: [String]) throws -> Int32 {
    if arguments.first == "merge" { return try EvalMergeCommand.run(Array(arguments.dropFirst())) }
    let args = try Arguments(
      arguments,
      valueOptions: [
        "format", "intrinsics", "mode", "scale", "trajectory", "gravity-trace", "planes", "json", "markdown",
        "target",
        "alignment", "shard", "threads",
      ],
      flagOptions: ["help", "resume", "no-loop-closure"])
    if args.flag("help") {
      print(help)
      return 0
    }
    guard !args.positional.isEmpty else { throw Arguments.UsageError("missing RECORDING (see --help)") }
    guard args.positional.count == 1 || args.value("trajectory") == nil else {
      throw Arguments.UsageError("--trajectory takes one RECORDING")
    }
    guard args.positional.count == 1 || args.value("gravity-trace") == nil else {
      throw Arguments.UsageError("--gravity-trace takes one RECORDING")
    }
    let (target, alignment) = try ReplayOptions.raycastChoices(args)
    let outputs = [args.value("json"), args.value("markdown")].compactMap { $0 }
    for path in outputs { try checkWritable(path) }

    // Several paths (a shell glob such as Datasets/*): skip, with a note, what is not a recording.
    var folders = args.positional
    if folders.count > 1 {
      folders = folders.filter { folder in
        do {
          _ = try Recording.detectFormat(folder: folder)
          return true
        } catch {
          printError("eval: skipping \(error)")
          return false
        }
      }
      guard !folders.isEmpty else { throw Arguments.UsageError("none of the paths given is a recording") }
    }
    let shard = try args.value("shard").map { try Shard(parsing: $0) }
    let replayOptions = try ReplayOptions(arguments: args)
    guard let shard else {
      guard !args.flag("resume") else {
        throw Arguments.UsageError("--resume goes with --shard and --json (use --shard 0/1 for one part)")
      }
      var evaluations: [RecordingEvaluation] = []
      for (k, folder) in folders.enumerated() {
        if folders.count > 1 { printError("eval \(k + 1)/\(folders.count): \(folder)") }
        evaluations.append(
          try RecordingEvaluator.evaluate(
            folder, options: replayOptions, target: target, alignment: alignment,
            trajectoryPath: args.value("trajectory"), gravityTracePath: args.value("gravity-trace"),
            progressLabel: progressLabel(k, folders.count)))
      }
      try report(evaluations, arguments: args)
      return 0
    }
    guard Set(folders).count == folders.count else {
      throw Arguments.UsageError("--shard: a RECORDING is given twice")
    }
    var part = EvaluationPart(
      recordings: folders, options: try ReplayOptions.resultValues(args), shard: shard)
    if args.flag("resume") {
      guard let path = args.value("json") else { throw Arguments.UsageError("--resume needs --json PART") }
      if FileManager.default.fileExists(atPath: path) {
        try part.resume(from: try EvaluationPart.load(path: path), path: path)
      }
    }
    let share = part.shardRecordings
    printError(
      "eval: shard \(shard) holds \(share.count) of \(folders.count) recordings"
        + (part.evaluations.isEmpty ? "" : ", \(part.evaluations.count) already evaluated"))
    for folder in part.remainingRecordings {
      let k = share.firstIndex(of: folder) ?? 0
      printError("eval \(k + 1)/\(share.count) of shard \(shard): \(folder)")
      part.add(
        try RecordingEvaluator.evaluate(
          folder, options: replayOptions, target: target, alignment: alignment,
          trajectoryPath: args.value("trajectory"), gravityTracePath: args.value("gravity-trace"),
          progressLabel: progressLabel(k, share.count)))
      if let path = args.value("json") { try part.write(to: path) }
    }
    if let path = args.value("json") { try part.write(to: path) }
    print(EvaluationReport.text(part.evaluations))
    if let path = args.value("markdown") { try write(EvaluationReport.markdown(part.evaluations), to: path) }
    return 0
  }

  /// Prints the report of `evaluations` and writes its `--json` and `--markdown` files.
  static func report(_ evaluations: [RecordingEvaluation], arguments args: Arguments) throws {
    print(EvaluationReport.text(evaluations))
    if let path = args.value("json") { try write(EvaluationReport.json(evaluations), to: path) }
    if let path = args.value("markdown") { try write(EvaluationReport.markdown(evaluations), to: path) }
  }

  /// The replay progress label of recording `k` of `count`.
  static func progressLabel(_ k: Int, _ count: Int) -> String {
    count > 1 ? "replay \(k + 1)/\(count)" : "replay"
  }

  /// Fails early, before a long replay, when a report cannot be written to `path`.
  static func checkWritable(_ path: String) throws {
    let directory = (path as NSString).deletingLastPathComponent
    let folder = directory.isEmpty ? "." : directory
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue,
      FileManager.default.isWritableFile(atPath: folder)
    else { throw Arguments.UsageError("\(path): cannot be written (no writable folder \(folder))") }
  }

  /// Writes `text` to `path` atomically (as `PATH.partial`, then renamed).
  static func write(_ text: String, to path: String) throws {
    let file = try OutputFile(path: path)
    try file.write(text.hasSuffix("\n") ? String(text.dropLast()) : text)
    try file.close()
  }
}
