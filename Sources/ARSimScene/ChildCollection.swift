import ARSim
import Foundation

extension Entity {
  /// An entity's children, as RealityKit's `Entity.ChildCollection`: a live view whose methods change
  /// the entity's hierarchy (each added child leaves its previous parent or scene first).
  public struct ChildCollection: RandomAccessCollection {
    private let parent: Entity

    init(parent: Entity) {
      self.parent = parent
    }

    /// The index of the first child.
    public var startIndex: Int { 0 }
    /// One past the index of the last child.
    public var endIndex: Int { parent.childEntities.count }
    /// The child at `position`.
    public subscript(position: Int) -> Entity { parent.childEntities[position] }

    /// Adds `child` as the last child (``Entity/addChild(_:preservingWorldTransform:)``).
    public func append(_ child: Entity) { parent.addChild(child) }

    /// Adds each of `children` in order.
    public func append<S: Sequence>(contentsOf children: S) where S.Element == Entity {
      for child in children { parent.addChild(child) }
    }

    /// Inserts `child` before the child at `index` (at the end for `endIndex`).
    public func insert(_ child: Entity, at index: Int) {
      parent.insertChild(child, at: index, preservingWorldTransform: false)
    }

    /// Removes `child` if it is one of the children.
    public func remove(_ child: Entity) { parent.removeChild(child) }

    /// Removes the child at `index`.
    public func remove(at index: Int) { parent.removeChild(self[index]) }

    /// Removes every child.
    public func removeAll() {
      for child in Array(self) { parent.removeChild(child) }
    }

    /// Replaces the children with `children`.
    public func replaceAll<S: Sequence>(_ children: S) where S.Element == Entity {
      removeAll()
      append(contentsOf: children)
    }
  }
}
