import ARSim
import ARSimEval
import Foundation

/// A text output written to a temporary file beside the target (`PATH.PID.partial`) and renamed to
/// `PATH` on `close()`, so that an interrupted run never leaves a half-written file under the final
/// name. The temporary file is removed when the output is dropped without `close()` (an error), on
/// the error exit of `main` and on SIGINT/SIGTERM (see ``TemporaryFiles``). An existing `PATH` that
/// is not a regular file (a device such as `/dev/full`, a FIFO, a directory) is refused up front.
public final class OutputFile {
  /// The final path.
  public let path: String
  private let temporary: String
  private let descriptor: Int32
  private let slot: Int?
  private var buffer: [UInt8] = []
  private var closed = false

  /// Checks the target and creates the temporary file.
  public init(path: String) throws {
    try Self.checkTarget(path)
    self.path = path
    temporary = "\(path).\(getpid()).partial"
    slot = TemporaryFiles.register(temporary)
    descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o644)
    guard descriptor >= 0 else {
      let reason = String(cString: strerror(errno))
      TemporaryFiles.unregister(slot)
      throw UsageError("\(path): cannot be written (\(reason))")
    }
    buffer.reserveCapacity(1 << 16)
  }

  deinit {
    guard !closed else { return }
    Foundation.close(descriptor)
    unlink(temporary)
    TemporaryFiles.unregister(slot)
  }

  /// Throws unless `path` can be an output: absent, or an existing regular file (following links).
  public static func checkTarget(_ path: String) throws {
    guard !path.isEmpty else { throw UsageError("an output path is empty") }
    var info = stat()
    if stat(path, &info) == 0 {
      let kind: String? =
        switch info.st_mode & S_IFMT {
        case S_IFREG: nil
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO (named pipe)"
        case S_IFCHR, S_IFBLK: "a device"
        default: "not a regular file"
        }
      if let kind { throw UsageError("\(path): is \(kind); outputs must be regular files") }
    } else if errno != ENOENT {
      throw UsageError("\(path): cannot be written (\(InputFile.statProblem(path, errno)))")
    } else if lstat(path, &info) == 0 {
      throw UsageError("\(path): is a broken symbolic link; outputs must be regular files")
    }
  }

  /// Appends a line.
  public func write(_ line: String) throws {
    buffer.append(contentsOf: line.utf8)
    buffer.append(UInt8(ascii: "\n"))
    if buffer.count >= 1 << 16 { try flush() }
  }

  private func flush() throws {
    if let code = buffer.withUnsafeBytes({ RegularFile.writeAll($0, to: descriptor) }) {
      throw UsageError("\(path): write failed (\(String(cString: strerror(code))))")
    }
    buffer.removeAll(keepingCapacity: true)
  }

  /// Writes what is left and moves the file into place.
  public func close() throws {
    try flush()
    guard fsync(descriptor) == 0 || errno == EINVAL else {
      throw UsageError("\(path): write failed (\(String(cString: strerror(errno))))")
    }
    Foundation.close(descriptor)
    closed = true
    defer { TemporaryFiles.unregister(slot) }
    // Checked again: the target may have been replaced by something that is not a regular file.
    do {
      try Self.checkTarget(path)
    } catch {
      unlink(temporary)
      throw error
    }
    guard rename(temporary, path) == 0 else {
      let reason = String(cString: strerror(errno))
      unlink(temporary)
      throw UsageError("\(path): cannot be written (\(reason))")
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
