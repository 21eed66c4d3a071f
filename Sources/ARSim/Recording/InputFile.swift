import Foundation

/// Checks and reads input files so that bad input ends in one clear ``RecordingError``, never a
/// hang or a crash: ARSimMath's `RegularFile` rules (only regular files, bounded sizes, UTF-16 or
/// binary data named as such) with ARSim's error type, and the line-length bound of the text readers.
///
/// Every reader of the package (recordings, importers, scenes, ground truth) goes through this.
package enum InputFile {
  /// The largest file read whole into memory (JSON, images): 256 MiB.
  package static let maxBytes = RegularFile.maxBytes
  /// The longest line a text reader accepts: 64 KiB.
  package static let maxLineBytes = 1 << 16

  /// Whether an optional input is there: true for a regular file (following symbolic links), false
  /// when nothing is at `path`. Anything else (a symbolic link loop or a dangling link, a FIFO, a
  /// device, a directory, no permission) is an error, not "absent".
  package static func exists(_ path: String) throws(RecordingError) -> Bool {
    try recording { () throws(RegularFileError) in try RegularFile.exists(path) }
  }

  /// Throws unless `path` names a regular file (following symbolic links), without opening it.
  /// - Returns: the file's size in bytes.
  @discardableResult
  package static func checkRegular(_ path: String) throws(RecordingError) -> Int {
    try recording { () throws(RegularFileError) in try RegularFile.checkRegular(path) }
  }

  /// Opens a regular file for reading (non-blocking open, then re-checked on the descriptor).
  /// - Returns: the open descriptor and the file's size; the caller closes the descriptor.
  package static func open(_ path: String) throws(RecordingError) -> (descriptor: Int32, size: Int) {
    try recording { () throws(RegularFileError) in try RegularFile.open(path) }
  }

  /// The bytes of a regular file of at most `limit` bytes.
  package static func contents(_ path: String, limit: Int = maxBytes) throws(RecordingError) -> [UInt8] {
    try recording { () throws(RegularFileError) in try RegularFile.contents(path, limit: limit) }
  }

  /// The UTF-8 text of a regular file, checked by ``checkText(_:path:)``.
  package static func text(_ path: String, limit: Int = maxBytes) throws(RecordingError) -> String {
    try recording { () throws(RegularFileError) in try RegularFile.text(path, limit: limit) }
  }

  /// Throws when the bytes starting a text file show UTF-16 (a byte-order mark, or NUL bytes in
  /// every other position) or binary data (any NUL byte).
  package static func checkText(_ bytes: ArraySlice<UInt8>, path: String) throws(RecordingError) {
    try recording { () throws(RegularFileError) in try RegularFile.checkText(bytes, path: path) }
  }

  /// Why `stat` failed, in words.
  package static func statProblem(_ path: String, _ code: Int32) -> String {
    RegularFile.statProblem(path, code)
  }

  /// Runs `body`, turning its error into a ``RecordingError`` naming the same file.
  private static func recording<T>(_ body: () throws(RegularFileError) -> T) throws(RecordingError) -> T {
    do {
      return try body()
    } catch {
      throw RecordingError(file: error.path, error.message)
    }
  }
}
