import ARSim
import ARSimTestSupport
import Foundation

/// A recording with some frames never handed over: the frames in `dropped` are skipped, so the
/// recording has a gap in time there (and the camera moves on meanwhile), as a camera that was off.
struct DroppingSource: FrameSource {
  var base: any FrameSource
  let dropped: Range<Int>
  var info: RecordingInfo { base.info }

  mutating func nextFrame() throws(RecordingError) -> RecordedFrame? {
    while let frame = try base.nextFrame() {
      if !dropped.contains(frame.index) { return frame }
    }
    return nil
  }
}

/// Every callback of a session, in order, as text (`didAdd A,B`, `trackingState normal`, ...), with
/// whether it ran on the queue marked by `queueKey` (when one is given).
final class CallbackRecorder: ARSessionDelegate, @unchecked Sendable {
  private let lock = NSLock()
  private var _log: [String] = []
  private var _offQueue: [String] = []
  private var _added: [ARAnchor] = []
  private var _removed: [ARAnchor] = []
  private var _updatedIDs: Set<UUID> = []
  private let queueKey: DispatchSpecificKey<Int>?

  /// The answer to `sessionShouldAttemptRelocalization` (not logged).
  let attemptsRelocalization: Bool

  init(queueKey: DispatchSpecificKey<Int>? = nil, attemptsRelocalization: Bool = true) {
    self.queueKey = queueKey
    self.attemptsRelocalization = attemptsRelocalization
  }

  func sessionShouldAttemptRelocalization(_ session: ARSession) -> Bool { attemptsRelocalization }

  /// The callbacks so far.
  var log: [String] { lock.withLock { _log } }
  /// The callbacks that did not run on the marked queue.
  var offQueue: [String] { lock.withLock { _offQueue } }
  /// Every anchor reported added, in order.
  var added: [ARAnchor] { lock.withLock { _added } }
  /// Every anchor reported removed, in order.
  var removed: [ARAnchor] { lock.withLock { _removed } }
  /// Identifiers of every anchor reported updated.
  var updatedIDs: Set<UUID> { lock.withLock { _updatedIDs } }

  func note(_ entry: String) {
    let onQueue = queueKey.map { DispatchQueue.getSpecific(key: $0) != nil } ?? true
    lock.withLock {
      _log.append(entry)
      if !onQueue { _offQueue.append(entry) }
    }
  }

  func session(_ session: ARSession, didUpdate frame: ARFrame) { note("frame \(frame.frameIndex)") }
  func session(_ session: ARSession, cameraDidChangeTrackingState camera: ARCamera) {
    note("trackingState \(camera.trackingState)")
  }
  func sessionWasInterrupted(_ session: ARSession) { note("interrupted") }
  func sessionInterruptionEnded(_ session: ARSession) { note("interruptionEnded") }
  func session(_ session: ARSession, didAdd anchors: [ARAnchor]) {
    lock.withLock { _added += anchors }
    note("didAdd \(anchors.count)")
  }
  func session(_ session: ARSession, didUpdate anchors: [ARAnchor]) {
    lock.withLock { _updatedIDs.formUnion(anchors.map(\.identifier)) }
    note("didUpdate \(anchors.count)")
  }
  func session(_ session: ARSession, didRemove anchors: [ARAnchor]) {
    lock.withLock { _removed += anchors }
    note("didRemove \(anchors.count)")
  }
}

/// A session replaying the bundled tabletop recording (320x240, 15 fps, depth, IMU; 152 frames),
/// with horizontal and vertical plane detection, or nil (with the reason) when it is absent.
struct TabletopSession {
  let session = ARSession()
  let configuration = ARWorldTrackingConfiguration()
  let replay: ARReplay
  let recorder: CallbackRecorder

  init(
    dropping dropped: Range<Int> = 0..<0, recorder: CallbackRecorder = CallbackRecorder(),
    dataset: String = "tabletop", planeOptions: PlaneDetectionOptions = PlaneDetectionOptions()
  ) throws {
    configuration.planeDetection = [.horizontal, .vertical]
    configuration.planeDetectionOptions = planeOptions
    let source = try Recording.open(folder: Datasets.path(dataset))
    replay = ARReplay(session: session, source: DroppingSource(base: source, dropped: dropped))
    self.recorder = recorder
    session.delegate = recorder
    session.run(configuration)
  }

  /// Steps until a frame reports a detected plane; returns that frame's outcome.
  func stepUntilPlanes(maxFrames: Int = 80) throws -> FrameOutcome? {
    for _ in 0..<maxFrames {
      guard let outcome = try replay.step() else { return nil }
      if outcome.frame?.anchors.contains(where: { $0 is ARPlaneAnchor }) == true { return outcome }
    }
    return nil
  }
}
