import ARSim
import Foundation

extension Entity: Hashable {
  /// Whether `lhs` and `rhs` are the same entity (RealityKit's entities are equal only to themselves),
  /// so `Set<Entity>` and `[Entity: Value]` key entities by identity.
  public static func == (lhs: Entity, rhs: Entity) -> Bool { lhs === rhs }

  /// Hashes the entity's identity.
  public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

extension Component {
  /// Registers the component type with RealityKit's engine (RealityKit's `registerComponent()`, needed
  /// there before a custom component is loaded from a file or synchronised). ARSim's entities keep any
  /// ``Component`` without registration, so this has nothing to do; calling it is harmless and may be
  /// repeated.
  public static func registerComponent() {}
}

extension Entity {
  /// Stops every animation playing on this entity and, with `recursive`, on its descendants, as
  /// RealityKit's `stopAllAnimations(recursive:)`: each one is left where it is, its controller reports
  /// ``AnimationPlaybackController/isStopped``, and no completion event is sent.
  public func stopAllAnimations(recursive: Bool = true) {
    for playback in playbacks { playback.stop() }
    playbacks.removeAll()
    if recursive {
      for child in children { child.stopAllAnimations(recursive: true) }
    }
  }
}

extension Transform {
  /// A rotation from Euler angles (radians), no scale or translation, as RealityKit's
  /// `init(pitch:yaw:roll:)`: turned by `yaw` about y, then by `pitch` about the turned x axis, then by
  /// `roll` about the resulting z axis (`R = Ry(yaw) · Rx(pitch) · Rz(roll)`).
  public init(pitch x: Float = 0, yaw y: Float = 0, roll z: Float = 0) {
    let rotation =
      simd_quatf(angle: y, axis: SIMD3(0, 1, 0)) * simd_quatf(angle: x, axis: SIMD3(1, 0, 0))
      * simd_quatf(angle: z, axis: SIMD3(0, 0, 1))
    self.init(rotation: rotation)
  }
}

extension ARView: Hashable {
  /// Whether `lhs` and `rhs` are the same view (UIKit's views are equal only to themselves), so
  /// `[ARView: Value]` keys views by identity.
  public static func == (lhs: ARView, rhs: ARView) -> Bool { lhs === rhs }

  /// Hashes the view's identity.
  public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
