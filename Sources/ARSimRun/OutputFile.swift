import ARSim
import ARSimEval
import Foundation

/// A text output written to `PATH.partial` and renamed to `PATH` on `close()`, so that an
/// interrupted run never leaves a half-written file under the final name.
public final class OutputFile {
  /// The final path.
  public let path: String
  private let temporary: String
  private let handle: FileHandle
  private var buffer = ""

  /// Creates `PATH.partial`.
  public init(path: String) throws {
    self.path = path
    temporary = path + ".partial"
    guard FileManager.default.createFile(atPath: temporary, contents: nil),
      let handle = FileHandle(forWritingAtPath: temporary)
    else { throw UsageError("\(path): cannot be written") }
    self.handle = handle
  }

  /// Appends a line.
  public func write(_ line: String) throws {
    buffer += line
    buffer += "\n"
    if buffer.utf8.count > 1 << 16 { try flush() }
  }

  private func flush() throws {
    do {
      try handle.write(contentsOf: Data(buffer.utf8))
    } catch {
      throw UsageError("\(path): write failed: \(error.localizedDescription)")
    }
    buffer = ""
  }

  /// Writes what is left and moves the file into place.
  public func close() throws {
    try flush()
    try? handle.close()
    guard rename(temporary, path) == 0 else {
      throw UsageError("\(path): cannot be written (\(String(cString: strerror(errno))))")
    }
  }
}

/// The CLI's JSON outputs use the evaluation report's ordered writer.
package typealias JSON = JSONValue

extension JSONValue {
  /// A 3-vector as 3 numbers.
  package static func vector(_ v: simd_float3) -> JSON { .array([.float(v.x), .float(v.y), .float(v.z)]) }

  /// A 4x4 matrix as 16 numbers, column-major.
  package static func matrix(_ m: simd_float4x4) -> JSON {
    let c = m.columns
    let columns: [SIMD4<Float>] = [c.0, c.1, c.2, c.3]
    return .array(columns.flatMap { [JSON.float($0.x), .float($0.y), .float($0.z), .float($0.w)] })
  }
}
