import ARSim
import Foundation

/// An axis-aligned box, as RealityKit's `BoundingBox`: metres, in the space of whatever it bounds.
public struct BoundingBox: Sendable, Hashable {
  /// The corner with the smallest coordinates.
  public var min: SIMD3<Float>
  /// The corner with the largest coordinates.
  public var max: SIMD3<Float>

  /// The empty box (`min` at +∞, `max` at −∞), which ``union(_:)`` leaves unchanged.
  public static let empty = BoundingBox(
    min: SIMD3(repeating: .infinity), max: SIMD3(repeating: -.infinity))

  /// The empty box (RealityKit's `init()`), the start of a ``union(_:)`` of boxes.
  public init() { self = .empty }

  /// The box with these corners.
  public init(min: SIMD3<Float>, max: SIMD3<Float>) {
    self.min = min
    self.max = max
  }

  /// Whether the box contains no point (some `min` component above its `max`).
  public var isEmpty: Bool { any(min .> max) }

  /// The box's centre.
  public var center: SIMD3<Float> { (min + max) / 2 }

  /// The box's size along each axis.
  public var extents: SIMD3<Float> { max - min }

  /// The smallest box holding both.
  public func union(_ other: BoundingBox) -> BoundingBox {
    BoundingBox(min: pointwiseMin(min, other.min), max: pointwiseMax(max, other.max))
  }

  /// The smallest axis-aligned box holding this box's eight corners mapped by `matrix` (an affine
  /// transform between spaces, metres). The empty box stays empty.
  public func transformed(by matrix: simd_float4x4) -> BoundingBox {
    guard !isEmpty else { return self }
    var box = BoundingBox.empty
    for corner in 0..<8 {
      let p = SIMD3(
        corner & 1 == 0 ? min.x : max.x, corner & 2 == 0 ? min.y : max.y, corner & 4 == 0 ? min.z : max.z)
      let q = matrix * SIMD4(p, 1)
      let point = SIMD3(q.x, q.y, q.z)
      box = box.union(BoundingBox(min: point, max: point))
    }
    return box
  }
}

/// An entity with a look and a shape, as RealityKit's `ModelEntity`: its ``model`` (a mesh and
/// materials) gives its ``bounds`` and visual bounds, its ``collision`` shapes make it hittable, and
/// with a ``physicsBody`` it is simulated (see ``HasPhysicsBody``). ARSim draws nothing.
open class ModelEntity: Entity, HasModel, HasPhysics {
  /// A model with no name, no mesh and no collision shapes.
  public required init() {}

  /// A model of `mesh` and `materials`.
  public init(mesh: MeshResource, materials: [any Material] = []) {
    super.init()
    model = ModelComponent(mesh: mesh, materials: materials)
  }

  /// A model of `mesh` and `materials` that hit tests find through `collisionShape`. `mass` (kg) is
  /// accepted but makes no physics body: set ``physicsBody`` for the model to be simulated.
  public convenience init(
    mesh: MeshResource, materials: [any Material] = [], collisionShape: ShapeResource, mass: Float
  ) {
    self.init(mesh: mesh, materials: materials, collisionShapes: [collisionShape], mass: mass)
  }

  /// A model of `mesh` and `materials` with `collisionShapes`. `mass` (kg) is accepted but makes no
  /// physics body: set ``physicsBody`` for the model to be simulated.
  public init(
    mesh: MeshResource, materials: [any Material] = [], collisionShapes: [ShapeResource], mass: Float = 0
  ) {
    super.init()
    model = ModelComponent(mesh: mesh, materials: materials)
    collision = CollisionComponent(shapes: collisionShapes)
  }

  /// A model named `name` shaped as a box filling `bounds` (its own space, metres), or without a mesh
  /// for nil (ARSim's addition, for placement tests that only need an object's size).
  public convenience init(name: String, bounds: BoundingBox? = nil) {
    self.init()
    self.name = name
    if let bounds, !bounds.isEmpty {
      model = ModelComponent(mesh: .box(min: bounds.min, max: bounds.max), materials: [SimpleMaterial()])
    }
  }

  /// The box of the model's mesh in the entity's own space (before its scale), metres; nil without a
  /// mesh.
  public var bounds: BoundingBox? { model?.mesh.bounds }
}

extension Entity {
  /// The box holding the meshes (``ModelComponent``) of this entity and (with `recursive`) its
  /// descendants, in `referenceEntity`'s space (world for `nil`), as RealityKit's
  /// `visualBounds(recursive:relativeTo:excludeInactive:)`: each mesh's box mapped into that space
  /// (axis-aligned there, so a rotated mesh gives a larger box); ``BoundingBox/empty`` when none has a
  /// mesh. With `excludeInactive`, disabled entities and their descendants are left out.
  public func visualBounds(
    recursive: Bool = true, relativeTo referenceEntity: Entity?, excludeInactive: Bool = false
  ) -> BoundingBox {
    if excludeInactive && !isEnabled { return .empty }
    var box = BoundingBox.empty
    if let bounds = components[ModelComponent.self]?.mesh.bounds {
      box = bounds.transformed(by: transformMatrix(relativeTo: referenceEntity))
    }
    if recursive {
      for child in children {
        box = box.union(
          child.visualBounds(recursive: true, relativeTo: referenceEntity, excludeInactive: excludeInactive))
      }
    }
    return box
  }
}
