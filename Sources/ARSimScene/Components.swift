import ARSim
import Foundation

/// A piece of state attached to an entity, found by its type (RealityKit's `Component`):
/// `entity.components[ModelComponent.self]`.
public protocol Component {}

extension Entity {
  /// The components of an entity, one per type (RealityKit's `Entity.ComponentSet`). Read and write it
  /// through ``Entity/components``: `entity.components[ModelComponent.self] = model`. The entity's
  /// ``Entity/transform`` is kept apart, not in this set.
  public struct ComponentSet {
    private var storage: [ObjectIdentifier: any Component] = [:]

    init() {}

    /// The component of type `componentType`, or nil; setting nil removes it.
    public subscript<T: Component>(componentType: T.Type) -> T? {
      get { storage[ObjectIdentifier(componentType)] as? T }
      set { storage[ObjectIdentifier(componentType)] = newValue }
    }

    /// Adds `component`, replacing one of the same type.
    public mutating func set<T: Component>(_ component: T) {
      storage[ObjectIdentifier(T.self)] = component
    }

    /// Adds each of `components`, replacing ones of the same types.
    public mutating func set(_ components: [any Component]) {
      for component in components { storage[ObjectIdentifier(type(of: component))] = component }
    }

    /// Whether a component of `componentType` is present.
    public func has(_ componentType: any Component.Type) -> Bool {
      storage[ObjectIdentifier(componentType)] != nil
    }

    /// Whether a component of the type with this identifier is present.
    func has(typeIdentifier: ObjectIdentifier) -> Bool { storage[typeIdentifier] != nil }

    /// Removes the component of `componentType`, if any.
    public mutating func remove(_ componentType: any Component.Type) {
      storage[ObjectIdentifier(componentType)] = nil
    }

    /// Removes every component.
    public mutating func removeAll() { storage.removeAll() }

    /// The number of components.
    public var count: Int { storage.count }
  }
}

/// What an entity looks like: a mesh and its materials (RealityKit's `ModelComponent`).
public struct ModelComponent: Component {
  /// The geometry, in the entity's own space (metres).
  public var mesh: MeshResource
  /// The materials, one per part of the mesh (ARSim keeps them; it draws nothing).
  public var materials: [any Material]

  /// A model of `mesh` with `materials`.
  public init(mesh: MeshResource, materials: [any Material]) {
    self.mesh = mesh
    self.materials = materials
  }
}

/// Collision groups an entity belongs to and collides with (RealityKit's `CollisionGroup`).
public struct CollisionGroup: OptionSet, Sendable, Hashable {
  /// One bit per group.
  public let rawValue: UInt32
  /// The group with these bits.
  public init(rawValue: UInt32) { self.rawValue = rawValue }
  /// The group entities are in by default.
  public static let `default` = CollisionGroup(rawValue: 1)
  /// Every group.
  public static let all = CollisionGroup(rawValue: .max)
  /// The group of the real world's geometry (RealityKit's `sceneUnderstanding`). ARSim's detected planes
  /// and reconstructed mesh collide through ``ARView/Environment/SceneUnderstanding``, not as entities;
  /// entities the app puts in this group are found by casts masked to it.
  public static let sceneUnderstanding = CollisionGroup(rawValue: 1 << 31)
}

/// Which groups an entity is in and which it collides with (RealityKit's `CollisionFilter`).
public struct CollisionFilter: Sendable, Hashable {
  /// The groups the entity belongs to.
  public var group: CollisionGroup
  /// The groups the entity collides with (and hit tests with a mask meeting `group` find it).
  public var mask: CollisionGroup
  /// In the default group, colliding with all.
  public static let `default` = CollisionFilter(group: .default, mask: .all)
  /// A filter of `group` and `mask`.
  public init(group: CollisionGroup, mask: CollisionGroup) {
    self.group = group
    self.mask = mask
  }
}

/// The shapes that make an entity hittable (RealityKit's `CollisionComponent`), in the entity's own
/// space: ``ARView/hitTest(_:query:mask:)``, ``ARView/entity(at:)`` and gestures find entities by them.
public struct CollisionComponent: Component {
  /// How the shapes take part in physics.
  public enum Mode: Sendable, Hashable {
    /// Solid: physics bodies collide with the shapes.
    case `default`
    /// Reporting overlaps only (``CollisionEvents``); nothing collides with it.
    case trigger
  }

  /// The shapes, in the entity's own space.
  public var shapes: [ShapeResource]
  /// The mode.
  public var mode: Mode
  /// The groups.
  public var filter: CollisionFilter
  /// Whether the entity is declared not to move (RealityKit's `isStatic`). Physics treats an entity
  /// with collision shapes and no physics body as a fixed obstacle either way.
  public var isStatic = false

  /// A component of `shapes`.
  public init(shapes: [ShapeResource], mode: Mode = .default, filter: CollisionFilter = .default) {
    self.shapes = shapes
    self.mode = mode
    self.filter = filter
  }

  /// A solid component of `shapes`, declared static or not (RealityKit's `init(shapes:isStatic:filter:)`).
  public init(shapes: [ShapeResource], isStatic: Bool, filter: CollisionFilter = .default) {
    self.init(shapes: shapes, mode: .default, filter: filter)
    self.isStatic = isStatic
  }
}

/// A collision shape: a box or a sphere, placed by a rigid offset in its entity's space
/// (RealityKit's `ShapeResource`). Immutable.
public final class ShapeResource: Sendable {
  enum Kind: Sendable, Hashable {
    /// Half the size along each axis, metres.
    case box(halfExtents: SIMD3<Float>)
    /// The radius, metres.
    case sphere(radius: Float)
  }

  let kind: Kind
  /// The shape's pose in its entity's space (no scale).
  let entityFromShape: Transform

  init(kind: Kind, entityFromShape: Transform = .identity) {
    self.kind = kind
    self.entityFromShape = entityFromShape
  }

  /// A box of `size` (metres, x y z) centred on the entity's origin.
  public static func generateBox(size: SIMD3<Float>) -> ShapeResource {
    ShapeResource(kind: .box(halfExtents: pointwiseMax(size, .zero) / 2))
  }

  /// A box `width` × `height` × `depth` (metres) centred on the entity's origin.
  public static func generateBox(width: Float, height: Float, depth: Float) -> ShapeResource {
    generateBox(size: SIMD3(width, height, depth))
  }

  /// A sphere of `radius` (metres) centred on the entity's origin.
  public static func generateSphere(radius: Float) -> ShapeResource {
    ShapeResource(kind: .sphere(radius: Swift.max(0, radius)))
  }

  /// This shape moved by `translation` (metres) after turning by `rotation`, in the entity's space.
  public func offsetBy(
    rotation: simd_quatf = simd_quatf(ix: 0, iy: 0, iz: 0, r: 1), translation: SIMD3<Float> = .zero
  )
    -> ShapeResource
  {
    let offset = Transform(rotation: rotation, translation: translation)
    return ShapeResource(
      kind: kind, entityFromShape: Transform(matrix: offset.matrix * entityFromShape.matrix))
  }

  /// The shape's volume, cubic metres.
  var volume: Float {
    switch kind {
    case .box(let half): 8 * half.x * half.y * half.z
    case .sphere(let radius): 4 / 3 * .pi * radius * radius * radius
    }
  }

  /// The principal moments of inertia of the solid shape per kilogram, about its centre (kg·m² / kg).
  var unitInertia: SIMD3<Float> {
    switch kind {
    case .box(let h):
      return SIMD3(h.y * h.y + h.z * h.z, h.x * h.x + h.z * h.z, h.x * h.x + h.y * h.y) / 3
    case .sphere(let radius):
      return SIMD3(repeating: 0.4 * radius * radius)
    }
  }

  /// The shape's box in its entity's space.
  public var bounds: BoundingBox {
    let local: BoundingBox
    switch kind {
    case .box(let half): local = BoundingBox(min: -half, max: half)
    case .sphere(let radius):
      local = BoundingBox(min: SIMD3(repeating: -radius), max: SIMD3(repeating: radius))
    }
    return local.transformed(by: entityFromShape.matrix)
  }

  /// Where the ray `origin + t · direction` (in the entity's space) first enters the shape: the
  /// parameter `t ≥ 0` and the outward normal at that point (entity space, not normalised), or nil.
  /// A ray starting inside hits at `t = 0`.
  func intersect(origin: SIMD3<Float>, direction: SIMD3<Float>) -> (t: Float, normal: SIMD3<Float>)? {
    let shapeFromEntity = entityFromShape.matrix.inverse
    let o4 = shapeFromEntity * SIMD4(origin, 1)
    let d4 = shapeFromEntity * SIMD4(direction, 0)
    let o = SIMD3(o4.x, o4.y, o4.z)
    let d = SIMD3(d4.x, d4.y, d4.z)
    var hit: (t: Float, normal: SIMD3<Float>)?
    switch kind {
    case .box(let half):
      var near = -Float.infinity
      var far = Float.infinity
      var normal = SIMD3<Float>.zero
      for axis in 0..<3 {
        if d[axis] == 0 {
          if abs(o[axis]) > half[axis] { return nil }
          continue
        }
        var t0 = (-half[axis] - o[axis]) / d[axis]
        var t1 = (half[axis] - o[axis]) / d[axis]
        var n = SIMD3<Float>.zero
        n[axis] = -1
        if t0 > t1 {
          swap(&t0, &t1)
          n[axis] = 1
        }
        if t0 > near {
          near = t0
          normal = n
        }
        far = Swift.min(far, t1)
      }
      guard near <= far, far >= 0 else { return nil }
      hit = near >= 0 ? (near, normal) : (0, -simd_normalize(d))
    case .sphere(let radius):
      let a = simd_dot(d, d)
      let b = simd_dot(o, d)
      let c = simd_dot(o, o) - radius * radius
      let discriminant = b * b - a * c
      guard a > 0, discriminant >= 0 else { return nil }
      let root = discriminant.squareRoot()
      let t0 = (-b - root) / a
      let t1 = (-b + root) / a
      guard t1 >= 0 else { return nil }
      hit = t0 >= 0 ? (t0, o + t0 * d) : (0, -d)
    }
    guard let hit else { return nil }
    let n = entityFromShape.matrix * SIMD4(hit.normal, 0)
    return (hit.t, SIMD3(n.x, n.y, n.z))
  }
}

/// An entity with a look (RealityKit's `HasModel`): ``model`` is its ``ModelComponent``.
public protocol HasModel: Entity {}

/// An entity that hit tests and gestures can find (RealityKit's `HasCollision`): ``collision`` is its
/// ``CollisionComponent``.
public protocol HasCollision: Entity {}

extension HasModel {
  /// The entity's ``ModelComponent``, or nil.
  public var model: ModelComponent? {
    get { components[ModelComponent.self] }
    set { components[ModelComponent.self] = newValue }
  }
}

extension HasCollision {
  /// The entity's ``CollisionComponent``, or nil.
  public var collision: CollisionComponent? {
    get { components[CollisionComponent.self] }
    set { components[CollisionComponent.self] = newValue }
  }
}

extension Entity {
  /// Gives this entity (and, with `recursive`, each descendant) that has a ``ModelComponent`` a
  /// ``CollisionComponent`` of one box: its mesh's bounds, as RealityKit's
  /// `generateCollisionShapes(recursive:)`. Entities without a model are left as they are. An existing
  /// collision component's shapes are replaced; its mode and filter are kept.
  public func generateCollisionShapes(recursive: Bool) {
    if let mesh = components[ModelComponent.self]?.mesh, !mesh.bounds.isEmpty {
      let box = ShapeResource.generateBox(size: mesh.bounds.extents).offsetBy(translation: mesh.bounds.center)
      var collision = components[CollisionComponent.self] ?? CollisionComponent(shapes: [])
      collision.shapes = [box]
      components[CollisionComponent.self] = collision
    }
    if recursive {
      for child in children { child.generateCollisionShapes(recursive: true) }
    }
  }
}
