import ARSimScene
import ARSimTestSupport
import Combine
import Foundation
import Testing

/// A focus indicator written as FocusEntity writes it: an entity adopting `HasAnchoring` on its own,
/// a camera anchor for its billboard pose, and on each scene update a raycast from
/// `arView.cameraTransform` along the camera's −z, placing itself on the hit (smoothed over the last
/// positions) or one metre in front of the camera when nothing is hit.
private final class FocusIndicator: Entity, HasAnchoring, HasModel {
  weak var arView: ARView?
  let cameraAnchor = AnchorEntity(.camera)
  var recentPositions: [SIMD3<Float>] = []
  var lastHit: ARRaycastResult?
  var visitedPlanes: Set<ARAnchor> = []
  private var update: (any Cancellable)?

  required init() { super.init() }

  init(on view: ARView) {
    arView = view
    super.init()
    model = ModelComponent(
      mesh: .generatePlane(width: 0.17, depth: 0.17), materials: [UnlitMaterial(color: .systemYellow)])
    view.scene.addAnchor(cameraAnchor)
    view.scene.addAnchor(self)
    update = view.scene.subscribe(to: SceneEvents.Update.self) { [weak self] _ in self?.follow() }
  }

  private func follow() {
    guard let view = arView, view.session.currentFrame != nil else { return }
    let camera = view.cameraTransform
    let forward = -SIMD3(camera.matrix.columns.2.x, camera.matrix.columns.2.y, camera.matrix.columns.2.z)
    let query = ARRaycastQuery(
      origin: camera.translation, direction: forward, allowing: .existingPlaneGeometry, alignment: .any)
    guard let hit = view.session.raycast(query).first else {
      lastHit = nil
      position = cameraAnchor.convert(position: SIMD3(0, 0, -1), to: nil)
      return
    }
    lastHit = hit
    if let plane = hit.anchor { visitedPlanes.insert(plane) }
    recentPositions = Array((recentPositions + [hit.worldTransform.translation]).suffix(10))
    position = recentPositions.reduce(.zero, +) / Float(recentPositions.count)
    orientation = Transform(matrix: hit.worldTransform).rotation
  }
}

@Suite struct FocusIndicatorTests {
  @Test func theIndicatorFollowsTheCentreRayOntoTheDetectedPlane() throws {
    let view = ARView(frame: CGRect(x: 0, y: 0, width: 390, height: 844))
    let focus = FocusIndicator(on: view)
    let replay = try ARReplay(session: view.session, recording: Datasets.path("tabletop"))
    var onPlane = 0
    var frames = 0
    var worst: Float = 0
    while try replay.step() != nil {
      frames += 1
      guard let hit = focus.lastHit, let plane = hit.anchor as? ARPlaneAnchor else { continue }
      onPlane += 1
      // On the plane: its height (the plane is horizontal) ...
      let height = plane.transform.columns.3.y
      #expect(abs(focus.position(relativeTo: nil).y - height) < 0.01)
      // ... and on the centre ray (the smoothing lags by at most the last ten hits).
      let camera = view.cameraTransform
      let forward = -SIMD3(camera.matrix.columns.2.x, camera.matrix.columns.2.y, camera.matrix.columns.2.z)
      let toFocus = focus.position(relativeTo: nil) - camera.translation
      let offRay = simd_length(toFocus - simd_dot(toFocus, forward) * forward)
      worst = max(worst, offRay)
    }
    #expect(frames > 100 && onPlane > frames / 2, "on a plane in \(onPlane) of \(frames) frames")
    #expect(worst < 0.1, "within 10 cm of the centre ray (\(worst) m)")
    #expect(!focus.visitedPlanes.isEmpty && focus.isAnchored)
  }
}
