import ARSim
import Foundation

// A small rigid-body integrator of ARSim's own, run by a view's scene on the recording clock.
//
// Contract: fixed steps of ``PhysicsWorld/step`` seconds (the frame intervals are accumulated, so the
// same recording gives the same motion); gravity along the world's −y (ARSim's world is gravity-aligned);
// dynamic bodies collide with every other solid collision shape whose filters agree (boxes, spheres,
// and with `sceneUnderstanding` `.physics`/`.collision` the reconstructed mesh's triangles, or the
// detected planes when the session has no mesh), exchange impulses along
// the contact normal with restitution and Coulomb friction, and are pushed out of overlaps. Contact
// impulses act through the body's origin: collisions stop, bounce and slide bodies but do not make
// them tip or spin (forces and impulses applied at a point do turn them), and a contact slows a
// body's spin. Kinematic bodies move by their velocities and push dynamic ones. Static bodies, and
// collision shapes without a body, never move.

/// The physics state of a scene: the time not yet stepped and the touching pairs of the last frame.
final class PhysicsWorld {
  /// Seconds per step.
  static let step: Double = 1.0 / 240
  /// The most steps one frame runs (one second of simulated time); a longer gap between frames is
  /// simulated as one second.
  static let maxStepsPerFrame = 240
  /// Closing speeds below this (m/s) do not bounce.
  static let bounceThreshold: Float = 0.2
  /// Overlap left in place (metres), so that resting contacts stay in touch.
  static let slop: Float = 0.0005
  /// Velocity iterations per step.
  static let iterations = 8
  /// How fast a contact slows a body's spin (per second).
  static let contactSpinDamping: Float = 4
  /// Half the thickness of the slab that stands for a detected plane, metres.
  static let planeHalfThickness: Float = 0.02

  /// Recording time accumulated but not yet stepped, seconds.
  var pending: Double = 0
  /// The touching pairs after the last frame, with their entities.
  var touching: [PairKey: (Entity, Entity)] = [:]
  /// The entities standing for detected planes, by plane identifier (kept while the plane is).
  private var planeEntities: [UUID: SceneUnderstandingEntity] = [:]
  /// The entities and triangles standing for mesh anchors, by anchor identifier (kept while the anchor
  /// is; the triangles rebuilt when the session hands out a new anchor for the chunk).
  private var meshColliders:
    [UUID: (anchor: ARMeshAnchor, entity: SceneUnderstandingEntity, mesh: CollisionMesh)] =
      [:]

  struct PairKey: Hashable {
    let a: ObjectIdentifier
    let b: ObjectIdentifier
  }

  /// One collider: an entity's shapes (or a detected plane's slab), and its body when it has one.
  struct Collider {
    let entity: Entity?
    let shapes: [(kind: ShapeResource.Kind, offset: Transform)]
    let filter: CollisionFilter
    let isTrigger: Bool
    /// Index into the bodies, nil for a collider without a body (or a plane).
    let body: Int?
    /// The world shapes of a collider that never moves (planes, static colliders).
    var fixedShapes: [WorldShape]?
  }

  /// A simulated body's state during a frame.
  struct Body {
    let entity: Entity
    let mode: PhysicsBodyMode
    let inverseMass: Float
    let inverseInertia: SIMD3<Float>
    let material: PhysicsMaterialResource
    let linearLock: SIMD3<Float>
    let angularLock: SIMD3<Float>
    let gravity: Bool
    let linearDamping: Float
    let angularDamping: Float
    var position: SIMD3<Float>
    var rotation: simd_quatf
    let scale: SIMD3<Float>
    var velocity: SIMD3<Float>
    var spin: SIMD3<Float>
    let force: SIMD3<Float>
    let torque: SIMD3<Float>
    var touched = false

    var moves: Bool { mode != .static }
  }

  /// Runs the steps `deltaTime` seconds of the recording clock hold for the scene's bodies, writes
  /// their poses and velocities back, and publishes the frame's collision events. The real world is
  /// the mesh anchors' triangles when there are any (scene reconstruction), else the planes' slabs.
  func advance(
    _ scene: Scene, by deltaTime: TimeInterval, planes: [ARPlaneAnchor], meshes: [ARMeshAnchor] = []
  ) {
    if deltaTime.isFinite, deltaTime > 0 { pending += deltaTime }
    var steps = Int(pending / Self.step)
    if steps > Self.maxStepsPerFrame {
      steps = Self.maxStepsPerFrame
      pending = 0
    } else {
      pending -= Double(steps) * Self.step
    }
    var (colliders, bodies) = gather(scene, planes: meshes.isEmpty ? planes : [], meshes: meshes)
    var impulses: [PairKey: StepTouch] = [:]
    if steps > 0 && bodies.contains(where: { $0.mode != .static }) {
      for _ in 0..<steps { step(&bodies, colliders, impulses: &impulses) }
      for body in bodies where body.moves {
        body.entity.setTransformMatrix(
          Transform(scale: body.scale, rotation: body.rotation, translation: body.position).matrix,
          relativeTo: nil)
        body.entity.components[PhysicsMotionComponent.self] = PhysicsMotionComponent(
          linearVelocity: body.velocity, angularVelocity: body.spin)
      }
    }
    for body in bodies { body.entity.physicsAccumulator = PhysicsAccumulator() }
    for i in colliders.indices where colliders[i].body != nil && colliders[i].fixedShapes == nil {
      colliders[i].fixedShapes = shapes(of: colliders[i], bodies)
    }
    publishEvents(scene, colliders, bodies, impulses: impulses)
  }

  /// The colliders and bodies of the scene's enabled entities, in depth-first order, then the planes,
  /// then the mesh anchors.
  private func gather(_ scene: Scene, planes: [ARPlaneAnchor], meshes: [ARMeshAnchor]) -> ([Collider], [Body])
  {
    var colliders: [Collider] = []
    var bodies: [Body] = []
    func visit(_ entity: Entity) {
      guard entity.isEnabled else { return }
      if let collision = entity.components[CollisionComponent.self], !collision.shapes.isEmpty {
        let shapes = collision.shapes.map { ($0.kind, $0.entityFromShape) }
        var index: Int?
        if let body = entity.components[PhysicsBodyComponent.self] {
          index = bodies.count
          bodies.append(makeBody(entity, body))
        }
        var collider = Collider(
          entity: entity, shapes: shapes, filter: collision.filter, isTrigger: collision.mode == .trigger,
          body: index, fixedShapes: nil)
        if index == nil || bodies[index!].mode == .static {
          collider.fixedShapes = worldShapes(shapes, matrix: entity.transformMatrix(relativeTo: nil))
        }
        colliders.append(collider)
      }
      for child in entity.children { visit(child) }
    }
    for anchor in scene.anchors { visit(anchor) }
    var seen: [UUID: SceneUnderstandingEntity] = [:]
    for plane in planes where plane.planeExtent.width > 0 && plane.planeExtent.height > 0 {
      let entity = planeEntities[plane.identifier] ?? SceneUnderstandingEntity(plane: plane)
      seen[plane.identifier] = entity
      let t = Self.planeHalfThickness
      let turn = simd_quatf(angle: plane.planeExtent.rotationOnYAxis, axis: SIMD3(0, 1, 0))
      let local = Transform(rotation: turn, translation: plane.center - SIMD3(0, t, 0))
      let world = plane.transform * local.matrix
      let axes = simd_float3x3(
        SIMD3(world.columns.0.x, world.columns.0.y, world.columns.0.z),
        SIMD3(world.columns.1.x, world.columns.1.y, world.columns.1.z),
        SIMD3(world.columns.2.x, world.columns.2.y, world.columns.2.z))
      let slab = WorldShape(
        kind: .box(
          center: SIMD3(world.columns.3.x, world.columns.3.y, world.columns.3.z), axes: axes,
          half: SIMD3(plane.planeExtent.width / 2, t, plane.planeExtent.height / 2)))
      entity.setTransformMatrix(world, relativeTo: nil)
      colliders.append(
        Collider(
          entity: entity, shapes: [], filter: .default, isTrigger: false, body: nil, fixedShapes: [slab]))
    }
    planeEntities = seen
    var kept: [UUID: (anchor: ARMeshAnchor, entity: SceneUnderstandingEntity, mesh: CollisionMesh)] = [:]
    for anchor in meshes {
      let cached = meshColliders[anchor.identifier]
      let entity = cached?.entity ?? SceneUnderstandingEntity(mesh: anchor)
      guard let mesh = cached?.anchor === anchor ? cached?.mesh : CollisionMesh(anchor) else { continue }
      kept[anchor.identifier] = (anchor, entity, mesh)
      colliders.append(
        Collider(
          entity: entity, shapes: [], filter: .default, isTrigger: false, body: nil,
          fixedShapes: [WorldShape(kind: .mesh(mesh))]))
    }
    meshColliders = kept
    return (colliders, bodies)
  }

  private func makeBody(_ entity: Entity, _ component: PhysicsBodyComponent) -> Body {
    let pose = Transform(matrix: entity.transformMatrix(relativeTo: nil))
    let mass = component.massProperties.mass
    var mode = component.mode
    if mode == .dynamic && !(mass.isFinite && mass > 0) { mode = .kinematic }
    let inertia = component.massProperties.inertia
    func inverse(_ v: Float) -> Float { v.isFinite && v > 0 ? 1 / v : 0 }
    let motion = entity.components[PhysicsMotionComponent.self] ?? PhysicsMotionComponent()
    func unlocked(_ lock: (x: Bool, y: Bool, z: Bool)) -> SIMD3<Float> {
      SIMD3(lock.x ? 0 : 1, lock.y ? 0 : 1, lock.z ? 0 : 1)
    }
    let dynamic = mode == .dynamic
    return Body(
      entity: entity, mode: mode, inverseMass: dynamic ? 1 / mass : 0,
      inverseInertia: dynamic ? SIMD3(inverse(inertia.x), inverse(inertia.y), inverse(inertia.z)) : .zero,
      material: component.material, linearLock: unlocked(component.isTranslationLocked),
      angularLock: unlocked(component.isRotationLocked), gravity: component.isAffectedByGravity,
      linearDamping: Swift.max(0, component.linearDamping),
      angularDamping: Swift.max(0, component.angularDamping),
      position: pose.translation, rotation: pose.rotation, scale: pose.scale,
      velocity: mode == .static ? .zero : motion.linearVelocity,
      spin: mode == .static ? .zero : motion.angularVelocity,
      force: entity.physicsAccumulator.force, torque: entity.physicsAccumulator.torque)
  }

  /// The shapes of a collider placed by the entity's world matrix.
  private func worldShapes(_ shapes: [(kind: ShapeResource.Kind, offset: Transform)], matrix: simd_float4x4)
    -> [WorldShape]
  {
    let pose = Transform(matrix: matrix)
    return worldShapes(shapes, position: pose.translation, rotation: pose.rotation, scale: pose.scale)
  }

  /// The shapes placed at a pose: each shape's offset is scaled by the entity's scale; a box's size is
  /// scaled along its own axes when its offset is unrotated (by the largest scale otherwise), a
  /// sphere's radius by the largest scale.
  private func worldShapes(
    _ shapes: [(kind: ShapeResource.Kind, offset: Transform)], position: SIMD3<Float>, rotation: simd_quatf,
    scale: SIMD3<Float>
  ) -> [WorldShape] {
    let s = simd_abs(scale)
    let largest = Swift.max(s.x, s.y, s.z)
    return shapes.map { shape in
      let center = position + rotation.act(scale * shape.offset.translation)
      switch shape.kind {
      case .box(let half):
        let turned = rotation * shape.offset.rotation
        let unrotated = abs(abs(shape.offset.rotation.real) - 1) < 1e-6
        return WorldShape(
          kind: .box(
            center: center, axes: simd_float3x3(turned),
            half: half * (unrotated ? s : SIMD3(repeating: largest))))
      case .sphere(let radius):
        return WorldShape(kind: .sphere(center: center, radius: radius * largest))
      }
    }
  }

  func shapes(of collider: Collider, _ bodies: [Body]) -> [WorldShape] {
    if let fixed = collider.fixedShapes { return fixed }
    guard let index = collider.body else { return [] }
    let body = bodies[index]
    return worldShapes(collider.shapes, position: body.position, rotation: body.rotation, scale: body.scale)
  }

  static func agree(_ a: CollisionFilter, _ b: CollisionFilter) -> Bool {
    !a.group.intersection(b.mask).isEmpty && !b.group.intersection(a.mask).isEmpty
  }

  /// The deepest contact between two colliders' shapes, or nil.
  func contact(_ a: [WorldShape], _ b: [WorldShape]) -> ShapeContact? {
    var best: ShapeContact?
    for x in a {
      for y in b {
        if let hit = Collide.contact(x, y), hit.depth > (best?.depth ?? -1) { best = hit }
      }
    }
    return best
  }

  /// What a pair's contacts during a frame's steps exchanged, and the last contact's geometry.
  struct StepTouch {
    var impulse: Float
    var normal: SIMD3<Float>
    var depth: Float
    var point: SIMD3<Float>
  }

  /// A contact between two solid colliders during a step.
  private struct StepContact {
    let a: Int?
    let b: Int?
    let key: PairKey?
    let normal: SIMD3<Float>
    let depth: Float
    let friction: Float
    let restitution: Float
    let targetSpeed: Float
    let point: SIMD3<Float>
    var normalImpulse: Float = 0
    var frictionImpulse = SIMD3<Float>.zero
  }

  /// One fixed step: forces, contacts, velocities, positions, overlap correction.
  private func step(_ bodies: inout [Body], _ colliders: [Collider], impulses: inout [PairKey: StepTouch]) {
    let h = Float(Self.step)
    let gravity = SIMD3<Float>(0, -Float(standardGravity), 0)
    for i in bodies.indices where bodies[i].mode == .dynamic {
      var v = bodies[i].velocity
      if bodies[i].gravity { v += gravity * h }
      v += bodies[i].force * bodies[i].inverseMass * h
      v *= Swift.max(0, 1 - bodies[i].linearDamping * h)
      bodies[i].velocity = v * bodies[i].linearLock
      var w = bodies[i].spin + bodies[i].torque * bodies[i].inverseInertia * h
      w *= Swift.max(0, 1 - bodies[i].angularDamping * h)
      bodies[i].spin = w * bodies[i].angularLock
      bodies[i].touched = false
    }
    // Contacts of each dynamic body's collider with every other solid collider.
    let placed = colliders.map { shapes(of: $0, bodies) }
    var contacts: [StepContact] = []
    for i in colliders.indices {
      guard let bi = colliders[i].body, bodies[bi].mode == .dynamic, !colliders[i].isTrigger else { continue }
      for j in colliders.indices where j != i && !colliders[j].isTrigger {
        if let bj = colliders[j].body, bodies[bj].mode == .dynamic, j < i { continue }
        guard Self.agree(colliders[i].filter, colliders[j].filter), let hit = contact(placed[i], placed[j])
        else {
          continue
        }
        let other = colliders[j].body
        let mine = bodies[bi].material
        let theirs = other.map { bodies[$0].material } ?? .default
        let relative = (other.map { bodies[$0].velocity } ?? .zero) - bodies[bi].velocity
        let closing = -simd_dot(relative, hit.normal)
        let restitution = (mine.restitution + theirs.restitution) / 2
        let key = colliders[j].entity.map {
          PairKey(a: ObjectIdentifier(bodies[bi].entity), b: ObjectIdentifier($0))
        }
        contacts.append(
          StepContact(
            a: bi, b: other, key: key, normal: hit.normal, depth: hit.depth,
            friction: (mine.dynamicFriction + theirs.dynamicFriction) / 2, restitution: restitution,
            targetSpeed: closing > Self.bounceThreshold ? restitution * closing : 0, point: hit.point))
        bodies[bi].touched = true
        if let other, bodies[other].mode == .dynamic { bodies[other].touched = true }
      }
    }
    // Sequential impulses along the normals, with friction bounded by the normal impulse.
    for _ in 0..<Self.iterations {
      for k in contacts.indices {
        let c = contacts[k]
        let ia = c.a.map { bodies[$0].inverseMass } ?? 0
        let ib = c.b.map { bodies[$0].inverseMass } ?? 0
        guard ia + ib > 0 else { continue }
        let va = c.a.map { bodies[$0].velocity } ?? .zero
        let vb = c.b.map { bodies[$0].velocity } ?? .zero
        let vn = simd_dot(vb - va, c.normal)
        let total = Swift.max(c.normalImpulse + (c.targetSpeed - vn) / (ia + ib), 0)
        let dn = total - c.normalImpulse
        contacts[k].normalImpulse = total
        var delta = dn * c.normal
        let vr = vb - va + (ia + ib) * delta
        let vt = vr - simd_dot(vr, c.normal) * c.normal
        var friction = c.frictionImpulse - vt / (ia + ib)
        let limit = c.friction * total
        let length = simd_length(friction)
        if length > limit { friction *= limit / length }
        delta += friction - c.frictionImpulse
        contacts[k].frictionImpulse = friction
        if let a = c.a { bodies[a].velocity = (bodies[a].velocity - delta * ia) * bodies[a].linearLock }
        if let b = c.b { bodies[b].velocity = (bodies[b].velocity + delta * ib) * bodies[b].linearLock }
      }
    }
    for c in contacts {
      guard let key = c.key else { continue }
      var touch = impulses[key] ?? StepTouch(impulse: 0, normal: c.normal, depth: c.depth, point: c.point)
      touch.impulse += c.normalImpulse
      (touch.normal, touch.depth, touch.point) = (c.normal, c.depth, c.point)
      impulses[key] = touch
    }
    // Positions: dynamic and kinematic bodies move by their velocities.
    for i in bodies.indices where bodies[i].moves {
      if bodies[i].touched { bodies[i].spin *= Swift.max(0, 1 - Self.contactSpinDamping * h) }
      bodies[i].position += bodies[i].velocity * h
      let w = bodies[i].spin
      if simd_length_squared(w) > 0 {
        let q = bodies[i].rotation
        let dq = simd_quatf(ix: w.x, iy: w.y, iz: w.z, r: 0) * q
        bodies[i].rotation = simd_normalize(
          simd_quatf(vector: q.vector + 0.5 * h * dq.vector))
      }
    }
    // Overlap beyond the slop that the step's motion did not already undo is taken out along the
    // normal, shared by inverse mass (correcting overlap that separation removes would add energy).
    for c in contacts {
      let ia = c.a.map { bodies[$0].inverseMass } ?? 0
      let ib = c.b.map { bodies[$0].inverseMass } ?? 0
      let va = c.a.map { bodies[$0].velocity } ?? .zero
      let vb = c.b.map { bodies[$0].velocity } ?? .zero
      let remaining = c.depth - simd_dot(vb - va, c.normal) * h
      guard ia + ib > 0, remaining > Self.slop else { continue }
      let push = 0.8 * (remaining - Self.slop) / (ia + ib) * c.normal
      if let a = c.a { bodies[a].position -= push * ia * bodies[a].linearLock }
      if let b = c.b { bodies[b].position += push * ib * bodies[b].linearLock }
    }
  }
}
