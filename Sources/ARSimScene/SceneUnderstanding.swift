import ARSim
import Foundation

/// How an entity stands for the real world (RealityKit's `SceneUnderstandingComponent`). In ARSim the
/// real world that physics meets is the session's mesh anchors, or its detected planes when it does not
/// reconstruct the scene (see
/// ``ARView/Environment-swift.struct/SceneUnderstanding-swift.struct/Options-swift.struct/physics``):
/// collision events with the mesh or a plane name an entity that has this component.
public struct SceneUnderstandingComponent: Component, Sendable, Hashable {
  /// What kind of real-world object the entity models (RealityKit's `SceneUnderstandingComponent.EntityType`).
  public enum EntityType: Sendable, Hashable {
    /// A piece of the reconstructed surroundings (a mesh anchor's triangles, or a detected plane's slab).
    case meshChunk
    /// A tracked face.
    case face
  }

  /// The kind, or nil.
  public var entityType: EntityType?

  /// A component of no kind.
  public init() { entityType = nil }

  /// A component of `entityType`.
  public init(entityType: EntityType?) { self.entityType = entityType }
}

/// An entity that stands for the real world (RealityKit's `HasSceneUnderstanding`).
public protocol HasSceneUnderstanding: Entity {}

extension HasSceneUnderstanding {
  /// What the entity models (an empty component when it has none).
  public var sceneUnderstanding: SceneUnderstandingComponent {
    components[SceneUnderstandingComponent.self] ?? SceneUnderstandingComponent()
  }
}

/// The entity of one mesh anchor (its triangles) or one detected plane (a static slab under the
/// plane's extent) in physics, in no scene; collision events name it.
final class SceneUnderstandingEntity: Entity, HasSceneUnderstanding, HasCollision {
  /// The mesh or plane anchor it stands for.
  private(set) var realAnchorIdentifier = UUID()

  required init() {
    super.init()
    components.set(SceneUnderstandingComponent(entityType: .meshChunk))
  }

  convenience init(plane: ARPlaneAnchor) {
    self.init()
    realAnchorIdentifier = plane.identifier
    name = "plane \(plane.identifier)"
  }

  convenience init(mesh: ARMeshAnchor) {
    self.init()
    realAnchorIdentifier = mesh.identifier
    name = "mesh \(mesh.identifier)"
  }
}
