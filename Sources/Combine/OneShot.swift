import Foundation

/// A subscription that delivers at most one value and then a completion: the value once the
/// subscriber asks for it, a failure or an empty finish at once. `result` may arrive after the
/// subscription (for ``Future``).
final class OneShotSubscription<Downstream: Subscriber>: Subscription, @unchecked Sendable {
  private let lock = NSLock()
  private var downstream: Downstream?
  private var result: Result<Downstream.Input?, Downstream.Failure>?
  private var demanded = false

  init(_ downstream: Downstream) {
    self.downstream = downstream
  }

  /// Sets the outcome: a value (or nil to finish without one), or a failure. The first only.
  func fulfil(_ outcome: Result<Downstream.Input?, Downstream.Failure>) {
    lock.withLock { if result == nil { result = outcome } }
    deliver()
  }

  func request(_ demand: Subscribers.Demand) {
    guard demand > 0 else { return }
    lock.withLock { demanded = true }
    deliver()
  }

  func cancel() {
    lock.withLock { downstream = nil }
  }

  private func deliver() {
    let (target, outcome) = lock.withLock {
      () -> (Downstream?, Result<Downstream.Input?, Downstream.Failure>?) in
      guard let downstream, let result else { return (nil, nil) }
      if case .success(.some) = result, !demanded { return (nil, nil) }
      self.downstream = nil
      return (downstream, result)
    }
    guard let target, let outcome else { return }
    switch outcome {
    case .success(let value):
      if let value { _ = target.receive(value) }
      target.receive(completion: .finished)
    case .failure(let error):
      target.receive(completion: .failure(error))
    }
  }
}

/// Publishes one value to each subscriber, then finishes (Apple's `Just`).
public struct Just<Output>: Publisher {
  /// `Just` cannot fail.
  public typealias Failure = Never
  /// The value.
  public let output: Output

  /// A publisher of `output`.
  public init(_ output: Output) {
    self.output = output
  }

  /// Sends the value once `subscriber` asks for it, then finishes.
  public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
    let subscription = OneShotSubscription(subscriber)
    subscriber.receive(subscription: subscription)
    subscription.fulfil(.success(output))
  }
}

/// A publisher that finishes without a value, at once or never (Apple's `Empty`).
public struct Empty<Output, Failure: Error>: Publisher {
  /// Whether subscribers receive `.finished` at once.
  public let completeImmediately: Bool

  /// An empty publisher; with `completeImmediately` false it never completes.
  public init(completeImmediately: Bool = true) {
    self.completeImmediately = completeImmediately
  }

  /// Gives `subscriber` an empty subscription, and the completion when immediate.
  public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    subscriber.receive(subscription: Subscriptions.empty)
    if completeImmediately { subscriber.receive(completion: .finished) }
  }
}

/// A publisher that fails at once with an error (Apple's `Fail`).
public struct Fail<Output, Failure: Error>: Publisher {
  /// The error.
  public let error: Failure

  /// A publisher failing with `error`.
  public init(error: Failure) {
    self.error = error
  }

  /// Fails `subscriber` after giving it an empty subscription.
  public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    subscriber.receive(subscription: Subscriptions.empty)
    subscriber.receive(completion: .failure(error))
  }
}

/// A publisher that eventually produces one value or fails (Apple's `Future`). The closure runs once,
/// at once, in `init`; its first call of the promise decides the outcome, which every subscriber,
/// present and future, receives (the value once it has demand).
public final class Future<Output, Failure: Error>: Publisher, @unchecked Sendable {
  /// The closure that fulfils the future.
  public typealias Promise = (Result<Output, Failure>) -> Void

  private let lock = NSLock()
  private var outcome: Result<Output, Failure>?
  private var waiting: [(Result<Output, Failure>) -> Void] = []

  /// A future fulfilled by `attemptToFulfill`, which is called now with the promise.
  public init(_ attemptToFulfill: @escaping (@escaping Promise) -> Void) {
    attemptToFulfill { [self] result in fulfil(result) }
  }

  private func fulfil(_ result: Result<Output, Failure>) {
    let tell = lock.withLock { () -> [(Result<Output, Failure>) -> Void] in
      guard outcome == nil else { return [] }
      outcome = result
      defer { waiting = [] }
      return waiting
    }
    for waiter in tell { waiter(result) }
  }

  /// Subscribes `subscriber`; it receives the outcome when known.
  public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    let subscription = OneShotSubscription(subscriber)
    subscriber.receive(subscription: subscription)
    let forward = { (result: Result<Output, Failure>) in subscription.fulfil(result.map { $0 }) }
    let known = lock.withLock { () -> Result<Output, Failure>? in
      if outcome == nil { waiting.append(forward) }
      return outcome
    }
    if let known { forward(known) }
  }
}
