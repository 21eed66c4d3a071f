import ARSim
import Foundation

// The three manipulations RealityKit's `installGestures(_:for:)` gives an entity (translation, rotation,
// scale), as plain transforms driven by the values a UIKit gesture recognizer reports: the app (or a
// test) creates one when the gesture begins and calls `changed` with each new value.

/// A one-finger drag that slides an entity along detected planes (RealityKit's
/// `EntityTranslationGestureRecognizer`, for placed content).
///
/// Each ``changed(to:)`` casts a ray from the touch point with `.existingPlaneGeometry` and moves the
/// entity's origin to the nearest hit, keeping its parent (so it stays anchored), orientation and scale.
/// When nothing is hit the entity stays where it is.
public struct TranslationGesture {
  /// The entity being moved.
  public let entity: Entity
  /// The view whose session the rays are cast in.
  public let view: ARView
  /// Which planes the entity may slide on.
  public let alignment: ARRaycastQuery.TargetAlignment

  /// A drag of `entity` in `view` over planes of `alignment` (horizontal by default).
  public init(entity: Entity, in view: ARView, alignment: ARRaycastQuery.TargetAlignment = .horizontal) {
    self.entity = entity
    self.view = view
    self.alignment = alignment
  }

  /// Moves the entity to where the ray through the view point `point` (points, origin at the view's
  /// top-left) meets a detected plane. Returns the hit used, or nil when the entity did not move.
  @discardableResult
  public func changed(to point: CGPoint) -> ARRaycastResult? {
    guard let hit = view.raycast(from: point, allowing: .existingPlaneGeometry, alignment: alignment).first
    else { return nil }
    let p = hit.worldTransform.columns.3
    entity.setPosition(SIMD3(p.x, p.y, p.z), relativeTo: nil)
    return hit
  }
}

/// A two-finger rotation that turns an entity about its parent's y axis — the plane normal (up) under
/// an entity placed on a horizontal plane — as RealityKit's `EntityRotationGestureRecognizer`.
public struct RotationGesture {
  /// The entity being turned.
  public let entity: Entity
  /// Its orientation relative to its parent when the gesture began.
  public let startOrientation: simd_quatf

  /// A rotation of `entity` starting from its current orientation.
  public init(entity: Entity) {
    self.entity = entity
    startOrientation = entity.orientation
  }

  /// Sets the entity's orientation to the starting one turned by `rotation` radians about the parent's
  /// y axis, counter-clockwise seen from +y (the right-hand rule). `rotation` is the total since the
  /// gesture began. (UIKit's `UIRotationGestureRecognizer.rotation` is clockwise on screen: for a camera
  /// looking down at a floor, pass its negation.)
  public func changed(rotation: Float) {
    entity.orientation = simd_quatf(angle: rotation, axis: SIMD3(0, 1, 0)) * startOrientation
  }
}

/// A pinch that scales an entity, as RealityKit's `EntityScaleGestureRecognizer`, keeping each
/// component of its scale within ``limits``.
public struct ScaleGesture {
  /// The scale range a pinch may reach, per component: 0.1...3.0, as the sample apps use.
  public static let defaultLimits: ClosedRange<Float> = 0.1...3.0

  /// The entity being scaled.
  public let entity: Entity
  /// Its scale relative to its parent when the gesture began.
  public let startScale: SIMD3<Float>
  /// The range each component of the scale is clamped to.
  public let limits: ClosedRange<Float>

  /// A pinch of `entity` starting from its current scale, clamped to `limits`.
  public init(entity: Entity, limits: ClosedRange<Float> = ScaleGesture.defaultLimits) {
    self.entity = entity
    startScale = entity.scale
    self.limits = limits
  }

  /// Sets the entity's scale to the starting scale times `scale` (the pinch's total factor since the
  /// gesture began, as UIKit's `UIPinchGestureRecognizer.scale`), each component clamped to ``limits``.
  /// A factor that is not finite or not positive leaves the scale unchanged.
  public func changed(scale: Float) {
    guard scale.isFinite, scale > 0 else { return }
    let scaled = startScale * scale
    entity.scale = SIMD3(
      Swift.min(Swift.max(scaled.x, limits.lowerBound), limits.upperBound),
      Swift.min(Swift.max(scaled.y, limits.lowerBound), limits.upperBound),
      Swift.min(Swift.max(scaled.z, limits.lowerBound), limits.upperBound))
  }
}
