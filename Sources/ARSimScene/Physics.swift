import ARSim
import Foundation

/// How a physics body moves (RealityKit's `PhysicsBodyMode`).
public enum PhysicsBodyMode: Sendable, Hashable {
  /// Never moves; other bodies collide with it.
  case `static`
  /// Moves by its ``PhysicsMotionComponent`` velocities (or as the app sets its transform), ignoring
  /// forces and collisions, and pushes dynamic bodies aside.
  case kinematic
  /// Moved by gravity, forces, impulses and collisions.
  case dynamic
}

/// A body's mass and how it resists turning (RealityKit's `PhysicsMassProperties`).
public struct PhysicsMassProperties: Sendable, Hashable {
  /// The mass, kilograms. Zero or infinity makes the body behave as kinematic.
  public var mass: Float
  /// The principal moments of inertia, kg·m², about the axes of ``centerOfMass``'s orientation.
  public var inertia: SIMD3<Float>
  /// The centre of mass and the orientation of the principal axes, in the entity's space (kept; ARSim's
  /// bodies turn about their origin).
  public var centerOfMass: (position: SIMD3<Float>, orientation: simd_quatf)

  /// A unit-radius solid sphere of 1 kg (RealityKit's `default`).
  public static let `default` = PhysicsMassProperties(mass: 1, inertia: SIMD3(repeating: 0.4))

  /// Properties of these values.
  public init(
    mass: Float, inertia: SIMD3<Float> = SIMD3(repeating: 0.4),
    centerOfMass: (position: SIMD3<Float>, orientation: simd_quatf) = (
      .zero, simd_quatf(ix: 0, iy: 0, iz: 0, r: 1)
    )
  ) {
    self.mass = mass
    self.inertia = inertia
    self.centerOfMass = centerOfMass
  }

  /// The properties of `shape` (solid, uniform) with `mass` kilograms.
  public init(shape: ShapeResource, mass: Float) {
    self.init(
      mass: mass, inertia: shape.unitInertia * mass,
      centerOfMass: (shape.bounds.center, simd_quatf(ix: 0, iy: 0, iz: 0, r: 1)))
  }

  /// The properties of `shape` (solid) of `density` kg/m³.
  public init(shape: ShapeResource, density: Float) {
    self.init(shape: shape, mass: density * shape.volume)
  }

  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.mass == rhs.mass && lhs.inertia == rhs.inertia
      && lhs.centerOfMass.position == rhs.centerOfMass.position
      && lhs.centerOfMass.orientation == rhs.centerOfMass.orientation
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(mass)
    hasher.combine(inertia)
    hasher.combine(centerOfMass.position)
  }
}

/// A surface's friction and bounciness (RealityKit's `PhysicsMaterialResource`). Immutable.
public final class PhysicsMaterialResource: Sendable {
  /// Friction against a surface at rest.
  public let staticFriction: Float
  /// Friction while sliding (ARSim uses it for both).
  public let dynamicFriction: Float
  /// Bounciness: 0 stops, 1 bounces back at the speed it came.
  public let restitution: Float

  init(staticFriction: Float, dynamicFriction: Float, restitution: Float) {
    func unit(_ value: Float) -> Float { value.isFinite ? Swift.max(0, value) : 0 }
    self.staticFriction = unit(staticFriction)
    self.dynamicFriction = unit(dynamicFriction)
    self.restitution = Swift.min(unit(restitution), 1)
  }

  /// RealityKit's default: friction 0.8, restitution 0.8.
  public static let `default` = PhysicsMaterialResource(
    staticFriction: 0.8, dynamicFriction: 0.8, restitution: 0.8)

  /// A material of `friction` (static and dynamic) and `restitution` (0...1).
  public static func generate(friction: Float = 0.8, restitution: Float = 0.8) -> PhysicsMaterialResource {
    PhysicsMaterialResource(staticFriction: friction, dynamicFriction: friction, restitution: restitution)
  }

  /// A material of these frictions and `restitution` (0...1).
  public static func generate(staticFriction: Float, dynamicFriction: Float, restitution: Float)
    -> PhysicsMaterialResource
  {
    PhysicsMaterialResource(
      staticFriction: staticFriction, dynamicFriction: dynamicFriction, restitution: restitution)
  }
}

/// How an entity takes part in the physics simulation (RealityKit's `PhysicsBodyComponent`). Only
/// entities with this component and a ``CollisionComponent`` are simulated; see ``ARView`` for when
/// the simulation runs.
public struct PhysicsBodyComponent: Component, Sendable {
  /// Mass and inertia.
  public var massProperties: PhysicsMassProperties
  /// Friction and restitution.
  public var material: PhysicsMaterialResource
  /// Static, kinematic or dynamic.
  public var mode: PhysicsBodyMode
  /// Axes along which the body does not move (world axes).
  public var isTranslationLocked: (x: Bool, y: Bool, z: Bool) = (false, false, false)
  /// Axes about which the body does not turn (world axes).
  public var isRotationLocked: (x: Bool, y: Bool, z: Bool) = (false, false, false)
  /// Accepted (ARSim steps finely enough for the speeds of AR content).
  public var isContinuousCollisionDetectionEnabled = false
  /// Whether gravity pulls the body. Default true.
  public var isAffectedByGravity = true
  /// The fraction of its speed a body loses per second, 0 by default.
  public var linearDamping: Float = 0
  /// The fraction of its spin a body loses per second, 0.05 by default.
  public var angularDamping: Float = 0.05

  /// A body of these properties (RealityKit's `init(massProperties:material:mode:)`).
  public init(
    massProperties: PhysicsMassProperties = .default, material: PhysicsMaterialResource? = nil,
    mode: PhysicsBodyMode = .dynamic
  ) {
    self.massProperties = massProperties
    self.material = material ?? .default
    self.mode = mode
  }

  /// A body of `mass` kilograms whose inertia comes from `shapes` (the first one).
  public init(
    shapes: [ShapeResource], mass: Float, material: PhysicsMaterialResource? = nil,
    mode: PhysicsBodyMode = .dynamic
  ) {
    let properties =
      shapes.first.map { PhysicsMassProperties(shape: $0, mass: mass) } ?? PhysicsMassProperties(mass: mass)
    self.init(massProperties: properties, material: material, mode: mode)
  }

  /// A body of `density` kg/m³ filling `shapes`.
  public init(
    shapes: [ShapeResource], density: Float, material: PhysicsMaterialResource? = nil,
    mode: PhysicsBodyMode = .dynamic
  ) {
    let mass = density * shapes.reduce(0) { $0 + $1.volume }
    self.init(shapes: shapes, mass: mass, material: material, mode: mode)
  }

  /// A dynamic body of the default mass and material.
  public init() {
    self.init(massProperties: .default, material: nil, mode: .dynamic)
  }
}

/// A body's velocities (RealityKit's `PhysicsMotionComponent`): world space, metres per second and
/// radians per second. The simulation writes a dynamic body's; a kinematic body moves by them.
public struct PhysicsMotionComponent: Component, Sendable, Hashable {
  /// Metres per second, world space.
  public var linearVelocity: SIMD3<Float>
  /// Radians per second about each world axis.
  public var angularVelocity: SIMD3<Float>
  /// Velocities of these values.
  public init(linearVelocity: SIMD3<Float> = .zero, angularVelocity: SIMD3<Float> = .zero) {
    self.linearVelocity = linearVelocity
    self.angularVelocity = angularVelocity
  }
}

/// The forces and impulses applied to a body since the last simulation step (kept on the entity).
struct PhysicsAccumulator {
  var force = SIMD3<Float>.zero
  var torque = SIMD3<Float>.zero
}

/// An entity with a physics body (RealityKit's `HasPhysicsBody`).
public protocol HasPhysicsBody: HasCollision {}
/// An entity with velocities (RealityKit's `HasPhysicsMotion`).
public protocol HasPhysicsMotion: Entity {}
/// An entity simulated by physics (RealityKit's `HasPhysics`).
public protocol HasPhysics: HasPhysicsBody, HasPhysicsMotion {}

extension HasPhysicsBody {
  /// The entity's ``PhysicsBodyComponent``, or nil.
  public var physicsBody: PhysicsBodyComponent? {
    get { components[PhysicsBodyComponent.self] }
    set { components[PhysicsBodyComponent.self] = newValue }
  }

  /// The direction `vector` given in `referenceEntity`'s space (world for nil), in world space.
  private func worldDirection(_ vector: SIMD3<Float>, relativeTo referenceEntity: Entity?) -> SIMD3<Float> {
    let d = Entity.worldMatrix(of: referenceEntity) * SIMD4(vector, 0)
    return SIMD3(d.x, d.y, d.z)
  }

  /// Pushes the body's centre by `force` newtons (in `referenceEntity`'s space, world for nil) during
  /// the next simulation step, as RealityKit's `addForce(_:relativeTo:)`. Dynamic bodies only.
  public func addForce(_ force: SIMD3<Float>, relativeTo referenceEntity: Entity?) {
    physicsAccumulator.force += worldDirection(force, relativeTo: referenceEntity)
  }

  /// Pushes the body by `force` newtons applied at `position` (both in `referenceEntity`'s space): the
  /// force, and the torque it makes about the body's origin, during the next step.
  public func addForce(_ force: SIMD3<Float>, at position: SIMD3<Float>, relativeTo referenceEntity: Entity?)
  {
    let f = worldDirection(force, relativeTo: referenceEntity)
    let p = Entity.worldMatrix(of: referenceEntity) * SIMD4(position, 1)
    let arm = SIMD3(p.x, p.y, p.z) - self.position(relativeTo: nil)
    physicsAccumulator.force += f
    physicsAccumulator.torque += simd_cross(arm, f)
  }

  /// Turns the body by `torque` newton-metres (about axes of `referenceEntity`'s space) during the next
  /// step.
  public func addTorque(_ torque: SIMD3<Float>, relativeTo referenceEntity: Entity?) {
    physicsAccumulator.torque += worldDirection(torque, relativeTo: referenceEntity)
  }

  /// Drops the forces and torques added since the last step.
  public func clearForcesAndTorques() {
    physicsAccumulator = PhysicsAccumulator()
  }

  /// Changes a dynamic body's velocity at once by `impulse` (newton-seconds, in `referenceEntity`'s
  /// space) divided by its mass, as RealityKit's `applyLinearImpulse(_:relativeTo:)`.
  public func applyLinearImpulse(_ impulse: SIMD3<Float>, relativeTo referenceEntity: Entity?) {
    guard let body = physicsBody, body.mode == .dynamic, body.massProperties.mass.isFinite,
      body.massProperties.mass > 0
    else { return }
    var motion = components[PhysicsMotionComponent.self] ?? PhysicsMotionComponent()
    motion.linearVelocity += worldDirection(impulse, relativeTo: referenceEntity) / body.massProperties.mass
    components[PhysicsMotionComponent.self] = motion
  }

  /// Changes a dynamic body's spin at once by `impulse` (newton-metre-seconds) divided by its inertia.
  public func applyAngularImpulse(_ impulse: SIMD3<Float>, relativeTo referenceEntity: Entity?) {
    guard let body = physicsBody, body.mode == .dynamic else { return }
    let inertia = body.massProperties.inertia
    guard inertia.x > 0, inertia.y > 0, inertia.z > 0 else { return }
    var motion = components[PhysicsMotionComponent.self] ?? PhysicsMotionComponent()
    motion.angularVelocity += worldDirection(impulse, relativeTo: referenceEntity) / inertia
    components[PhysicsMotionComponent.self] = motion
  }

  /// Applies `impulse` at `position` (both in `referenceEntity`'s space): the linear impulse, and the
  /// angular impulse it makes about the body's origin.
  public func applyImpulse(
    _ impulse: SIMD3<Float>, at position: SIMD3<Float>, relativeTo referenceEntity: Entity?
  ) {
    let p = Entity.worldMatrix(of: referenceEntity) * SIMD4(position, 1)
    let arm = SIMD3(p.x, p.y, p.z) - self.position(relativeTo: nil)
    let world = worldDirection(impulse, relativeTo: referenceEntity)
    applyLinearImpulse(world, relativeTo: nil)
    applyAngularImpulse(simd_cross(arm, world), relativeTo: nil)
  }

  /// Sets the body's pose at once (RealityKit's `resetPhysicsTransform(_:recursive:)`) and stops it.
  public func resetPhysicsTransform(_ transform: Transform, recursive: Bool = true) {
    setTransformMatrix(transform.matrix, relativeTo: parent)
    if components[PhysicsMotionComponent.self] != nil {
      components[PhysicsMotionComponent.self] = PhysicsMotionComponent()
    }
  }
}

extension HasPhysicsMotion {
  /// The entity's ``PhysicsMotionComponent``, or nil.
  public var physicsMotion: PhysicsMotionComponent? {
    get { components[PhysicsMotionComponent.self] }
    set { components[PhysicsMotionComponent.self] = newValue }
  }
}

/// Collisions between entities with collision shapes (RealityKit's `CollisionEvents`), sent through
/// ``Scene/subscribe(to:on:_:)`` after each simulation step; subscribing `on:` an entity hears the
/// collisions it takes part in, as either entity.
public enum CollisionEvents {
  /// Two entities' shapes started touching (the impulse is 0 for triggers and pairs that are not
  /// pushed apart).
  public typealias Began = Contact<BeganPhase>
  /// Two entities' shapes are still touching (sent after each step while they do).
  public typealias Updated = Contact<UpdatedPhase>
  /// Tells ``Began`` apart from ``Updated``.
  public enum BeganPhase {}
  /// Tells ``Updated`` apart from ``Began``.
  public enum UpdatedPhase {}

  /// Two entities' shapes in contact: one declaration for ``Began`` and ``Updated``, which carry the
  /// same facts; `Phase` makes each its own event type to subscribe to.
  public struct Contact<Phase>: Event {
    /// The first entity.
    public let entityA: Entity
    /// The second entity.
    public let entityB: Entity
    /// A world point of the contact, metres.
    public let position: SIMD3<Float>
    /// The impulse the contact exchanged in the step, newton-seconds.
    public let impulse: Float
    /// The contact normal, from A towards B, world space.
    public let impulseDirection: SIMD3<Float>
    /// How deep the shapes overlap, metres.
    public let penetrationDistance: Float
  }

  /// Two entities' shapes stopped touching (or one left the scene).
  public struct Ended: Event {
    /// The first entity.
    public let entityA: Entity
    /// The second entity.
    public let entityB: Entity
  }
}
