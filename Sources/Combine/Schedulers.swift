import Foundation

/// Where and when closures run (the part of Apple's `Scheduler` that `receive(on:)` uses: running an
/// action as soon as possible). Times, delays and tolerances (`now`, `schedule(after:)`) are not part
/// of this subset, so `debounce`, `delay` and `throttle` are not provided.
public protocol Scheduler {
  /// Options for scheduling an action.
  associatedtype SchedulerOptions
  /// Runs `action` on the scheduler as soon as possible; actions scheduled from one thread run in the
  /// order they were scheduled.
  func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void)
}

extension Scheduler {
  /// Runs `action` on the scheduler with no options.
  public func schedule(_ action: @escaping () -> Void) { schedule(options: nil, action) }
}

/// Runs actions at once on the calling thread (Apple's `ImmediateScheduler`).
public struct ImmediateScheduler: Scheduler, Sendable {
  /// No options.
  public struct SchedulerOptions: Sendable {}
  /// The scheduler.
  public static let shared = ImmediateScheduler()
  /// Runs `action` now.
  public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) { action() }
}

/// Moves an action that is not `Sendable` across threads. The schedulers run it on one thread at a
/// time, after the scheduling thread let go of it, as Combine's contract requires.
struct UncheckedAction: @unchecked Sendable {
  let run: () -> Void
}

extension DispatchQueue: Scheduler {
  /// How `DispatchQueue.async` is asked to run an action (Apple's `DispatchQueue.SchedulerOptions`).
  public struct SchedulerOptions {
    /// The quality of service of the work item.
    public var qos: DispatchQoS
    /// The work item's flags.
    public var flags: DispatchWorkItemFlags
    /// A group the work item joins, or nil.
    public var group: DispatchGroup?

    /// Options with these values.
    public init(
      qos: DispatchQoS = .unspecified, flags: DispatchWorkItemFlags = [], group: DispatchGroup? = nil
    ) {
      self.qos = qos
      self.flags = flags
      self.group = group
    }
  }

  /// Runs `action` asynchronously on the queue.
  public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
    let action = UncheckedAction(run: action)
    let options = options ?? SchedulerOptions()
    async(group: options.group, qos: options.qos, flags: options.flags) { action.run() }
  }
}

extension RunLoop: Scheduler {
  /// No options (Apple's `RunLoop.SchedulerOptions`).
  public struct SchedulerOptions: Sendable {}

  /// Runs `action` the next time the run loop runs (it must be running, as the main run loop of an
  /// app is).
  public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
    let action = UncheckedAction(run: action)
    perform { action.run() }
  }
}

extension OperationQueue: Scheduler {
  /// No options (Apple's `OperationQueue.SchedulerOptions`).
  public struct SchedulerOptions: Sendable {}

  /// Adds `action` to the queue as an operation.
  public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
    let action = UncheckedAction(run: action)
    addOperation { action.run() }
  }
}

extension Publishers {
  /// Delivers values and the completion on a scheduler (Apple's `Publishers.ReceiveOn`). The
  /// subscription reaches the subscriber on the subscribing thread; demand goes upstream from wherever
  /// the subscriber asks. After cancellation, scheduled deliveries are dropped.
  public struct ReceiveOn<Upstream: Publisher, Context: Scheduler>: Publisher {
    /// The upstream's values.
    public typealias Output = Upstream.Output
    /// The upstream's failure.
    public typealias Failure = Upstream.Failure
    /// The publisher whose values are moved.
    public let upstream: Upstream
    /// Where the values are delivered.
    public let scheduler: Context
    /// How the deliveries are scheduled.
    public let options: Context.SchedulerOptions?

    /// `upstream`'s values delivered on `scheduler`.
    public init(upstream: Upstream, scheduler: Context, options: Context.SchedulerOptions?) {
      self.upstream = upstream
      self.scheduler = scheduler
      self.options = options
    }

    /// Subscribes to the upstream, moving deliveries to the scheduler.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(ReceiveOnLink(downstream: subscriber, scheduler: scheduler, options: options))
    }
  }
}

/// Subscriber of the upstream and subscription of the downstream for `receive(on:)`.
private final class ReceiveOnLink<Downstream: Subscriber, Context: Scheduler>: Subscriber, Subscription,
  @unchecked Sendable
{
  typealias Input = Downstream.Input
  typealias Failure = Downstream.Failure
  private let lock = NSLock()
  private let downstream: Downstream
  private let scheduler: Context
  private let options: Context.SchedulerOptions?
  private var upstream: (any Subscription)?
  private var isCancelled = false

  init(downstream: Downstream, scheduler: Context, options: Context.SchedulerOptions?) {
    self.downstream = downstream
    self.scheduler = scheduler
    self.options = options
  }

  func receive(subscription: any Subscription) {
    let accepted = lock.withLock {
      guard upstream == nil, !isCancelled else { return false }
      upstream = subscription
      return true
    }
    guard accepted else { return subscription.cancel() }
    downstream.receive(subscription: self)
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    scheduler.schedule(options: options) { [self] in
      guard !lock.withLock({ isCancelled }) else { return }
      let more = downstream.receive(input)
      if more > 0 { request(more) }
    }
    return .none
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    scheduler.schedule(options: options) { [self] in
      let live = lock.withLock {
        defer { isCancelled = true }
        upstream = nil
        return !isCancelled
      }
      if live { downstream.receive(completion: completion) }
    }
  }

  func request(_ demand: Subscribers.Demand) {
    lock.withLock { upstream }?.request(demand)
  }

  func cancel() {
    let subscription = lock.withLock {
      isCancelled = true
      defer { upstream = nil }
      return upstream
    }
    subscription?.cancel()
  }
}

extension Publisher {
  /// Delivers this publisher's values and completion on `scheduler` (for example
  /// `DispatchQueue.main`, to update a UI).
  public func receive<S: Scheduler>(on scheduler: S, options: S.SchedulerOptions? = nil)
    -> Publishers.ReceiveOn<
      Self, S
    >
  {
    Publishers.ReceiveOn(upstream: self, scheduler: scheduler, options: options)
  }
}
