import ARSimScene
import ARSimTestSupport
import Foundation
import Testing
import simd

/// A view subclass written as RealityKit tutorials write them.
final class CustomARView: ARView {
  var configuredByInit = false

  required init(frame frameRect: CGRect) {
    super.init(frame: frameRect)
    configuredByInit = true
  }

  required init?(coder decoder: NSCoder) {
    super.init(coder: decoder)
  }
}

/// An app's own anchoring entity, with no anchoring code of its own.
final class Marker: Entity, HasAnchoring {}

private func near(_ a: SIMD3<Float>, _ b: SIMD3<Float>, _ tolerance: Float = 1e-4) -> Bool {
  simd_length(a - b) <= tolerance
}

@Suite struct RealityKitBreadthTests {
  @Test func subclassedViewReportsTheCameraAndCarriesCameraAnchoredContent() throws {
    let view = CustomARView(frame: CGRect(x: 0, y: 0, width: 390, height: 844))
    #expect(view.configuredByInit && view.cameraMode == .ar && view.automaticallyConfigureSession)
    #expect(view.cameraTransform == .identity, "no frame yet")
    let cameraAnchor = AnchorEntity(.camera)
    let reticle = Entity()
    reticle.position = SIMD3(0, 0, -1)
    cameraAnchor.addChild(reticle)
    view.scene.addAnchor(cameraAnchor)
    #expect(!cameraAnchor.isAnchored, "a camera target waits for a frame")
    #expect(cameraAnchor.anchorIdentifier == nil)
    let replay = try ARReplay(session: view.session, recording: Datasets.path("tabletop"))
    var frames = 0
    var moved: Float = 0
    var first: SIMD3<Float>?
    while frames < 40, try replay.step() != nil {
      guard let camera = view.session.currentFrame?.camera else { continue }
      frames += 1
      #expect(cameraAnchor.isAnchored)
      let pose = camera.transform
      #expect(near(view.cameraTransform.translation, pose.translation))
      #expect(simd_length(view.cameraTransform.matrix.columns.2 - pose.columns.2) < 1e-4)
      // One metre in front of the camera, along its −z, in every frame.
      let ahead4 = pose * SIMD4(0, 0, -1, 1)
      let ahead = SIMD3(ahead4.x, ahead4.y, ahead4.z)
      #expect(near(reticle.position(relativeTo: nil), ahead))
      if let first { moved = max(moved, simd_length(ahead - first)) } else { first = ahead }
    }
    #expect(frames == 40)
    #expect(moved > 0.01, "the camera moved, and the reticle with it (\(moved) m)")
  }

  @Test func aDecodedViewHasTheDefaults() throws {
    let view = try #require(CustomARView(coder: NSCoder()))
    #expect(view.frame == .zero && view.cameraMode == .ar && !view.configuredByInit)
    let virtual = ARView(frame: CGRect(x: 0, y: 0, width: 100, height: 100), cameraMode: .nonAR)
    let camera = PerspectiveCamera()
    camera.look(at: .zero, from: SIMD3(0, 1, 2), relativeTo: nil)
    let holder = AnchorEntity(world: .zero)
    holder.addChild(camera)
    virtual.scene.addAnchor(holder)
    #expect(near(virtual.cameraTransform.translation, SIMD3(0, 1, 2)))
  }

  @Test func anAppEntityAdoptingHasAnchoringFindsItsPlane() throws {
    let view = ARView(frame: CGRect(x: 0, y: 0, width: 390, height: 844))
    let marker = Marker()
    #expect(marker.anchoring.target == .world(transform: .identity))
    marker.position = SIMD3(0, 0.5, 0)
    view.scene.addAnchor(marker)
    #expect(marker.isAnchored, "without a component, a world target that stays where it was put")
    #expect(marker.position == SIMD3(0, 0.5, 0))
    marker.anchoring = AnchoringComponent(.plane(.horizontal, classification: .any, minimumBounds: .zero))
    #expect(!marker.isAnchored && marker.anchorIdentifier == nil)
    let replay = try ARReplay(session: view.session, recording: Datasets.path("tabletop"))
    var plane: ARPlaneAnchor?
    while plane == nil, try replay.step() != nil {
      plane = view.session.currentFrame?.anchors.compactMap { $0 as? ARPlaneAnchor }.first {
        $0.identifier == marker.anchorIdentifier
      }
    }
    let found = try #require(plane)
    #expect(marker.isAnchored && found.alignment == .horizontal)
    #expect(near(marker.position(relativeTo: nil), found.transform.translation))
    marker.reanchor(.world(transform: Transform(translation: SIMD3(1, 2, 3)).matrix))
    #expect(marker.anchorIdentifier == nil && marker.position(relativeTo: nil) == SIMD3(1, 2, 3))
  }

  @Test func anchorsResultsAndEntitiesAreEqualByIdentity() throws {
    let anchor = ARAnchor(transform: .identity)
    let copy = ARAnchor(anchor: anchor)
    #expect(anchor == anchor && anchor != copy && anchor.identifier == copy.identifier)
    let visited: Set<ARAnchor> = [anchor, copy, anchor]
    #expect(visited.count == 2)
    let a = Entity()
    let b = Entity()
    var names: [Entity: String] = [a: "a", b: "b"]
    names[a] = "first"
    #expect(names.count == 2 && names[a] == "first" && a != b && a == a)
    let view = ARView(frame: CGRect(x: 0, y: 0, width: 390, height: 844))
    let replay = try ARReplay(session: view.session, recording: Datasets.path("tabletop"))
    var results: [ARRaycastResult] = []
    while results.isEmpty, try replay.step() != nil {
      results = view.raycast(from: view.center, allowing: .estimatedPlane, alignment: .any)
    }
    let hit = try #require(results.first)
    let again = try #require(
      view.raycast(from: view.center, allowing: .estimatedPlane, alignment: .any).first)
    #expect(hit.worldTransform == again.worldTransform, "the same frame and ray hit the same point")
    #expect(hit != again, "but each raycast returns results of its own")
    let stored = hit
    #expect(stored == hit && Set([hit, stored, again]).count == 2)
    let camera = try #require(view.session.currentFrame?.camera)
    #expect(Set([camera, camera]).count == 1)
  }

  @Test func materialColoursHaveUIKitsValues() {
    let purple: Material.Color = .purple
    #expect(purple == MaterialColor(red: 0.5, green: 0, blue: 0.5))
    #expect(Material.Color.brown == MaterialColor(red: 0.6, green: 0.4, blue: 0.2))
    #expect(
      abs(Material.Color.lightGray.red - 2.0 / 3) < 1e-6
        && abs(Material.Color.darkGray.green - 1.0 / 3) < 1e-6)
    #expect(Material.Color.systemBlue == MaterialColor(red: 0, green: 122.0 / 255, blue: 1))
    #expect(abs(Material.Color.secondaryLabel.alpha - 0.6) < 1e-6)
    // swift-format-ignore: NoPlaygroundLiterals
    let literal = #colorLiteral(red: 1, green: 0.8, blue: 0, alpha: 1)
    #expect(literal == MaterialColor(red: 1, green: 0.8, blue: 0))
    #expect(Material.Color.red.withAlphaComponent(0.2).cgColor.alpha == CGFloat(Float(0.2)))
    var white: CGFloat = -1
    var alpha: CGFloat = -1
    #expect(Material.Color.gray.withAlphaComponent(0.25).getWhite(&white, alpha: &alpha))
    #expect(white == 0.5 && alpha == 0.25)
    var hue: CGFloat = 0
    var saturation: CGFloat = 0
    var brightness: CGFloat = 0
    Material.Color.systemOrange.getHue(&hue, saturation: &saturation, brightness: &brightness, alpha: nil)
    let roundTrip = MaterialColor(hue: hue, saturation: saturation, brightness: brightness)
    let orange = Material.Color.systemOrange
    #expect(abs(roundTrip.red - orange.red) < 1e-5 && abs(roundTrip.green - orange.green) < 1e-5)
    #expect(abs(roundTrip.blue - orange.blue) < 1e-5)
    #expect(MaterialColor(hue: 1.0 / 3, saturation: 1, brightness: 1) == .green)
  }

  @Test func eulerAnglesTurnYawFirstThenPitchThenRoll() {
    let look = Transform(pitch: .pi / 2, yaw: .pi / 2)
    #expect(near(look.rotation.act(SIMD3(0, 0, -1)), SIMD3(0, 1, 0)), "pitched up: looking at the sky")
    #expect(near(look.rotation.act(SIMD3(1, 0, 0)), SIMD3(0, 0, -1)), "yawed left: right is forward")
    let rolled = Transform(roll: .pi / 2)
    #expect(near(rolled.rotation.act(SIMD3(1, 0, 0)), SIMD3(0, 1, 0)))
    #expect(Transform() == .identity && look.translation == .zero && look.scale == SIMD3(repeating: 1))
  }

  @Test func stopAllAnimationsLeavesEntitiesWhereTheyAre() throws {
    let view = ARView(frame: CGRect(x: 0, y: 0, width: 390, height: 844))
    let anchor = AnchorEntity(world: .zero)
    let parent = Entity()
    let child = Entity()
    parent.addChild(child)
    anchor.addChild(parent)
    view.scene.addAnchor(anchor)
    let replay = try ARReplay(session: view.session, recording: Datasets.path("tabletop"))
    try replay.step()
    let moveParent = parent.move(to: Transform(translation: SIMD3(1, 0, 0)), relativeTo: nil, duration: 10)
    let moveChild = child.move(to: Transform(translation: SIMD3(0, 1, 0)), relativeTo: parent, duration: 10)
    _ = try replay.step(frames: 10)
    let held = (parent.position, child.position)
    #expect(held.0.x > 0 && held.1.y > 0)
    parent.stopAllAnimations(recursive: false)
    #expect(moveParent.isStopped && !moveChild.isStopped)
    parent.stopAllAnimations()
    #expect(moveChild.isStopped)
    _ = try replay.step(frames: 10)
    #expect(parent.position == held.0 && child.position == held.1)
  }

  @Test func simdNamesAndModuleQualifiedCalls() {
    let cell: simd_int3 = [1, -2, 3]
    #expect(cell.x == 1 && cell.y == -2 && MemoryLayout<simd_int3.Scalar>.size == 4)
    let a = Transform(pitch: 0.3, yaw: 1.1, roll: -0.4).matrix
    let b = Transform(translation: SIMD3(1, 2, 3)).matrix
    #expect(matrix_multiply(a, b) == a * b)
    #expect(matrix_multiply(a, SIMD4(1, 0, 0, 1)) == a * SIMD4(1, 0, 0, 1))
    #expect(simd.length(SIMD3<Float>(3, 4, 0)) == 5)
    #expect(simd.normalize(SIMD3<Float>(0, 0, 2)) == SIMD3(0, 0, 1))
    #expect(simd.distance(SIMD3<Float>(1, 1, 1), SIMD3(1, 1, 3)) == 2)
  }
}
