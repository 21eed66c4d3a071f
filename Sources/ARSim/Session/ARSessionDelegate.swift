/// The session's notices about its own state, as ARKit's `ARSessionObserver`. Every method has
/// an empty default, so conformers implement only what they need.
public protocol ARSessionObserver: AnyObject {
  /// The session stopped with an error (for example a damaged recording). It is paused.
  func session(_ session: ARSession, didFailWithError error: any Error)
  /// The camera's tracking state changed.
  func session(_ session: ARSession, cameraDidChangeTrackingState camera: ARCamera)
  /// Frames stopped arriving (a gap in the recording, or a pause of the session, of more than
  /// ``TrackerOptions/interruptionThreshold`` seconds, 1 by default).
  func sessionWasInterrupted(_ session: ARSession)
  /// Frames arrive again after an interruption (see ``sessionShouldAttemptRelocalization(_:)``).
  func sessionInterruptionEnded(_ session: ARSession)
  /// Whether the session should try to relocalise after an interruption (ARKit's question, asked of
  /// the session's delegate when frames come again after a gap in the recording, before the first of
  /// them is tracked; not after the app's own `pause()` and `run`, which keep the world). True: the
  /// frames are `limited(.relocalizing)` until the place is recognised in the keyframes, and the world
  /// and anchors stay. False (the default, as ARKit's without the method, and without a delegate):
  /// tracking starts afresh, as `run(_:options: .resetTracking)`: a new world origin, every anchor removed.
  func sessionShouldAttemptRelocalization(_ session: ARSession) -> Bool
}

/// The session's per-frame callbacks, as ARKit's `ARSessionDelegate`. Per frame, in ARKit's order:
/// `cameraDidChangeTrackingState` (when it changed), `didUpdate frame`, then `didAdd`, `didUpdate`
/// and `didRemove` anchors.
public protocol ARSessionDelegate: ARSessionObserver {
  /// A new frame.
  func session(_ session: ARSession, didUpdate frame: ARFrame)
  /// Anchors the session added (detected planes, or the app's through `add(anchor:)`).
  func session(_ session: ARSession, didAdd anchors: [ARAnchor])
  /// Anchors whose properties changed.
  func session(_ session: ARSession, didUpdate anchors: [ARAnchor])
  /// Anchors the session removed (merged into another plane, or the app's through `remove(anchor:)`).
  func session(_ session: ARSession, didRemove anchors: [ARAnchor])
}

extension ARSessionObserver {
  public func session(_ session: ARSession, didFailWithError error: any Error) {}
  public func session(_ session: ARSession, cameraDidChangeTrackingState camera: ARCamera) {}
  public func sessionWasInterrupted(_ session: ARSession) {}
  public func sessionInterruptionEnded(_ session: ARSession) {}
  public func sessionShouldAttemptRelocalization(_ session: ARSession) -> Bool { false }
}

extension ARSessionDelegate {
  public func session(_ session: ARSession, didUpdate frame: ARFrame) {}
  public func session(_ session: ARSession, didAdd anchors: [ARAnchor]) {}
  public func session(_ session: ARSession, didUpdate anchors: [ARAnchor]) {}
  public func session(_ session: ARSession, didRemove anchors: [ARAnchor]) {}
}
