import ARSim
import Foundation

/// One replay of a recording through an ``ARSession``, with what each frame gave. Shared by the
/// `replay`, `eval` and `bench` commands so that they replay alike.
final class ReplayRun {
  /// What one frame gave.
  struct FrameRecord {
    var index: Int
    var timestamp: Double
    var state: ARCamera.TrackingState
    /// What carried the pose (nil when the session did not say).
    var poseSource: PoseSource?
    /// Whether gravity had fixed the session world by this frame (before, an initialising frame's
    /// orientation is provisional).
    var isWorldFixed: Bool
    /// The camera's optical frame in the session world.
    var worldFromOptical: RigidTransform
    /// The camera's optical frame in the ground-truth world, when known.
    var groundTruth: RigidTransform?
    var readSeconds: Double
    var timings: StageTimings
    var planeSeconds: Double
    var anchorCount: Int
    /// The frame's plane anchors, when the run collects them (``ReplayRun/collectsPlaneAnchors``).
    var planeAnchors: [ARPlaneAnchor] = []

    /// Whether the frame has a tracked pose (not initialising, not relocalising).
    var isTracked: Bool {
      switch state {
      case .normal, .limited(.insufficientFeatures), .limited(.excessiveMotion): true
      default: false
      }
    }

    /// Whether the frame has a pose worth recording: tracked, or initialising with a measured
    /// rotation-only pose (monocular, before the map exists: the camera has not moved measurably, its
    /// position is held) in the fixed world.
    var hasPose: Bool {
      isTracked || (state == .limited(.initializing) && poseSource == .rotation && isWorldFixed)
    }
  }

  let folder: String
  let configuration: ARWorldTrackingConfiguration
  let session = ARSession()
  private let replay: ARReplay
  private(set) var frames: [FrameRecord] = []
  /// Counts of what the recording held, for summaries.
  private(set) var summary = ReplaySummary()
  var info: RecordingInfo { replay.info }
  /// Writes the delegate's callbacks as JSON Lines, when asked.
  private var events: EventLog?
  /// Raycasts taps at the frame nearest in time, when asked.
  private var taps: TapCaster?
  /// Whether each frame's record keeps the frame's plane anchors (for `arsim eval`). Default false.
  var collectsPlaneAnchors = false
  /// The taps cast by ``collectTaps(_:target:alignment:)``, in cast order (empty otherwise).
  var tapCasts: [TapCaster.Cast] { taps?.casts ?? [] }
  /// Called after each frame with the session's frame and its record, in order (for renderers and
  /// exporters that need every ``ARFrame``); an error it throws ends the run.
  var onFrame: ((ARFrame, FrameRecord) throws -> Void)?

  /// Opens `folder` with the options shared by the replaying commands
  /// (`--format`, `--intrinsics`, `--mode`, `--scale`, `--planes`); `decodeColor` makes frames carry
  /// colour images (for rendering; tracking uses their grey version).
  init(
    folder: String, arguments args: Arguments, planes defaultPlanes: String = "horizontal,vertical",
    decodeColor: Bool = false
  ) throws {
    self.folder = folder
    let formatName = try args.choice(
      "format", ["auto"] + RecordingFormat.allCases.map(\.rawValue), default: "auto")
    let modeName = try args.choice("mode", ["rgbd", "mono", "depth", "auto"], default: "auto")
    let planes = try args.choice(
      "planes", ["horizontal,vertical", "vertical,horizontal", "horizontal", "vertical", "none"],
      default: defaultPlanes)
    var options = FrameSourceOptions()
    options.decodeColor = decodeColor
    if let text = args.value("intrinsics") {
      // The image size is filled in by the reader, which validates the whole.
      options.intrinsicsOverride = try CameraIntrinsics.parse(text, source: "--intrinsics")
    }
    let configuration = ARWorldTrackingConfiguration()
    if let text = args.value("scale") {
      guard let scale = Double(text), scale.isFinite, scale > 0 else {
        throw Arguments.UsageError("--scale must be a positive number of metres, got '\(text)'")
      }
      configuration.tracking.monocularScale = scale
    }
    let format = formatName == "auto" ? nil : RecordingFormat(rawValue: formatName)
    replay = ARReplay(
      session: session, source: try Recording.open(folder: folder, format: format, options: options))
    switch modeName {
    case "rgbd":
      guard replay.info.hasDepth else {
        throw Arguments.UsageError("--mode rgbd needs depth, and \(folder) has none (use --mode mono)")
      }
      configuration.tracking.mode = .rgbd
      configuration.trackingModeFollowsRecording = false
    case "mono":
      configuration.tracking.mode = .mono
      configuration.trackingModeFollowsRecording = false
    case "depth":
      guard replay.info.hasDepth else {
        throw Arguments.UsageError("--mode depth needs depth, and \(folder) has none (use --mode mono)")
      }
      configuration.tracking.mode = .depth
      configuration.trackingModeFollowsRecording = false
    default:
      configuration.tracking.mode = replay.info.hasDepth ? (replay.info.hasImages ? .rgbd : .depth) : .mono
      configuration.trackingModeFollowsRecording = !(replay.info.hasDepth && !replay.info.hasImages)
    }
    if !replay.info.hasImages, configuration.tracking.mode != .depth {
      throw Arguments.UsageError(
        "\(folder) has no images (\(replay.info.notes.first ?? "no colour frames")); use --mode depth")
    }
    configuration.planeDetection =
      switch planes {
      case "none": []
      case "horizontal": .horizontal
      case "vertical": .vertical
      default: [.horizontal, .vertical]
      }
    self.configuration = configuration
  }

  /// Writes the session's callbacks to `path` as JSON Lines (the CLI contract's events file).
  func logEvents(to path: String) throws {
    let log = try EventLog(path: path, session: session)
    events = log
    session.delegate = log
  }

  /// Raycasts the taps of `tapsPath` and writes the hits to `hitsPath`.
  func castTaps(
    from tapsPath: String, to hitsPath: String, target: ARRaycastQuery.Target,
    alignment: ARRaycastQuery.TargetAlignment
  )
    throws
  {
    taps = try TapCaster(tapsPath: tapsPath, hitsPath: hitsPath, target: target, alignment: alignment)
  }

  /// Raycasts `taps` at the frame nearest in time and keeps each cast (frame, camera, hits, plane
  /// anchors) in ``tapCasts`` instead of writing a file.
  func collectTaps(
    _ list: [TapCaster.Tap], target: ARRaycastQuery.Target, alignment: ARRaycastQuery.TargetAlignment
  ) throws {
    taps = try TapCaster(taps: list, hitsPath: nil, target: target, alignment: alignment, collects: true)
  }

  /// Replays every frame, with a progress bar on stderr.
  func run() throws {
    session.run(configuration)
    let progress = ProgressBar(label: "replay", total: info.frameCount)
    let debug = ProcessInfo.processInfo.environment["ARSIM_DEBUG"] != nil
    var previous: ARFrame?
    while try replay.step() {
      guard let recorded = replay.lastFrame, let frame = session.currentFrame else { continue }
      var record = FrameRecord(
        index: recorded.index, timestamp: recorded.timestamp, state: frame.camera.trackingState,
        poseSource: frame.poseSource, isWorldFixed: session.gravitySource != nil,
        worldFromOptical: RigidTransform(matrix: frame.camera.transform) * opticalFromCamera,
        groundTruth: recorded.groundTruth, readSeconds: replay.lastReadSeconds,
        timings: session.trackingTimings,
        planeSeconds: session.planeSeconds, anchorCount: frame.anchors.count)
      if collectsPlaneAnchors { record.planeAnchors = frame.anchors.compactMap { $0 as? ARPlaneAnchor } }
      frames.append(record)
      summary.add(recorded)
      try taps?.cast(before: frame, previous: previous, session: session)
      try onFrame?(frame, record)
      previous = frame
      if debug {
        let p = record.worldFromOptical.translation
        printError(
          String(
            format: "%d %@ %@ points %d anchors %d at %.3f %.3f %.3f", recorded.index, "\(record.state)",
            record.poseSource?.rawValue ?? "-",
            frame.rawFeaturePoints?.count ?? 0, frame.anchors.count, p.x, p.y, p.z))
      }
      progress.update(frames.count)
    }
    try taps?.finish(last: previous, session: session)
    progress.finish()
    try events?.close()
  }

  /// `, gravity from ..., scale from ...`.
  var sourcesSummary: String {
    if session.gravitySource == .groundTruth, info.referenceKind == .arkit {
      return ", gravity from ARKit's world"
    }
    return ", gravity from \(session.gravitySource?.rawValue ?? "nothing")"
  }

  /// The tracking states in order, each with its duration: `limited:initializing 0.30 s > normal 9.70 s`.
  func stateTimeline() -> String {
    var spans: [(name: String, start: Double, end: Double)] = []
    for frame in frames {
      let name = "\(frame.state)"
      if spans.last?.name == name {
        spans[spans.count - 1].end = frame.timestamp
      } else {
        if !spans.isEmpty { spans[spans.count - 1].end = frame.timestamp }
        spans.append((name, frame.timestamp, frame.timestamp))
      }
    }
    return spans.map { String(format: "%@ %.2f s", $0.name, $0.end - $0.start) }.joined(separator: " > ")
  }

  /// Writes the optical poses of the frames with a pose (``FrameRecord/hasPose``) as a TUM trajectory
  /// (atomically).
  func writeTrajectory(to path: String) throws {
    let file = try TrajectoryFile(path: path)
    for frame in frames where frame.hasPose {
      try file.write(timestamp: frame.timestamp, worldFromOptical: frame.worldFromOptical)
    }
    try file.close()
  }
}

extension Duration {
  /// This duration in seconds.
  var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}
