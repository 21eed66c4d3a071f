import ARSim
import Foundation

extension HasPhysicsBody {
  /// Stops the body where it is (RealityKit's `resetPhysicsTransform(recursive:)`): its pose stays the
  /// entity's current transform and its velocities become zero; with `recursive`, the same for every
  /// descendant that has a ``PhysicsMotionComponent``.
  public func resetPhysicsTransform(recursive: Bool = true) {
    func stop(_ entity: Entity) {
      if entity.components[PhysicsMotionComponent.self] != nil {
        entity.components[PhysicsMotionComponent.self] = PhysicsMotionComponent()
      }
      if recursive { entity.children.forEach(stop) }
    }
    stop(self)
  }
}
