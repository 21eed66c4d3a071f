import ARSim
import Foundation

/// The entities an ``ARView`` shows, as RealityKit's `Scene`: a list of anchoring entities (its
/// ``anchors``), each the root of a hierarchy. Made by its view; not thread-safe (see ``Entity``).
public final class Scene {
  /// The view that owns the scene and keeps its anchors on their targets.
  weak var view: ARView?
  private var roots: [any HasAnchoring] = []

  init() {}

  /// The scene's anchors, in the order they were added; `append`, `remove` and `removeAll` change the
  /// scene (as RealityKit's `Scene.AnchorCollection`).
  public var anchors: AnchorCollection { AnchorCollection(scene: self) }

  /// Adds `anchor` (with its descendants) as the last of the scene's anchors, taking it out of its
  /// previous parent or scene first. The view then looks for its target among the session's anchors.
  public func addAnchor(_ anchor: any HasAnchoring) {
    if anchor.scene === self && anchor.parent == nil { return }
    anchor.removeFromParent()
    roots.append(anchor)
    anchor.owningScene = self
    view?.resolve(anchor)
  }

  /// Removes `anchor` (with its descendants) from the scene, if it is one of its anchors.
  public func removeAnchor(_ anchor: any HasAnchoring) {
    guard anchor.owningScene === self else { return }
    remove(root: anchor)
  }

  /// Takes `root` out of the list.
  func remove(root: Entity) {
    roots.removeAll { $0 === root }
    if root.owningScene === self { root.owningScene = nil }
  }

  /// The first entity named `name`, searching each anchor's hierarchy depth-first in order, or nil.
  public func findEntity(named name: String) -> Entity? {
    for root in roots {
      if let found = root.findEntity(named: name) { return found }
    }
    return nil
  }

  /// Every anchoring entity in the scene: the anchors and anchoring entities nested under them,
  /// depth-first.
  var anchoringEntities: [any HasAnchoring] {
    var found: [any HasAnchoring] = []
    func visit(_ entity: Entity) {
      if let anchoring = entity as? any HasAnchoring { found.append(anchoring) }
      for child in entity.children { visit(child) }
    }
    for root in roots { visit(root) }
    return found
  }

  /// The anchors of a ``Scene``, as RealityKit's `Scene.AnchorCollection`: a live view of the scene's
  /// list, whose mutating methods change the scene.
  public struct AnchorCollection: RandomAccessCollection {
    private let scene: Scene

    init(scene: Scene) {
      self.scene = scene
    }

    /// The index of the first anchor.
    public var startIndex: Int { 0 }
    /// One past the index of the last anchor.
    public var endIndex: Int { scene.roots.count }
    /// The anchor at `position`.
    public subscript(position: Int) -> any HasAnchoring { scene.roots[position] }

    /// Adds `anchor` to the scene (``Scene/addAnchor(_:)``).
    public func append(_ anchor: any HasAnchoring) { scene.addAnchor(anchor) }

    /// Removes `anchor` from the scene (``Scene/removeAnchor(_:)``).
    public func remove(_ anchor: any HasAnchoring) { scene.removeAnchor(anchor) }

    /// Removes every anchor from the scene.
    public func removeAll() {
      for anchor in scene.roots { scene.removeAnchor(anchor) }
    }
  }
}
