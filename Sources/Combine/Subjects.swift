import Foundation

/// A type-erased subscriber (Apple's `AnySubscriber`): forwards to the subscriber or closures it wraps.
public struct AnySubscriber<Input, Failure: Error>: Subscriber, CustomStringConvertible {
  /// The wrapped subscriber's identifier (a new one for closures).
  public let combineIdentifier: CombineIdentifier
  private let onSubscription: (any Subscription) -> Void
  private let onValue: (Input) -> Subscribers.Demand
  private let onCompletion: (Subscribers.Completion<Failure>) -> Void

  /// Wraps `subscriber`.
  public init<S: Subscriber>(_ subscriber: S) where S.Input == Input, S.Failure == Failure {
    combineIdentifier = subscriber.combineIdentifier
    onSubscription = subscriber.receive(subscription:)
    onValue = subscriber.receive(_:)
    onCompletion = subscriber.receive(completion:)
  }

  /// Wraps `subject`: values and completions are sent into it.
  public init<S: Subject>(_ subject: S) where S.Output == Input, S.Failure == Failure {
    combineIdentifier = CombineIdentifier(subject)
    onSubscription = subject.send(subscription:)
    onValue = {
      subject.send($0)
      return .none
    }
    onCompletion = subject.send(completion:)
  }

  /// A subscriber made of closures; missing ones do nothing (and a missing value closure asks for
  /// no more values).
  public init(
    receiveSubscription: ((any Subscription) -> Void)? = nil,
    receiveValue: ((Input) -> Subscribers.Demand)? = nil,
    receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)? = nil
  ) {
    combineIdentifier = CombineIdentifier()
    onSubscription = receiveSubscription ?? { _ in }
    onValue = receiveValue ?? { _ in .none }
    onCompletion = receiveCompletion ?? { _ in }
  }

  /// Forwards.
  public func receive(subscription: any Subscription) { onSubscription(subscription) }
  /// Forwards.
  public func receive(_ input: Input) -> Subscribers.Demand { onValue(input) }
  /// Forwards.
  public func receive(completion: Subscribers.Completion<Failure>) { onCompletion(completion) }
  /// "AnySubscriber".
  public var description: String { "AnySubscriber" }
}

/// One subscriber's link to a subject: its outstanding demand and, for a subject with a current
/// value, whether the subscriber still has to hear the latest value. Calls into the subscriber are
/// serialised by `delivery`; state is guarded by `lock`; neither is held while taking the subject's.
final class SubjectConduit<Output, Failure: Error>: Subscription, @unchecked Sendable {
  private let lock = NSLock()
  private let delivery = NSRecursiveLock()
  private var downstream: AnySubscriber<Output, Failure>?
  private var demand = Subscribers.Demand.none
  /// Whether the latest value is owed to the subscriber (subjects with a current value only).
  private var owesLatest: Bool
  /// The subject's current value, for `CurrentValueSubject`; nil for a subject without one.
  private let latest: (() -> Output)?
  private var detach: ((SubjectConduit) -> Void)?

  init(
    _ downstream: AnySubscriber<Output, Failure>, latest: (() -> Output)?,
    detach: @escaping (SubjectConduit) -> Void
  ) {
    self.downstream = downstream
    self.latest = latest
    owesLatest = latest != nil
    self.detach = detach
  }

  func request(_ more: Subscribers.Demand) {
    guard more > 0 else { return }
    lock.withLock { if downstream != nil { demand += more } }
    deliverOwedLatest()
  }

  func cancel() {
    let unlink = lock.withLock {
      downstream = nil
      defer { detach = nil }
      return detach
    }
    unlink?(self)
  }

  /// Sends `value` when the subscriber has demand; otherwise drops it (a subject without a current
  /// value) or remembers that the latest value is owed.
  func offer(_ value: Output) {
    delivery.lock()
    defer { delivery.unlock() }
    let target = lock.withLock { () -> AnySubscriber<Output, Failure>? in
      guard let downstream else { return nil }
      guard demand > 0 else {
        if latest != nil { owesLatest = true }
        return nil
      }
      demand -= 1
      owesLatest = false
      return downstream
    }
    guard let target else { return }
    let more = target.receive(value)
    lock.withLock { if downstream != nil { demand += more } }
  }

  private func deliverOwedLatest() {
    guard let latest else { return }
    delivery.lock()
    defer { delivery.unlock() }
    let target = lock.withLock { () -> AnySubscriber<Output, Failure>? in
      guard owesLatest, demand > 0, let downstream else { return nil }
      owesLatest = false
      demand -= 1
      return downstream
    }
    guard let target else { return }
    let more = target.receive(latest())
    lock.withLock { if downstream != nil { demand += more } }
  }

  /// Ends the stream for the subscriber, whatever its demand.
  func complete(_ completion: Subscribers.Completion<Failure>) {
    delivery.lock()
    defer { delivery.unlock() }
    let target = lock.withLock {
      defer {
        downstream = nil
        detach = nil
      }
      return downstream
    }
    target?.receive(completion: completion)
  }

  /// Gives the subscriber its subscription (this conduit).
  func start() {
    let target = lock.withLock { downstream }
    target?.receive(subscription: self)
  }
}

/// The subscriber list and completion state both subjects share.
final class SubjectCore<Output, Failure: Error>: @unchecked Sendable {
  private let lock = NSLock()
  private var conduits: [SubjectConduit<Output, Failure>] = []
  private var completion: Subscribers.Completion<Failure>?
  private var upstreams: [any Subscription] = []

  func subscribe<S: Subscriber>(_ subscriber: S, latest: (() -> Output)?)
  where S.Input == Output, S.Failure == Failure {
    let conduit = SubjectConduit(AnySubscriber(subscriber), latest: latest) { [self] gone in
      lock.withLock { conduits.removeAll { $0 === gone } }
    }
    let ended = lock.withLock { () -> Subscribers.Completion<Failure>? in
      if completion == nil { conduits.append(conduit) }
      return completion
    }
    if let ended {
      subscriber.receive(subscription: Subscriptions.empty)
      subscriber.receive(completion: ended)
      return
    }
    conduit.start()
  }

  /// The current subscribers, or nil after completion.
  var active: [SubjectConduit<Output, Failure>]? {
    lock.withLock { completion == nil ? conduits : nil }
  }

  /// Records the completion (the first only) and hands back the subscribers to tell.
  func finish(_ ending: Subscribers.Completion<Failure>) -> [SubjectConduit<Output, Failure>] {
    lock.withLock {
      guard completion == nil else { return [] }
      completion = ending
      defer {
        conduits = []
        upstreams = []
      }
      return conduits
    }
  }

  func accept(_ subscription: any Subscription) {
    let keep = lock.withLock {
      if completion == nil { upstreams.append(subscription) }
      return completion == nil
    }
    if keep { subscription.request(.unlimited) } else { subscription.cancel() }
  }
}

/// A subject that broadcasts each value to the subscribers that have demand at the moment it is
/// sent (Apple's `PassthroughSubject`); others miss it. It keeps no value.
public final class PassthroughSubject<Output, Failure: Error>: Subject, @unchecked Sendable {
  private let core = SubjectCore<Output, Failure>()

  /// A subject with no subscribers.
  public init() {}

  /// Subscribes `subscriber`; after completion it receives the completion at once.
  public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    core.subscribe(subscriber, latest: nil)
  }

  /// Sends `value` to each subscriber with demand; ignored after completion.
  public func send(_ value: Output) {
    for conduit in core.active ?? [] { conduit.offer(value) }
  }

  /// Ends the stream (the first completion only).
  public func send(completion: Subscribers.Completion<Failure>) {
    for conduit in core.finish(completion) { conduit.complete(completion) }
  }

  /// Requests unlimited values from an upstream publisher the subject subscribed to.
  public func send(subscription: any Subscription) { core.accept(subscription) }
}

/// A subject with a current value (Apple's `CurrentValueSubject`): a new subscriber receives the
/// current value as soon as it has demand, then each new one. A subscriber without demand when values
/// are sent receives only the latest of them once it asks.
public final class CurrentValueSubject<Output, Failure: Error>: Subject, @unchecked Sendable {
  private let core = SubjectCore<Output, Failure>()
  private let lock = NSLock()
  private var current: Output

  /// A subject holding `value`.
  public init(_ value: Output) {
    current = value
  }

  /// The current value; setting it sends the new value (ignored after completion).
  public var value: Output {
    get { lock.withLock { current } }
    set { send(newValue) }
  }

  /// Subscribes `subscriber`; after completion it receives the completion at once.
  public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    core.subscribe(subscriber, latest: { [self] in value })
  }

  /// Makes `value` current and sends it to each subscriber with demand; ignored after completion.
  public func send(_ value: Output) {
    guard let conduits = core.active else { return }
    lock.withLock { current = value }
    for conduit in conduits { conduit.offer(value) }
  }

  /// Ends the stream (the first completion only). The value stays readable.
  public func send(completion: Subscribers.Completion<Failure>) {
    for conduit in core.finish(completion) { conduit.complete(completion) }
  }

  /// Requests unlimited values from an upstream publisher the subject subscribed to.
  public func send(subscription: any Subscription) { core.accept(subscription) }
}
