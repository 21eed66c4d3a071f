import Foundation

/// A problem with an input file: its path and what is wrong (one line). Each module turns it into
/// its own error type (`RecordingError` in ARSim, `EvaluationError` in ARSimEval).
package struct RegularFileError: Error, Sendable {
  /// The path as given.
  package var path: String
  /// What is wrong, in plain words.
  package var message: String

  init(file path: String, _ message: String) {
    self.path = path
    self.message = message
  }
}

/// The input rules every reader of the package follows, so that bad input ends in one clear error,
/// never a hang or a crash: only regular files are read (a FIFO, `/dev/zero` or a directory is
/// refused from its metadata, before anything is opened for reading), sizes are bounded, and
/// UTF-16 or binary data given as text is named as such. It lives here, below ARSim and ARSimEval,
/// so that both read through the same code (ARSim's `InputFile` wraps it).
package enum RegularFile {
  /// The largest file read whole into memory (JSON, images, trajectories): 256 MiB.
  package static let maxBytes = 1 << 28

  /// Whether an optional input is there: true for a regular file (following symbolic links), false
  /// when nothing is at `path`. Anything else (a symbolic link loop or a dangling link, a FIFO, a
  /// device, a directory, no permission) is an error, not "absent".
  package static func exists(_ path: String) throws(RegularFileError) -> Bool {
    var info = stat()
    if stat(path, &info) != 0, errno == ENOENT, lstat(path, &info) != 0 { return false }
    try checkRegular(path)
    return true
  }

  /// Throws unless `path` names a regular file (following symbolic links), without opening it.
  /// - Returns: the file's size in bytes.
  @discardableResult
  package static func checkRegular(_ path: String) throws(RegularFileError) -> Int {
    guard !path.isEmpty else { throw RegularFileError(file: "(empty path)", "no file named") }
    var info = stat()
    guard stat(path, &info) == 0 else { throw RegularFileError(file: path, statProblem(path, errno)) }
    return try checkType(info, path)
  }

  /// Opens a regular file for reading (non-blocking open, then re-checked on the descriptor).
  /// - Returns: the open descriptor and the file's size; the caller closes the descriptor.
  package static func open(_ path: String) throws(RegularFileError) -> (descriptor: Int32, size: Int) {
    try checkRegular(path)
    let descriptor = Foundation.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else {
      throw RegularFileError(file: path, "cannot be opened (\(String(cString: strerror(errno))))")
    }
    var info = stat()
    let size: Int
    do throws(RegularFileError) {
      guard fstat(descriptor, &info) == 0 else { throw RegularFileError(file: path, "cannot be examined") }
      size = try checkType(info, path)
    } catch {
      close(descriptor)
      throw error
    }
    // Back to blocking reads: it is a regular file.
    _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
    return (descriptor, size)
  }

  /// The bytes of a regular file of at most `limit` bytes.
  package static func contents(_ path: String, limit: Int = maxBytes) throws(RegularFileError) -> [UInt8] {
    let (descriptor, size) = try open(path)
    defer { close(descriptor) }
    guard size <= limit else {
      throw RegularFileError(file: path, "is \(size) bytes, more than the \(limit) this reader accepts")
    }
    var bytes = [UInt8](repeating: 0, count: size)
    var filled = 0
    while filled < size {
      let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + filled, size - filled) }
      if count < 0, errno == EINTR { continue }
      guard count >= 0 else {
        throw RegularFileError(file: path, "read failed (\(String(cString: strerror(errno))))")
      }
      if count == 0 { break }  // shrank while being read
      filled += count
    }
    return Array(bytes.prefix(filled))
  }

  /// The UTF-8 text of a regular file of at most `limit` bytes, checked by ``checkText(_:path:)``.
  package static func text(_ path: String, limit: Int = maxBytes) throws(RegularFileError) -> String {
    let bytes = try contents(path, limit: limit)
    try checkText(bytes[...], path: path)
    guard let text = String(validating: bytes, as: UTF8.self) else {
      throw RegularFileError(file: path, "is not UTF-8 text")
    }
    return text
  }

  /// Throws when the bytes starting a text file show UTF-16 (a byte-order mark, or NUL bytes in
  /// every other position) or binary data (any NUL byte).
  package static func checkText(_ bytes: ArraySlice<UInt8>, path: String) throws(RegularFileError) {
    let head = bytes.prefix(2)
    if head.elementsEqual([0xFF, 0xFE]) || head.elementsEqual([0xFE, 0xFF]) {
      throw RegularFileError(file: path, "is UTF-16 text; expected UTF-8 (convert it, e.g. with iconv)")
    }
    guard let zero = bytes.firstIndex(of: 0) else { return }
    let sample = bytes.prefix(64)
    let oddZeros = sample.indices.filter { ($0 - sample.startIndex) % 2 == 1 && sample[$0] == 0 }.count
    let evenZeros = sample.indices.filter { ($0 - sample.startIndex) % 2 == 0 && sample[$0] == 0 }.count
    if max(oddZeros, evenZeros) * 4 >= sample.count, min(oddZeros, evenZeros) == 0 {
      throw RegularFileError(file: path, "is UTF-16 text; expected UTF-8 (convert it, e.g. with iconv)")
    }
    throw RegularFileError(file: path, "holds a NUL byte at offset \(zero); expected UTF-8 text")
  }

  private static func checkType(_ info: stat, _ path: String) throws(RegularFileError) -> Int {
    switch info.st_mode & S_IFMT {
    case S_IFREG: return Int(info.st_size)
    case S_IFDIR: throw RegularFileError(file: path, "is a directory, expected a regular file")
    case S_IFIFO: throw RegularFileError(file: path, "is a FIFO (named pipe), expected a regular file")
    case S_IFCHR, S_IFBLK: throw RegularFileError(file: path, "is a device, expected a regular file")
    case S_IFSOCK: throw RegularFileError(file: path, "is a socket, expected a regular file")
    default: throw RegularFileError(file: path, "is not a regular file")
    }
  }

  /// Writes all of `bytes` to `descriptor`, retrying interrupted and partial writes (the write side
  /// of ``contents(_:limit:)``'s read loop, used by every writer of the package).
  /// - Returns: nil, or the `errno` of the write that failed (`EIO` for a write that wrote nothing).
  package static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Int32? {
    var offset = 0
    while offset < bytes.count {
      let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
      if written < 0, errno == EINTR { continue }
      if written < 0 { return errno }
      if written == 0 { return EIO }
      offset += written
    }
    return nil
  }

  /// Why `stat` failed, in words.
  package static func statProblem(_ path: String, _ code: Int32) -> String {
    var info = stat()
    switch code {
    case ENOENT:
      return lstat(path, &info) == 0
        ? "is a broken symbolic link (its target does not exist)" : "no such file"
    case ELOOP: return "is a symbolic link loop"
    case EACCES: return "permission denied"
    case ENOTDIR: return "a component of the path is not a directory"
    case ENAMETOOLONG: return "path is too long"
    default: return "cannot be examined (\(String(cString: strerror(code))))"
    }
  }
}
