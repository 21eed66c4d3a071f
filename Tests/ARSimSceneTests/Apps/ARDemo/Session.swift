import ARSimScene
import Combine
import Foundation

protocol ARSessionManaging: AnyObject {
  var sessionStatePublisher: AnyPublisher<ARSessionState, Never> { get }
  var planeDetector: PlaneDetector { get }
  func startSession(in arView: ARView)
  func pauseSession()
  func resumeSession()
  func resetSession()
}

/// Tracks ARPlaneAnchor additions and removals.
final class PlaneDetector {
  private(set) var planes: [UUID: ARPlaneAnchor] = [:]
  private let hasDetectedPlaneSubject = CurrentValueSubject<Bool, Never>(false)

  var hasDetectedPlanePublisher: AnyPublisher<Bool, Never> {
    hasDetectedPlaneSubject.removeDuplicates().eraseToAnyPublisher()
  }

  func add(_ anchors: [ARAnchor]) {
    for case let plane as ARPlaneAnchor in anchors { planes[plane.identifier] = plane }
    hasDetectedPlaneSubject.send(!planes.isEmpty)
  }

  func remove(_ anchors: [ARAnchor]) {
    for anchor in anchors { planes.removeValue(forKey: anchor.identifier) }
    hasDetectedPlaneSubject.send(!planes.isEmpty)
  }

  func reset() {
    planes.removeAll()
    hasDetectedPlaneSubject.send(false)
  }
}

/// Owns the ARSession lifecycle; publishes its state through Combine.
final class ARSessionManager: NSObject, ARSessionManaging, ARSessionDelegate {
  let planeDetector = PlaneDetector()
  private let stateSubject = CurrentValueSubject<ARSessionState, Never>(.notStarted)
  private weak var arView: ARView?

  var sessionStatePublisher: AnyPublisher<ARSessionState, Never> { stateSubject.eraseToAnyPublisher() }

  private func makeConfiguration() -> ARWorldTrackingConfiguration {
    let configuration = ARWorldTrackingConfiguration()
    configuration.planeDetection = [.horizontal, .vertical]
    configuration.environmentTexturing = .automatic
    if ARWorldTrackingConfiguration.supportsSceneReconstruction(.mesh) {
      configuration.sceneReconstruction = .mesh
    }
    return configuration
  }

  func startSession(in arView: ARView) {
    self.arView = arView
    arView.automaticallyConfigureSession = false
    arView.session.delegate = self
    arView.session.run(makeConfiguration())
    stateSubject.send(.running)
  }

  func pauseSession() {
    arView?.session.pause()
    stateSubject.send(.paused)
  }

  func resumeSession() {
    arView?.session.run(makeConfiguration())
    stateSubject.send(.running)
  }

  func resetSession() {
    planeDetector.reset()
    arView?.session.run(makeConfiguration(), options: [.resetTracking, .removeExistingAnchors])
    stateSubject.send(.running)
  }

  // MARK: ARSessionDelegate

  func session(_ session: ARSession, didAdd anchors: [ARAnchor]) { planeDetector.add(anchors) }
  func session(_ session: ARSession, didRemove anchors: [ARAnchor]) { planeDetector.remove(anchors) }
  func session(_ session: ARSession, didFailWithError error: any Error) {
    stateSubject.send(.failed(error.localizedDescription))
  }
  func sessionShouldAttemptRelocalization(_ session: ARSession) -> Bool { true }
}
