import ARSim
import Combine
import Foundation

extension Scene {
  /// The events of type `event` (from `sourceObject` only, when given) as a Combine publisher, as
  /// RealityKit's `publisher(for:on:)`: each subscriber hears the events sent after it subscribed and
  /// asked for values, until it cancels. It never finishes or fails.
  public func publisher<E: Event>(for event: E.Type, on sourceObject: (any EventSource)? = nil) -> Publisher<
    E
  > {
    Publisher(scene: self, source: sourceObject)
  }

  /// A publisher of a scene's events (RealityKit's `Scene.Publisher`).
  public struct Publisher<E: Event>: Combine.Publisher {
    /// The events.
    public typealias Output = E
    /// Events never fail.
    public typealias Failure = Never

    private weak var scene: Scene?
    private weak var source: (any EventSource)?
    private let hasSource: Bool

    init(scene: Scene, source: (any EventSource)?) {
      self.scene = scene
      self.source = source
      hasSource = source != nil
    }

    /// Subscribes `subscriber` to the scene's events of type `E`.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == E, S.Failure == Never {
      let subscription = EventSubscription(subscriber)
      subscriber.receive(subscription: subscription)
      // A source that is gone sends nothing more.
      guard let scene, !hasSource || source != nil else { return }
      subscription.token = scene.subscribe(to: E.self, on: source) { [weak subscription] event in
        subscription?.deliver(event)
      }
    }
  }
}

/// One subscriber's link to a scene's events: delivers as demanded, and unsubscribes when cancelled.
private final class EventSubscription<S: Subscriber>: Subscription where S.Failure == Never {
  private var subscriber: S?
  private var demand = Subscribers.Demand.none
  var token: (any Cancellable)?

  init(_ subscriber: S) { self.subscriber = subscriber }

  func request(_ demand: Subscribers.Demand) { self.demand += demand }

  func cancel() {
    token?.cancel()
    token = nil
    subscriber = nil
  }

  func deliver(_ event: S.Input) {
    guard let subscriber, demand > .none else { return }
    demand -= 1
    demand += subscriber.receive(event)
  }
}
