import ARSim
import Foundation

/// A virtual camera's lens (RealityKit's `PerspectiveCameraComponent`).
public struct PerspectiveCameraComponent: Component, Sendable, Hashable {
  /// The nearest distance shown, metres.
  public var near: Float
  /// The farthest distance shown, metres.
  public var far: Float
  /// The vertical field of view, degrees.
  public var fieldOfViewInDegrees: Float

  /// A lens; by default 1 cm to infinity with a 60° vertical field of view.
  public init(near: Float = 0.01, far: Float = .infinity, fieldOfViewInDegrees: Float = 60) {
    self.near = near
    self.far = far
    self.fieldOfViewInDegrees = fieldOfViewInDegrees
  }
}

/// An entity that is a virtual camera (RealityKit's `HasPerspectiveCamera`).
public protocol HasPerspectiveCamera: Entity {}

extension HasPerspectiveCamera {
  /// The camera's lens.
  public var camera: PerspectiveCameraComponent {
    get { components[PerspectiveCameraComponent.self] ?? PerspectiveCameraComponent() }
    set { components[PerspectiveCameraComponent.self] = newValue }
  }
}

/// A virtual camera (RealityKit's `PerspectiveCamera`): in a view's `.nonAR` mode, the first active
/// one in the scene is the viewpoint of ``ARView/hitTest(_:query:mask:)`` and friends. It looks along
/// its own -z axis, +y up.
open class PerspectiveCamera: Entity, HasPerspectiveCamera {
  /// A camera with the default lens at the origin.
  public required init() {
    super.init()
    components.set(PerspectiveCameraComponent())
  }
}

extension Entity {
  /// Places the entity at `position` and turns it so that its -z axis points at `target`, with its y
  /// axis as near `upVector` as that allows (both points and the vector in `referenceEntity`'s space,
  /// world for nil), as RealityKit's `look(at:from:upVector:relativeTo:)`; its scale relative to
  /// `referenceEntity` is kept. When `target` is `position`, only the position changes; when the view
  /// direction is parallel to `upVector`, another up direction is chosen.
  public func look(
    at target: SIMD3<Float>, from position: SIMD3<Float>, upVector: SIMD3<Float> = SIMD3(0, 1, 0),
    relativeTo referenceEntity: Entity?
  ) {
    var pose = Transform(matrix: transformMatrix(relativeTo: referenceEntity))
    pose.translation = position
    let toward = target - position
    if simd_length_squared(toward) > 0 {
      let back = -simd_normalize(toward)
      var right = simd_cross(upVector, back)
      if simd_length_squared(right) < 1e-12 { right = simd_cross(SIMD3(0, 0, 1), back) }
      if simd_length_squared(right) < 1e-12 { right = simd_cross(SIMD3(1, 0, 0), back) }
      right = simd_normalize(right)
      pose.rotation = simd_quatf(simd_float3x3(right, simd_cross(back, right), back))
    }
    setTransformMatrix(pose.matrix, relativeTo: referenceEntity)
  }
}
