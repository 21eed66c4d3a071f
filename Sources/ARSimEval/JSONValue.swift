import Foundation

/// A JSON value with keys in the order given and numbers in Swift's shortest exact form (so outputs
/// are byte-identical across runs): the evaluation report's, and the CLI's outputs'.
package enum JSONValue {
  case string(String)
  case double(Double)
  case float(Float)
  case int(Int)
  case bool(Bool)
  case null
  case array([JSONValue])
  case object([(String, JSONValue)])

  /// A number, or `null` when nil or not finite.
  package static func number(_ value: Double?) -> JSONValue {
    guard let value, value.isFinite else { return .null }
    return .double(value)
  }

  /// The JSON text.
  package var text: String {
    switch self {
    case .string(let s): return Self.quote(s)
    case .double(let x): return x.isFinite ? "\(x)" : "null"
    case .float(let x): return x.isFinite ? "\(x)" : "null"
    case .int(let x): return "\(x)"
    case .bool(let b): return b ? "true" : "false"
    case .null: return "null"
    case .array(let items): return "[" + items.map(\.text).joined(separator: ",") + "]"
    case .object(let members):
      return "{" + members.map { Self.quote($0.0) + ":" + $0.1.text }.joined(separator: ",") + "}"
    }
  }

  /// `s` as a JSON string literal.
  package static func quote(_ s: String) -> String {
    var out = "\""
    for scalar in s.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\t": out += "\\t"
      case "\r": out += "\\r"
      default:
        if scalar.value < 0x20 {
          out += String(format: "\\u%04x", scalar.value)
        } else {
          out.unicodeScalars.append(scalar)
        }
      }
    }
    return out + "\""
  }
}
