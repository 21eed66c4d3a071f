import ARSim
import Foundation

/// `arsim replay RECORDING [options]`: reads a recording frame by frame and prints a summary.
enum ReplayCommand {
  static let help = """
    usage: arsim replay RECORDING [options]

    Replays a recorded session (an ARSim folder with session.json, or a TUM RGB-D folder)
    frame by frame in recorded time and prints a summary on stdout; progress goes to stderr.

    options:
      --format auto|arsim|tum|stray|record3d|arkitscenes
                                    recording layout (default auto: detected from the files)
      --intrinsics fx,fy,cx,cy      camera intrinsics in pixels; overrides the recording's
                                    (required for TUM folders without intrinsics.txt or a
                                    freiburg1/2/3 name)
      --mode rgbd|mono|depth        tracking mode (default rgbd when the recording has depth;
                                    depth, ICP on depth alone, when it has depth but no images)
      --scale METRES                monocular without depth: length of the initial baseline
      --planes LIST                 horizontal,vertical | horizontal | vertical | none
                                    (default horizontal,vertical)
      --trajectory FILE             write the camera trajectory (TUM format, optical frame)
      --events FILE                 write delegate events as JSON Lines
      --taps FILE --hits FILE       raycast taps ('timestamp u v' lines), write hits as JSON Lines
      --target NAME                 raycast target for --taps (default existingPlaneGeometry)
      --alignment NAME              raycast alignment for --taps (default any)
      --help                        show this help

    Exit status 0 on success; non-zero with a one-line error naming the file and the problem.
    """

  static let valueOptions: Set<String> = [
    "format", "intrinsics", "mode", "planes", "trajectory", "events", "taps", "hits", "target", "alignment",
    "scale",
  ]

  static func run(_ arguments: [String]) throws -> Int32 {
    let args = try Arguments(arguments, valueOptions: valueOptions, flagOptions: ["help"])
    if args.flag("help") {
      print(help)
      return 0
    }
    guard args.positional.count == 1 else {
      throw Arguments.UsageError(
        args.positional.isEmpty
          ? "missing RECORDING (see --help)" : "expected one RECORDING, got \(args.positional.count)")
    }
    let targetName = try args.choice(
      "target", ["existingPlaneGeometry", "existingPlaneInfinite", "estimatedPlane"],
      default: "existingPlaneGeometry")
    let alignmentName = try args.choice("alignment", ["any", "horizontal", "vertical"], default: "any")
    if (args.value("taps") == nil) != (args.value("hits") == nil) {
      throw Arguments.UsageError("--taps and --hits go together")
    }
    let run = try ReplayRun(folder: args.positional[0], arguments: args)
    if let path = args.value("events") { try run.logEvents(to: path) }
    if let tapsPath = args.value("taps"), let hitsPath = args.value("hits") {
      let target: ARRaycastQuery.Target =
        switch targetName {
        case "existingPlaneInfinite": .existingPlaneInfinite
        case "estimatedPlane": .estimatedPlane
        default: .existingPlaneGeometry
        }
      let alignment: ARRaycastQuery.TargetAlignment =
        switch alignmentName {
        case "horizontal": .horizontal
        case "vertical": .vertical
        default: .any
        }
      try run.castTaps(from: tapsPath, to: hitsPath, target: target, alignment: alignment)
    }
    try run.run()
    if let path = args.value("trajectory") { try run.writeTrajectory(to: path) }
    print(run.summary.report(info: run.info))
    print("tracking: \(run.configuration.tracking.mode.rawValue)" + run.sourcesSummary)
    print("states: " + run.stateTimeline())
    let planes = run.session.anchors.compactMap { $0 as? ARPlaneAnchor }
    print(
      "planes: \(planes.count)"
        + (planes.isEmpty
          ? ""
          : " ("
            + planes.map {
              "\($0.classification) \($0.alignment) \(String(format: "%.2fx%.2f m", $0.planeExtent.width, $0.planeExtent.height))"
            }
            .joined(separator: "; ") + ")"))
    if !run.frames.isEmpty {
      let median = { (values: [Double]) in values.sorted()[values.count / 2] * 1000 }
      let tracking = run.frames.map { $0.timings.track + $0.timings.pose + $0.timings.map }
      printError(
        String(
          format: "timing: reading %.2f ms, tracking %.2f ms, planes %.2f ms per frame (medians)",
          median(run.frames.map(\.readSeconds)), median(tracking), median(run.frames.map(\.planeSeconds))))
    }
    return 0
  }
}

/// Counts what a replay saw; its report is deterministic for a given recording.
struct ReplaySummary {
  var frames = 0
  var firstTimestamp: Double?
  var lastTimestamp: Double?
  var depthFrames = 0
  var validDepth = 0
  var depthPixels = 0
  var imuSamples = 0
  var groundTruthPoses = 0

  mutating func add(_ frame: RecordedFrame) {
    frames += 1
    firstTimestamp = firstTimestamp ?? frame.timestamp
    lastTimestamp = frame.timestamp
    if let depth = frame.depth {
      depthFrames += 1
      depthPixels += depth.metres.count
      validDepth += depth.metres.reduce(0) { $0 + ($1.isFinite ? 1 : 0) }
    }
    imuSamples += frame.imu.count
    if frame.groundTruth != nil { groundTruthPoses += 1 }
  }

  func report(info: RecordingInfo) -> String {
    let k = info.intrinsics
    let duration = (lastTimestamp ?? 0) - (firstTimestamp ?? 0)
    var lines = [
      "recording: \(info.path) (\(info.format.rawValue))",
      "camera: \(k.width)x\(k.height), fx \(k.fx) fy \(k.fy) cx \(k.cx) cy \(k.cy) (from \(info.intrinsicsSource))",
      String(format: "frames: %d over %.3f s", frames, duration),
      "depth: \(depthFrames) frames"
        + (depthPixels > 0
          ? String(format: ", %.1f%% valid pixels", 100 * Double(validDepth) / Double(depthPixels)) : ""),
      "imu: \(imuSamples) samples",
      (info.referenceKind == .arkit ? "reference (ARKit's poses): " : "ground truth: ")
        + "\(groundTruthPoses) poses",
    ]
    lines += info.notes.map { "note: " + $0 }
    if frames > 0, let first = firstTimestamp, let last = lastTimestamp {
      lines.append(String(format: "time: %.6f to %.6f", first, last))
    }
    return lines.joined(separator: "\n")
  }
}
