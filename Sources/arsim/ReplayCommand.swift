import ARSim
import Foundation

/// `arsim replay RECORDING [options]`: reads a recording frame by frame and prints a summary.
enum ReplayCommand {
  static let help = """
    usage: arsim replay RECORDING [options]

    Replays a recorded session (an ARSim folder with session.json, or a TUM RGB-D folder)
    frame by frame in recorded time and prints a summary on stdout; progress goes to stderr.

    options:
      --format auto|arsim|tum       recording layout (default auto: detected from the files)
      --intrinsics fx,fy,cx,cy      camera intrinsics in pixels; overrides the recording's
                                    (required for TUM folders without intrinsics.txt or a
                                    freiburg1/2/3 name)
      --mode rgbd|mono              tracking mode (default rgbd when the recording has depth)
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
  ]

  /// Stages that options need and that this build does not have yet, by option.
  static let missingStages: [String: String] = [
    "trajectory": "camera tracking", "events": "the session's delegate events (plane detection)",
    "taps": "raycasting", "hits": "raycasting",
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
    let folder = args.positional[0]
    let formatName = try args.choice("format", ["auto", "arsim", "tum"], default: "auto")
    _ = try args.choice("mode", ["rgbd", "mono"], default: "rgbd")
    let planes = try args.choice(
      "planes", ["horizontal,vertical", "vertical,horizontal", "horizontal", "vertical", "none"],
      default: "horizontal,vertical")
    _ = try args.choice(
      "target", ["existingPlaneGeometry", "existingPlaneInfinite", "estimatedPlane"],
      default: "existingPlaneGeometry")
    _ = try args.choice("alignment", ["any", "horizontal", "vertical"], default: "any")
    if (args.value("taps") == nil) != (args.value("hits") == nil) {
      throw Arguments.UsageError("--taps and --hits go together")
    }
    for option in missingStages.keys.sorted() where args.value(option) != nil {
      throw Arguments.UsageError(
        "--\(option) needs \(missingStages[option]!), which this build of arsim does not have yet")
    }
    if let mode = args.value("mode"), mode == "mono" {
      throw Arguments.UsageError(
        "--mode mono needs monocular tracking, which this build of arsim does not have yet")
    }

    var options = FrameSourceOptions()
    if let text = args.value("intrinsics") {
      // The image size is filled in by the reader, which validates the whole.
      options.intrinsicsOverride = try CameraIntrinsics.parse(text, source: "--intrinsics")
    }
    let format = formatName == "auto" ? nil : RecordingFormat(rawValue: formatName)
    var source = try Recording.open(folder: folder, format: format, options: options)
    let info = source.info
    if planes != "none" {
      printError(
        "note: plane detection (--planes \(planes)) is not in this build yet; frames are decoded only")
    }

    let progress = ProgressBar(label: "replay", total: info.frameCount)
    var summary = ReplaySummary()
    var decodeSeconds: [Double] = []
    while true {
      let start = Date()
      guard let frame = try source.nextFrame() else { break }
      decodeSeconds.append(Date().timeIntervalSince(start))
      summary.add(frame)
      progress.update(summary.frames)
    }
    progress.finish()
    print(summary.report(info: info))
    if !decodeSeconds.isEmpty {
      let median = decodeSeconds.sorted()[decodeSeconds.count / 2] * 1000
      printError(String(format: "timing: reading and decoding %.2f ms per frame (median)", median))
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
  var intensitySum = 0

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
      "ground truth: \(groundTruthPoses) poses",
    ]
    if frames > 0, let first = firstTimestamp, let last = lastTimestamp {
      lines.append(String(format: "time: %.6f to %.6f", first, last))
    }
    return lines.joined(separator: "\n")
  }
}
