import ARSim
import Foundation

/// One replay of a recording through an ``ARSession``, with what each frame gave. Shared by the
/// `replay`, `eval` and `bench` commands so that they replay alike.
public final class ReplayRun {
  /// What one frame gave (read from the session's ``FrameOutcome``). A long replay keeps one per
  /// frame, so the record is kept small: timings are stored in single precision (microseconds are
  /// all a per-stage median needs) and the final world's correction is looked up by epoch, not stored.
  public struct FrameRecord {
    public var index: Int
    public var timestamp: Double
    public var state: ARCamera.TrackingState
    /// What carried the pose (nil when the session did not say).
    package var poseSource: PoseSource?
    /// Whether the tracker closed a loop with the frame.
    public var closedLoop = false
    /// Whether the frame has a tracked pose (not initialising, not relocalising).
    public var isTracked: Bool
    /// Whether the frame has a pose worth recording (``FrameOutcome/hasPose``): tracked, or
    /// initialising with a measured rotation-only pose in the fixed world.
    public var hasPose: Bool
    /// Whether the planes were detected on the session's plane thread, beside the next frame's
    /// tracking (then ``planeWaitSeconds`` is how long the replay waited for them).
    public var planesOverlapped = false
    /// The camera's optical frame in the session world: as delivered (``deliveredWorldFromOptical``)
    /// while the run goes on (``ReplayRun/onFrame``), and in the session's final world once ``ReplayRun/run()``
    /// has returned (the session's ``ARSession/trajectory``: moved by every later world correction).
    public var worldFromOptical: RigidTransform
    /// The camera's optical frame as the frame delivered it (``ARFrame/camera``), in the world of its time.
    public var deliveredWorldFromOptical: RigidTransform
    /// The camera's optical frame in the ground-truth world, when known.
    public var groundTruth: RigidTransform?
    /// The session world's epoch the frame was delivered in.
    package var worldEpoch: Int
    /// Wall-clock seconds from the start of the replay to the frame's delivery (monotonic clock).
    public var elapsedSeconds = 0.0
    /// The frame's plane anchors, when the run collects them (``ReplayRun/collectsPlaneAnchors``).
    public var planeAnchors: [ARPlaneAnchor] = []
    /// The final world's corrections by epoch, shared by the run's records (empty until the run ends).
    fileprivate var corrections: WorldCorrections?
    private var seconds: SIMD8<Float> = .zero
    private var anchors: Int32

    /// The session's final world from the world the frame was delivered in: identity until ``ReplayRun/run()``
    /// returns, then the composition of every world correction after the frame.
    public var finalFromDelivered: RigidTransform {
      corrections.flatMap {
        $0.finalFromEpoch.indices.contains(worldEpoch) ? $0.finalFromEpoch[worldEpoch] : nil
      }
        ?? .identity
    }
    /// Seconds spent reading and decoding the frame (by the reading thread when decoding is
    /// overlapped; the replay's wait for the frame is ``waitSeconds``).
    public var readSeconds: Double {
      get { Double(seconds[0]) }
      set { seconds[0] = Float(newValue) }
    }
    /// Seconds the replay waited for the frame: ``readSeconds`` on one thread, less (often 0) when
    /// the frame was decoded ahead.
    public var waitSeconds: Double {
      get { Double(seconds[1]) }
      set { seconds[1] = Float(newValue) }
    }
    /// Seconds spent detecting planes (0 when detection did not run on this frame).
    public var planeSeconds: Double {
      get { Double(seconds[2]) }
      set { seconds[2] = Float(newValue) }
    }
    /// How long the replay waited for the planes detected beside tracking (0 unless ``planesOverlapped``).
    public var planeWaitSeconds: Double {
      get { Double(seconds[3]) }
      set { seconds[3] = Float(newValue) }
    }
    /// Seconds spent in each tracking stage.
    package var timings: StageTimings {
      get {
        var timings = StageTimings()
        (timings.track, timings.pose) = (Double(seconds[4]), Double(seconds[5]))
        (timings.map, timings.recognition) = (Double(seconds[6]), Double(seconds[7]))
        return timings
      }
      set {
        (seconds[4], seconds[5]) = (Float(newValue.track), Float(newValue.pose))
        (seconds[6], seconds[7]) = (Float(newValue.map), Float(newValue.recognition))
      }
    }
    /// The number of anchors in the frame.
    public var anchorCount: Int {
      get { Int(anchors) }
      set { anchors = Int32(clamping: newValue) }
    }

    init(
      index: Int, timestamp: Double, state: ARCamera.TrackingState, poseSource: PoseSource?, isTracked: Bool,
      hasPose: Bool, delivered: RigidTransform, worldEpoch: Int, groundTruth: RigidTransform?,
      anchorCount: Int
    ) {
      (self.index, self.timestamp, self.state, self.poseSource) = (index, timestamp, state, poseSource)
      (self.isTracked, self.hasPose, self.worldEpoch, self.groundTruth) = (
        isTracked, hasPose, worldEpoch, groundTruth
      )
      (worldFromOptical, deliveredWorldFromOptical) = (delivered, delivered)
      anchors = Int32(clamping: anchorCount)
    }
  }

  /// The session's final world from each of its epochs' worlds (``ARSession/worldNowFromEpochs()``),
  /// set once when the run ends and shared by every record.
  fileprivate final class WorldCorrections: Sendable {
    let finalFromEpoch: [RigidTransform]
    init(_ finalFromEpoch: [RigidTransform]) { self.finalFromEpoch = finalFromEpoch }
  }

  /// The recording's folder.
  public let folder: String
  /// The configuration the session runs with.
  public let configuration: ARWorldTrackingConfiguration
  /// The tracking mode (`--mode`, or the one the recording supports), as the session resolved it.
  public let mode: TrackerOptions.Mode
  /// Whether ``mode`` was chosen from what the recording holds (no `--mode`).
  public let modeChosen: Bool
  /// The session the recording is replayed into.
  public let session = ARSession()
  private let replay: ARReplay
  /// The replay's threads (``ReplayOptions/threads``).
  public let threads: Int
  /// The reader decoding ahead on a second thread (``ReplayOptions/threads`` 2 or more).
  private let prefetch: PrefetchingFrameSource?
  /// What each frame gave, in order.
  public private(set) var frames: [FrameRecord] = []
  /// Counts of what the recording held (the frames read from it), for summaries.
  public var summary: ReplaySummary { counts.summary.withLock { $0 } }
  private let counts: SummarizingFrameSource.Counts
  /// Wall-clock seconds of the last ``run()``, from the first frame read to the last frame's
  /// outputs (for benchmarks; results never depend on it).
  public private(set) var wallSeconds = 0.0
  /// CPU seconds (user and system, every thread of the process) of the last ``run()``: what a
  /// loaded machine cannot hide, for benchmarks.
  public private(set) var cpuSeconds = 0.0
  /// What the recording's reader says about it.
  public var info: RecordingInfo { replay.info }
  /// Writes the delegate's callbacks as JSON Lines, when asked.
  private var events: EventLog?
  /// The delegate without an events file (held here: the session holds it weakly).
  private let relocalizing = RelocalizingDelegate()
  /// The trajectory file written at the end of the run, when asked.
  private var trajectory: TrajectoryFile?
  /// Raycasts taps at the frame nearest in time, when asked.
  private var taps: TapCaster?
  /// Whether each frame's record keeps the frame's plane anchors (for `arsim eval`). Default false.
  public var collectsPlaneAnchors = false
  /// The taps cast by ``collectTaps(_:target:alignment:)``, in cast order (empty otherwise).
  public var tapCasts: [TapCaster.Cast] { taps?.casts ?? [] }
  /// The name of the replay's progress on stderr. Default `replay`.
  public var progressLabel = "replay"
  /// Called after each frame with the session's frame and its record, in order (for renderers and
  /// exporters that need every ``ARFrame``); an error it throws ends the run.
  public var onFrame: ((ARFrame, FrameRecord) throws -> Void)?

  /// Opens `folder` for a replay with `options`.
  ///
  /// - Throws: `RecordingError` naming the file when the recording cannot be read; `UsageError`
  ///   when RGB-D mode is asked for a recording without depth.
  public init(folder: String, options: ReplayOptions) throws {
    self.folder = folder
    var sourceOptions = FrameSourceOptions()
    sourceOptions.decodeColor = options.decodeColor
    sourceOptions.intrinsicsOverride = options.intrinsics
    let configuration = ARWorldTrackingConfiguration()
    // Images are decoded at the size they are tracked at; in full only when something reads them.
    sourceOptions.trackingMaxSide = configuration.tracking.trackingMaxSide
    if let scale = options.monocularScale { configuration.tracking.monocularScale = scale }
    configuration.tracking.loopClosure.enabled = options.closesLoops
    guard options.threads >= 1 else {
      throw UsageError("--threads must be at least 1, got \(options.threads)")
    }
    threads = options.threads
    // OpenCV's own pool (TBB) would split tracking's loops onto the core the reader uses; a worker
    // descheduled mid-chunk then holds up the main thread, which on a loaded machine costs more wall
    // and CPU time than running serially (`arsim bench` prints the `track` stage's median).
    VisionRuntime.setThreadCount(1)
    // KLT, the main thread's largest stage, shares its points with a helper thread while the reader
    // has the second core to spare (bit-identical tracks); with one thread, everything stays on it.
    VisionRuntime.setKLTThreadCount(options.threads > 1 ? 2 : 1)
    switch options.mode {
    case .rgbd: configuration.tracking.mode = .rgbd
    case .mono: configuration.tracking.mode = .mono
    case .auto: configuration.tracking.mode = nil
    case .depth: configuration.tracking.mode = .depth
    }
    configuration.planeDetection = options.planeDetection
    configuration.initialWorldMap = options.initialWorldMap
    let context: SessionContext
    if options.threads > 1 {
      // The reader goes to the prefetching thread straight from opening: nothing else holds it. That
      // thread also builds each frame's KLT pyramid, as tracking in the session's context would.
      let source = try Self.open(folder, options: options, sourceOptions: sourceOptions)
      counts = source.counts
      context = try Self.start(session, configuration, info: source.info, folder: folder, options: options)
      let prepare = CameraTracker.preparation(context)
      let prefetch = PrefetchingFrameSource(source, prepare: prepare)
      self.prefetch = prefetch
      replay = ARReplay(session: session, source: prefetch)
      // The next frame is tracked while this frame's planes are detected: nothing here calls the
      // session's run, pause, gravitySource or world map between frames (only after the run).
      replay.tracksAhead = true
    } else {
      let source = try Self.open(folder, options: options, sourceOptions: sourceOptions)
      counts = source.counts
      context = try Self.start(session, configuration, info: source.info, folder: folder, options: options)
      prefetch = nil
      replay = ARReplay(session: session, source: source)
    }
    self.configuration = configuration
    mode = context.mode
    modeChosen = context.modeChosen
    session.delegate = relocalizing
  }

  /// The recording in `folder`, its frames counted as they are read (``SummarizingFrameSource``).
  private static func open(_ folder: String, options: ReplayOptions, sourceOptions: FrameSourceOptions)
    throws(RecordingError) -> sending SummarizingFrameSource
  {
    let source = try Recording.open(folder: folder, format: options.format, options: sourceOptions)
    return SummarizingFrameSource(options.frames.map { FrameRangeSource(source, range: $0) } ?? source)
  }

  /// Completes `configuration` for the recording `info` and runs `session` with it: what tracking runs
  /// with, its mode decided once, is then the session's context.
  /// - Throws: `UsageError` when the mode or scene reconstruction asks for what the recording lacks.
  private static func start(
    _ session: ARSession, _ configuration: ARWorldTrackingConfiguration, info: RecordingInfo, folder: String,
    options: ReplayOptions
  ) throws -> SessionContext {
    if !options.sceneReconstruction.isEmpty {
      guard ARWorldTrackingConfiguration.supportsSceneReconstruction(options.sceneReconstruction, for: info)
      else { throw UsageError("scene reconstruction needs depth, and \(folder) has none") }
      configuration.sceneReconstruction = options.sceneReconstruction
    }
    session.run(configuration)
    guard let context = session.context(for: info) else { preconditionFailure("the session runs") }
    if context.mode != .mono, !info.hasDepth {
      throw UsageError(
        "--mode \(context.mode.rawValue) needs depth, and \(folder) has none (use --mode mono)")
    }
    if context.readsImages, !info.hasImages {
      throw UsageError(
        "--mode \(context.mode.rawValue) reads images, and \(folder) has none "
          + "(\(info.notes.first ?? "no colour frames")); leave --mode out to track its depth")
    }
    return context
  }

  /// Writes the session's callbacks to `path` as JSON Lines (the CLI contract's events file).
  public func logEvents(to path: String) throws {
    let log = try EventLog(path: path)
    events = log
    session.delegate = log
  }

  /// Raycasts the taps of `tapsPath` and writes the hits to `hitsPath`.
  public func castTaps(
    from tapsPath: String, to hitsPath: String, target: ARRaycastQuery.Target,
    alignment: ARRaycastQuery.TargetAlignment
  )
    throws
  {
    taps = try TapCaster(tapsPath: tapsPath, hitsPath: hitsPath, target: target, alignment: alignment)
  }

  /// Raycasts `taps` at the frame nearest in time and keeps each cast (frame, camera, hits, plane
  /// anchors) in ``tapCasts`` instead of writing a file.
  public func collectTaps(
    _ list: [TapCaster.Tap], target: ARRaycastQuery.Target, alignment: ARRaycastQuery.TargetAlignment
  ) throws {
    taps = try TapCaster(taps: list, hitsPath: nil, target: target, alignment: alignment, collects: true)
  }

  /// Replays every frame, with a progress bar on stderr.
  public func run() throws {
    // One record per frame: reserved at once, so that a long replay's records do not peak at
    // one and a half times their size while the array grows.
    frames.reserveCapacity(min(max(info.frameCount, 0), 1 << 20))
    let progress = ProgressBar(label: progressLabel, total: info.frameCount)
    let debug = ProcessInfo.processInfo.environment["ARSIM_DEBUG"] != nil
    var previous: ARFrame?
    let start = ContinuousClock.now
    let startCPU = processCPUSeconds()
    defer {
      wallSeconds = (ContinuousClock.now - start).seconds
      cpuSeconds = processCPUSeconds() - startCPU
    }
    while let outcome = try replay.step() {
      guard let frame = outcome.frame else { continue }
      let recorded = outcome.recorded
      let delivered = outcome.worldFromCamera * opticalFromCamera
      var record = FrameRecord(
        index: recorded.index, timestamp: recorded.timestamp, state: frame.camera.trackingState,
        poseSource: frame.poseSource, isTracked: outcome.isTracked, hasPose: outcome.hasPose,
        delivered: delivered, worldEpoch: outcome.worldEpoch, groundTruth: recorded.groundTruth,
        anchorCount: frame.anchors.count)
      record.readSeconds = prefetch?.readSeconds(ofFrame: recorded.index) ?? outcome.timings.read
      record.waitSeconds = outcome.timings.read
      record.timings = outcome.timings.tracking
      record.planeSeconds = outcome.timings.planes
      record.closedLoop = frame.closedLoop
      record.planesOverlapped = outcome.timings.planesOverlapped
      record.planeWaitSeconds = outcome.timings.planeWait
      record.elapsedSeconds = (ContinuousClock.now - start).seconds
      if collectsPlaneAnchors { record.planeAnchors = frame.anchors.compactMap { $0 as? ARPlaneAnchor } }
      frames.append(record)
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
    moveToFinalWorld()
    if let trajectory {
      for record in frames where record.hasPose {
        try trajectory.write(timestamp: record.timestamp, worldFromOptical: record.worldFromOptical)
      }
      try trajectory.close()
    }
  }

  /// Re-expresses every frame's pose in the session's final world (``FrameRecord/worldFromOptical``):
  /// the session's ``ARSession/trajectory``, which also holds the loop closures' deformations (the
  /// frames before a closure moved with the map, so the closure is no jump in the trajectory); a frame
  /// without a recorded pose by the rigid corrections alone. O(frames + corrections).
  private func moveToFinalWorld() {
    let corrections = WorldCorrections(session.worldNowFromEpochs())
    for i in frames.indices {
      frames[i].corrections = corrections
      frames[i].worldFromOptical = frames[i].finalFromDelivered * frames[i].deliveredWorldFromOptical
    }
    // The trajectory holds the frames with a pose, in recording order, as the records do: one walk
    // over both (a later pose for the same frame wins).
    var next = frames.startIndex
    session.visitTrajectory { pose in
      while next < frames.endIndex, frames[next].index < pose.frameIndex { next += 1 }
      let target = next < frames.endIndex && frames[next].index == pose.frameIndex ? next : next - 1
      guard frames.indices.contains(target), frames[target].index == pose.frameIndex else { return }
      frames[target].worldFromOptical = pose.worldFromCamera * opticalFromCamera
    }
  }

  /// `, gravity from ..., scale from ...`.
  /// Why the tracking mode is what it is, for the summary's `tracking:` line: `--mode`, or what the
  /// recording holds when the mode was chosen from it.
  public var modeReason: String {
    guard modeChosen else { return "--mode" }
    switch mode {
    case .rgbd: return "chosen: the recording has images and depth"
    case .depth: return "chosen: the recording has depth and no images"
    case .mono: return "chosen: the recording has images and no depth"
    }
  }

  public var sourcesSummary: String {
    // The reference's stated down says which world that is (ARKitScenes' is z-up).
    let down = info.groundTruthGravity.map { v in
      " (down " + [v.x, v.y, v.z].map { String(format: "%g", $0 + 0) }.joined(separator: ", ") + " in it)"
    }
    let arkitWorld = info.referenceKind == .arkit
    switch session.gravitySource {
    case .groundTruth? where arkitWorld:
      return ", gravity from ARKit's world" + (down ?? "")
    case .surfaces?:
      let start = arkitWorld ? "ARKit's world at the start" + (down ?? "") : "the start's level"
      return ", gravity from \(start), held by the depth's level surfaces"
    default:
      return ", gravity from \(session.gravitySource?.rawValue ?? "nothing")"
    }
  }

  /// The tracking states in order, each with its duration: `limited:initializing 0.30 s > normal 9.70 s`.
  public func stateTimeline() -> String {
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
  /// to `path` at the end of ``run()``, in the session's final world (as SLAM systems save their final
  /// trajectory: see ``ARSession/trajectory``), through a temporary file renamed into place.
  public func writeTrajectory(to path: String) throws { trajectory = try TrajectoryFile(path: path) }
}

/// The CPU time the process has used so far (user and system, all threads), in seconds.
private func processCPUSeconds() -> Double {
  var time = timespec()
  guard clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time) == 0 else { return 0 }
  return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
}
