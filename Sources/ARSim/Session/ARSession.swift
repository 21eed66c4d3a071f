import Foundation

/// ARKit's session, fed by a recording instead of a camera: an ``ARReplay`` hands it recorded
/// frames, and it tracks the camera, detects planes, keeps anchors and tells its delegate, as
/// ARKit's `ARSession` does.
///
/// Deterministic: the same recording and configuration give the same callbacks with the same
/// values, bit for bit. Callbacks are delivered on `delegateQueue` when set, otherwise on the
/// thread that steps the replay; either way the replay waits for each callback, so their order is
/// fixed. The session's state is guarded by a lock, so its methods may be called from any thread,
/// including from inside callbacks.
public final class ARSession: @unchecked Sendable {
  /// Options for ``run(_:options:)``.
  public struct RunOptions: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// Start tracking afresh: a new world origin at the next frame.
    public static let resetTracking = RunOptions(rawValue: 1 << 0)
    /// Remove every anchor, the app's and detected planes.
    public static let removeExistingAnchors = RunOptions(rawValue: 1 << 1)
    /// Drop the scene reconstruction: its mesh anchors are removed and the mesh starts afresh.
    public static let resetSceneReconstruction = RunOptions(rawValue: 1 << 3)
  }

  /// Seconds without frames after which the session reports an interruption, by default
  /// (`configuration.tracking.interruptionThreshold` sets it).
  public static let interruptionThreshold: TimeInterval = TrackerOptions().interruptionThreshold

  /// Receives the session's callbacks. Held weakly, as in ARKit.
  public weak var delegate: (any ARSessionDelegate)? {
    get { locked { _delegate } }
    set { locked { _delegate = newValue } }
  }
  /// The queue callbacks are delivered on (synchronously: the replay waits), or nil for the thread
  /// that steps the replay. It must not be the queue that steps the replay.
  public var delegateQueue: DispatchQueue? {
    get { locked { _delegateQueue } }
    set { locked { _delegateQueue = newValue } }
  }
  /// A deterministic identifier of this session.
  public let identifier: UUID
  /// The most recent frame, or nil before the first.
  public var currentFrame: ARFrame? { locked { _currentFrame } }
  /// The configuration the session runs with (a copy), or nil before `run`.
  public var configuration: ARConfiguration? { locked { _configuration } }
  /// Where gravity came from, once the world is fixed (ARSim's addition).
  public var gravitySource: GravitySource? {
    locked {
      requireNothingTrackedAhead("gravitySource")
      return tracker?.gravitySource
    }
  }
  /// The camera trajectory the session recorded (ARSim's addition): every processed frame with a pose
  /// (``FrameOutcome/hasPose``), in order, in the session's world now, as a SLAM system saves its final
  /// trajectory. Unlike ``ARFrame/camera``'s transform, which stays as delivered (in the world of its
  /// time, as ARKit's), each pose here follows every later world correction (gravity re-levels, map
  /// corrections). Read in O(frames + corrections).
  public var trajectory: [ARTrajectoryPose] { locked { epochs.poses() } }

  /// Calls `body` with each pose of ``trajectory`` in turn, under the session's lock, without
  /// building the array (a long replay reads its trajectory once, at the end, when memory peaks).
  package func visitTrajectory(_ body: (ARTrajectoryPose) -> Void) { locked { epochs.visitPoses(body) } }

  private let lock = NSRecursiveLock()
  /// The world's epochs and the delivered poses, for ``trajectory``.
  private(set) var epochs = WorldEpochs()
  private weak var _delegate: (any ARSessionDelegate)?
  private var _delegateQueue: DispatchQueue?
  private(set) var _currentFrame: ARFrame?
  private var _configuration: ARWorldTrackingConfiguration?
  private var isRunning = false
  /// Whether `pause()` was called since the last processed frame.
  private var wasPaused = false
  /// The tracking stage (made at the first frame, for the recording's sensors).
  private(set) var tracker: CameraTracker?
  /// The plane detection stage (made at the first frame that detects planes).
  private var planeDetector: (any PlaneDetecting)?
  /// Every anchor's lifecycle: the app's, and which detected planes the app removed or were merged.
  var book = AnchorBook()
  /// The plane anchors restored from the initial world map, which detected planes continue.
  private var restoredPlanes = RestoredPlanes()
  /// The detected planes as the app sees them: restored planes, then the detector's that continue none.
  var planes: [ARPlaneAnchor] { restoredPlanes.visible(planeDetector?.anchors ?? []) }
  /// The state last reported, to report changes only.
  private var lastTrackingState: ARCamera.TrackingState?
  /// The last processed frame's time, to notice interruptions.
  private var lastTimestamp: Double?
  private var runCount: UInt64 = 0
  private var trackedRaycasts: [ARTrackedRaycast] = []
  /// This session's plane geometry for raycasts, per frame.
  let raycastCache = PlaneRaycastCache()
  /// The next frame, tracked while the last one's planes were detected (a replay that tracks ahead,
  /// ``ARReplay/tracksAhead``), until it is processed: its index, what tracking gave and its timings.
  private var trackedAhead: (index: Int, tracked: TrackedFrame, timings: StageTimings)?
  /// How many processed frames were tracked ahead (for tests).
  package var framesTrackedAhead: Int { locked { _framesTrackedAhead } }
  private var _framesTrackedAhead = 0
  /// Scene reconstruction's failure in the frame processed last (options out of range), reported after
  /// the frame's callbacks.
  private var meshFailure: ReconstructionError?
  /// The thread planes are detected on while the next frame is tracked.
  private let planeWorker = StageWorker(label: "arsim.session.planes")
  /// Scene reconstruction (`sceneReconstruction`): the mesh and its anchors.
  private let meshStage = SceneReconstructionStage()

  /// A session that is not running yet.
  public init() {
    var generator = AnchorIdentifierGenerator(seed: 0x5E55_1017)
    identifier = generator.next()
  }

  func locked<T>(_ body: () throws -> T) rethrows -> T {
    lock.lock()
    defer { lock.unlock() }
    return try body()
  }

  /// Traps when a frame has been tracked ahead (``ARReplay/tracksAhead``): `call` would change or read
  /// tracking state that the next frame's tracking has already moved past.
  func requireNothingTrackedAhead(_ call: String) {
    precondition(trackedAhead == nil, "\(call) called between frames of a replay that tracks ahead")
  }

  // MARK: Running

  /// Runs the session with `configuration` (copied). Running again changes the configuration and
  /// resumes after `pause()`; tracking continues in the same world unless `.resetTracking`.
  ///
  /// Callbacks come after the call, as in ARKit: anchors the run removes (with `.removeExistingAnchors`
  /// or `.resetTracking`, or detected planes when plane detection changes) reach the delegate in one
  /// `didRemove` with the next processed frame, after its `didUpdate frame`, never from inside `run`.
  /// App anchors added since the last frame, which the delegate has not heard of, are dropped silently.
  public func run(_ configuration: ARConfiguration, options: RunOptions = []) {
    locked {
      requireNothingTrackedAhead("run")
      let copy = configuration.copy()
      let world =
        copy as? ARWorldTrackingConfiguration
        ?? {
          let world = ARWorldTrackingConfiguration()
          world.copyBase(from: copy)
          return world
        }()
      let detectionChanged =
        _configuration.map {
          $0.planeDetection != world.planeDetection || $0.planeDetectionOptions != world.planeDetectionOptions
        } ?? true
      let mapChanged = world.initialWorldMap !== _configuration?.initialWorldMap
      meshStage.run(world, previous: _configuration, options: options)
      _configuration = world
      if options.contains(.resetTracking) || tracker?.options.seed != world.tracking.seed || mapChanged {
        resetTracking()
      }
      if options.contains(.removeExistingAnchors) || options.contains(.resetTracking) {
        removeEverything()
      } else if detectionChanged {
        // Keep the app's anchors; detection restarts with the new options.
        book.restartPlanes(planes)
        planeDetector = nil
        restoredPlanes = RestoredPlanes()
      }
      runCount += 1
      isRunning = true
    }
  }

  /// Drops the tracker: tracking starts afresh, in a new world, at the next frame.
  private func resetTracking() {
    if tracker != nil { epochs.reset() }
    tracker = nil
    lastTrackingState = nil
  }

  /// Removes every anchor and the plane detector (`.resetTracking`, `.removeExistingAnchors`).
  private func removeEverything() {
    book.removeAll(planes: planes)
    planeDetector = nil
    restoredPlanes = RestoredPlanes()
  }

  /// Stops processing frames until `run` is called again; frames replayed meanwhile are ignored
  /// (the camera is off). After resuming, tracking relocalises.
  public func pause() {
    locked {
      requireNothingTrackedAhead("pause")
      guard isRunning else { return }
      isRunning = false
      wasPaused = true
      tracker?.cameraWasOff()
    }
  }

  // MARK: Anchors

  /// Adds an app anchor; it keeps its world transform. The delegate hears `didAdd` with the next frame.
  public func add(anchor: ARAnchor) { locked { book.add(anchor, at: lastTimestamp) } }

  /// Removes an anchor (the app's or a detected plane). The delegate hears `didRemove` with the next frame.
  public func remove(anchor: ARAnchor) {
    locked { book.remove(anchor, planes: planes) }
  }

  /// The anchor that absorbed a removed plane anchor when two planes turned out to be one surface,
  /// or nil (ARSim's addition: ARKit reports only the removal).
  public func absorbingAnchorIdentifier(of anchor: ARAnchor) -> UUID? {
    locked { book.absorber(of: anchor.identifier) }
  }

  /// Every anchor now: detected planes, then the app's, in the order they were added, then the mesh
  /// anchors by chunk.
  public var anchors: [ARAnchor] { locked { book.anchors(planes: planes) + meshStage.anchors } }

  // MARK: Frames

  /// Whether the configured tracking reads no images for the recording `info` (depth-only, asked
  /// or chosen because the recording has none), so image-less frames can be replayed.
  package func tracksWithoutImages(info: RecordingInfo) -> Bool {
    locked { _configuration?.tracking.mode(for: info) == .depth }
  }

  /// Processes one recorded frame (called by ``ARReplay``) through the stages, each a function with a
  /// value between them: ``track(_:info:configuration:)`` gives a ``TrackedFrame``,
  /// ``correctWorld(by:_:)`` moves planes and anchors with the world when tracking corrected it,
  /// ``detectPlanes(_:tracked:info:configuration:)`` the detector's ``PlaneAnchorChanges``, the anchor
  /// book turns them into the session's ``AnchorChanges``, and ``assemble`` makes the frame and its
  /// callbacks, all under one lock section; delivery comes last, outside it.
  ///
  /// With `next` (``ARReplay/tracksAhead``), the session may read the next frame with it and track it
  /// while this frame's planes are detected on the plane thread, when nothing before its tracking could
  /// change what it reads (``aheadFrame(after:next:info:configuration:)``); that frame's `process` then takes
  /// the tracking done. Tracking reads nothing plane detection writes, so the outputs are the same.
  package func process(
    _ recorded: RecordedFrame, info: RecordingInfo, next: (() -> RecordedFrame?)? = nil
  ) -> FrameOutcome {
    for observer in locked({ observers.compactMap(\.observer) }) { observer.sessionWillProcessFrame(self) }
    // An interruption ends with this frame: the delegate is asked whether to relocalise before the
    // frame is tracked (outside the lock: it may call the session); `sessionWasInterrupted` and
    // `sessionInterruptionEnded` come with the frame's callbacks, first.
    let (interrupted, afterPause) = locked { () -> (Bool, Bool) in
      let interrupted =
        isRunning
        && _configuration.map { noteTime(recorded.timestamp, threshold: $0.tracking.interruptionThreshold) }
          ?? false
      let afterPause = isRunning && wasPaused
      if isRunning { wasPaused = false }
      return (interrupted, afterPause)
    }
    if interrupted {
      // After the app's own `pause()` and `run` the world is kept and the session relocalises, as
      // ARKit's run without `.resetTracking`; the delegate is asked after a gap in the recording.
      let relocalizes = afterPause || (askDelegate { $0.sessionShouldAttemptRelocalization(self) } ?? false)
      locked {
        if relocalizes {
          tracker?.cameraWasOff()
        } else {
          // ARKit's answer to no: tracking starts afresh, as with `.resetTracking`.
          resetTracking()
          removeEverything()
          meshStage.reset()
          runCount += 1
        }
      }
    }
    let outcome = locked { () -> FrameOutcome in
      guard isRunning, let configuration = _configuration else { return FrameOutcome(ignored: recorded) }
      var timings = FrameTimings()
      let tracked: TrackedFrame
      if let ahead = trackedAhead {
        // Tracked while the last frame's planes were detected: nothing it read has changed since.
        trackedAhead = nil
        _framesTrackedAhead += 1
        precondition(ahead.index == recorded.index && !interrupted, "a frame tracked ahead was not the next")
        tracked = ahead.tracked
        timings.tracking = ahead.timings
      } else {
        tracked = track(recorded, info: info, configuration: configuration)
        timings.tracking = tracker?.timings ?? StageTimings()
      }
      if let correction = tracked.worldCorrection { epochs.correct(by: correction) }
      if let deformation = tracked.worldDeformation { epochs.deform(by: deformation) }
      if tracked.hasPose {
        epochs.record(
          frameIndex: recorded.index, timestamp: recorded.timestamp, worldFromCamera: tracked.worldFromCamera)
      }
      let stage: PlaneStageOutput
      let meshJob: @Sendable () -> Void = { [meshStage, identifier, runCount] in
        meshStage.process(
          recorded, tracked: tracked, info: info, configuration: configuration, sessionIdentifier: identifier,
          seed: runCount)
      }
      if let next = next.flatMap({
        aheadFrame(after: recorded, next: $0, info: info, configuration: configuration)
      }),
        let tracker
      {
        // This frame's planes on the plane thread, the next frame's tracking here (the lock held):
        // tracking reads nothing the plane stage writes (the book, the detector) and writes nothing
        // it reads (this frame's `tracked` is a value), so both give what they give in sequence.
        let result = PlaneStageResult()
        meshStage.worker.run(meshJob)
        planeWorker.run {
          result.output = self.planeStage(
            recorded, tracked: tracked, info: info, configuration: configuration)
        }
        let ahead = tracker.track(next)
        trackedAhead = (next.index, ahead, tracker.timings)
        let waitStart = ContinuousClock.now
        planeWorker.wait()
        meshStage.worker.wait()
        lap(&timings.planeWait, since: waitStart)
        timings.planesOverlapped = true
        stage = result.output
      } else {
        stage = planeStage(recorded, tracked: tracked, info: info, configuration: configuration)
        meshJob()
      }
      timings.planes = stage.seconds
      timings.tracking.recognition += stage.recognition
      var restoring: [ARPlaneAnchor] = []
      if tracked.relocalizedToMap, let map = configuration.initialWorldMap {
        restoring = restoreAnchors(of: map)
      }
      var changes = book.apply(
        restoredPlanes.rewrite(
          stage.changes, detected: planeDetector?.anchors ?? [], correction: tracked.worldCorrection,
          restoring: restoring))
      let mesh = meshStage.takeChanges()
      changes.added += mesh.changes.added
      changes.updated += mesh.changes.updated
      changes.removed += mesh.changes.removed
      meshFailure = mesh.failure
      return assemble(
        recorded, tracked: tracked, changes: changes, interrupted: interrupted, info: info,
        configuration: configuration, timings: timings)
    }
    deliver(outcome.events)
    if let failure = locked({ () -> ReconstructionError? in
      defer { meshFailure = nil }
      return meshFailure
    }) {
      fail(failure)
    }
    return outcome
  }

  /// Reports a recording error and pauses (called by ``ARReplay``).
  package func fail(_ error: any Error & Sendable) {
    locked { isRunning = false }
    deliver([.failed(error)])
  }

  /// Notes a frame's time; true when it comes more than `threshold` seconds after the last one (the
  /// camera was off).
  private func noteTime(_ timestamp: Double, threshold: Double) -> Bool {
    defer { lastTimestamp = timestamp }
    guard let last = lastTimestamp, timestamp - last > threshold else { return false }
    return true
  }

  /// The delegate's answer to `question`, asked on `delegateQueue` when set; nil without a delegate.
  private func askDelegate<T: Sendable>(_ question: @escaping (any ARSessionDelegate) -> T) -> T? {
    let (delegate, queue) = locked { (_delegate, _delegateQueue) }
    guard let delegate else { return nil }
    guard let queue else { return question(delegate) }
    nonisolated(unsafe) let target = delegate
    return queue.sync { question(target) }
  }

  /// The next frame to track ahead, while this frame's planes are detected: read by `next` when
  /// nothing that runs before its tracking can change what it reads (no observer, which hears each
  /// frame's arrival first), and tracked only when its tracking would start without a question to the
  /// delegate (no interruption before it) and it can be tracked (images, unless depth-only). When it is
  /// not tracked, the frame read stays with the replay for the next step.
  private func aheadFrame(
    after recorded: RecordedFrame, next: () -> RecordedFrame?, info: RecordingInfo,
    configuration: ARWorldTrackingConfiguration
  ) -> RecordedFrame? {
    guard observers.allSatisfy({ $0.observer == nil }), let frame = next() else { return nil }
    guard frame.timestamp - recorded.timestamp <= configuration.tracking.interruptionThreshold,
      frame.hasImage || configuration.tracking.mode(for: info) == .depth
    else { return nil }
    return frame
  }

  /// The world correction and plane detection stages of a frame, timed: the planes' changes; the
  /// seconds of both (when either ran), and of a loop closure's move of the map (counted with the
  /// tracker's recognition too).
  private func planeStage(
    _ recorded: RecordedFrame, tracked: TrackedFrame, info: RecordingInfo,
    configuration: ARWorldTrackingConfiguration
  ) -> PlaneStageOutput {
    var output = PlaneStageOutput()
    let start = ContinuousClock.now
    output.changes = correctWorld(by: tracked.worldCorrection, tracked.worldDeformation)
    if tracked.worldDeformation != nil { lap(&output.recognition, since: start) }
    let detected = detectPlanes(recorded, tracked: tracked, info: info, configuration: configuration)
    if let detected { output.changes.append(detected) }
    if detected != nil || tracked.worldCorrection != nil || tracked.worldDeformation != nil {
      lap(&output.seconds, since: start)
    }
    return output
  }

  /// The tracking stage: the frame's pose and state.
  private func track(
    _ recorded: RecordedFrame, info: RecordingInfo, configuration: ARWorldTrackingConfiguration
  )
    -> TrackedFrame
  {
    let tracker =
      self.tracker
      ?? CameraTracker(
        info: info, options: configuration.tracking, map: configuration.initialWorldMap?.keyframes)
    self.tracker = tracker
    return tracker.track(recorded)
  }

  /// The world correction stage (``WorldCorrectionStage``): planes and anchors follow the world when
  /// tracking corrected it.
  private func correctWorld(by correction: RigidTransform?, _ deformation: WorldDeformation?)
    -> PlaneAnchorChanges
  { WorldCorrectionStage.apply(correction, deformation, book: &book, detector: planeDetector) }

  /// The plane detection stage, or nil when it does not run for this frame (no plane detection
  /// configured, or tracking is not normal).
  private func detectPlanes(
    _ recorded: RecordedFrame, tracked: TrackedFrame, info: RecordingInfo,
    configuration: ARWorldTrackingConfiguration
  ) -> PlaneAnchorChanges? {
    guard !configuration.planeDetection.isEmpty, tracked.state == .normal else { return nil }
    let detector =
      planeDetector
      ?? {
        var options = configuration.planeDetectionOptions
        options.alignments = configuration.planeDetection
        // With a map, identifiers unlike those of the session that made it (whose planes it restores).
        let generation = runCount &+ (configuration.initialWorldMap?.identitySeed ?? 0)
        // Tracking with depth: planes from the depth's planar surfaces. Monocular tracking keeps its
        // own scale, which depth need not share, so its planes come from its feature points.
        if info.hasDepth && options.depthSurfaces.enabled && configuration.tracking.mode(for: info) != .mono {
          return SurfacePlaneDetector(options: options, generation: generation, sessionIdentifier: identifier)
        }
        return PlaneDetector(options: options, generation: generation, sessionIdentifier: identifier)
      }()
    planeDetector = detector
    return detector.process(
      recorded, depth: tracked.depth, tracked: tracked, intrinsics: info.depthIntrinsics ?? info.intrinsics)
  }

  /// The frame and its callbacks, in delivery order.
  private func assemble(
    _ recorded: RecordedFrame, tracked: TrackedFrame, changes: AnchorChanges, interrupted: Bool,
    info: RecordingInfo, configuration: ARWorldTrackingConfiguration, timings: FrameTimings
  ) -> FrameOutcome {
    let camera = ARCamera(
      worldFromCamera: tracked.worldFromCamera, intrinsics: info.intrinsics, trackingState: tracked.state)
    let features = tracked.featurePoints.map {
      ARPointCloud(points: $0.map { SIMD3<Float>($0.position) }, identifiers: $0.map(\.identifier))
    }
    let frame = ARFrame(
      timestamp: recorded.timestamp, camera: camera,
      anchors: book.anchors(planes: planes) + meshStage.anchors,
      rawFeaturePoints: features, capturedImage: recorded.storedImage, deferredGray: recorded.deferredGray,
      deferredColor: recorded.deferredColor,
      sceneDepth: recorded.depth.map { ARDepthData(depthMap: $0, confidenceMap: recorded.confidence) },
      frameIndex: recorded.index,
      poseSource: tracked.source, closedLoop: tracked.worldDeformation != nil,
      isViewMapped: tracked.isViewMapped,
      estimatesLight: configuration.isLightEstimationEnabled,
      raycaster: { [weak self] query, frame in self?.raycast(query, in: frame) ?? [] })
    _currentFrame = frame
    var events: [SessionEvent] = interrupted ? [.wasInterrupted, .interruptionEnded] : []
    if lastTrackingState != tracked.state { events.append(.trackingStateChanged(camera)) }
    lastTrackingState = tracked.state
    events.append(.frameUpdated(frame))
    if !changes.added.isEmpty { events.append(.anchorsAdded(changes.added)) }
    if !changes.updated.isEmpty { events.append(.anchorsUpdated(changes.updated)) }
    if !changes.removed.isEmpty { events.append(.anchorsRemoved(changes.removed)) }
    events.append(.trackedRaycasts(frame))
    return FrameOutcome(
      recorded: recorded, frame: frame, tracked: tracked, worldEpoch: epochs.current, events: events,
      timings: timings)
  }

  // MARK: Delivery

  /// The one delivery point: every callback of the session goes through here, in order, on
  /// `delegateQueue` when set (synchronously), else on the calling thread: to the observers (in the
  /// order they were added), then the delegate. The delegate, the observers and the queue are read for
  /// each event, so a callback may change them; tracked raycasts are re-evaluated whether or not anyone
  /// listens.
  private func deliver(_ events: [SessionEvent]) {
    for event in events {
      let (delegate, queue, watchers) = locked {
        (_delegate, _delegateQueue, observers.compactMap(\.observer))
      }
      let body: () -> Void
      if case .trackedRaycasts(let frame) = event {
        let raycasts = locked { trackedRaycasts }
        guard !raycasts.isEmpty else { continue }
        body = { for raycast in raycasts { raycast.update(in: self, frame: frame) } }
      } else {
        let receivers: [any ARSessionDelegate] = watchers + (delegate.map { [$0] } ?? [])
        guard !receivers.isEmpty else { continue }
        body = { for receiver in receivers { self.call(receiver, event) } }
      }
      if let queue {
        queue.sync(execute: body)
      } else {
        body()
      }
    }
  }

  private func call(_ delegate: any ARSessionDelegate, _ event: SessionEvent) {
    switch event {
    case .wasInterrupted: delegate.sessionWasInterrupted(self)
    case .interruptionEnded: delegate.sessionInterruptionEnded(self)
    case .trackingStateChanged(let camera): delegate.session(self, cameraDidChangeTrackingState: camera)
    case .frameUpdated(let frame): delegate.session(self, didUpdate: frame)
    case .anchorsAdded(let anchors): delegate.session(self, didAdd: anchors)
    case .anchorsUpdated(let anchors): delegate.session(self, didUpdate: anchors)
    case .anchorsRemoved(let anchors): delegate.session(self, didRemove: anchors)
    case .failed(let error): delegate.session(self, didFailWithError: error)
    case .trackedRaycasts: break
    }
  }

  // MARK: Observers

  private var observers: [WeakSessionObserver] = []

  /// Adds `observer` (held weakly): it hears every callback before the delegate, and
  /// ``ARSessionFrameObserver/sessionWillProcessFrame(_:)`` before each recorded frame. For ARSimScene's
  /// `ARView`, which must follow its session whoever the app makes the delegate.
  package func addObserver(_ observer: any ARSessionFrameObserver) {
    locked {
      requireNothingTrackedAhead("addObserver")
      observers.removeAll { $0.observer == nil }
      observers.append(WeakSessionObserver(observer: observer))
    }
  }

  // MARK: Tracked raycasts

  package func register(_ raycast: ARTrackedRaycast) { locked { trackedRaycasts.append(raycast) } }

  package func unregister(_ raycast: ARTrackedRaycast) {
    locked { trackedRaycasts.removeAll { $0 === raycast } }
  }
}
