import Foundation
import Testing

@testable import ARSimScene

/// A velocity, metres per second (declared through RealityKit's module name, as app code does).
private struct Drift: RealityKit.Component {
  var velocity: SIMD3<Float>
}

/// Entities that ``Mover`` leaves alone.
private struct Anchored: RealityKit.Component {}

/// The x positions ``Follower`` saw, one per update.
private struct Trail: RealityKit.Component {
  var seen: [Float] = []
}

/// Moves every drifting entity that is not anchored by its velocity times the update's time.
private struct Mover: RealityKit.System {
  static let query = EntityQuery(where: .has(Drift.self) && !.has(Anchored.self))
  init(scene: RealityKit.Scene) {}
  func update(context: SceneUpdateContext) {
    for entity in context.entities(matching: Self.query, updatingSystemWhen: .rendering) {
      guard let drift = entity.components[Drift.self] else { continue }
      entity.position += drift.velocity * Float(context.deltaTime)
    }
  }
}

/// Records where drifting entities are; declared to run after ``Mover`` though registered first.
private final class Follower: RealityKit.System {
  static var dependencies: [SystemDependency] { [.after(Mover.self)] }
  private(set) var updates = 0
  init(scene: RealityKit.Scene) {}
  func update(context: SceneUpdateContext) {
    updates += 1
    for entity in context.scene.performQuery(EntityQuery(where: .has(Trail.self))) {
      entity.components[Trail.self]?.seen.append(entity.position.x)
    }
  }
}

@Suite struct SystemsTests {
  @Test func registeredSystemsUpdateQueriedEntitiesInDependencyOrder() {
    Follower.registerSystem()
    Mover.registerSystem()
    Mover.registerSystem()
    let view = ARView(frame: CGRect(x: 0, y: 0, width: 390, height: 844))
    let anchor = AnchorEntity(world: .zero)
    let moving = Entity()
    moving.components.set(Drift(velocity: SIMD3(2, 0, 0)))
    moving.components.set(Trail())
    let held = Entity()
    held.components.set(Drift(velocity: SIMD3(5, 0, 0)))
    held.components.set(Anchored())
    let child = Entity()
    held.addChild(child)
    anchor.addChild(moving)
    anchor.addChild(held)
    view.scene.addAnchor(anchor)

    // Anchors first, then their descendants depth first.
    let everything = Array(view.scene.performQuery(EntityQuery()))
    #expect(everything.count == 4 && everything[0] === anchor && everything[1] === moving)
    #expect(everything[2] === held && everything[3] === child)
    #expect(
      Array(view.scene.performQuery(EntityQuery(where: .has(Drift.self) || .has(Trail.self)))).count == 2)

    for _ in 0..<4 { view.scene.advance(by: 0.25) }
    #expect(abs(moving.position.x - 2) < 1e-5, "2 m/s for 1 s of recording time")
    #expect(held.position == .zero, "the query leaves anchored entities out")
    // The follower runs after the mover in every update, so it sees each update's move.
    let seen = moving.components[Trail.self]?.seen ?? []
    #expect(seen.count == 4)
    #expect(zip(seen, [0.5, 1, 1.5, 2] as [Float]).allSatisfy { abs($0 - $1) < 1e-5 })
  }
}
