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
  }

  /// Seconds without frames after which the session reports an interruption.
  public static let interruptionThreshold: TimeInterval = 1.0

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
  public var gravitySource: GravitySource? { locked { tracker?.gravitySource } }

  private let lock = NSRecursiveLock()
  private weak var _delegate: (any ARSessionDelegate)?
  private var _delegateQueue: DispatchQueue?
  private var _currentFrame: ARFrame?
  private var _configuration: ARWorldTrackingConfiguration?
  private var isRunning = false
  private var tracker: CameraTracker?
  private var planeDetector: PlaneDetector?
  private var userAnchors: [ARAnchor] = []
  private var pendingAdded: [ARAnchor] = []
  private var pendingRemoved: [ARAnchor] = []
  private var lastTrackingState: ARCamera.TrackingState?
  private var lastTimestamp: Double?
  private var relocalizingAfterInterruption = false
  private var absorbers: [UUID: UUID] = [:]
  /// Detected planes the app removed: they stay out of frames and callbacks.
  private var removedPlanes: Set<UUID> = []
  private var runCount: UInt64 = 0
  private var trackedRaycasts: [ARTrackedRaycast] = []
  /// Time spent in plane detection for the last frame, seconds (ARSim's addition, for benchmarks).
  package private(set) var planeSeconds = 0.0
  /// Tracking time of the last frame by stage.
  package var trackingTimings: StageTimings { locked { tracker?.timings ?? StageTimings() } }

  /// A session that is not running yet.
  public init() {
    var generator = AnchorIdentifierGenerator(seed: 0x5E55_1017)
    identifier = generator.next()
  }

  private func locked<T>(_ body: () throws -> T) rethrows -> T {
    lock.lock()
    defer { lock.unlock() }
    return try body()
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
      var removed: [ARAnchor] = []
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
      _configuration = world
      if options.contains(.resetTracking) || tracker?.options.seed != world.tracking.seed {
        tracker = nil
        lastTrackingState = nil
      }
      if options.contains(.removeExistingAnchors) || options.contains(.resetTracking) {
        let announced = userAnchors.filter { anchor in !pendingAdded.contains { $0 === anchor } }
        removed = planeAnchors + announced
        userAnchors.removeAll()
        pendingAdded.removeAll()
        planeDetector = nil
        removedPlanes.removeAll()
      } else if detectionChanged {
        // Keep the anchors found so far; detection restarts with the new options.
        removed = planeAnchors
        planeDetector = nil
        removedPlanes.removeAll()
      }
      runCount += 1
      isRunning = true
      pendingRemoved += removed
    }
  }

  /// Stops processing frames until `run` is called again; frames replayed meanwhile are ignored
  /// (the camera is off). After resuming, tracking relocalises.
  public func pause() {
    locked {
      guard isRunning else { return }
      isRunning = false
      relocalizingAfterInterruption = tracker != nil
    }
  }

  // MARK: Anchors

  /// Adds an app anchor; it keeps its world transform. The delegate hears `didAdd` with the next frame.
  public func add(anchor: ARAnchor) {
    locked {
      guard !userAnchors.contains(where: { $0 === anchor }) else { return }
      userAnchors.append(anchor)
      pendingAdded.append(anchor)
    }
  }

  /// Removes an anchor (the app's or a detected plane). The delegate hears `didRemove` with the next frame.
  public func remove(anchor: ARAnchor) {
    locked {
      if let index = userAnchors.firstIndex(where: { $0.identifier == anchor.identifier }) {
        let removed = userAnchors.remove(at: index)
        if let pending = pendingAdded.firstIndex(where: { $0 === removed }) {
          pendingAdded.remove(at: pending)
        } else {
          pendingRemoved.append(removed)
        }
      } else if anchor is ARPlaneAnchor, !removedPlanes.contains(anchor.identifier),
        planeAnchors.contains(where: { $0.identifier == anchor.identifier })
      {
        removedPlanes.insert(anchor.identifier)
        pendingRemoved.append(anchor)
      }
    }
  }

  /// The anchor that absorbed a removed plane anchor when two planes turned out to be one surface,
  /// or nil (ARSim's addition: ARKit reports only the removal).
  public func absorbingAnchorIdentifier(of anchor: ARAnchor) -> UUID? {
    locked { absorbers[anchor.identifier] }
  }

  /// Every anchor now: detected planes, then the app's, in the order they were added.
  public var anchors: [ARAnchor] { locked { planeAnchors + userAnchors } }

  /// Detected planes the app has not removed.
  private var planeAnchors: [ARAnchor] {
    (planeDetector?.anchors ?? []).filter { !removedPlanes.contains($0.identifier) }
  }

  // MARK: Frames

  /// Whether the configured tracking reads no images (depth-only), so image-less frames can be replayed.
  package var tracksWithoutImages: Bool { locked { _configuration?.tracking.mode == .depth } }

  /// Processes one recorded frame (called by ``ARReplay``).
  package func process(_ recorded: RecordedFrame, info: RecordingInfo) {
    for observer in locked({ observers.compactMap(\.observer) }) { observer.sessionWillProcessFrame(self) }
    guard
      let (frame, stateChanged, changes, interrupted) = locked({
        () -> (ARFrame, Bool, PlaneAnchorChanges, Bool)? in
        guard isRunning, let configuration = _configuration else { return nil }
        var interrupted = false
        if let last = lastTimestamp, recorded.timestamp - last > Self.interruptionThreshold {
          interrupted = true
          relocalizingAfterInterruption = tracker != nil
        }
        lastTimestamp = recorded.timestamp
        let tracker = trackerFor(info: info, configuration: configuration)
        let tracked = tracker.track(recorded)
        var state = Self.trackingState(tracked.quality)
        if relocalizingAfterInterruption {
          if tracked.quality == .normal && tracked.source != .prediction {
            relocalizingAfterInterruption = false
          } else {
            state = .limited(.relocalizing)
          }
        }
        let camera = ARCamera(
          worldFromCamera: tracked.worldFromCamera, intrinsics: info.intrinsics, trackingState: state)
        let changes = detectPlanes(recorded, tracked: tracked, info: info, configuration: configuration)
        let features =
          tracked.quality == .initializing
          ? nil
          : ARPointCloud(
            points: tracked.featurePoints.map { simd_float3($0.position) },
            identifiers: tracked.featurePoints.map(\.identifier))
        let frame = ARFrame(
          timestamp: recorded.timestamp, camera: camera, anchors: planeAnchors + userAnchors,
          rawFeaturePoints: features, capturedImage: recorded.image,
          sceneDepth: recorded.depth.map { ARDepthData(depthMap: $0) }, frameIndex: recorded.index,
          poseSource: tracked.source, estimatesLight: configuration.isLightEstimationEnabled,
          raycaster: { [weak self] query, frame in self?.raycast(query, in: frame) ?? [] })
        _currentFrame = frame
        let stateChanged = lastTrackingState != state
        lastTrackingState = state
        return (frame, stateChanged, changes, interrupted)
      })
    else { return }
    if interrupted {
      deliver { $0.sessionWasInterrupted(self) }
      deliver { $0.sessionInterruptionEnded(self) }
    }
    if stateChanged { deliver { $0.session(self, cameraDidChangeTrackingState: frame.camera) } }
    deliver { $0.session(self, didUpdate: frame) }
    let (added, removed) = locked { () -> ([ARAnchor], [ARAnchor]) in
      defer {
        pendingAdded.removeAll()
        pendingRemoved.removeAll()
      }
      let kept = { (anchor: ARAnchor) in !self.removedPlanes.contains(anchor.identifier) }
      return (
        changes.added.filter(kept) + pendingAdded, changes.removed.map(\.anchor).filter(kept) + pendingRemoved
      )
    }
    let updated = locked { changes.updated.filter { !removedPlanes.contains($0.identifier) } }
    if !added.isEmpty { deliver { $0.session(self, didAdd: added) } }
    if !updated.isEmpty { deliver { $0.session(self, didUpdate: updated) } }
    if !removed.isEmpty { deliver { $0.session(self, didRemove: removed) } }
    updateTrackedRaycasts()
  }

  /// Reports a recording error and pauses (called by ``ARReplay``).
  package func fail(_ error: any Error) {
    locked { isRunning = false }
    deliver { $0.session(self, didFailWithError: error) }
  }

  private func trackerFor(info: RecordingInfo, configuration: ARWorldTrackingConfiguration) -> CameraTracker {
    if let tracker { return tracker }
    var options = configuration.tracking
    if configuration.trackingModeFollowsRecording { options.mode = info.hasDepth ? .rgbd : .mono }
    let made = CameraTracker(info: info, options: options)
    tracker = made
    return made
  }

  private func detectPlanes(
    _ recorded: RecordedFrame, tracked: TrackedFrame, info: RecordingInfo,
    configuration: ARWorldTrackingConfiguration
  ) -> PlaneAnchorChanges {
    planeSeconds = 0
    guard !configuration.planeDetection.isEmpty, tracked.quality == .normal else {
      return PlaneAnchorChanges()
    }
    let start = ContinuousClock.now
    defer { lap(&planeSeconds, since: start) }
    if planeDetector == nil {
      var options = configuration.planeDetectionOptions
      options.alignments = configuration.planeDetection
      planeDetector = PlaneDetector(
        options: options, seed: configuration.tracking.seed &+ runCount, sessionIdentifier: identifier)
    }
    let depthIntrinsics = info.depthIntrinsics ?? info.intrinsics
    let depthPoints =
      recorded.depth(minConfidence: configuration.tracking.minDepthConfidence).map {
        DepthSampler.worldPoints(
          depth: $0, intrinsics: depthIntrinsics, worldFromCamera: tracked.worldFromCamera,
          step: max(4, depthIntrinsics.width / 80))
      } ?? []
    let input = PlaneDetectionInput(
      frameIndex: recorded.index, timestamp: recorded.timestamp, worldFromCamera: tracked.worldFromCamera,
      featurePoints: tracked.featurePoints.map {
        FeaturePoint(identifier: $0.identifier, position: SIMD3<Float>($0.position))
      },
      depthPoints: depthPoints)
    let changes = planeDetector!.process(input)
    for removal in changes.removed {
      if let absorber = removal.absorbedBy { absorbers[removal.anchor.identifier] = absorber }
    }
    return changes
  }

  static func trackingState(_ quality: TrackingQuality) -> ARCamera.TrackingState {
    switch quality {
    case .initializing: .limited(.initializing)
    case .normal: .normal
    case .insufficientFeatures: .limited(.insufficientFeatures)
    case .excessiveMotion: .limited(.excessiveMotion)
    case .relocalizing: .limited(.relocalizing)
    }
  }

  // MARK: Delivery

  /// Calls `callback` for the observers (in the order they were added), then the delegate.
  private func deliver(_ callback: (any ARSessionDelegate) -> Void) {
    let (delegate, queue, watchers) = locked { (_delegate, _delegateQueue, observers.compactMap(\.observer)) }
    let receivers: [any ARSessionDelegate] = watchers + (delegate.map { [$0] } ?? [])
    guard !receivers.isEmpty else { return }
    if let queue {
      queue.sync { for receiver in receivers { callback(receiver) } }
    } else {
      for receiver in receivers { callback(receiver) }
    }
  }

  // MARK: Observers

  private var observers: [WeakSessionObserver] = []

  /// Adds `observer` (held weakly): it hears every callback before the delegate, and
  /// ``ARSessionFrameObserver/sessionWillProcessFrame(_:)`` before each recorded frame. For ARSimScene's
  /// `ARView`, which must follow its session whoever the app makes the delegate.
  package func addObserver(_ observer: any ARSessionFrameObserver) {
    locked {
      observers.removeAll { $0.observer == nil }
      observers.append(WeakSessionObserver(observer: observer))
    }
  }

  // MARK: Tracked raycasts

  package func register(_ raycast: ARTrackedRaycast) { locked { trackedRaycasts.append(raycast) } }

  package func unregister(_ raycast: ARTrackedRaycast) {
    locked { trackedRaycasts.removeAll { $0 === raycast } }
  }

  private func updateTrackedRaycasts() {
    let raycasts = locked { trackedRaycasts }
    for raycast in raycasts { raycast.update(in: self) }
  }
}
