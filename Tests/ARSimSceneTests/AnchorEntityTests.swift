import ARSimScene
import Foundation
import Testing

// For ARRaycastResult's memberwise initializer (ARKit's has none either), to make a hit of known pose.
@testable import ARSim
@testable import ARSimScene

extension ARView {
  // Synthetic callbacks, handed to the view as its session hands them (before the delegate).
  func session(_ session: ARSession, didAdd anchors: [ARAnchor]) { anchorsChanged(anchors) }
  func session(_ session: ARSession, didUpdate anchors: [ARAnchor]) { anchorsChanged(anchors) }
  func session(_ session: ARSession, didRemove anchors: [ARAnchor]) { anchorsRemovedNotifying(anchors) }
}

/// A plane anchor of known shape: a `width` × `depth` rectangle centred on the origin of a transform at
/// `position` (horizontal: axes of the world; vertical: turned so that its y axis is world +z).
func testPlane(
  _ identifier: UUID = UUID(), at position: SIMD3<Float>, alignment: ARPlaneAnchor.Alignment = .horizontal,
  width: Float, depth: Float, classification: ARPlaneAnchor.Classification = .none(.undetermined)
) -> ARPlaneAnchor {
  var transform =
    alignment == .horizontal ? simd_float4x4.identity : simd_float4x4(rotation(90, SIMD3(1, 0, 0)))
  transform.columns.3 = SIMD4(position, 1)
  let (w, d) = (width / 2, depth / 2)
  return ARPlaneAnchor(
    identifier: identifier, transform: transform, alignment: alignment, center: .zero,
    planeExtent: ARPlaneExtent(width: width, height: depth, rotationOnYAxis: 0),
    geometry: ARPlaneGeometry(boundary: [SIMD3(-w, 0, d), SIMD3(w, 0, d), SIMD3(w, 0, -d), SIMD3(-w, 0, -d)]),
    classification: classification, sessionIdentifier: nil)
}

/// A phone-shaped portrait view (an iPhone's 390 × 844 points).
func phoneView() -> ARView { ARView(frame: CGRect(x: 0, y: 0, width: 390, height: 844)) }

/// Records the callbacks the view forwards.
final class ForwardedCallbacks: ARSessionDelegate {
  var events: [String] = []
  func session(_ session: ARSession, didAdd anchors: [ARAnchor]) { events.append("didAdd \(anchors.count)") }
  func session(_ session: ARSession, didUpdate anchors: [ARAnchor]) {
    events.append("didUpdate \(anchors.count)")
  }
  func session(_ session: ARSession, didRemove anchors: [ARAnchor]) {
    events.append("didRemove \(anchors.count)")
  }
  func sessionWasInterrupted(_ session: ARSession) { events.append("interrupted") }
  func sessionInterruptionEnded(_ session: ARSession) { events.append("interruptionEnded") }
  func session(_ session: ARSession, cameraDidChangeTrackingState camera: ARCamera) {
    events.append("state \(camera.trackingState)")
  }
  func session(_ session: ARSession, didFailWithError error: any Error) { events.append("failed") }
}

@Suite struct AnchorEntityTests {
  @Test func planeTargetWaitsForTheFirstMatchingPlane() {
    let view = phoneView()
    let anchor = AnchorEntity(plane: .horizontal, classification: [.table], minimumBounds: [0.5, 0.4])
    let vase = ModelEntity(name: "vase")
    anchor.addChild(vase)
    view.scene.addAnchor(anchor)
    #expect(!anchor.isAnchored && anchor.anchorIdentifier == nil && !vase.isAnchored)

    let wall = testPlane(at: SIMD3(0, 1, -2), alignment: .vertical, width: 2, depth: 2, classification: .wall)
    let floor = testPlane(at: SIMD3(0, -1.4, -1), width: 3, depth: 3, classification: .floor)
    let unclassified = testPlane(at: SIMD3(0, -0.7, -1), width: 1, depth: 1)
    let smallTable = testPlane(at: SIMD3(0.2, -0.7, -1), width: 0.3, depth: 0.6, classification: .table)
    view.session(view.session, didAdd: [wall, floor, unclassified, smallTable])
    #expect(!anchor.isAnchored, "wrong alignment, classification or size")

    // The table grows: 0.7 × 0.45 holds a 0.5 × 0.4 rectangle turned a quarter.
    let grown = testPlane(
      smallTable.identifier, at: SIMD3(0.2, -0.7, -1), width: 0.7, depth: 0.45, classification: .table)
    let otherTable = testPlane(at: SIMD3(3, -0.7, -1), width: 1, depth: 1, classification: .table)
    view.session(view.session, didUpdate: [grown, otherTable])
    #expect(anchor.isAnchored && vase.isAnchored)
    #expect(anchor.anchorIdentifier == smallTable.identifier)
    #expect(close(anchor.position(relativeTo: nil), SIMD3(0.2, -0.7, -1)))
    #expect(close(vase.position(relativeTo: nil), SIMD3(0.2, -0.7, -1)))

    view.session(view.session, didAdd: [otherTable])
    #expect(anchor.anchorIdentifier == smallTable.identifier, "stays on the first match")
    view.session(view.session, didRemove: [grown])
    #expect(anchor.scene == nil && view.scene.anchors.isEmpty && !vase.isAnchored)
  }

  @Test func anyClassificationAcceptsUnclassifiedPlanes() {
    let plane = testPlane(at: SIMD3(1, 0, 0), width: 1, depth: 1)
    #expect(
      AnchoringComponent.Target.plane(.horizontal, classification: .any, minimumBounds: .zero).matches(plane))
    #expect(AnchoringComponent.Target.plane(.any, classification: .any, minimumBounds: .zero).matches(plane))
    #expect(
      !AnchoringComponent.Target.plane(.vertical, classification: .any, minimumBounds: .zero).matches(plane))
    #expect(
      !AnchoringComponent.Target.plane(.horizontal, classification: [.floor, .table], minimumBounds: .zero)
        .matches(plane))
    #expect(!AnchoringComponent.Target.world(transform: .identity).matches(plane))
    #expect(AnchoringComponent.Target.anchor(identifier: plane.identifier).matches(plane))
  }

  @Test func anchorTargetFollowsItsAnchorAndLeavesWithIt() {
    let view = phoneView()
    let forwarded = ForwardedCallbacks()
    view.sessionDelegate = forwarded
    let placed = ARAnchor(name: "cup", transform: Transform(translation: SIMD3(1, 0, -1)).matrix)
    let anchor = AnchorEntity(anchor: placed)
    let cup = ModelEntity(name: "cup")
    anchor.addChild(cup)
    cup.setPosition(SIMD3(1.1, 0, -1), relativeTo: nil)
    view.scene.anchors.append(anchor)
    #expect(anchor.anchorIdentifier == placed.identifier && cup.isAnchored)
    #expect(view.scene.findEntity(named: "cup") === cup)

    // An update of the same anchor (a new object with the same identifier) moves the content along.
    let shifted = ARAnchor(
      identifier: placed.identifier, name: "cup", transform: Transform(translation: SIMD3(1, 0.5, -1)).matrix,
      sessionIdentifier: nil)
    view.session(view.session, didUpdate: [shifted])
    #expect(close(anchor.position(relativeTo: nil), SIMD3(1, 0.5, -1)))
    #expect(close(cup.position(relativeTo: nil), SIMD3(1.1, 0.5, -1)))

    let world = AnchorEntity(world: SIMD3(0, 0, -3))
    view.scene.addAnchor(world)
    view.session(view.session, didRemove: [placed])
    #expect(anchor.scene == nil && cup.scene == nil && !cup.isAnchored)
    #expect(view.scene.anchors.count == 1 && view.scene.anchors[0] === world)
    #expect(world.isAnchored && close(world.position(relativeTo: nil), SIMD3(0, 0, -3)))
    #expect(view.session.delegate === forwarded, "the view's sessionDelegate is its session's delegate")
  }

  @Test func worldAnchorsAndSceneMembership() {
    let view = phoneView()
    let origin = AnchorEntity(world: .zero)
    #expect(!origin.isAnchored, "not in a scene")
    #expect(origin.anchorIdentifier == nil)
    view.scene.addAnchor(origin)
    #expect(origin.isAnchored && origin.scene === view.scene)
    let turned = AnchorEntity(
      world: Transform(rotation: rotation(90, SIMD3(0, 1, 0)), translation: SIMD3(0, 1, 0)).matrix)
    view.scene.addAnchor(turned)
    let child = Entity()
    turned.addChild(child)
    child.position = SIMD3(1, 0, 0)
    #expect(close(child.position(relativeTo: nil), SIMD3(0, 1, -1)))
    #expect(child.anchor === turned)
    // Re-adding an anchor does not duplicate it; removing it from its parent takes it out of the scene.
    view.scene.addAnchor(turned)
    #expect(view.scene.anchors.count == 2)
    turned.removeFromParent()
    #expect(view.scene.anchors.count == 1 && turned.scene == nil && !child.isAnchored)
    view.scene.anchors.removeAll()
    #expect(view.scene.anchors.isEmpty)
  }

  @Test func raycastResultAnchorKeepsTheHitPose() {
    let view = phoneView()
    let plane = testPlane(at: SIMD3(0, -1, -1), width: 2, depth: 2)
    var hitTransform = plane.transform
    hitTransform.columns.3 = SIMD4(0.3, -1, -1.2, 1)
    let result = ARRaycastResult(
      worldTransform: hitTransform, target: .existingPlaneGeometry, targetAlignment: .horizontal,
      anchor: plane,
      distance: 1)
    let anchor = AnchorEntity(raycastResult: result)
    view.scene.addAnchor(anchor)
    #expect(anchor.anchorIdentifier == plane.identifier && anchor.isAnchored)
    #expect(close(anchor.position(relativeTo: nil), SIMD3(0.3, -1, -1.2)))
    // The plane is refitted 1 cm higher: the anchor keeps its place on it.
    let raised = testPlane(plane.identifier, at: SIMD3(0, -0.99, -1), width: 2, depth: 2)
    view.session(view.session, didUpdate: [raised])
    #expect(close(anchor.position(relativeTo: nil), SIMD3(0.3, -0.99, -1.2)))
    let clone = anchor.clone(recursive: true)
    #expect(clone.anchorIdentifier == plane.identifier && !clone.isAnchored)
  }

  @Test func viewWithoutAFrameCastsNothing() {
    let view = phoneView()
    #expect(view.makeRaycastQuery(from: view.center, allowing: .estimatedPlane, alignment: .any) == nil)
    #expect(view.raycast(from: view.center, allowing: .existingPlaneInfinite, alignment: .any).isEmpty)
    #expect(view.project(.zero) == nil)
    #expect(view.interfaceOrientation == .portrait && view.cameraMode == .ar)
    #expect(view.bounds == CGRect(x: 0, y: 0, width: 390, height: 844))
    #expect(view.center == CGPoint(x: 195, y: 422))
  }
}
