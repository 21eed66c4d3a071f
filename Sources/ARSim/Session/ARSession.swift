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

  let lock = NSRecursiveLock()
  /// The world's epochs and the delivered poses, for ``trajectory``.
  var epochs = WorldEpochs()
  weak var _delegate: (any ARSessionDelegate)?
  var _delegateQueue: DispatchQueue?
  var _currentFrame: ARFrame?
  var _configuration: ARWorldTrackingConfiguration?
  var isRunning = false
  /// Whether `pause()` was called since the last processed frame.
  var wasPaused = false
  /// The tracking stage (made at the first frame, for the recording's sensors).
  var tracker: CameraTracker?
  /// What tracking runs with, the mode resolved (made when tracking starts, dropped with the tracker).
  var context: SessionContext?
  /// The plane detection stage (made at the first frame that detects planes).
  var planeDetector: (any PlaneDetecting)?
  /// Every anchor's lifecycle: the app's, and which detected planes the app removed or were merged.
  var book = AnchorBook()
  /// The plane anchors restored from the initial world map, which detected planes continue.
  var restoredPlanes = RestoredPlanes()
  /// The detected planes as the app sees them: restored planes, then the detector's that continue none.
  var planes: [ARPlaneAnchor] { restoredPlanes.visible(planeDetector?.anchors ?? []) }
  /// The state last reported, to report changes only.
  var lastTrackingState: ARCamera.TrackingState?
  /// The last processed frame's time, to notice interruptions.
  var lastTimestamp: Double?
  var runCount: UInt64 = 0
  var trackedRaycasts: [ARTrackedRaycast] = []
  /// This session's plane geometry for raycasts, per frame.
  let raycastCache = PlaneRaycastCache()
  /// The next frame, tracked while the last one's planes were detected (a replay that tracks ahead,
  /// ``ARReplay/tracksAhead``), until it is processed: its index, what tracking gave and its timings.
  var trackedAhead: (index: Int, tracked: TrackedFrame, timings: StageTimings)?
  /// How many processed frames were tracked ahead (for tests).
  package var framesTrackedAhead: Int { locked { _framesTrackedAhead } }
  var _framesTrackedAhead = 0
  /// Scene reconstruction's failure in the frame processed last (options out of range), reported after
  /// the frame's callbacks.
  var meshFailure: ReconstructionError?
  /// The thread planes are detected on while the next frame is tracked.
  let planeWorker = StageWorker(label: "arsim.session.planes")
  /// Scene reconstruction (`sceneReconstruction`): the mesh and its anchors.
  let meshStage = SceneReconstructionStage()

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
  func resetTracking() {
    if tracker != nil { epochs.reset() }
    tracker = nil
    context = nil
    lastTrackingState = nil
  }

  /// Removes every anchor and the plane detector (`.resetTracking`, `.removeExistingAnchors`).
  func removeEverything() {
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

  /// What tracking runs with for the recording `info` (``SessionContext``): the context tracking
  /// started with, or the one it starts with at the next frame; nil before the first `run`.
  package func context(for info: RecordingInfo) -> SessionContext? {
    locked { _configuration.map { trackingContext(info: info, configuration: $0) } }
  }

  /// The context of the tracking under way, or, when it starts with this frame, the one made from
  /// `info` and `configuration` and kept until tracking is reset.
  func trackingContext(info: RecordingInfo, configuration: ARWorldTrackingConfiguration) -> SessionContext {
    if let context { return context }
    let made = SessionContext(info: info, tracking: configuration.tracking)
    context = made
    return made
  }

  /// Processes one recorded frame (called by ``ARReplay``) through the stages, each a function with a
  /// value between them: ``track(_:context:configuration:)`` gives a ``TrackedFrame``,
  /// ``correctWorld(by:_:)`` moves planes and anchors with the world when tracking corrected it,
  /// ``detectPlanes(_:tracked:context:configuration:)`` the detector's ``PlaneAnchorChanges``, the anchor
  /// book turns them into the session's ``AnchorChanges``, and ``assemble`` makes the frame and its
  /// callbacks, all under one lock section; delivery comes last, outside it.
  ///
  /// With `next` (``ARReplay/tracksAhead``), the session may read the next frame with it and track it
  /// while this frame's planes are detected on the plane thread, when nothing before its tracking could
  /// change what it reads (``aheadFrame(after:next:context:configuration:)``); that frame's `process` then takes
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
      let context = trackingContext(info: info, configuration: configuration)
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
        tracked = track(recorded, context: context, configuration: configuration)
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
        aheadFrame(after: recorded, next: $0, context: context, configuration: configuration)
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
            recorded, tracked: tracked, context: context, configuration: configuration)
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
        stage = planeStage(recorded, tracked: tracked, context: context, configuration: configuration)
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
  func noteTime(_ timestamp: Double, threshold: Double) -> Bool {
    defer { lastTimestamp = timestamp }
    guard let last = lastTimestamp, timestamp - last > threshold else { return false }
    return true
  }

  /// The delegate's answer to `question`, asked on `delegateQueue` when set; nil without a delegate.
  func askDelegate<T: Sendable>(_ question: @escaping (any ARSessionDelegate) -> T) -> T? {
    let (delegate, queue) = locked { (_delegate, _delegateQueue) }
    guard let delegate else { return nil }
    guard let queue else { return question(delegate) }
    nonisolated(unsafe) let target = delegate
    return queue.sync { question(target) }
  }

  // MARK: Observers

  var observers: [WeakSessionObserver] = []

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
}
