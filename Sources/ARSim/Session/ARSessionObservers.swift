/// An observer of a session besides its delegate (ARSimScene's `ARView`): it hears every delegate
/// callback first, and each recorded frame's arrival (see ``ARSession/addObserver(_:)``).
package protocol ARSessionFrameObserver: ARSessionDelegate {
  /// A recorded frame is about to be processed, whether the session runs or not (so that a view can
  /// run its session on the first frame, as RealityKit's `automaticallyConfigureSession` does).
  func sessionWillProcessFrame(_ session: ARSession)
}

/// A weak reference to an observer.
struct WeakSessionObserver {
  weak var observer: (any ARSessionFrameObserver)?
}
