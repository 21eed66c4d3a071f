import ARSim
import Combine
import Foundation

/// The entities an ``ARView`` shows, as RealityKit's `Scene`: a list of anchoring entities (its
/// ``anchors``), each the root of a hierarchy, and the events they give (``subscribe(to:on:_:)``).
/// Made by its view; not thread-safe (see ``Entity``).
public final class Scene: EventSource {
  /// The view that owns the scene and keeps its anchors on their targets.
  weak var view: ARView?
  private var roots: [any HasAnchoring] = []
  private var handlers: [ObjectIdentifier: [EventHandler]] = [:]
  private var nextHandler = 0
  /// The physics state (time not yet stepped, touching pairs).
  let physics = PhysicsWorld()
  /// The registered systems' instances for this scene.
  let systems = SceneSystems()

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

  // MARK: Events

  private struct EventHandler {
    let id: Int
    let source: ObjectIdentifier?
    let call: (any Event) -> Void
  }

  /// Calls `handler` with each event of type `event` (from `sourceObject` only, when given: the entity
  /// of an animation or an anchoring change) until the returned token is cancelled or released, as
  /// RealityKit's `subscribe(to:on:_:)`. Handlers run in the order they subscribed, on the thread that
  /// delivers the session's callbacks.
  public func subscribe<E: Event>(
    to event: E.Type, on sourceObject: (any EventSource)? = nil, _ handler: @escaping (E) -> Void
  ) -> any Cancellable {
    nextHandler += 1
    let id = nextHandler
    let key = ObjectIdentifier(event)
    handlers[key, default: []].append(
      EventHandler(id: id, source: sourceObject.map { ObjectIdentifier($0) }) { ($0 as? E).map(handler) })
    return AnyCancellable { [weak self] in self?.handlers[key]?.removeAll { $0.id == id } }
  }

  /// Calls the handlers of `event`'s type that listen to all sources or to `source`.
  func publish<E: Event>(_ event: E, from source: AnyObject?) {
    publish(event, from: source.map { [$0] } ?? [])
  }

  /// Calls the handlers of `event`'s type that listen to all sources or to one of `sources`, each once.
  func publish<E: Event>(_ event: E, from sources: [AnyObject]) {
    guard let list = handlers[ObjectIdentifier(E.self)] else { return }
    let origins = sources.map { ObjectIdentifier($0) }
    for handler in list where handler.source == nil || origins.contains(handler.source!) {
      handler.call(event)
    }
  }

  /// Advances every animation of the scene's entities by `deltaTime` seconds of the recording clock,
  /// and audio clips, reports the completed ones, runs the physics steps that time holds (publishing ``CollisionEvents``),
  /// updates the registered ``System``s, then publishes ``SceneEvents/Update``.
  func advance(by deltaTime: TimeInterval) {
    var completed: [AnimationPlaybackController] = []
    var clips: [AudioPlaybackController] = []
    func visit(_ entity: Entity) {
      completed += entity.advancePlaybacks(by: deltaTime)
      clips += entity.advanceAudio(by: deltaTime)
      for child in entity.children { visit(child) }
    }
    for root in roots { visit(root) }
    for controller in completed {
      publish(AnimationEvents.PlaybackCompleted(playbackController: controller), from: controller.entity)
    }
    for controller in clips {
      controller.completionHandler?()
      publish(AudioEvents.PlaybackCompleted(playbackController: controller), from: controller.entity)
    }
    physics.advance(
      self, by: deltaTime, planes: view?.physicsPlanes ?? [], meshes: view?.physicsMeshes ?? [])
    systems.update(self, deltaTime: deltaTime)
    publish(SceneEvents.Update(scene: self, deltaTime: deltaTime), from: self)
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

/// Something that happens in a scene, delivered to ``Scene/subscribe(to:on:_:)`` (RealityKit's `Event`).
public protocol Event {}

/// An object events can come from: a scene or an entity (RealityKit's `EventSource`).
public protocol EventSource: AnyObject {}

extension Entity: EventSource {}

/// Events of the scene as a whole (RealityKit's `SceneEvents`).
public enum SceneEvents {
  /// One step of the scene: sent after each camera frame (ARSim has no render loop), once the view has
  /// updated its anchors and advanced its animations.
  public struct Update: Event {
    /// The scene.
    public let scene: Scene
    /// Seconds of the recording clock since the previous update (0 for the first).
    public let deltaTime: TimeInterval
  }

  /// An anchoring entity found or lost its target (after the session callback that caused it).
  public struct AnchoredStateChanged: Event {
    /// The anchoring entity.
    public let anchor: any HasAnchoring
    /// Whether it is now anchored.
    public let isAnchored: Bool
  }
}

/// Events of animations (RealityKit's `AnimationEvents`).
public enum AnimationEvents {
  /// An animation reached its end (not sent for stopped ones); its source is the animated entity.
  public struct PlaybackCompleted: Event {
    /// The controller of the finished playback.
    public let playbackController: AnimationPlaybackController
  }
}
