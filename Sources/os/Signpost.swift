// Apple's signposts (`import os.signpost`, `OSSignposter`): marks of intervals and events for
// Instruments. Linux has no Instruments; a signpost is written as a debug-level line of its log,
// `[subsystem:category] debug: signpost begin|end|event NAME id ID[: message]`, so signposts show only
// when `OS_ACTIVITY_MODE` is `debug`, and cost a check otherwise.
import Foundation

/// Whether a signpost begins an interval, ends one, or marks a moment (Apple's `OSSignpostType`).
public struct OSSignpostType: RawRepresentable, Hashable, Sendable {
  /// Apple's raw value.
  public let rawValue: UInt8
  /// A type of this raw value.
  public init(rawValue: UInt8) { self.rawValue = rawValue }
  /// A single moment.
  public static let event = OSSignpostType(rawValue: 0)
  /// The start of an interval.
  public static let begin = OSSignpostType(rawValue: 1)
  /// The end of an interval.
  public static let end = OSSignpostType(rawValue: 2)

  /// The word written for the type.
  var name: String {
    switch self {
    case .begin: "begin"
    case .end: "end"
    default: "event"
    }
  }
}

/// Pairs the begin and the end of one interval (Apple's `OSSignpostID`).
public struct OSSignpostID: Hashable, Comparable, Sendable {
  /// The identifier.
  public let rawValue: UInt64

  /// An identifier of `value`.
  public init(_ value: UInt64) { rawValue = value }
  /// A new identifier, distinct from every other made in this process.
  public init(log: OSLog) { rawValue = signpostCounter.next() }
  /// The identifier of `object` (its address): the same object gives the same identifier.
  public init(log: OSLog, object: AnyObject) {
    rawValue = UInt64(UInt(bitPattern: ObjectIdentifier(object).hashValue))
  }

  /// For intervals of which only one runs at a time (Apple's value).
  public static let exclusive = OSSignpostID(0xEEEE_B0B5_B2B2_EEEE)
  /// Not a valid identifier.
  public static let invalid = OSSignpostID(~0)
  /// No identifier.
  public static let null = OSSignpostID(0)

  /// Orders by raw value.
  public static func < (lhs: OSSignpostID, rhs: OSSignpostID) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Hands out identifiers, from 1 up, safely from any thread.
private final class SignpostCounter: @unchecked Sendable {
  private let lock = NSLock()
  private var last: UInt64 = 0
  func next() -> UInt64 {
    lock.lock()
    defer { lock.unlock() }
    last += 1
    return last
  }
}
private let signpostCounter = SignpostCounter()

extension OSLog {
  /// The text of a signpost (after the level): `signpost TYPE NAME id ID[: message]`.
  func signpostText(_ type: OSSignpostType, name: StaticString, id: OSSignpostID, message: String?) -> String
  {
    let text = "signpost \(type.name) \(name) id \(id.rawValue)"
    return message.map { $0.isEmpty ? text : "\(text): \($0)" } ?? text
  }

  /// The log Apple's Instruments shows as "Points of Interest"; here a log like any other.
  public static let pointsOfInterest = OSLog(subsystem: "", category: "PointsOfInterest")
}

/// Emits a signpost of `type` named `name` to `log` (Apple's `os_signpost`).
public func os_signpost(
  _ type: OSSignpostType, dso: UnsafeRawPointer = #dsohandle, log: OSLog, name: StaticString,
  signpostID: OSSignpostID = .exclusive
) {
  log.write(log.signpostText(type, name: name, id: signpostID, message: nil), type: .debug)
}

/// Emits a signpost with a printf-style message (Apple's `os_signpost`).
public func os_signpost(
  _ type: OSSignpostType, dso: UnsafeRawPointer = #dsohandle, log: OSLog, name: StaticString,
  signpostID: OSSignpostID = .exclusive, _ format: StaticString, _ arguments: any CVarArg...
) {
  log.write(
    log.signpostText(
      type, name: name, id: signpostID, message: formatLogMessage(format.description, arguments)),
    type: .debug)
}

/// A signpost's message, written as an interpolated string (Apple's `SignpostMetadata`).
public typealias SignpostMetadata = OSLogMessage

/// An interval under way: what ``OSSignposter/endInterval(_:_:)`` needs (Apple's
/// `OSSignpostIntervalState`).
public final class OSSignpostIntervalState: Sendable {
  /// The interval's identifier.
  public let signpostID: OSSignpostID
  init(id: OSSignpostID) { signpostID = id }
  /// The state of an interval begun with `id`.
  public static func beginState(id: OSSignpostID) -> OSSignpostIntervalState { .init(id: id) }
}

/// Emits signposts to a log (Apple's `OSSignposter`).
public struct OSSignposter: Sendable {
  /// The log written to.
  let log: OSLog

  /// A signposter of the default log.
  public init() { log = .default }
  /// A signposter of `subsystem` and `category`.
  public init(subsystem: String, category: String) { log = OSLog(subsystem: subsystem, category: category) }
  /// A signposter of `logger`'s log.
  public init(logger: Logger) { log = logger.log }
  /// A signposter of `logHandle`.
  public init(logHandle: OSLog) { log = logHandle }
  /// A signposter that emits nothing.
  public static let disabled = OSSignposter(logHandle: .disabled)

  /// Whether signposts are written (debug-level lines of the log).
  public var isEnabled: Bool { log.isEnabled(type: .debug) }

  /// A new identifier.
  public func makeSignpostID() -> OSSignpostID { OSSignpostID(log: log) }
  /// The identifier of `object`.
  public func makeSignpostID(from object: AnyObject) -> OSSignpostID {
    OSSignpostID(log: log, object: object)
  }

  private func emit(_ type: OSSignpostType, _ name: StaticString, _ id: OSSignpostID, _ message: String?) {
    log.write(log.signpostText(type, name: name, id: id, message: message), type: .debug)
  }

  /// Begins an interval named `name`.
  public func beginInterval(_ name: StaticString, id: OSSignpostID = .exclusive) -> OSSignpostIntervalState {
    emit(.begin, name, id, nil)
    return OSSignpostIntervalState(id: id)
  }
  /// Begins an interval named `name` with `message`.
  public func beginInterval(
    _ name: StaticString, id: OSSignpostID = .exclusive, _ message: SignpostMetadata
  ) -> OSSignpostIntervalState {
    emit(.begin, name, id, message.text)
    return OSSignpostIntervalState(id: id)
  }
  /// Ends the interval of `state`.
  public func endInterval(_ name: StaticString, _ state: OSSignpostIntervalState) {
    emit(.end, name, state.signpostID, nil)
  }
  /// Ends the interval of `state` with `message`.
  public func endInterval(_ name: StaticString, _ state: OSSignpostIntervalState, _ message: SignpostMetadata)
  {
    emit(.end, name, state.signpostID, message.text)
  }
  /// Marks a moment named `name`.
  public func emitEvent(_ name: StaticString, id: OSSignpostID = .exclusive) { emit(.event, name, id, nil) }
  /// Marks a moment named `name` with `message`.
  public func emitEvent(_ name: StaticString, id: OSSignpostID = .exclusive, _ message: SignpostMetadata) {
    emit(.event, name, id, message.text)
  }
  /// Runs `task` inside an interval named `name` and returns its result; the interval ends however
  /// `task` exits.
  public func withIntervalSignpost<T>(
    _ name: StaticString, id: OSSignpostID = .exclusive, around task: () throws -> T
  ) rethrows -> T {
    let state = beginInterval(name, id: id)
    defer { endInterval(name, state) }
    return try task()
  }
}
