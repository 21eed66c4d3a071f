// A typical RealityKit view controller's scene code, written against Apple's API; only the import lines
// differ. UIKit's view controller is left out (STAND-IN: a plain class owns the view).
import ARSimScene
import Combine
import Foundation

@MainActor
final class PlacementController: NSObject {
  let arView = ARView(frame: CGRect(x: 0, y: 0, width: 390, height: 844))
  let tableAnchor = AnchorEntity(plane: .horizontal, classification: .any, minimumBounds: [0.2, 0.2])
  let box = ModelEntity(
    mesh: .generateBox(size: 0.1, cornerRadius: 0.005),
    materials: [SimpleMaterial(color: .systemBlue, roughness: 0.3, isMetallic: false)])
  let ball = ModelEntity(mesh: .generateSphere(radius: 0.05), materials: [UnlitMaterial(color: .orange)])
  let occluder = ModelEntity(mesh: .generatePlane(width: 0.5, depth: 0.5), materials: [OcclusionMaterial()])
  private var updateSubscription: Cancellable?
  private(set) var planesHeard: [UUID] = []
  private(set) var frameCount = 0
  private(set) var elapsed: TimeInterval = 0

  func viewDidLoad() {
    arView.session.delegate = self
    arView.environment.background = .cameraFeed()
    arView.debugOptions = [.showFeaturePoints, .showAnchorOrigins]

    box.generateCollisionShapes(recursive: true)
    box.position = [0, 0.05, 0]
    ball.position = [0.2, 0.05, 0]
    tableAnchor.children.append(box)
    tableAnchor.children.append(ball)
    tableAnchor.addChild(occluder)
    arView.scene.addAnchor(tableAnchor)
    arView.installGestures([.rotation, .scale], for: box)

    updateSubscription = arView.scene.subscribe(to: SceneEvents.Update.self) { [weak self] event in
      guard let self else { return }
      self.elapsed += event.deltaTime
      // Spin the ball a quarter turn per second.
      self.ball.transform.rotation = simd_quatf(angle: Float(self.elapsed) * .pi / 2, axis: [0, 1, 0])
    }
  }

  /// Slides the box 20 cm along the table in half a second.
  func slideBox() -> AnimationPlaybackController {
    var target = box.transform
    target.translation.x -= 0.2
    return box.move(to: target, relativeTo: box.parent, duration: 0.5, timingFunction: .easeInOut)
  }

  /// A tap: the entity under the finger, or a new ball where the ray meets a detected plane.
  func handleTap(at point: CGPoint) -> Entity? {
    if let entity = arView.entity(at: point) { return entity }
    guard let result = arView.raycast(from: point, allowing: .estimatedPlane, alignment: .horizontal).first
    else { return nil }
    let anchor = AnchorEntity(world: result.worldTransform)
    let marker = ModelEntity(mesh: .generateSphere(radius: 0.02), materials: [SimpleMaterial()])
    anchor.addChild(marker)
    arView.scene.addAnchor(anchor)
    return marker
  }
}

extension PlacementController: @preconcurrency ARSessionDelegate {
  func session(_ session: ARSession, didUpdate frame: ARFrame) { frameCount += 1 }

  func session(_ session: ARSession, didAdd anchors: [ARAnchor]) {
    planesHeard += anchors.compactMap { $0 as? ARPlaneAnchor }.map(\.identifier)
  }
}
