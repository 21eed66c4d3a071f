import Foundation

extension Publishers {
  /// Transforms each value with a closure that may throw; a throw ends the stream with that error and
  /// cancels the upstream (Apple's `Publishers.TryMap`).
  public struct TryMap<Upstream: Publisher, Output>: Publisher {
    /// Any error: the upstream's or the transform's.
    public typealias Failure = any Error
    /// The publisher whose values are transformed.
    public let upstream: Upstream
    /// The transformation.
    public let transform: (Upstream.Output) throws -> Output

    /// A map of `upstream`'s values through `transform`.
    public init(upstream: Upstream, transform: @escaping (Upstream.Output) throws -> Output) {
      self.upstream = upstream
      self.transform = transform
    }

    /// Subscribes to the upstream, transforming its values for `subscriber`.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == any Error {
      upstream.subscribe(
        TryMapLink<S, Upstream.Output, Upstream.Failure>(downstream: subscriber, transform: transform))
    }
  }

  /// Pairs the values of two publishers in order: the first of each, then the second of each, ...
  /// (Apple's `Publishers.Zip`). It finishes once either upstream finished and its values are all
  /// paired, and fails as soon as either fails. Both upstreams are asked for all their values; the
  /// ones not yet paired or demanded are buffered.
  public struct Zip<A: Publisher, B: Publisher>: Publisher where A.Failure == B.Failure {
    /// One value of each.
    public typealias Output = (A.Output, B.Output)
    /// The upstreams' failure.
    public typealias Failure = A.Failure
    /// The first publisher.
    public let a: A
    /// The second publisher.
    public let b: B

    /// The pairs of `a`'s and `b`'s values.
    public init(_ a: A, _ b: B) {
      self.a = a
      self.b = b
    }

    /// Subscribes `subscriber` to the pairs, then both upstreams.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      let link = ZipLink<S, A.Output, B.Output>(downstream: subscriber)
      subscriber.receive(subscription: link)
      a.subscribe(ZipSide<S, A.Output, B.Output, A.Output>(link: link, isFirst: true))
      b.subscribe(ZipSide<S, A.Output, B.Output, B.Output>(link: link, isFirst: false))
    }
  }
}

extension Publisher {
  /// The values transformed by a closure that may throw (Apple's `tryMap(_:)`).
  public func tryMap<T>(_ transform: @escaping (Output) throws -> T) -> Publishers.TryMap<Self, T> {
    Publishers.TryMap(upstream: self, transform: transform)
  }

  /// This publisher's values paired with `other`'s (Apple's `zip(_:)`).
  public func zip<P: Publisher>(_ other: P) -> Publishers.Zip<Self, P> where P.Failure == Failure {
    Publishers.Zip(self, other)
  }

  /// This publisher's values paired with `other`'s and transformed (Apple's `zip(_:_:)`).
  public func zip<P: Publisher, T>(_ other: P, _ transform: @escaping (Output, P.Output) -> T)
    -> Publishers.Map<Publishers.Zip<Self, P>, T> where P.Failure == Failure
  {
    Publishers.Zip(self, other).map(transform)
  }
}

/// The subscriber and subscription behind ``Publishers/TryMap``.
private final class TryMapLink<Downstream: Subscriber, Input, UpstreamFailure: Error>: Subscriber,
  Subscription,
  @unchecked Sendable
where Downstream.Failure == any Error {
  typealias Failure = UpstreamFailure
  private let lock = NSLock()
  private let downstream: Downstream
  private let transform: (Input) throws -> Downstream.Input
  private var upstream: (any Subscription)?
  private var isDone = false

  init(downstream: Downstream, transform: @escaping (Input) throws -> Downstream.Input) {
    self.downstream = downstream
    self.transform = transform
  }

  func receive(subscription: any Subscription) {
    lock.withLock { upstream = subscription }
    downstream.receive(subscription: self)
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    guard !lock.withLock({ isDone }) else { return .none }
    do {
      return downstream.receive(try transform(input))
    } catch {
      let subscription = lock.withLock { () -> (any Subscription)? in
        isDone = true
        defer { upstream = nil }
        return upstream
      }
      subscription?.cancel()
      downstream.receive(completion: .failure(error))
      return .none
    }
  }

  func receive(completion: Subscribers.Completion<UpstreamFailure>) {
    guard
      lock.withLock({ () -> Bool in
        defer { isDone = true }
        return !isDone
      })
    else { return }
    switch completion {
    case .finished: downstream.receive(completion: .finished)
    case .failure(let error): downstream.receive(completion: .failure(error))
    }
  }

  func request(_ demand: Subscribers.Demand) { lock.withLock { upstream }?.request(demand) }

  func cancel() {
    let subscription = lock.withLock { () -> (any Subscription)? in
      isDone = true
      defer { upstream = nil }
      return upstream
    }
    subscription?.cancel()
  }
}

/// The state of one ``Publishers/Zip`` subscription: both buffers, the demand, the upstreams.
private final class ZipLink<Downstream: Subscriber, First, Second>: Subscription, @unchecked Sendable
where Downstream.Input == (First, Second) {
  private let lock = NSLock()
  private let downstream: Downstream
  private var firsts: [First] = []
  private var seconds: [Second] = []
  private var demand = Subscribers.Demand.none
  private var subscriptions: [any Subscription] = []
  private var finished = (first: false, second: false)
  private var isDone = false
  private var isDelivering = false

  init(downstream: Downstream) { self.downstream = downstream }

  func attach(_ subscription: any Subscription) {
    let cancelled = lock.withLock { () -> Bool in
      if !isDone { subscriptions.append(subscription) }
      return isDone
    }
    if cancelled { subscription.cancel() } else { subscription.request(.unlimited) }
  }

  func receiveFirst(_ value: First) {
    lock.withLock { if !isDone { firsts.append(value) } }
    drain()
  }

  func receiveSecond(_ value: Second) {
    lock.withLock { if !isDone { seconds.append(value) } }
    drain()
  }

  func finish(isFirst: Bool, _ completion: Subscribers.Completion<Downstream.Failure>) {
    if case .failure = completion {
      end(with: completion)
      return
    }
    lock.withLock {
      if isFirst { finished.first = true } else { finished.second = true }
    }
    drain()
  }

  func request(_ more: Subscribers.Demand) {
    lock.withLock { demand += more }
    drain()
  }

  func cancel() {
    let upstreams = lock.withLock { () -> [any Subscription] in
      isDone = true
      defer { subscriptions = [] }
      return subscriptions
    }
    for subscription in upstreams { subscription.cancel() }
  }

  /// Sends the pairs that are ready and demanded, then finishes when one side is finished and empty.
  private func drain() {
    while true {
      let next = lock.withLock { () -> (First, Second)?? in
        guard !isDone, !isDelivering else { return .none }
        if demand > .none, !firsts.isEmpty, !seconds.isEmpty {
          demand -= 1
          isDelivering = true
          return .some((firsts.removeFirst(), seconds.removeFirst()))
        }
        return .some(nil)
      }
      guard let step = next else { return }
      guard let pair = step else { break }
      let more = downstream.receive(pair)
      lock.withLock {
        demand += more
        isDelivering = false
      }
    }
    let over = lock.withLock {
      !isDone && ((finished.first && firsts.isEmpty) || (finished.second && seconds.isEmpty))
    }
    if over { end(with: .finished) }
  }

  private func end(with completion: Subscribers.Completion<Downstream.Failure>) {
    let upstreams = lock.withLock { () -> [any Subscription]? in
      guard !isDone else { return nil }
      isDone = true
      defer { subscriptions = [] }
      return subscriptions
    }
    guard let upstreams else { return }
    for subscription in upstreams { subscription.cancel() }
    downstream.receive(completion: completion)
  }
}

/// One upstream's subscriber in a ``Publishers/Zip``.
private struct ZipSide<Downstream: Subscriber, First, Second, Input>: Subscriber
where Downstream.Input == (First, Second) {
  typealias Failure = Downstream.Failure
  let combineIdentifier = CombineIdentifier()
  let link: ZipLink<Downstream, First, Second>
  let isFirst: Bool

  func receive(subscription: any Subscription) { link.attach(subscription) }

  func receive(_ input: Input) -> Subscribers.Demand {
    if isFirst, let value = input as? First { link.receiveFirst(value) }
    if !isFirst, let value = input as? Second { link.receiveSecond(value) }
    return .none
  }

  func receive(completion: Subscribers.Completion<Failure>) { link.finish(isFirst: isFirst, completion) }
}
