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

  /// Opens `path` for reading: a regular file (see ``InputFile``), UTF-8 text with lines of at
  /// most ``InputFile/maxLineBytes`` bytes.
  /// - Throws: ``RecordingError`` when the file does not exist, is not a regular file or cannot be read.
  package init(path: String) throws(RecordingError) {
    self.path = path
    let descriptor = try InputFile.open(path).descriptor
    handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
  }

  /// Returns the next line without its terminator, or nil at the end of the file.
  package func nextLine() throws(RecordingError) -> String? {
    while true {
      if let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
        lineNumber += 1
        let line = try decode(buffer[start..<newline])
        start = newline + 1
        return line
      }
      if buffer.count - start > InputFile.maxLineBytes {
        throw RecordingError(
          file: path, line: lineNumber + 1, "line is longer than \(InputFile.maxLineBytes) bytes")
      }
      if atEOF {
        guard start < buffer.count else { return nil }
        lineNumber += 1
        let line = try decode(buffer[start...])
        start = buffer.count
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
      if let chunk, !chunk.isEmpty {
        if lineNumber == 0, buffer.isEmpty {
          try InputFile.checkText([UInt8](chunk.prefix(64))[...], path: path)
        }
        buffer.append(contentsOf: chunk)
      } else {
        atEOF = true
      }
    }
  }

  /// Returns the next line that is neither blank nor a `#` comment, split on white space and on
  /// commas (unless `commas` is false), or nil at the end of the file.
  ///
  /// A file whose fields are separated by white space alone (ARKitScenes' `.traj` and `.pincam`)
  /// is read with `commas: false`, so that a decimal comma (`0,5`) stays inside its field and fails
  /// to parse as a number, instead of splitting it in two and shifting every later field.
  package func nextRecord(commas: Bool = true) throws(RecordingError) -> [Substring]? {
    while let line = try nextLine() {
      let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" || (commas && $0 == ",") })
      if fields.isEmpty || fields[0].hasPrefix("#") { continue }
      return fields
    }
    return nil
  }

  private func decode(_ bytes: ArraySlice<UInt8>) throws(RecordingError) -> String {
    var slice = bytes
    if slice.last == UInt8(ascii: "\r") { slice = slice.dropLast() }
    if lineNumber == 1, slice.starts(with: [0xEF, 0xBB, 0xBF]) { slice = slice.dropFirst(3) }
    guard !slice.contains(0) else { throw error("holds a NUL byte; expected UTF-8 text") }
    guard let line = String(validating: slice, as: UTF8.self) else { throw error("is not UTF-8 text") }
    return line
  }

  /// An error at the current line of this file.
  package func error(_ message: String) -> RecordingError {
    RecordingError(file: path, line: lineNumber, message)
  }

  /// Parses a field as a finite decimal number (`-12`, `0.5`, `.5`, `1e-3`), or throws an error
  /// naming this line. Only decimal digits, one sign, one point and an exponent are accepted:
  /// `Double.init` alone would also take hexadecimal (`0x1p3`), `inf` and `nan`.
  package func number(_ field: Substring, _ what: String) throws(RecordingError) -> Double {
    guard Self.isDecimal(field), let value = Double(field), value.isFinite else {
      throw error("\(what) '\(field)' is not a finite number")
    }
    return value
  }

  /// Whether `field` is a decimal number: `[+-]digits[.digits][(e|E)[+-]digits]`, with digits on at
  /// least one side of the point.
  package static func isDecimal(_ field: Substring) -> Bool {
    var bytes = field.utf8[...]
    func digits() -> Int {
      let run = bytes.prefix(while: { (0x30...0x39).contains($0) }).count
      bytes = bytes.dropFirst(run)
      return run
    }
    if let sign = bytes.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
      bytes = bytes.dropFirst()
    }
    var mantissa = digits()
    if bytes.first == UInt8(ascii: ".") {
      bytes = bytes.dropFirst()
      mantissa += digits()
    }
    guard mantissa > 0 else { return false }
    if let e = bytes.first, e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
      bytes = bytes.dropFirst()
      if let sign = bytes.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
        bytes = bytes.dropFirst()
      }
      guard digits() > 0 else { return false }
    }
    return bytes.isEmpty
  }

  /// Parses a field as a finite number of magnitude at most `bound`, or throws naming this line.
  package func number(_ field: Substring, _ what: String, within bound: Double) throws(RecordingError)
    -> Double
  {
    let value = try number(field, what)
    guard abs(value) <= bound else {
      throw error("\(what) \(value) is out of range (at most \(bound) in magnitude)")
    }
    return value
  }

  /// Parses a timestamp in seconds: finite, of magnitude at most ``maxTimestamp``.
  package func timestamp(_ field: Substring) throws(RecordingError) -> Double {
    try number(field, "timestamp", within: Self.maxTimestamp)
  }

  /// The largest timestamp accepted, in seconds (about 3,000 years; Unix time in seconds fits).
  package static let maxTimestamp = 1e11
  /// The largest coordinate accepted in a pose or point, metres.
  package static let maxCoordinate = 1e6
  /// The largest specific force accepted from an accelerometer, m/s² per axis (about 200 g).
  package static let maxAcceleration = 2000.0
  /// The largest angular rate accepted from a gyroscope, rad/s per axis.
  package static let maxRotationRate = 100.0
}
