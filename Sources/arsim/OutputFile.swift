import ARSim
import Foundation

/// A text output written to `PATH.partial` and renamed to `PATH` on `close()`, so that an
/// interrupted run never leaves a half-written file under the final name.
final class OutputFile {
  let path: String
  private let temporary: String
  private let handle: FileHandle
  private var buffer = ""

  init(path: String) throws {
    self.path = path
    temporary = path + ".partial"
    guard FileManager.default.createFile(atPath: temporary, contents: nil),
      let handle = FileHandle(forWritingAtPath: temporary)
    else { throw Arguments.UsageError("\(path): cannot be written") }
    self.handle = handle
  }

  /// Appends a line.
  func write(_ line: String) throws {
    buffer += line
    buffer += "\n"
    if buffer.utf8.count > 1 << 16 { try flush() }
  }

  private func flush() throws {
    do {
      try handle.write(contentsOf: Data(buffer.utf8))
    } catch {
      throw Arguments.UsageError("\(path): write failed: \(error.localizedDescription)")
    }
    buffer = ""
  }

  /// Writes what is left and moves the file into place.
  func close() throws {
    try flush()
    try? handle.close()
    guard rename(temporary, path) == 0 else {
      throw Arguments.UsageError("\(path): cannot be written (\(String(cString: strerror(errno))))")
    }
  }
}

/// Minimal JSON text for the CLI's outputs: keys in the order given, numbers in their shortest
/// exact form (so outputs are byte-identical across runs).
enum JSON {
  case string(String)
  case number(Double)
  case float(Float)
  case int(Int)
  case bool(Bool)
  case null
  case array([JSON])
  case object([(String, JSON)])

  var text: String {
    switch self {
    case .string(let s): return JSON.quote(s)
    case .number(let x): return x.isFinite ? "\(x)" : "null"
    case .float(let x): return x.isFinite ? "\(x)" : "null"
    case .int(let x): return "\(x)"
    case .bool(let b): return b ? "true" : "false"
    case .null: return "null"
    case .array(let items): return "[" + items.map(\.text).joined(separator: ",") + "]"
    case .object(let members):
      return "{" + members.map { JSON.quote($0.0) + ":" + $0.1.text }.joined(separator: ",") + "}"
    }
  }

  static func quote(_ s: String) -> String {
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

  static func vector(_ v: simd_float3) -> JSON { .array([.float(v.x), .float(v.y), .float(v.z)]) }

  /// A 4x4 matrix as 16 numbers, column-major.
  static func matrix(_ m: simd_float4x4) -> JSON {
    let c = m.columns
    let columns: [SIMD4<Float>] = [c.0, c.1, c.2, c.3]
    return .array(columns.flatMap { [JSON.float($0.x), .float($0.y), .float($0.z), .float($0.w)] })
  }
}
