import ARSim
import Foundation

/// An entity fastened to the real world, the root of placed content, as RealityKit's `AnchorEntity`.
///
/// Its ``anchoring`` target decides where it is; an ``ARView`` whose scene holds it keeps it there:
/// - `.world(transform:)`: fixed at that world pose (set when the target is set; the view does not
///   move it afterwards).
/// - `.anchor(identifier:)`: at the ARAnchor's `transform` (times the offset of
///   ``init(raycastResult:)``), following the anchor's updates; it leaves the scene when the session
///   removes the anchor.
/// - `.camera`: at the camera's pose in each frame (see ``AnchoringComponent/Target/camera``).
/// - `.plane(...)`: unanchored until a matching ``ARPlaneAnchor`` is known — already in the session when
///   the entity is added to the scene, or added or updated later (the first matching one in the
///   session's order) — and then at that plane anchor's origin, `ARPlaneAnchor.transform`: the centre of
///   the plane when it was first detected, y along the plane's normal. ARSim keeps a plane anchor's
///   transform fixed while its `center` and extent grow, so the entity does not move as the plane grows.
///   When the plane is removed because another plane absorbed it and that plane matches too, the entity
///   moves over to it keeping its world pose; when it is removed otherwise, the entity leaves the scene.
///
/// Apply `setPosition(_:relativeTo: nil)` and friends to the content under an anchor entity, not to the
/// anchor entity, whose pose the view owns.
open class AnchorEntity: Entity, HasAnchoring {
  /// An anchor entity at the world origin (a world target with the identity transform).
  public required init() {
    super.init()
    anchoring = AnchoringComponent(.world(transform: .identity))
  }

  /// An anchor entity with `target`.
  public init(_ target: AnchoringComponent.Target) {
    super.init()
    anchoring = AnchoringComponent(target)
  }

  /// An anchor entity fixed at `position` in world space (metres), unrotated.
  public convenience init(world position: SIMD3<Float>) {
    self.init(world: Transform(translation: position).matrix)
  }

  /// An anchor entity fixed at `transform` (anchor to world, metres).
  public convenience init(world transform: simd_float4x4) {
    self.init(.world(transform: transform))
  }

  /// An anchor entity following `anchor`: at its transform now, and at each update the session
  /// reports for its identifier.
  public convenience init(anchor: ARAnchor) {
    self.init(.anchor(identifier: anchor.identifier))
    attach(to: anchor, anchorFromEntity: .identity)
  }

  /// An anchor entity at a raycast hit: following the hit's anchor (keeping the hit's pose relative to
  /// it) when there is one, otherwise fixed at the hit's world transform.
  public convenience init(raycastResult: ARRaycastResult) {
    if let anchor = raycastResult.anchor {
      self.init(.anchor(identifier: anchor.identifier))
      attach(to: anchor, anchorFromEntity: anchor.transform.inverse * raycastResult.worldTransform)
    } else {
      self.init(world: raycastResult.worldTransform)
    }
  }

  /// An anchor entity that fastens itself to the first detected plane with this alignment,
  /// classification and minimum size (metres; see ``AnchoringComponent/Target/plane(_:classification:minimumBounds:)``).
  public convenience init(
    plane alignment: AnchoringComponent.Target.Alignment,
    classification: AnchoringComponent.Target.Classification = .any,
    minimumBounds: SIMD2<Float> = [0, 0]
  ) {
    self.init(.plane(alignment, classification: classification, minimumBounds: minimumBounds))
  }

  /// Copies the anchoring target too. A clone of an entity that follows a known ARAnchor follows it as
  /// well; a clone with a plane target looks for a plane afresh.
  open override func copyProperties(from source: Entity) {
    super.copyProperties(from: source)
    guard let source = source as? AnchorEntity else { return }
    anchoring = source.anchoring
    if case .anchor = anchoring.target, source.anchoringState.isAttached {
      anchoringState = source.anchoringState
    }
  }

  /// The class, target, followed anchor and world position.
  open override var description: String {
    let p = position(relativeTo: nil)
    let followed = anchorIdentifier.map { " anchor=\($0)" } ?? ""
    return "<\(type(of: self)) name=\"\(name)\" target=\(anchoring.target)\(followed) position=\(p)>"
  }
}
