import Foundation

/// The subscriber behind the value-by-value operators: hands the upstream subscription on unchanged
/// and passes each value through `step`, which transforms it or drops it (nil). A dropped value is
/// replaced by asking upstream for one more, so the downstream's demand is honoured exactly.
struct StepSubscriber<Downstream: Subscriber, Input>: Subscriber {
  typealias Failure = Downstream.Failure
  let combineIdentifier = CombineIdentifier()
  let downstream: Downstream
  let step: (Input) -> Downstream.Input?

  func receive(subscription: any Subscription) { downstream.receive(subscription: subscription) }

  func receive(_ input: Input) -> Subscribers.Demand {
    guard let output = step(input) else { return .max(1) }
    return downstream.receive(output)
  }

  func receive(completion: Subscribers.Completion<Failure>) { downstream.receive(completion: completion) }
}

extension Publishers {
  /// Transforms each value (Apple's `Publishers.Map`).
  public struct Map<Upstream: Publisher, Output>: Publisher {
    /// The upstream's failure.
    public typealias Failure = Upstream.Failure
    /// The publisher whose values are transformed.
    public let upstream: Upstream
    /// The transformation.
    public let transform: (Upstream.Output) -> Output

    /// A map of `upstream`'s values through `transform`.
    public init(upstream: Upstream, transform: @escaping (Upstream.Output) -> Output) {
      self.upstream = upstream
      self.transform = transform
    }

    /// Subscribes to the upstream, transforming its values for `subscriber`.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      let transform = transform
      upstream.subscribe(StepSubscriber<S, Upstream.Output>(downstream: subscriber, step: { transform($0) }))
    }
  }

  /// Passes on the values a predicate accepts (Apple's `Publishers.Filter`).
  public struct Filter<Upstream: Publisher>: Publisher {
    /// The upstream's values.
    public typealias Output = Upstream.Output
    /// The upstream's failure.
    public typealias Failure = Upstream.Failure
    /// The publisher whose values are filtered.
    public let upstream: Upstream
    /// Whether a value passes.
    public let isIncluded: (Upstream.Output) -> Bool

    /// The values of `upstream` that `isIncluded` accepts.
    public init(upstream: Upstream, isIncluded: @escaping (Upstream.Output) -> Bool) {
      self.upstream = upstream
      self.isIncluded = isIncluded
    }

    /// Subscribes to the upstream, passing on accepted values.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      let isIncluded = isIncluded
      upstream.subscribe(
        StepSubscriber<S, Output>(downstream: subscriber, step: { isIncluded($0) ? $0 : nil }))
    }
  }

  /// Transforms each value and drops the nil results (Apple's `Publishers.CompactMap`).
  public struct CompactMap<Upstream: Publisher, Output>: Publisher {
    /// The upstream's failure.
    public typealias Failure = Upstream.Failure
    /// The publisher whose values are transformed.
    public let upstream: Upstream
    /// The transformation; nil drops the value.
    public let transform: (Upstream.Output) -> Output?

    /// A compact map of `upstream`'s values through `transform`.
    public init(upstream: Upstream, transform: @escaping (Upstream.Output) -> Output?) {
      self.upstream = upstream
      self.transform = transform
    }

    /// Subscribes to the upstream, passing on the non-nil results.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(StepSubscriber<S, Upstream.Output>(downstream: subscriber, step: transform))
    }
  }

  /// Drops a value equal to the one before it (Apple's `Publishers.RemoveDuplicates`); the first value
  /// always passes. Each subscription compares its own values.
  public struct RemoveDuplicates<Upstream: Publisher>: Publisher {
    /// The upstream's values.
    public typealias Output = Upstream.Output
    /// The upstream's failure.
    public typealias Failure = Upstream.Failure
    /// The publisher whose repeats are dropped.
    public let upstream: Upstream
    /// Whether two consecutive values count as the same (the later is then dropped).
    public let predicate: (Output, Output) -> Bool

    /// The values of `upstream` without consecutive repeats by `predicate`.
    public init(upstream: Upstream, predicate: @escaping (Output, Output) -> Bool) {
      self.upstream = upstream
      self.predicate = predicate
    }

    /// Subscribes to the upstream, dropping repeats.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      let predicate = predicate
      let previous = PreviousValue<Output>()
      upstream.subscribe(
        StepSubscriber<S, Output>(downstream: subscriber) { value in
          previous.exchange(value).map { predicate($0, value) } == true ? nil : value
        })
    }
  }
}

/// The last value one subscription saw (for `removeDuplicates`).
private final class PreviousValue<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var value: Value?

  /// Stores `new` and returns what was there.
  func exchange(_ new: Value) -> Value? {
    lock.withLock {
      defer { value = new }
      return value
    }
  }
}

extension Publisher {
  /// Transforms each value with `transform`.
  public func map<T>(_ transform: @escaping (Output) -> T) -> Publishers.Map<Self, T> {
    Publishers.Map(upstream: self, transform: transform)
  }

  /// The values for which `isIncluded` is true.
  public func filter(_ isIncluded: @escaping (Output) -> Bool) -> Publishers.Filter<Self> {
    Publishers.Filter(upstream: self, isIncluded: isIncluded)
  }

  /// The non-nil results of `transform`.
  public func compactMap<T>(_ transform: @escaping (Output) -> T?) -> Publishers.CompactMap<Self, T> {
    Publishers.CompactMap(upstream: self, transform: transform)
  }

  /// The values without consecutive repeats, by `predicate`.
  public func removeDuplicates(by predicate: @escaping (Output, Output) -> Bool)
    -> Publishers.RemoveDuplicates<Self>
  {
    Publishers.RemoveDuplicates(upstream: self, predicate: predicate)
  }
}

extension Publisher where Output: Equatable {
  /// The values without consecutive repeats (`==`).
  public func removeDuplicates() -> Publishers.RemoveDuplicates<Self> {
    Publishers.RemoveDuplicates(upstream: self, predicate: ==)
  }
}
