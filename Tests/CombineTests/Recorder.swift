import Combine
import Foundation

/// A subscriber that records what it receives and asks for values as told: `initial` on subscription,
/// `perValue` after each value. Thread-safe.
final class Recorder<Input, Failure: Error>: Subscriber, @unchecked Sendable {
  private let lock = NSLock()
  private var _values: [Input] = []
  private var _completions: [Subscribers.Completion<Failure>] = []
  private(set) var subscription: (any Subscription)?
  let initial: Subscribers.Demand
  let perValue: Subscribers.Demand

  init(initial: Subscribers.Demand = .unlimited, perValue: Subscribers.Demand = .none) {
    self.initial = initial
    self.perValue = perValue
  }

  var values: [Input] { lock.withLock { _values } }
  var completions: [Subscribers.Completion<Failure>] { lock.withLock { _completions } }
  var finished: Bool {
    completions.contains { if case .finished = $0 { true } else { false } }
  }

  func receive(subscription: any Subscription) {
    self.subscription = subscription
    if initial > 0 { subscription.request(initial) }
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    lock.withLock { _values.append(input) }
    return perValue
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    lock.withLock { _completions.append(completion) }
  }
}

struct TestError: Error, Equatable {
  var code: Int
}
