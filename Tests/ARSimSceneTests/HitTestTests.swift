import ARSimScene
import Foundation
import Testing

@Suite struct HitTestTests {
  /// A virtual-camera view looking down -z from (0, 0, 2) at a 20 cm box at the origin and a 10 cm
  /// sphere behind it.
  func scene() -> (ARView, ModelEntity, ModelEntity) {
    let view = ARView(frame: CGRect(x: 0, y: 0, width: 400, height: 400), cameraMode: .nonAR)
    let anchor = AnchorEntity(world: .zero)
    let camera = PerspectiveCamera()
    camera.look(at: .zero, from: SIMD3(0, 0, 2), relativeTo: nil)
    anchor.addChild(camera)
    let box = ModelEntity(mesh: .generateBox(size: 0.2))
    box.name = "box"
    box.generateCollisionShapes(recursive: false)
    let ball = ModelEntity(
      mesh: .generateSphere(radius: 0.05), materials: [], collisionShape: .generateSphere(radius: 0.05),
      mass: 1)
    ball.name = "ball"
    ball.position = SIMD3(0, 0, -1)
    anchor.addChild(box)
    anchor.addChild(ball)
    view.scene.addAnchor(anchor)
    return (view, box, ball)
  }

  @Test func hitTestFindsCollisionShapesNearestFirst() throws {
    let (view, box, ball) = scene()
    let centre = CGPoint(x: 200, y: 200)
    let hits = view.hitTest(centre)
    #expect(hits.map(\.entity) == [box, ball])
    let first = try #require(hits.first)
    #expect(abs(first.distance - 1.9) < 1e-5 && close(first.position, SIMD3(0, 0, 0.1)))
    #expect(close(first.normal, SIMD3(0, 0, 1)))
    #expect(abs(hits[1].distance - 2.95) < 1e-4)
    #expect(view.entity(at: centre) === box)
    #expect(view.entities(at: CGPoint(x: 5, y: 5)).isEmpty)

    // Only groups the mask meets count; a disabled entity is never hit.
    box.collision?.filter = CollisionFilter(group: CollisionGroup(rawValue: 2), mask: .all)
    #expect(view.hitTest(centre, mask: .default).map(\.entity) == [ball])
    ball.isEnabled = false
    #expect(view.hitTest(centre, mask: .default).isEmpty)
  }

  @Test func scaledEntitiesAreHitWhereTheyAppear() {
    let (view, box, _) = scene()
    // 49 points above the centre is 0.255 of the half-height: at the 3× box's face (1.7 m away) that is
    // 0.25 m up, inside its 0.3 m half-size; the 1× box's face (1.9 m) would need 0.28 m > 0.1 m.
    let point = CGPoint(x: 200, y: 149)
    #expect(view.entity(at: point) == nil)
    box.scale = SIMD3(repeating: 3)
    let hit = view.hitTest(point, query: .nearest).first
    #expect(hit?.entity === box)
    #expect(abs((hit?.distance ?? 0) - 1.7 * (1 + 0.255 * 0.255 / 3).squareRoot()) < 2e-3)
  }
}

extension Array where Element == Entity {
  static func == (lhs: [Entity], rhs: [ModelEntity]) -> Bool {
    lhs.count == rhs.count && zip(lhs, rhs).allSatisfy { $0 === $1 }
  }
}
