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

/// An entity standing for a visible object, as RealityKit's `ModelEntity`, without a mesh: ARSim does
/// not render, so a model is its ``bounds``, the box the object would occupy (for tests of placement
/// and scaling).
open class ModelEntity: Entity {
  /// The object's box in the entity's own space (before its scale), metres; nil when unknown.
  public var bounds: BoundingBox?

  /// A model with no name and no bounds.
  public required init() {}

  /// A model named `name` occupying `bounds` in its own space (metres).
  public init(name: String, bounds: BoundingBox? = nil) {
    self.bounds = bounds
    super.init()
    self.name = name
  }

  /// Copies the bounds too.
  open override func copyProperties(from source: Entity) {
    super.copyProperties(from: source)
    if let source = source as? ModelEntity { bounds = source.bounds }
  }
}

extension Entity {
  /// The box holding the ``ModelEntity/bounds`` of this entity and (with `recursive`) its descendants,
  /// in `referenceEntity`'s space (world for `nil`), as RealityKit's `visualBounds(recursive:relativeTo:)`;
  /// ``BoundingBox/empty`` when none has bounds. With `excludeInactive`, disabled entities and their
  /// descendants are left out.
  public func visualBounds(
    recursive: Bool = true, relativeTo referenceEntity: Entity?, excludeInactive: Bool = false
  ) -> BoundingBox {
    if excludeInactive && !isEnabled { return .empty }
    var box = BoundingBox.empty
    if let model = self as? ModelEntity, let bounds = model.bounds {
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
