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

    options:
      --format auto|arsim|tum       recording layout (default auto)
      --intrinsics fx,fy,cx,cy      camera intrinsics in pixels (overrides the recording's)
      --mode rgbd|mono              tracking mode (default rgbd when the recording has depth)
      --scale METRES                monocular without depth: length of the initial baseline
      --planes LIST                 horizontal,vertical | horizontal | vertical | none
                                    (default horizontal,vertical)
      --target NAME                 raycast target for the taps (default existingPlaneGeometry)
      --alignment NAME              raycast alignment for the taps (default any)
      --json FILE                   write the report as JSON
      --markdown FILE               write the report as Markdown
      --trajectory FILE             also write the estimated trajectory (TUM format; one RECORDING)
      --help                        show this help

    Exit status 0 on success; non-zero with a one-line error naming the file and the problem.
    """

  static func run(_ arguments: [String]) throws -> Int32 {
    let args = try Arguments(
      arguments,
      valueOptions: [
        "format", "intrinsics", "mode", "scale", "trajectory", "planes", "json", "markdown", "target",
        "alignment",
      ],
      flagOptions: ["help"])
    if args.flag("help") {
      print(help)
      return 0
    }
    guard !args.positional.isEmpty else { throw Arguments.UsageError("missing RECORDING (see --help)") }
    guard args.positional.count == 1 || args.value("trajectory") == nil else {
      throw Arguments.UsageError("--trajectory takes one RECORDING")
    }
    let target: ARRaycastQuery.Target =
      switch try args.choice(
        "target", ["existingPlaneGeometry", "existingPlaneInfinite", "estimatedPlane"],
        default: "existingPlaneGeometry")
      {
      case "existingPlaneInfinite": .existingPlaneInfinite
      case "estimatedPlane": .estimatedPlane
      default: .existingPlaneGeometry
      }
    let alignment: ARRaycastQuery.TargetAlignment =
      switch try args.choice("alignment", ["any", "horizontal", "vertical"], default: "any") {
      case "horizontal": .horizontal
      case "vertical": .vertical
      default: .any
      }
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
    var evaluations: [RecordingEvaluation] = []
    for (k, folder) in folders.enumerated() {
      if folders.count > 1 { printError("eval \(k + 1)/\(folders.count): \(folder)") }
      evaluations.append(
        try RecordingEvaluator.evaluate(
          folder, options: try ReplayOptions(arguments: args), target: target, alignment: alignment,
          trajectoryPath: args.value("trajectory")))
    }
    print(EvaluationReport.text(evaluations))
    if let path = args.value("json") { try write(EvaluationReport.json(evaluations), to: path) }
    if let path = args.value("markdown") { try write(EvaluationReport.markdown(evaluations), to: path) }
    return 0
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
