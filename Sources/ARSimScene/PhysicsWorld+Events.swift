import ARSim
import Foundation

/// The physics world's collision events (RealityKit's `CollisionEvents`), published after each frame.
extension PhysicsWorld {
  /// Publishes Began, Updated and Ended for the pairs of entity colliders that touch after the frame
  /// (any two with agreeing filters, triggers included), compared with the previous frame.
  func publishEvents(
    _ scene: Scene, _ colliders: [Collider], _ bodies: [Body], impulses: [PairKey: StepTouch]
  ) {
    let entityColliders = colliders.filter { $0.entity != nil }
    guard entityColliders.count > 1 || !touching.isEmpty else { return }
    let placed = entityColliders.map { shapes(of: $0, bodies) }
    var now: [PairKey: (Entity, Entity)] = [:]
    var began: [CollisionEvents.Began] = []
    var updated: [CollisionEvents.Updated] = []
    for i in entityColliders.indices {
      for j in entityColliders.indices where j > i {
        guard let a = entityColliders[i].entity, let b = entityColliders[j].entity,
          !(a is SceneUnderstandingEntity && b is SceneUnderstandingEntity),
          Self.agree(entityColliders[i].filter, entityColliders[j].filter)
        else { continue }
        let key = PairKey(a: ObjectIdentifier(a), b: ObjectIdentifier(b))
        // Touching: in contact during one of the frame's steps, or overlapping (within the slop) now.
        let stepped =
          impulses[key]
          ?? impulses[PairKey(a: key.b, b: key.a)].map {
            StepTouch(impulse: $0.impulse, normal: -$0.normal, depth: $0.depth, point: $0.point)
          }
        // Within the slop only keeps a contact alive; it does not begin one.
        let overlap =
          contact(placed[i], placed[j]) ?? (touching[key] != nil ? nearTouch(placed[i], placed[j]) : nil)
        guard
          let hit = overlap
            ?? stepped.map({ ShapeContact(normal: $0.normal, depth: $0.depth, point: $0.point) })
        else { continue }
        let impulse = stepped?.impulse ?? 0
        now[key] = (a, b)
        if touching[key] == nil {
          began.append(
            CollisionEvents.Began(
              entityA: a, entityB: b, position: hit.point, impulse: impulse, impulseDirection: hit.normal,
              penetrationDistance: hit.depth))
        } else {
          updated.append(
            CollisionEvents.Updated(
              entityA: a, entityB: b, position: hit.point, impulse: impulse, impulseDirection: hit.normal,
              penetrationDistance: hit.depth))
        }
      }
    }
    let ended = touching.filter { now[$0.key] == nil }.map {
      CollisionEvents.Ended(entityA: $0.value.0, entityB: $0.value.1)
    }
    touching = now
    for event in began { scene.publish(event, from: [event.entityA, event.entityB]) }
    for event in updated { scene.publish(event, from: [event.entityA, event.entityB]) }
    for event in ended.sorted(by: { $0.entityA.name < $1.entityA.name }) {
      scene.publish(event, from: [event.entityA, event.entityB])
    }
  }

  /// A resting contact kept within the slop counts as touching: the shapes grown by twice the slop.
  func nearTouch(_ a: [WorldShape], _ b: [WorldShape]) -> ShapeContact? {
    let margin = 2 * Self.slop
    func grown(_ shape: WorldShape) -> WorldShape {
      switch shape.kind {
      case .box(let c, let axes, let half): WorldShape(kind: .box(center: c, axes: axes, half: half + margin))
      case .sphere(let c, let r): WorldShape(kind: .sphere(center: c, radius: r + margin))
      case .mesh: shape
      }
    }
    return contact(a.map(grown), b)
  }
}
