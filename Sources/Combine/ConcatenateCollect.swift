import Foundation

extension Publishers {
  /// The values of one publisher, then, once it finished, those of another (Apple's
  /// `Publishers.Concatenate`). The suffix is subscribed to only when the prefix finished; a failure
  /// of either ends the stream. Demand carries over from the prefix to the suffix.
  public struct Concatenate<Prefix: Publisher, Suffix: Publisher>: Publisher
  where Prefix.Output == Suffix.Output, Prefix.Failure == Suffix.Failure {
    /// The values of both.
    public typealias Output = Suffix.Output
    /// The failure of both.
    public typealias Failure = Suffix.Failure
    /// The publisher whose values come first.
    public let prefix: Prefix
    /// The publisher whose values follow.
    public let suffix: Suffix

    /// `prefix`'s values, then `suffix`'s.
    public init(prefix: Prefix, suffix: Suffix) {
      self.prefix = prefix
      self.suffix = suffix
    }

    /// Subscribes `subscriber` to the prefix, and later the suffix.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      let suffix = self.suffix
      let link = ConcatenateLink(downstream: subscriber)
      // The link owns the closure and is the only caller: it is alive whenever the closure runs.
      link.subscribeSuffix = { [unowned link] in
        suffix.subscribe(ConcatenateSide(link: link, isPrefix: false))
      }
      subscriber.receive(subscription: link)
      prefix.subscribe(ConcatenateSide(link: link, isPrefix: true))
    }
  }

  /// All of a publisher's values as one array, delivered when it finishes (Apple's
  /// `Publishers.Collect`). A failure ends the stream without the array.
  public struct Collect<Upstream: Publisher>: Publisher {
    /// The upstream's values, in order.
    public typealias Output = [Upstream.Output]
    /// The upstream's failure.
    public typealias Failure = Upstream.Failure
    /// The publisher whose values are collected.
    public let upstream: Upstream

    /// The values of `upstream`, collected.
    public init(upstream: Upstream) { self.upstream = upstream }

    /// Subscribes to the upstream and delivers the array at its end.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      var values: [Upstream.Output] = []
      let box = Subscribers.Sink<Upstream.Output, Failure>(
        receiveCompletion: { completion in
          if case .finished = completion { _ = subscriber.receive(values) }
          subscriber.receive(completion: completion)
        },
        receiveValue: { values.append($0) })
      subscriber.receive(subscription: CollectSubscription(sink: box))
      upstream.subscribe(box)
    }
  }
}

extension Publisher {
  /// This publisher's values, then `publisher`'s (Apple's `append(_:)`).
  public func append<P: Publisher>(_ publisher: P) -> Publishers.Concatenate<Self, P>
  where P.Output == Output, P.Failure == Failure {
    Publishers.Concatenate(prefix: self, suffix: publisher)
  }

  /// All the values as one array, when the publisher finishes (Apple's `collect()`).
  public func collect() -> Publishers.Collect<Self> { Publishers.Collect(upstream: self) }
}

/// Lets a ``Publishers/Collect`` subscriber cancel the collection; it always receives one array, so
/// demand does not limit it.
private final class CollectSubscription<Input, Failure: Error>: Subscription, @unchecked Sendable {
  private let sink: Subscribers.Sink<Input, Failure>
  init(sink: Subscribers.Sink<Input, Failure>) { self.sink = sink }
  func request(_ demand: Subscribers.Demand) {}
  func cancel() { sink.cancel() }
}

/// The state of one ``Publishers/Concatenate`` subscription: the outstanding demand and the upstream
/// subscription of the current side.
private final class ConcatenateLink<Downstream: Subscriber>: Subscription, @unchecked Sendable {
  private let lock = NSLock()
  private let downstream: Downstream
  private var demand = Subscribers.Demand.none
  private var current: (any Subscription)?
  private var isDone = false
  /// Subscribes to the suffix; set before the prefix starts.
  var subscribeSuffix: (() -> Void)?

  init(downstream: Downstream) { self.downstream = downstream }

  func attach(_ subscription: any Subscription) {
    let pending = lock.withLock { () -> Subscribers.Demand? in
      guard !isDone else { return nil }
      current = subscription
      return demand
    }
    guard let pending else { return subscription.cancel() }
    if pending > 0 { subscription.request(pending) }
  }

  func receive(_ input: Downstream.Input) -> Subscribers.Demand {
    guard
      lock.withLock({ () -> Bool in
        if !isDone && demand > 0 { demand -= 1 }
        return !isDone
      })
    else { return .none }
    let more = downstream.receive(input)
    lock.withLock { demand += more }
    return more
  }

  func finish(isPrefix: Bool, _ completion: Subscribers.Completion<Downstream.Failure>) {
    let step = lock.withLock { () -> ConcatenateStep in
      guard !isDone else { return .ignore }
      current = nil
      if isPrefix, case .finished = completion, let suffix = subscribeSuffix {
        subscribeSuffix = nil
        return .startSuffix(suffix)
      }
      isDone = true
      subscribeSuffix = nil
      return .end
    }
    switch step {
    case .ignore: break
    case .startSuffix(let subscribe): subscribe()
    case .end: downstream.receive(completion: completion)
    }
  }

  func request(_ more: Subscribers.Demand) {
    let subscription = lock.withLock { () -> (any Subscription)? in
      demand += more
      return current
    }
    subscription?.request(more)
  }

  func cancel() {
    let subscription = lock.withLock { () -> (any Subscription)? in
      isDone = true
      subscribeSuffix = nil
      defer { current = nil }
      return current
    }
    subscription?.cancel()
  }
}

/// What a side's completion leads to.
private enum ConcatenateStep {
  /// Nothing: the stream already ended.
  case ignore
  /// Subscribing to the suffix.
  case startSuffix(() -> Void)
  /// Ending the stream.
  case end
}

/// Feeds one side's values and completion to its ``ConcatenateLink``.
private struct ConcatenateSide<Downstream: Subscriber>: Subscriber {
  typealias Input = Downstream.Input
  typealias Failure = Downstream.Failure
  let combineIdentifier = CombineIdentifier()
  let link: ConcatenateLink<Downstream>
  let isPrefix: Bool

  func receive(subscription: any Subscription) { link.attach(subscription) }
  func receive(_ input: Input) -> Subscribers.Demand { link.receive(input) }
  func receive(completion: Subscribers.Completion<Failure>) { link.finish(isPrefix: isPrefix, completion) }
}
