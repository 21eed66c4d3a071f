// Apple's `os` logging, where Linux has no such module: `import os` compiles unchanged for code that
// logs through `Logger`, `OSLog` and `os_log`. Messages go to standard error, one line each:
// `[subsystem:category] level: message`. Values interpolated with `privacy: .private` (and dynamic
// strings and objects under `.auto`) are written as `<private>`, as Apple's log shows them outside a
// debugger; numbers, booleans and `.public` values are written as they are. `.debug` messages are
// dropped unless the environment variable `OS_ACTIVITY_MODE` is `debug`.
import Foundation

/// How important a log message is (Apple's `OSLogType`).
public struct OSLogType: RawRepresentable, Hashable, Sendable {
  /// Apple's raw value.
  public let rawValue: UInt8
  /// A level of this raw value.
  public init(rawValue: UInt8) { self.rawValue = rawValue }
  /// The default level.
  public static let `default` = OSLogType(rawValue: 0x00)
  /// Information that may help to trace a problem.
  public static let info = OSLogType(rawValue: 0x01)
  /// Information for debugging only (dropped unless `OS_ACTIVITY_MODE=debug`).
  public static let debug = OSLogType(rawValue: 0x02)
  /// An error.
  public static let error = OSLogType(rawValue: 0x10)
  /// A fault: a bug in the program.
  public static let fault = OSLogType(rawValue: 0x11)

  /// The level's name, as written in each line.
  var name: String {
    switch self {
    case .info: "info"
    case .debug: "debug"
    case .error: "error"
    case .fault: "fault"
    default: "default"
    }
  }
}

/// How a logged value is shown (Apple's `OSLogPrivacy`).
public struct OSLogPrivacy: Hashable, Sendable {
  enum Kind: Hashable, Sendable {
    case auto, `public`, `private`, sensitive
  }
  let kind: Kind
  /// Numbers and booleans shown, strings and objects redacted.
  public static let auto = OSLogPrivacy(kind: .auto)
  /// Shown.
  public static let `public` = OSLogPrivacy(kind: .public)
  /// Redacted (`<private>`).
  public static let `private` = OSLogPrivacy(kind: .private)
  /// Redacted (`<private>`).
  public static let sensitive = OSLogPrivacy(kind: .sensitive)
  /// Redacted; Apple's hashing mask is not applied here.
  public static func `private`(mask: OSLogPrivacy.Mask) -> OSLogPrivacy { .private }
  /// Redacted.
  public static func sensitive(mask: OSLogPrivacy.Mask) -> OSLogPrivacy { .sensitive }
  /// Shown or not as ``auto``.
  public static func auto(mask: OSLogPrivacy.Mask) -> OSLogPrivacy { .auto }

  /// Masks for redacted values (Apple's `OSLogPrivacy.Mask`).
  public struct Mask: Hashable, Sendable {
    /// A hash in place of the value.
    public static let hash = Mask()
    /// No mask.
    public static let none = Mask()
  }
}

/// A log message with interpolated values (Apple's `OSLogMessage`), written as a string literal:
/// `logger.info("found \(count) planes in \(name, privacy: .public)")`.
public struct OSLogMessage: ExpressibleByStringInterpolation, Sendable {
  /// The message as written to the log, private values redacted.
  let text: String

  /// A message without values.
  public init(stringLiteral value: String) { text = value }

  /// A message with interpolated values.
  public init(stringInterpolation: OSLogInterpolation) { text = stringInterpolation.text }
}

/// Builds an ``OSLogMessage`` (Apple's `OSLogInterpolation`).
public struct OSLogInterpolation: StringInterpolationProtocol, Sendable {
  var text = ""

  /// Space for a message.
  public init(literalCapacity: Int, interpolationCount: Int) {
    text.reserveCapacity(literalCapacity + 8 * interpolationCount)
  }

  /// Appends literal text.
  public mutating func appendLiteral(_ literal: String) { text += literal }

  /// Appends an integer, shown unless `privacy` redacts it.
  public mutating func appendInterpolation<T: BinaryInteger>(
    _ value: @autoclosure @escaping () -> T, privacy: OSLogPrivacy = .auto
  ) {
    append(String(value()), shownByDefault: true, privacy: privacy)
  }

  /// Appends a floating-point number, shown unless `privacy` redacts it.
  public mutating func appendInterpolation<T: BinaryFloatingPoint & LosslessStringConvertible>(
    _ value: @autoclosure @escaping () -> T, privacy: OSLogPrivacy = .auto
  ) {
    append(String(value()), shownByDefault: true, privacy: privacy)
  }

  /// Appends a boolean, shown unless `privacy` redacts it.
  public mutating func appendInterpolation(
    _ value: @autoclosure @escaping () -> Bool, privacy: OSLogPrivacy = .auto
  ) {
    append(value() ? "true" : "false", shownByDefault: true, privacy: privacy)
  }

  /// Appends a string, redacted unless `privacy` is `.public`.
  public mutating func appendInterpolation(
    _ value: @autoclosure @escaping () -> String, privacy: OSLogPrivacy = .auto
  ) {
    append(value(), shownByDefault: false, privacy: privacy)
  }

  /// Appends a value's description, redacted unless `privacy` is `.public`.
  public mutating func appendInterpolation<T: CustomStringConvertible>(
    _ value: @autoclosure @escaping () -> T, privacy: OSLogPrivacy = .auto
  ) {
    append(value().description, shownByDefault: false, privacy: privacy)
  }

  /// Appends any value's description, redacted unless `privacy` is `.public`.
  @_disfavoredOverload
  public mutating func appendInterpolation<T>(
    _ value: @autoclosure @escaping () -> T, privacy: OSLogPrivacy = .auto
  ) {
    append(String(describing: value()), shownByDefault: false, privacy: privacy)
  }

  private mutating func append(_ shown: String, shownByDefault: Bool, privacy: OSLogPrivacy) {
    let visible: Bool
    switch privacy.kind {
    case .auto: visible = shownByDefault
    case .public: visible = true
    case .private, .sensitive: visible = false
    }
    text += visible ? shown : "<private>"
  }
}

/// A log: a subsystem and a category (Apple's `OSLog`).
public final class OSLog: Sendable {
  /// The subsystem, such as a reverse-DNS app name; empty for ``default``.
  public let subsystem: String
  /// The category within the subsystem.
  public let category: String
  /// Whether messages to this log are written at all.
  let isEnabled: Bool

  /// A log of `subsystem` and `category`.
  public init(subsystem: String, category: String) {
    self.subsystem = subsystem
    self.category = category
    isEnabled = true
  }

  private init(disabled: Void) {
    subsystem = ""
    category = ""
    isEnabled = false
  }

  /// The log without a subsystem.
  public static let `default` = OSLog(subsystem: "", category: "")
  /// A log that writes nothing.
  public static let disabled = OSLog(disabled: ())

  /// Whether messages of `type` are written: never for ``disabled``; `.debug` only when
  /// `OS_ACTIVITY_MODE` is `debug`.
  public func isEnabled(type: OSLogType) -> Bool {
    guard isEnabled else { return false }
    if type == .debug { return ProcessInfo.processInfo.environment["OS_ACTIVITY_MODE"] == "debug" }
    return true
  }

  /// The line written for `message` at `type`: `[subsystem:category] level: message`.
  func line(_ message: String, type: OSLogType) -> String {
    let prefix = subsystem.isEmpty && category.isEmpty ? "" : "[\(subsystem):\(category)] "
    return "\(prefix)\(type.name): \(message)"
  }

  /// Writes `message` at `type`, if enabled.
  func write(_ message: @autoclosure () -> String, type: OSLogType) {
    guard isEnabled(type: type) else { return }
    FileHandle.standardError.write(Data((line(message(), type: type) + "\n").utf8))
  }
}

/// Writes to a log (Apple's `Logger`).
public struct Logger: Sendable {
  /// The log written to.
  let log: OSLog

  /// A logger of the default log.
  public init() { log = .default }
  /// A logger of `subsystem` and `category`.
  public init(subsystem: String, category: String) { log = OSLog(subsystem: subsystem, category: category) }
  /// A logger of `log`.
  public init(_ log: OSLog) { self.log = log }

  /// Writes `message` at `level`.
  public func log(level: OSLogType, _ message: OSLogMessage) { log.write(message.text, type: level) }
  /// Writes `message` at the default level.
  public func log(_ message: OSLogMessage) { log.write(message.text, type: .default) }
  /// Writes `message` at the default level.
  public func notice(_ message: OSLogMessage) { log.write(message.text, type: .default) }
  /// Writes `message` at the debug level.
  public func debug(_ message: OSLogMessage) { log.write(message.text, type: .debug) }
  /// Writes `message` at the debug level.
  public func trace(_ message: OSLogMessage) { log.write(message.text, type: .debug) }
  /// Writes `message` at the info level.
  public func info(_ message: OSLogMessage) { log.write(message.text, type: .info) }
  /// Writes `message` at the error level.
  public func error(_ message: OSLogMessage) { log.write(message.text, type: .error) }
  /// Writes `message` at the error level.
  public func warning(_ message: OSLogMessage) { log.write(message.text, type: .error) }
  /// Writes `message` at the fault level.
  public func fault(_ message: OSLogMessage) { log.write(message.text, type: .fault) }
  /// Writes `message` at the fault level.
  public func critical(_ message: OSLogMessage) { log.write(message.text, type: .fault) }
}

/// The text of a printf-style `format` with `arguments`, Apple's privacy annotations (`%{public}@`,
/// `%{private}d`) taken out: a private value is written as `<private>`, the others as `String(format:)`
/// formats them.
func formatLogMessage(_ format: String, _ arguments: [any CVarArg]) -> String {
  guard !arguments.isEmpty || format.contains("%{") else { return format }
  let conversions = Set("diouxXeEfFgGaAcsSp@")
  var plain = ""
  var kept: [any CVarArg] = []
  var index = 0
  var rest = Substring(format)
  while let percent = rest.firstIndex(of: "%") {
    plain += rest[..<percent]
    rest = rest[rest.index(after: percent)...]
    if rest.first == "%" {
      plain += "%%"
      rest = rest.dropFirst()
      continue
    }
    var isPrivate = false
    if rest.first == "{", let close = rest.firstIndex(of: "}") {
      isPrivate = rest[..<close].contains("private")
      rest = rest[rest.index(after: close)...]
    }
    let end = rest.firstIndex { conversions.contains($0) } ?? rest.endIndex
    let specifier = rest[..<(end == rest.endIndex ? end : rest.index(after: end))]
    rest = rest[specifier.endIndex...]
    if isPrivate {
      plain += "<private>"
    } else {
      plain += "%" + specifier
      if index < arguments.count {
        // `%@` needs an object on Linux: strings go as NSString.
        kept.append((arguments[index] as? String).map { $0 as NSString } ?? arguments[index])
      }
    }
    index += 1
  }
  plain += rest
  return String(format: plain, arguments: kept)
}

/// Writes the printf-style `message` with `args` to `log` at `type` (Apple's `os_log`).
public func os_log(
  _ message: StaticString, dso: UnsafeRawPointer? = #dsohandle, log: OSLog = .default,
  type: OSLogType = .default, _ args: any CVarArg...
) {
  log.write(formatLogMessage(message.description, args), type: type)
}

/// Writes the printf-style `message` with `args` to `log` at `type` (Apple's `os_log`, level first).
public func os_log(
  _ type: OSLogType, dso: UnsafeRawPointer = #dsohandle, log: OSLog = .default, _ message: StaticString,
  _ args: any CVarArg...
) {
  log.write(formatLogMessage(message.description, args), type: type)
}

/// Writes `message` to `log` at `type` (Apple's `os_log` with an interpolated message).
@_disfavoredOverload
public func os_log(
  _ type: OSLogType = .default, dso: UnsafeRawPointer = #dsohandle, log: OSLog = .default,
  _ message: OSLogMessage
) {
  log.write(message.text, type: type)
}
