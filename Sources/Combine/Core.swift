// The part of Apple's Combine that AR apps use, for Linux, where the framework does not exist. The
// package declares this target only when its manifest is evaluated on Linux, so on Apple platforms
// `import Combine` always finds Apple's framework (see Package.swift).
import Foundation
import Synchronization

/// Something that can be cancelled: a subscription, a sink, a loading request (Apple's
/// `Cancellable`). Cancelling frees what the activity holds; cancelling twice does nothing more.
public protocol Cancellable {
  /// Stops the activity and frees its resources.
  func cancel()
}

extension Cancellable {
  /// Keeps this activity alive in `set` (wrapped in an ``AnyCancellable``), until the set lets it go.
  public func store(in set: inout Set<AnyCancellable>) {
    AnyCancellable(self).store(in: &set)
  }

  /// Keeps this activity alive in `collection` (wrapped in an ``AnyCancellable``).
  public func store<C: RangeReplaceableCollection>(in collection: inout C) where C.Element == AnyCancellable {
    AnyCancellable(self).store(in: &collection)
  }
}

/// A cancellation token that cancels when it is deinitialised (Apple's `AnyCancellable`): keep it as
/// long as the subscription should live. Thread-safe; the cancel action runs at most once.
public final class AnyCancellable: Cancellable, Hashable, @unchecked Sendable {
  private let lock = NSLock()
  private var action: (() -> Void)?

  /// A token that runs `cancel` when cancelled or deinitialised.
  public init(_ cancel: @escaping () -> Void) {
    action = cancel
  }

  /// A token that cancels `canceller` when cancelled or deinitialised.
  public init<OtherCancellable: Cancellable>(_ canceller: OtherCancellable) {
    action = canceller.cancel
  }

  deinit { cancel() }

  /// Runs the cancel action, the first time only.
  public func cancel() {
    lock.lock()
    let run = action
    action = nil
    lock.unlock()
    run?()
  }

  /// Keeps this token in `set` (the set owns it from then on).
  public func store(in set: inout Set<AnyCancellable>) {
    set.insert(self)
  }

  /// Appends this token to `collection`.
  public func store<C: RangeReplaceableCollection>(in collection: inout C) where C.Element == AnyCancellable {
    collection.append(self)
  }

  /// Identity: two tokens are equal when they are the same object.
  public static func == (lhs: AnyCancellable, rhs: AnyCancellable) -> Bool { lhs === rhs }

  /// Hashes the object's identity.
  public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

private let nextCombineIdentifier = Atomic<UInt64>(1)

/// A unique identifier of a subscriber or subscription (Apple's `CombineIdentifier`).
public struct CombineIdentifier: Hashable, CustomStringConvertible, Sendable {
  private let value: UInt64

  /// A new identifier, different from every other made this way.
  public init() {
    value = nextCombineIdentifier.add(1, ordering: .relaxed).oldValue << 1
  }

  /// The identifier of `object`: equal for the same object while it lives.
  public init(_ object: AnyObject) {
    value = UInt64(UInt(bitPattern: ObjectIdentifier(object).hashValue)) | 1
  }

  /// The identifier in hexadecimal.
  public var description: String { "0x" + String(value, radix: 16) }
}

/// A type that has a ``CombineIdentifier`` (Apple's `CustomCombineIdentifierConvertible`).
public protocol CustomCombineIdentifierConvertible {
  /// The identifier; classes get their object identity by default.
  var combineIdentifier: CombineIdentifier { get }
}

extension CustomCombineIdentifierConvertible where Self: AnyObject {
  /// The object's identity.
  public var combineIdentifier: CombineIdentifier { CombineIdentifier(self) }
}

/// A subscriber's link to a publisher (Apple's `Subscription`): the subscriber asks for values with
/// ``request(_:)`` and ends the link with `cancel()`.
public protocol Subscription: Cancellable, CustomCombineIdentifierConvertible {
  /// Asks for `demand` more values; demands add up. A publisher never sends more values than asked.
  func request(_ demand: Subscribers.Demand)
}

/// Receives a publisher's values (Apple's `Subscriber`), in Combine's order: one
/// `receive(subscription:)`, then values only as demanded, then at most one completion.
public protocol Subscriber<Input, Failure>: CustomCombineIdentifierConvertible {
  /// The type of the values.
  associatedtype Input
  /// The type of the error that may end the stream (`Never` when it cannot fail).
  associatedtype Failure: Error
  /// The publisher accepted the subscription; request values through `subscription`.
  func receive(subscription: any Subscription)
  /// A value; returns how many more values the subscriber wants, on top of its outstanding demand.
  func receive(_ input: Input) -> Subscribers.Demand
  /// The stream ended, normally or with an error. No value follows.
  func receive(completion: Subscribers.Completion<Failure>)
}

/// Delivers values over time to subscribers (Apple's `Publisher`). A publisher sends a subscriber
/// values only as the subscriber demands them, and at most one completion.
public protocol Publisher<Output, Failure> {
  /// The type of the values.
  associatedtype Output
  /// The type of the error that may end the stream (`Never` when it cannot fail).
  associatedtype Failure: Error
  /// Connects `subscriber`: it receives a subscription, then values as demanded. Call
  /// ``subscribe(_:)`` instead; this is the requirement conformers implement.
  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure
}

extension Publisher {
  /// Connects `subscriber` to this publisher.
  public func subscribe<S: Subscriber>(_ subscriber: S) where S.Input == Output, S.Failure == Failure {
    receive(subscriber: subscriber)
  }
}

/// A publisher the app sends values into (Apple's `Subject`). Subjects are thread-safe: `send` may be
/// called from any thread; each subscriber receives values one at a time.
public protocol Subject<Output, Failure>: AnyObject, Publisher {
  /// Sends `value` to every subscriber that has demand (see the conforming types for the others).
  func send(_ value: Output)
  /// Ends the stream for every subscriber, present and future; later values are ignored.
  func send(completion: Subscribers.Completion<Failure>)
  /// Accepts an upstream subscription when the subject subscribes to a publisher: it requests
  /// unlimited values and keeps the subscription until the subject completes.
  func send(subscription: any Subscription)
}

extension Subject where Output == Void {
  /// Sends the empty value.
  public func send() { send(()) }
}

/// Namespace of Combine's subscriber types (Apple's `Subscribers`).
public enum Subscribers {}

/// Namespace of Combine's operator publishers (Apple's `Publishers`).
public enum Publishers {}

/// Namespace of ready-made subscriptions (Apple's `Subscriptions`).
public enum Subscriptions {
  /// A subscription that ignores requests and cancellation, for publishers that complete at once.
  public static var empty: any Subscription { EmptySubscription() }
}

private struct EmptySubscription: Subscription {
  let combineIdentifier = CombineIdentifier()
  func request(_ demand: Subscribers.Demand) {}
  func cancel() {}
}

extension Subscribers {
  /// How a stream ended (Apple's `Subscribers.Completion`).
  public enum Completion<Failure: Error> {
    /// Normally.
    case finished
    /// With an error.
    case failure(Failure)
  }
}

extension Subscribers.Completion: Equatable where Failure: Equatable {}
extension Subscribers.Completion: Hashable where Failure: Hashable {}
extension Subscribers.Completion: Sendable where Failure: Sendable {}
