import Foundation

extension Subscribers {
  /// A subscriber that asks for unlimited values and hands each to a closure (Apple's
  /// `Subscribers.Sink`). Cancelling it cancels its subscription and releases both closures (and what
  /// they capture); values or a completion arriving afterwards are ignored.
  public final class Sink<Input, Failure: Error>: Subscriber, Cancellable, CustomStringConvertible,
    @unchecked Sendable
  {
    private enum State {
      case awaitingSubscription
      case subscribed(any Subscription)
      case terminated
    }

    private let lock = NSRecursiveLock()
    private var state = State.awaitingSubscription
    private var onValue: ((Input) -> Void)?
    private var onCompletion: ((Subscribers.Completion<Failure>) -> Void)?

    /// A sink calling `receiveValue` for each value and `receiveCompletion` once at the end.
    public init(
      receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
      receiveValue: @escaping (Input) -> Void
    ) {
      onCompletion = receiveCompletion
      onValue = receiveValue
    }

    /// Requests unlimited values; a second subscription, or one after cancellation, is cancelled.
    public func receive(subscription: any Subscription) {
      let accepted = lock.withLock {
        guard case .awaitingSubscription = state else { return false }
        state = .subscribed(subscription)
        return true
      }
      if accepted { subscription.request(.unlimited) } else { subscription.cancel() }
    }

    /// Calls the value closure (unless cancelled or completed); asks for nothing more, having asked
    /// for everything.
    public func receive(_ input: Input) -> Subscribers.Demand {
      let call = lock.withLock { () -> ((Input) -> Void)? in
        guard case .subscribed = state else { return nil }
        return onValue
      }
      call?(input)
      return .none
    }

    /// Calls the completion closure once, then releases both closures.
    public func receive(completion: Subscribers.Completion<Failure>) {
      let call = lock.withLock { () -> ((Subscribers.Completion<Failure>) -> Void)? in
        if case .terminated = state { return nil }
        state = .terminated
        defer { release() }
        return onCompletion
      }
      call?(completion)
    }

    /// Cancels the subscription and releases both closures.
    public func cancel() {
      let subscription = lock.withLock { () -> (any Subscription)? in
        defer {
          state = .terminated
          release()
        }
        if case .subscribed(let subscription) = state { return subscription }
        return nil
      }
      subscription?.cancel()
    }

    private func release() {
      onValue = nil
      onCompletion = nil
    }

    /// "Sink".
    public var description: String { "Sink" }
  }
}

extension Publisher {
  /// Subscribes with a ``Subscribers/Sink`` that asks for unlimited values; the returned token cancels
  /// the subscription when cancelled or deinitialised.
  public func sink(
    receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
    receiveValue: @escaping (Output) -> Void
  ) -> AnyCancellable {
    let sink = Subscribers.Sink<Output, Failure>(
      receiveCompletion: receiveCompletion, receiveValue: receiveValue)
    subscribe(sink)
    return AnyCancellable(sink)
  }

  /// Writes each value to `object`'s property at `keyPath` (holding `object` until cancelled), as
  /// Apple's `assign(to:on:)`.
  public func assign<Root>(to keyPath: ReferenceWritableKeyPath<Root, Output>, on object: Root)
    -> AnyCancellable
  where Failure == Never {
    sink(receiveCompletion: { _ in }, receiveValue: { object[keyPath: keyPath] = $0 })
  }
}

extension Publisher where Failure == Never {
  /// Subscribes with a sink that asks for unlimited values of a publisher that cannot fail.
  public func sink(receiveValue: @escaping (Output) -> Void) -> AnyCancellable {
    sink(receiveCompletion: { _ in }, receiveValue: receiveValue)
  }
}
