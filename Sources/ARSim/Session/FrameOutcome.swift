/// One callback of a session, as a value: what ``ARSession`` delivers, in order, through its one
/// delivery point (to the delegate, and the tracked raycasts' handlers), on `delegateQueue` when set.
package enum SessionEvent: Sendable {
  /// `sessionWasInterrupted(_:)`.
  case wasInterrupted
  /// `sessionInterruptionEnded(_:)`.
  case interruptionEnded
  /// `session(_:cameraDidChangeTrackingState:)`.
  case trackingStateChanged(ARCamera)
  /// `session(_:didUpdate:)` with a frame.
  case frameUpdated(ARFrame)
  /// `session(_:didAdd:)`.
  case anchorsAdded([ARAnchor])
  /// `session(_:didUpdate:)` with anchors.
  case anchorsUpdated([ARAnchor])
  /// `session(_:didRemove:)`.
  case anchorsRemoved([ARAnchor])
  /// `session(_:didFailWithError:)`.
  case failed(any Error & Sendable)
  /// Re-evaluate the tracked raycasts against this frame, calling the handlers whose results changed.
  case trackedRaycasts(ARFrame)
}

/// Seconds one frame spent in each stage (monotonic clock; results never depend on it).
package struct FrameTimings: Sendable, Equatable {
  /// Reading and decoding the recorded frame.
  package var read = 0.0
  /// Tracking, by stage.
  package var tracking = StageTimings()
  /// Plane detection (0 when it did not run).
  package var planes = 0.0
  /// Whether plane detection ran on the plane thread beside the next frame's tracking (a replay that
  /// tracks ahead, ``ARReplay/tracksAhead``) rather than on the session's thread.
  package var planesOverlapped = false
  /// Seconds the session's thread waited for the plane thread after tracking the next frame (0 when
  /// ``planesOverlapped`` is false).
  package var planeWait = 0.0

  /// Zero everywhere.
  package init() {}
}

/// What one replayed frame gave (ARSim's addition): the session's frame, whether it has a pose, and
/// the callbacks it caused. ``ARReplay/step()`` returns it once every callback has been delivered, so
/// tools read a frame's results here rather than from the session's properties.
public struct FrameOutcome: Sendable {
  /// The recorded frame handed to the session.
  public let recorded: RecordedFrame
  /// The session's frame, or nil when the session was not running (never run, or paused: the frame
  /// was ignored).
  public let frame: ARFrame?
  /// Whether the frame has a tracked pose: `normal`, or limited by features or motion.
  public let isTracked: Bool
  /// Whether the frame has a pose worth recording: tracked, or initialising with a measured
  /// rotation-only pose in the fixed world (monocular, before the map exists).
  public let hasPose: Bool
  /// Whether gravity had fixed the session world by this frame (before, an initialising frame's
  /// orientation is provisional).
  public let isWorldFixed: Bool
  /// The session world's epoch the frame was delivered in (see ``ARSession/worldNowFromEpochs()``); 0
  /// for an ignored frame.
  package let worldEpoch: Int
  /// The camera's pose as tracked (world from ARKit's camera frame), in double precision: what
  /// ``ARFrame/camera``'s `transform` rounds to Float. Identity for an ignored frame.
  package let worldFromCamera: RigidTransform
  /// The callbacks, in delivery order.
  package let events: [SessionEvent]
  /// Where the frame's time went.
  package var timings: FrameTimings

  /// The outcome of a frame the session ignored (not running).
  package init(ignored recorded: RecordedFrame) {
    self.recorded = recorded
    frame = nil
    isTracked = false
    hasPose = false
    isWorldFixed = false
    worldEpoch = 0
    worldFromCamera = .identity
    events = []
    timings = FrameTimings()
  }

  /// The outcome of a processed frame.
  package init(
    recorded: RecordedFrame, frame: ARFrame, tracked: TrackedFrame, worldEpoch: Int,
    events: [SessionEvent], timings: FrameTimings
  ) {
    self.recorded = recorded
    self.frame = frame
    isTracked = tracked.isTracked
    hasPose = tracked.hasPose
    isWorldFixed = tracked.isWorldFixed
    self.worldEpoch = worldEpoch
    worldFromCamera = tracked.worldFromCamera
    self.events = events
    self.timings = timings
  }
}
