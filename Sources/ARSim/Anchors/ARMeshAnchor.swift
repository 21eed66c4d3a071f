import Foundation

/// A piece of the reconstructed surroundings (ARKit's `ARMeshAnchor`), added by a session run with
/// `sceneReconstruction`: the surface within one chunk of space (about a metre a side), its
/// ``geometry`` in the anchor's space. The transform is a translation to the chunk's lowest corner
/// (moved with the world when tracking corrects it); the session hands out a new anchor with the same
/// identifier when the chunk's surface changes.
public final class ARMeshAnchor: ARAnchor, @unchecked Sendable {
  /// The surface: vertices, normals, faces and (with `.meshWithClassification`) their classification.
  public let geometry: ARMeshGeometry

  /// An anchor for a chunk's surface.
  package init(identifier: UUID, transform: simd_float4x4, geometry: ARMeshGeometry, sessionIdentifier: UUID?)
  {
    self.geometry = geometry
    super.init(identifier: identifier, name: nil, transform: transform, sessionIdentifier: sessionIdentifier)
  }

  /// A copy of `anchor` (ARKit's `ARAnchorCopying`); the geometry is shared (it is immutable), or empty
  /// when `anchor` is not a mesh anchor.
  public required init(anchor: ARAnchor) {
    geometry = (anchor as? ARMeshAnchor)?.geometry ?? ARMeshGeometry()
    super.init(anchor: anchor)
  }
}
