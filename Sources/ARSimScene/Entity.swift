import ARSim
import Foundation

/// An element of a scene: a transform, a parent and children, with RealityKit's names and semantics
/// (`Entity`), and no rendering.
///
/// Spaces: an entity's *own space* is the one its children's transforms are given in; its
/// ``transform`` maps its own space to its parent's (`parentFromEntity`); *world space* is the session's
/// world (metres, +y up; see ARCHITECTURE.md), the space of an entity without a parent. Every
/// `relativeTo:` / `to:` / `from:` parameter takes an entity whose own space is meant, or `nil` for
/// world space, as in RealityKit.
///
/// Scale is exact through any hierarchy when it is uniform; a non-uniform scale under a rotation makes a
/// shear that ``Transform`` cannot hold, and the getters and setters that decompose a matrix
/// (`orientation(relativeTo:)`, `scale(relativeTo:)`, `setOrientation(_:relativeTo:)`,
/// `setScale(_:relativeTo:)`, `setTransformMatrix(_:relativeTo:)`) then approximate.
///
/// Not thread-safe, and not `Sendable`: use an entity, its hierarchy and its scene from one thread at a
/// time — with an ``ARView``, the thread that steps the session's replay (or its `delegateQueue`).
/// RealityKit confines entities to the main actor for the same reason.
open class Entity: Identifiable, CustomStringConvertible {
  /// The entity's name, for ``findEntity(named:)`` and debugging. Empty by default.
  public var name: String = ""

  /// The transform from the entity's own space to its parent's (world space without a parent).
  public var transform: Transform = .identity

  /// Whether the entity takes part in the scene. A disabled entity and its descendants are inactive;
  /// ARSim has no rendering, so this only shows in ``isEnabledInHierarchy`` and ``isActive``.
  public var isEnabled = true

  /// The parent, or nil for a root (a scene's anchor, or an entity on its own). Held weakly: a parent
  /// keeps its children alive, not the other way round, so keep the root (or put it in a scene).
  public private(set) weak var parent: Entity?

  /// The children, in the order they were added; `append`, `insert`, `remove` and `removeAll` change
  /// them (RealityKit's `Entity.ChildCollection`).
  public var children: ChildCollection { ChildCollection(parent: self) }

  /// The children's storage.
  private var childList: [Entity] = []
  /// The children, for ``ChildCollection``.
  var childEntities: [Entity] { childList }

  /// The animations the entity's model came with (a loaded USD file's), for ``playAnimation(_:transitionDuration:startsPaused:)``;
  /// empty for entities made in code. Loaders set it.
  public var availableAnimations: [AnimationResource] = []

  /// The animations under way (``move(to:relativeTo:duration:timingFunction:)``, ``playAnimation(_:transitionDuration:startsPaused:)``).
  var playbacks: [AnimationPlaybackController] = []

  /// The entity's components (its ``ModelComponent``, ``CollisionComponent``, the app's own), one per
  /// type.
  public var components = ComponentSet()

  /// The scene that holds this entity as one of its anchors (roots only).
  weak var owningScene: Scene?

  /// Target resolution state of anchoring entities (``AnchorEntity``); see ``isAnchored``.
  var anchoringState = AnchoringState()

  /// The audio clips playing (``playAudio(_:)``).
  var audioPlaybacks: [AudioPlaybackController] = []

  /// Forces and torques added since the last physics step (``HasPhysicsBody/addForce(_:relativeTo:)``).
  var physicsAccumulator = PhysicsAccumulator()

  /// A new entity: no name, identity transform, no parent, no children.
  public required init() {}

  // MARK: Local transform

  /// The position relative to the parent, metres: ``transform``'s translation.
  public var position: SIMD3<Float> {
    get { transform.translation }
    set { transform.translation = newValue }
  }

  /// The orientation relative to the parent: ``transform``'s rotation.
  public var orientation: simd_quatf {
    get { transform.rotation }
    set { transform.rotation = newValue }
  }

  /// The scale relative to the parent: ``transform``'s scale.
  public var scale: SIMD3<Float> {
    get { transform.scale }
    set { transform.scale = newValue }
  }

  // MARK: Hierarchy

  /// Adds `child` as the last child, removing it from its previous parent (or scene) first.
  /// - Parameter preservingWorldTransform: keep the child where it is in the world (its transform is
  ///   recomputed relative to this entity); otherwise its transform is kept and it moves with this entity.
  public func addChild(_ child: Entity, preservingWorldTransform: Bool = false) {
    insertChild(child, at: childList.count, preservingWorldTransform: preservingWorldTransform)
  }

  /// Inserts `child` at `index` among the children (clamped to the list), as ``addChild(_:preservingWorldTransform:)``.
  func insertChild(_ child: Entity, at index: Int, preservingWorldTransform: Bool) {
    precondition(child !== self && !child.isAncestor(of: self), "an entity cannot be its own ancestor")
    let world = child.worldMatrix
    child.detach()
    childList.insert(child, at: Swift.min(Swift.max(index, 0), childList.count))
    child.parent = self
    if preservingWorldTransform { child.setTransformMatrix(world, relativeTo: nil) }
  }

  /// Removes `child` if it is one of this entity's children.
  /// - Parameter preservingWorldTransform: keep it where it is in the world (its transform becomes its
  ///   world transform); otherwise its transform is kept.
  public func removeChild(_ child: Entity, preservingWorldTransform: Bool = false) {
    guard child.parent === self else { return }
    child.removeFromParent(preservingWorldTransform: preservingWorldTransform)
  }

  /// Removes the entity from its parent, or from its scene when it is one of the scene's anchors.
  /// - Parameter preservingWorldTransform: keep it where it is in the world (its transform becomes its
  ///   world transform); otherwise its transform is kept.
  public func removeFromParent(preservingWorldTransform: Bool = false) {
    let world = worldMatrix
    detach()
    if preservingWorldTransform { transform = Transform(matrix: world) }
  }

  /// Makes `parent` this entity's parent (`nil` removes it from its parent), as RealityKit's
  /// `setParent(_:preservingWorldTransform:)`.
  public func setParent(_ parent: Entity?, preservingWorldTransform: Bool = false) {
    if let parent {
      parent.addChild(self, preservingWorldTransform: preservingWorldTransform)
    } else {
      removeFromParent(preservingWorldTransform: preservingWorldTransform)
    }
  }

  /// Takes the entity out of its parent's children or its scene's anchors.
  private func detach() {
    if let parent {
      parent.childList.removeAll { $0 === self }
      self.parent = nil
    } else if let scene = owningScene {
      scene.remove(root: self)
    }
  }

  /// The scene the entity belongs to (through its root), or nil.
  public var scene: Scene? {
    var root = self
    while let up = root.parent { root = up }
    return root.owningScene
  }

  /// Whether this entity is `other` or one of its ancestors.
  func isAncestor(of other: Entity) -> Bool {
    var node: Entity? = other
    while let current = node {
      if current === self { return true }
      node = current.parent
    }
    return false
  }

  /// Whether the entity and all its ancestors are enabled.
  public var isEnabledInHierarchy: Bool {
    var node: Entity? = self
    while let current = node {
      if !current.isEnabled { return false }
      node = current.parent
    }
    return true
  }

  /// Whether the entity is enabled in its hierarchy and belongs to a scene.
  public var isActive: Bool { isEnabledInHierarchy && scene != nil }

  /// The nearest entity that anchors this one: itself when it has anchoring, otherwise its nearest
  /// ancestor that does (RealityKit's `anchor`), or nil.
  public var anchor: (any HasAnchoring)? {
    var node: Entity? = self
    while let current = node {
      if let anchoring = current as? any HasAnchoring { return anchoring }
      node = current.parent
    }
    return nil
  }

  /// Whether the entity is anchored in the real world: its ``anchor`` belongs to a scene and has found
  /// its target (always for a world target; for an ARAnchor target once its transform is known; for a
  /// plane target once a matching plane was detected; for a camera target once a frame arrived; for an
  /// app's `HasAnchoring` entity without an ``AnchoringComponent``, always).
  public var isAnchored: Bool {
    guard let anchor: Entity = anchor else { return false }
    let attached = anchor.anchoringState.isAttached || anchor.components[AnchoringComponent.self] == nil
    return attached && anchor.scene != nil
  }

  /// The first entity named `name` in a depth-first search of this entity and its descendants
  /// (this entity first, then each child's subtree in order), or nil.
  public func findEntity(named name: String) -> Entity? {
    if self.name == name { return self }
    for child in children {
      if let found = child.findEntity(named: name) { return found }
    }
    return nil
  }

  // MARK: Transforms relative to other entities

  /// The transform from this entity's own space to world space (`worldFromEntity`), metres.
  var worldMatrix: simd_float4x4 {
    var matrix = transform.matrix
    var node = parent
    while let current = node {
      matrix = current.transform.matrix * matrix
      node = current.parent
    }
    return matrix
  }

  /// `worldFromEntity` of `entity`, or the identity for world space (`nil`).
  static func worldMatrix(of entity: Entity?) -> simd_float4x4 { entity?.worldMatrix ?? .identity }

  /// The transform from this entity's own space to `referenceEntity`'s own space
  /// (`referenceFromEntity`), or to world space for `nil`; metres.
  public func transformMatrix(relativeTo referenceEntity: Entity?) -> simd_float4x4 {
    guard let referenceEntity else { return worldMatrix }
    return referenceEntity.worldMatrix.inverse * worldMatrix
  }

  /// Moves, turns and scales the entity so that ``transformMatrix(relativeTo:)`` becomes `matrix`
  /// (as far as a ``Transform`` can hold it, see ``Transform/init(matrix:)``).
  public func setTransformMatrix(_ matrix: simd_float4x4, relativeTo referenceEntity: Entity?) {
    let worldFromEntity = Self.worldMatrix(of: referenceEntity) * matrix
    transform = Transform(matrix: Self.worldMatrix(of: parent).inverse * worldFromEntity)
  }

  /// The entity's origin in `referenceEntity`'s space (world for `nil`), metres.
  public func position(relativeTo referenceEntity: Entity?) -> SIMD3<Float> {
    let c = transformMatrix(relativeTo: referenceEntity).columns.3
    return SIMD3(c.x, c.y, c.z)
  }

  /// Moves the entity so that its origin is at `position` in `referenceEntity`'s space (world for
  /// `nil`), metres; its orientation and scale are kept.
  public func setPosition(_ position: SIMD3<Float>, relativeTo referenceEntity: Entity?) {
    let world = Self.worldMatrix(of: referenceEntity) * SIMD4(position, 1)
    let local = Self.worldMatrix(of: parent).inverse * world
    transform.translation = SIMD3(local.x, local.y, local.z)
  }

  /// The entity's orientation relative to `referenceEntity` (world for `nil`).
  public func orientation(relativeTo referenceEntity: Entity?) -> simd_quatf {
    Transform(matrix: transformMatrix(relativeTo: referenceEntity)).rotation
  }

  /// Turns the entity so that its orientation relative to `referenceEntity` (world for `nil`) is
  /// `orientation`; its position and its scale relative to `referenceEntity` are kept.
  public func setOrientation(_ orientation: simd_quatf, relativeTo referenceEntity: Entity?) {
    var relative = Transform(matrix: transformMatrix(relativeTo: referenceEntity))
    relative.rotation = orientation
    setTransformMatrix(relative.matrix, relativeTo: referenceEntity)
  }

  /// The entity's scale relative to `referenceEntity` (world for `nil`).
  public func scale(relativeTo referenceEntity: Entity?) -> SIMD3<Float> {
    Transform(matrix: transformMatrix(relativeTo: referenceEntity)).scale
  }

  /// Scales the entity so that its scale relative to `referenceEntity` (world for `nil`) is `scale`; its
  /// position and its orientation relative to `referenceEntity` are kept.
  public func setScale(_ scale: SIMD3<Float>, relativeTo referenceEntity: Entity?) {
    var relative = Transform(matrix: transformMatrix(relativeTo: referenceEntity))
    relative.scale = scale
    setTransformMatrix(relative.matrix, relativeTo: referenceEntity)
  }

  /// A point given in this entity's own space, in `referenceEntity`'s space (world for `nil`), metres.
  public func convert(position: SIMD3<Float>, to referenceEntity: Entity?) -> SIMD3<Float> {
    let p = transformMatrix(relativeTo: referenceEntity) * SIMD4(position, 1)
    return SIMD3(p.x, p.y, p.z)
  }

  /// A point given in `referenceEntity`'s space (world for `nil`), in this entity's own space, metres.
  public func convert(position: SIMD3<Float>, from referenceEntity: Entity?) -> SIMD3<Float> {
    let p = (worldMatrix.inverse * Self.worldMatrix(of: referenceEntity)) * SIMD4(position, 1)
    return SIMD3(p.x, p.y, p.z)
  }

  /// A direction given in this entity's own space, in `referenceEntity`'s space (world for `nil`):
  /// rotated and scaled, not translated.
  public func convert(direction: SIMD3<Float>, to referenceEntity: Entity?) -> SIMD3<Float> {
    let d = transformMatrix(relativeTo: referenceEntity) * SIMD4(direction, 0)
    return SIMD3(d.x, d.y, d.z)
  }

  /// A direction given in `referenceEntity`'s space (world for `nil`), in this entity's own space.
  public func convert(direction: SIMD3<Float>, from referenceEntity: Entity?) -> SIMD3<Float> {
    let d = (worldMatrix.inverse * Self.worldMatrix(of: referenceEntity)) * SIMD4(direction, 0)
    return SIMD3(d.x, d.y, d.z)
  }

  // MARK: Cloning

  /// A copy of this entity of the same class, with its name, transform and enabled state (and what
  /// subclasses copy in ``copyProperties(from:)``); with `recursive`, its descendants are cloned too,
  /// otherwise the copy has no children. The copy has no parent and is in no scene.
  public func clone(recursive: Bool) -> Self {
    let copy = type(of: self).init()
    copy.copyProperties(from: self)
    if recursive {
      for child in children { copy.addChild(child.clone(recursive: true)) }
    }
    return copy
  }

  /// Copies this entity's own state (not its hierarchy) from `source`, for ``clone(recursive:)``.
  /// Subclasses that add state override it, call `super`, and copy their own.
  open func copyProperties(from source: Entity) {
    name = source.name
    transform = source.transform
    isEnabled = source.isEnabled
    components = source.components
    availableAnimations = source.availableAnimations
  }

  /// The class, name and position relative to the parent.
  open var description: String {
    "<\(type(of: self)) name=\"\(name)\" position=\(position)>"
  }
}
