import Foundation

/// Reads a text file line by line in fixed-size chunks, so memory stays flat however
/// long the file is. Lines are split on `\n` (a trailing `\r` is dropped); line numbers
/// are 1-based.
package final class LineReader {
  /// The path being read, for error messages.
  package let path: String
  private let handle: FileHandle
  private var buffer: [UInt8] = []
  private var start = 0
  private var atEOF = false
  /// The number of the line most recently returned (0 before the first).
  package private(set) var lineNumber = 0

  /// Opens `path` for reading.
  /// - Throws: ``RecordingError`` when the file does not exist or cannot be read.
  package init(path: String) throws(RecordingError) {
    self.path = path
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
      throw RecordingError(file: path, "no such file")
    }
    guard !isDirectory.boolValue else {
      throw RecordingError(file: path, "is a directory, expected a text file")
    }
    guard let handle = FileHandle(forReadingAtPath: path) else {
      throw RecordingError(file: path, "cannot be opened for reading")
    }
    self.handle = handle
  }

  deinit { try? handle.close() }

  /// Returns the next line without its terminator, or nil at the end of the file.
  package func nextLine() throws(RecordingError) -> String? {
    while true {
      if let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
        let line = decode(buffer[start..<newline])
        start = newline + 1
        lineNumber += 1
        return line
      }
      if atEOF {
        guard start < buffer.count else { return nil }
        let line = decode(buffer[start...])
        start = buffer.count
        lineNumber += 1
        return line
      }
      buffer.removeFirst(start)
      start = 0
      let chunk: Data?
      do {
        chunk = try handle.read(upToCount: 1 << 16)
      } catch {
        throw RecordingError(file: path, "read failed: \(error.localizedDescription)")
      }
      if let chunk, !chunk.isEmpty { buffer.append(contentsOf: chunk) } else { atEOF = true }
    }
  }

  /// Returns the next line that is neither blank nor a `#` comment, split on white space,
  /// or nil at the end of the file.
  package func nextRecord() throws(RecordingError) -> [Substring]? {
    while let line = try nextLine() {
      let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," })
      if fields.isEmpty || fields[0].hasPrefix("#") { continue }
      return fields
    }
    return nil
  }

  private func decode(_ bytes: ArraySlice<UInt8>) -> String {
    var slice = bytes
    if slice.last == UInt8(ascii: "\r") { slice = slice.dropLast() }
    return String(decoding: slice, as: UTF8.self)
  }

  /// An error at the current line of this file.
  package func error(_ message: String) -> RecordingError {
    RecordingError(file: path, line: lineNumber, message)
  }

  /// Parses a field as a finite number, or throws an error naming this line.
  package func number(_ field: Substring, _ what: String) throws(RecordingError) -> Double {
    guard let value = Double(field), value.isFinite else {
      throw error("\(what) '\(field)' is not a finite number")
    }
    return value
  }
}
