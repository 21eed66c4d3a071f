import ARSim
import Foundation

// RealityKit's entity-component-system side: systems registered once for the process, instantiated for each
// scene, and updated in dependency order at every scene update on the recording clock; entity queries that
// select entities by the components they have.

/// Behaviour that updates many entities at every scene update (RealityKit's `System`). Register the type
/// with ``registerSystem()``; each ``Scene`` then makes one instance with ``init(scene:)`` at its next update
/// and calls ``update(context:)`` at every update after that, with the recording's elapsed time.
public protocol System {
  /// A system for `scene`; made by the scene, not by the app.
  init(scene: Scene)
  /// Updates the scene's entities; called once per scene update.
  mutating func update(context: SceneUpdateContext)
  /// Systems this one runs before or after (none unless declared).
  static var dependencies: [SystemDependency] { get }
}

extension System {
  /// No dependencies.
  public static var dependencies: [SystemDependency] { [] }
  /// Does nothing.
  public mutating func update(context: SceneUpdateContext) {}

  /// Registers the system type: every scene makes an instance at its next update. Later calls for the
  /// same type are ignored.
  public static func registerSystem() { SystemRegistry.shared.register(Self.self) }
}

/// The update order of a system relative to another (RealityKit's `SystemDependency`).
public enum SystemDependency {
  /// This system updates before the other.
  case before(any System.Type)
  /// This system updates after the other.
  case after(any System.Type)
}

/// When a system wants updates (RealityKit's `SystemUpdateCondition`); ARSim updates every system at
/// every scene update.
public struct SystemUpdateCondition: OptionSet, Sendable, Hashable {
  /// The bits.
  public let rawValue: Int
  /// A condition of these bits.
  public init(rawValue: Int) { self.rawValue = rawValue }
  /// At every rendered frame.
  public static let rendering = SystemUpdateCondition(rawValue: 1)
}

/// What a system's update is given (RealityKit's `SceneUpdateContext`).
public struct SceneUpdateContext {
  /// The scene being updated.
  public let scene: Scene
  /// The recording time since the scene's previous update, seconds.
  public let deltaTime: TimeInterval

  /// The scene's entities that match `query` (as ``Scene/performQuery(_:)``).
  public func entities(matching query: EntityQuery, updatingSystemWhen condition: SystemUpdateCondition)
    -> QueryResult<Entity>
  {
    scene.performQuery(query)
  }
}

/// A condition on a value (RealityKit's `QueryPredicate`), combined with `&&`, `||` and `!`.
public struct QueryPredicate<Value>: Sendable {
  let test: @Sendable (Value) -> Bool

  /// Both conditions.
  public static func && (lhs: QueryPredicate<Value>, rhs: QueryPredicate<Value>) -> QueryPredicate<Value> {
    QueryPredicate { lhs.test($0) && rhs.test($0) }
  }
  /// Either condition.
  public static func || (lhs: QueryPredicate<Value>, rhs: QueryPredicate<Value>) -> QueryPredicate<Value> {
    QueryPredicate { lhs.test($0) || rhs.test($0) }
  }
  /// The opposite condition.
  public static prefix func ! (predicate: QueryPredicate<Value>) -> QueryPredicate<Value> {
    QueryPredicate { !predicate.test($0) }
  }
}

extension QueryPredicate where Value == Entity {
  /// Entities that have a component of type `componentType`.
  public static func has<T: Component>(_ componentType: T.Type) -> QueryPredicate<Entity> {
    let type = ObjectIdentifier(componentType)
    return QueryPredicate { $0.components.has(typeIdentifier: type) }
  }
}

/// A selection of a scene's entities (RealityKit's `EntityQuery`).
public struct EntityQuery: Sendable {
  let predicate: QueryPredicate<Entity>
  /// The entities that satisfy `predicate`.
  public init(where predicate: QueryPredicate<Entity>) { self.predicate = predicate }
  /// Every entity.
  public init() { predicate = QueryPredicate { _ in true } }
}

/// The entities a query found, in the scene's order: anchors in the order they were added, each
/// followed by its descendants depth first (RealityKit's `QueryResult`).
public struct QueryResult<Element>: Sequence {
  let elements: [Element]
  /// An iterator over the results.
  public func makeIterator() -> IndexingIterator<[Element]> { elements.makeIterator() }
}

extension Scene {
  /// The scene's entities that match `query`: anchors in the order they were added, each followed by its
  /// descendants depth first (RealityKit's `performQuery(_:)`).
  public func performQuery(_ query: EntityQuery) -> QueryResult<Entity> {
    var found: [Entity] = []
    func visit(_ entity: Entity) {
      if query.predicate.test(entity) { found.append(entity) }
      for child in entity.children { visit(child) }
    }
    for anchor in anchors { visit(anchor as Entity) }
    return QueryResult(elements: found)
  }
}

/// The system types registered in the process, in registration order.
final class SystemRegistry: @unchecked Sendable {
  static let shared = SystemRegistry()
  private let lock = NSLock()
  private var types: [any System.Type] = []

  func register(_ type: any System.Type) {
    lock.withLock {
      if !types.contains(where: { $0 == type }) { types.append(type) }
    }
  }

  var registered: [any System.Type] { lock.withLock { types } }
}

/// A scene's system instances, in update order.
final class SceneSystems {
  private var instances: [any System] = []
  private var known: [any System.Type] = []

  /// Makes instances of systems registered since the last update, orders all by their dependencies (ties
  /// in registration order), and updates each once.
  func update(_ scene: Scene, deltaTime: TimeInterval) {
    let registered = SystemRegistry.shared.registered
    if registered.count != known.count {
      for type in registered where !known.contains(where: { $0 == type }) {
        instances.append(type.init(scene: scene))
      }
      known = registered
      instances = Self.ordered(instances, registered: registered)
    }
    let context = SceneUpdateContext(scene: scene, deltaTime: deltaTime)
    for index in instances.indices { instances[index].update(context: context) }
  }

  /// `systems` in an order that honours every `.before` and `.after` (Kahn's algorithm, taking the
  /// earliest registered of the systems ready at each step); systems in a cycle keep registration order.
  static func ordered(_ systems: [any System], registered: [any System.Type]) -> [any System] {
    func rank(_ system: any System) -> Int {
      registered.firstIndex { $0 == type(of: system) } ?? Int.max
    }
    let byRank = systems.sorted { rank($0) < rank($1) }
    let types = byRank.map { type(of: $0) as any System.Type }
    func index(_ type: any System.Type) -> Int? { types.firstIndex { $0 == type } }
    var successors = [[Int]](repeating: [], count: types.count)
    var incoming = [Int](repeating: 0, count: types.count)
    for (i, type) in types.enumerated() {
      for dependency in type.dependencies {
        switch dependency {
        case .before(let other):
          if let j = index(other), j != i {
            successors[i].append(j)
            incoming[j] += 1
          }
        case .after(let other):
          if let j = index(other), j != i {
            successors[j].append(i)
            incoming[i] += 1
          }
        }
      }
    }
    var order: [Int] = []
    var done = [Bool](repeating: false, count: types.count)
    while order.count < types.count {
      let next =
        (0..<types.count).first { !done[$0] && incoming[$0] == 0 } ?? (0..<types.count).first { !done[$0] }!
      done[next] = true
      order.append(next)
      for j in successors[next] { incoming[j] -= 1 }
    }
    return order.map { byRank[$0] }
  }
}
