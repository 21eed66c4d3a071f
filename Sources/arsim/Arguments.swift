import ARSimRun

/// A small parser for `--name value` and `--flag` options and positional arguments.
struct Arguments {
  /// An error in how the command was called; printed as `arsim COMMAND: message`.
  typealias UsageError = ARSimRun.UsageError

  private(set) var positional: [String] = []
  private var values: [String: String] = [:]
  private var flags: Set<String> = []
  private var consumed: Set<String> = []

  /// Parses `arguments`; `valueOptions` take a value, `flagOptions` do not.
  init(_ arguments: [String], valueOptions: Set<String>, flagOptions: Set<String>) throws {
    var rest = arguments[...]
    while let argument = rest.popFirst() {
      if argument == "--" {
        positional += rest
        break
      }
      guard argument.hasPrefix("--"), argument.count > 2 else {
        positional.append(argument)
        continue
      }
      var name = String(argument.dropFirst(2))
      var inline: String?
      if let equals = name.firstIndex(of: "=") {
        inline = String(name[name.index(after: equals)...])
        name = String(name[..<equals])
      }
      if valueOptions.contains(name) {
        guard let value = inline ?? rest.popFirst() else { throw UsageError("--\(name) needs a value") }
        guard values[name] == nil else { throw UsageError("--\(name) given twice") }
        values[name] = value
      } else if flagOptions.contains(name) {
        guard inline == nil else { throw UsageError("--\(name) takes no value") }
        flags.insert(name)
      } else {
        throw UsageError("unknown option --\(name) (see --help)")
      }
    }
  }

  /// The value of `--name`, if given.
  func value(_ name: String) -> String? { values[name] }

  /// Whether `--name` was given.
  func flag(_ name: String) -> Bool { flags.contains(name) }

  /// The value of `--name` as one of `choices`, or `defaultValue`.
  func choice(_ name: String, _ choices: [String], default defaultValue: String) throws -> String {
    guard let value = values[name] else { return defaultValue }
    guard choices.contains(value) else {
      throw UsageError("--\(name) must be one of \(choices.joined(separator: ", ")), got '\(value)'")
    }
    return value
  }
}
