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

/// A collision shape placed in world space for one step.
struct WorldShape {
  enum Kind {
    /// An oriented box: its centre, its axes (columns, unit) and half its size along each, metres.
    case box(center: SIMD3<Float>, axes: simd_float3x3, half: SIMD3<Float>)
    /// A sphere: its centre and radius, metres.
    case sphere(center: SIMD3<Float>, radius: Float)
    /// A mesh anchor's triangles (static only).
    case mesh(CollisionMesh)
  }
  var kind: Kind

  var center: SIMD3<Float> {
    switch kind {
    case .box(let c, _, _), .sphere(let c, _): c
    case .mesh(let mesh): (mesh.low + mesh.high) / 2
    }
  }

  /// The radius of a sphere around ``center`` holding the shape.
  var boundingRadius: Float {
    switch kind {
    case .box(_, _, let half): simd_length(half)
    case .sphere(_, let radius): radius
    case .mesh(let mesh): simd_length(mesh.high - mesh.low) / 2
    }
  }

  /// The box's eight corners.
  static func corners(_ c: SIMD3<Float>, _ axes: simd_float3x3, _ half: SIMD3<Float>) -> [SIMD3<Float>] {
    (0..<8).map { i in
      let s = SIMD3<Float>(i & 1 == 0 ? -1 : 1, i & 2 == 0 ? -1 : 1, i & 4 == 0 ? -1 : 1)
      return c + axes * (s * half)
    }
  }
}

/// Where two shapes touch: the unit normal from the first towards the second, how deep they overlap
/// and a world point of the contact.
struct ShapeContact {
  var normal: SIMD3<Float>
  var depth: Float
  var point: SIMD3<Float>
}

enum Collide {
  /// The contact of `a` and `b`, or nil when they do not overlap.
  static func contact(_ a: WorldShape, _ b: WorldShape) -> ShapeContact? {
    // Shapes whose bounding spheres are apart cannot touch.
    let reach = a.boundingRadius + b.boundingRadius
    guard simd_length_squared(b.center - a.center) <= reach * reach else { return nil }
    switch (a.kind, b.kind) {
    case (.sphere(let ca, let ra), .sphere(let cb, let rb)):
      let d = cb - ca
      let distance = simd_length(d)
      guard distance < ra + rb else { return nil }
      let n = distance > 1e-9 ? d / distance : SIMD3<Float>(0, 1, 0)
      let depth = ra + rb - distance
      return ShapeContact(normal: n, depth: depth, point: ca + n * (ra - depth / 2))
    case (.box(let c, let axes, let half), .sphere(let center, let radius)):
      return boxSphere(c, axes, half, center, radius)
    case (.sphere(let center, let radius), .box(let c, let axes, let half)):
      guard var hit = boxSphere(c, axes, half, center, radius) else { return nil }
      hit.normal = -hit.normal
      return hit
    case (.box(let ca, let aa, let ha), .box(let cb, let ab, let hb)):
      return boxBox(ca, aa, ha, cb, ab, hb)
    case (.mesh(let mesh), .box(let c, let axes, let half)):
      return meshBox(mesh, c, axes, half)
    case (.box(let c, let axes, let half), .mesh(let mesh)):
      guard var hit = meshBox(mesh, c, axes, half) else { return nil }
      hit.normal = -hit.normal
      return hit
    case (.mesh(let mesh), .sphere(let center, let radius)):
      return meshSphere(mesh, center, radius)
    case (.sphere(let center, let radius), .mesh(let mesh)):
      guard var hit = meshSphere(mesh, center, radius) else { return nil }
      hit.normal = -hit.normal
      return hit
    case (.mesh, .mesh):
      // Both are static: they never need a contact.
      return nil
    }
  }

  /// A box against a sphere; the normal points from the box to the sphere.
  static func boxSphere(
    _ c: SIMD3<Float>, _ axes: simd_float3x3, _ half: SIMD3<Float>, _ center: SIMD3<Float>, _ radius: Float
  ) -> ShapeContact? {
    let local = axes.transpose * (center - c)
    let closest = simd_clamp(local, -half, half)
    let diff = local - closest
    let distanceSquared = simd_length_squared(diff)
    if distanceSquared > 1e-12 {
      let distance = distanceSquared.squareRoot()
      guard distance < radius else { return nil }
      return ShapeContact(
        normal: axes * (diff / distance), depth: radius - distance, point: c + axes * closest)
    }
    // The centre is inside: out through the nearest face.
    let room = half - simd_abs(local)
    var axis = 0
    if room.y < room[axis] { axis = 1 }
    if room.z < room[axis] { axis = 2 }
    var n = SIMD3<Float>.zero
    n[axis] = local[axis] < 0 ? -1 : 1
    var surface = local
    surface[axis] = n[axis] * half[axis]
    return ShapeContact(normal: axes * n, depth: radius + room[axis], point: c + axes * surface)
  }

  /// Two boxes by the separating-axis test: the axis of least overlap (face axes preferred over edge
  /// axes of nearly the same overlap), the normal from A towards B.
  static func boxBox(
    _ ca: SIMD3<Float>, _ aa: simd_float3x3, _ ha: SIMD3<Float>, _ cb: SIMD3<Float>, _ ab: simd_float3x3,
    _ hb: SIMD3<Float>
  ) -> ShapeContact? {
    let d = cb - ca
    func radius(_ axes: simd_float3x3, _ half: SIMD3<Float>, _ n: SIMD3<Float>) -> Float {
      half.x * abs(simd_dot(axes.columns.0, n)) + half.y * abs(simd_dot(axes.columns.1, n)) + half.z
        * abs(simd_dot(axes.columns.2, n))
    }
    var best: (overlap: Float, normal: SIMD3<Float>)?
    func test(_ axis: SIMD3<Float>, isEdge: Bool) -> Bool {
      let length = simd_length(axis)
      guard length > 1e-5 else { return true }
      let n = axis / length
      let overlap = radius(aa, ha, n) + radius(ab, hb, n) - abs(simd_dot(d, n))
      guard overlap > 0 else { return false }
      let biased = isEdge ? overlap * 1.05 + 1e-4 : overlap
      if best == nil || biased < best!.overlap {
        best = (overlap, simd_dot(d, n) < 0 ? -n : n)
      }
      return true
    }
    let a = [aa.columns.0, aa.columns.1, aa.columns.2]
    let b = [ab.columns.0, ab.columns.1, ab.columns.2]
    for axis in a + b where !test(axis, isEdge: false) { return nil }
    for i in 0..<3 {
      for j in 0..<3 where !test(simd_cross(a[i], b[j]), isEdge: true) { return nil }
    }
    guard let best else { return nil }
    // The contact point: the middle of B's corners deepest along −n, moved half the overlap back.
    let cornersB = WorldShape.corners(cb, ab, hb)
    let lowest = cornersB.map { simd_dot($0, best.normal) }.min() ?? 0
    let deepest = cornersB.filter { simd_dot($0, best.normal) <= lowest + 1e-3 }
    let mid = deepest.reduce(SIMD3<Float>.zero, +) / Float(Swift.max(deepest.count, 1))
    return ShapeContact(
      normal: best.normal, depth: best.overlap, point: mid + best.normal * (best.overlap / 2))
  }
}

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

  private func shapes(of collider: Collider, _ bodies: [Body]) -> [WorldShape] {
    if let fixed = collider.fixedShapes { return fixed }
    guard let index = collider.body else { return [] }
    let body = bodies[index]
    return worldShapes(collider.shapes, position: body.position, rotation: body.rotation, scale: body.scale)
  }

  private static func agree(_ a: CollisionFilter, _ b: CollisionFilter) -> Bool {
    !a.group.intersection(b.mask).isEmpty && !b.group.intersection(a.mask).isEmpty
  }

  /// The deepest contact between two colliders' shapes, or nil.
  private func contact(_ a: [WorldShape], _ b: [WorldShape]) -> ShapeContact? {
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

  /// Publishes Began, Updated and Ended for the pairs of entity colliders that touch after the frame
  /// (any two with agreeing filters, triggers included), compared with the previous frame.
  private func publishEvents(
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
  private func nearTouch(_ a: [WorldShape], _ b: [WorldShape]) -> ShapeContact? {
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
