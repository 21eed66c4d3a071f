/// A strict RFC 8259 syntax check, run before Foundation decodes a file: Foundation accepts trailing
/// commas and repeated keys, recurses without bound on deep nesting, and makes an object of every
/// array and object it reads (about 100 bytes each: 200 MB of `[[[]]],` takes tens of gigabytes,
/// until the process is killed). This rejects all of them (and anything else that is not JSON), naming
/// the line, within ``Limits`` that a reader sets from what its file must hold.
package enum StrictJSON {
  /// The deepest nesting of arrays and objects accepted by default.
  package static let maxDepth = 256

  /// What one file may hold.
  package struct Limits: Sendable {
    /// The largest file, bytes.
    package var maxBytes: Int
    /// The deepest nesting of arrays and objects (a flat object of numbers is 1).
    package var maxDepth: Int
    /// The most arrays and objects in the whole file.
    package var maxContainers: Int

    package init(maxBytes: Int, maxDepth: Int, maxContainers: Int) {
      self.maxBytes = maxBytes
      self.maxDepth = maxDepth
      self.maxContainers = maxContainers
    }

    /// Any file the readers take whole (``InputFile/maxBytes``), nested at most ``StrictJSON/maxDepth``.
    package static let general = Limits(
      maxBytes: InputFile.maxBytes, maxDepth: StrictJSON.maxDepth, maxContainers: .max)
  }

  /// Throws ``RecordingError`` naming `path` and the line of the first syntax error, or the limit
  /// exceeded.
  package static func check(_ bytes: [UInt8], path: String, limits: Limits = .general) throws(RecordingError)
  {
    guard bytes.count <= limits.maxBytes else {
      throw RecordingError(
        file: path, "is \(bytes.count) bytes, more than the \(limits.maxBytes) such a file may hold")
    }
    var parser = Parser(bytes: bytes, limits: limits)
    do {
      try parser.document()
    } catch {
      throw RecordingError(file: path, line: parser.line, "not valid JSON: \(error.message)")
    }
  }

  /// Reads a regular file, checks that it is UTF-8 JSON, and returns its bytes for decoding.
  package static func contents(_ path: String) throws(RecordingError) -> [UInt8] {
    let bytes = try InputFile.contents(path)
    try InputFile.checkText(bytes[...], path: path)
    try check(bytes, path: path)
    return bytes
  }

  struct Problem: Error {
    var message: String
  }

  private struct Parser {
    let bytes: [UInt8]
    let limits: Limits
    var position = 0
    var line = 1
    var containers = 0

    init(bytes: [UInt8], limits: Limits) {
      self.bytes = bytes
      self.limits = limits
    }

    mutating func document() throws(Problem) {
      if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
      try value(depth: 0)
      skipSpace()
      guard position == bytes.count else { throw Problem(message: "unexpected text after the value") }
    }

    private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    private mutating func skipSpace() {
      while let c = current, c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D {
        if c == 0x0A { line += 1 }
        position += 1
      }
    }

    private mutating func expect(_ c: UInt8, _ what: String) throws(Problem) {
      skipSpace()
      guard current == c else { throw Problem(message: "expected \(what)") }
      position += 1
    }

    private mutating func value(depth: Int) throws(Problem) {
      skipSpace()
      switch current {
      case UInt8(ascii: "{"), UInt8(ascii: "["):
        guard depth < limits.maxDepth else {
          throw Problem(message: "nested more than \(limits.maxDepth) levels deep")
        }
        containers += 1
        guard containers <= limits.maxContainers else {
          throw Problem(message: "more than \(limits.maxContainers) arrays and objects")
        }
        if current == UInt8(ascii: "{") { try object(depth: depth) } else { try array(depth: depth) }
      case UInt8(ascii: "\""): _ = try string()
      case UInt8(ascii: "t"): try literal("true")
      case UInt8(ascii: "f"): try literal("false")
      case UInt8(ascii: "n"): try literal("null")
      case UInt8(ascii: "-"), UInt8(ascii: "0"), UInt8(ascii: "1"), UInt8(ascii: "2"), UInt8(ascii: "3"),
        UInt8(ascii: "4"), UInt8(ascii: "5"), UInt8(ascii: "6"), UInt8(ascii: "7"), UInt8(ascii: "8"),
        UInt8(ascii: "9"):
        try number()
      case nil: throw Problem(message: "unexpected end of data")
      default: throw Problem(message: "unexpected character")
      }
    }

    /// Skips white space and consumes `c` when it comes next.
    private mutating func take(_ c: UInt8) -> Bool {
      skipSpace()
      guard current == c else { return false }
      position += 1
      return true
    }

    private mutating func object(depth: Int) throws(Problem) {
      position += 1
      if take(UInt8(ascii: "}")) { return }
      var keys = Set<[UInt8]>()
      repeat {
        skipSpace()
        guard current == UInt8(ascii: "\"") else {
          throw Problem(
            message: keys.isEmpty ? "expected a key" : "expected a key after ',' (trailing comma?)")
        }
        let key = try string()
        guard keys.insert(key).inserted else {
          throw Problem(message: "key '\(String(decoding: key, as: UTF8.self))' appears twice")
        }
        try expect(UInt8(ascii: ":"), "':'")
        try value(depth: depth + 1)
      } while take(UInt8(ascii: ","))
      try expect(UInt8(ascii: "}"), "',' or '}'")
    }

    private mutating func array(depth: Int) throws(Problem) {
      position += 1
      if take(UInt8(ascii: "]")) { return }
      repeat {
        if take(UInt8(ascii: "]")) { throw Problem(message: "trailing comma before ']'") }
        try value(depth: depth + 1)
      } while take(UInt8(ascii: ","))
      try expect(UInt8(ascii: "]"), "',' or ']'")
    }

    /// The raw bytes between the quotes (escapes left as they are; enough to compare keys).
    private mutating func string() throws(Problem) -> [UInt8] {
      position += 1
      let start = position
      while let c = current {
        switch c {
        case UInt8(ascii: "\""):
          position += 1
          return Array(bytes[start..<position - 1])
        case UInt8(ascii: "\\"):
          position += 1
          guard let e = current else { break }
          if e == UInt8(ascii: "u") {
            let hex = bytes[(position + 1)...].prefix(4)
            guard hex.count == 4, hex.allSatisfy({ Self.isHex($0) }) else {
              throw Problem(message: "bad \\u escape")
            }
            position += 5
          } else {
            guard Array("\"\\/bfnrt".utf8).contains(e) else { throw Problem(message: "bad escape") }
            position += 1
          }
        case 0..<0x20: throw Problem(message: "control character in a string")
        default: position += 1
        }
      }
      throw Problem(message: "unterminated string")
    }

    private static func isHex(_ c: UInt8) -> Bool {
      (0x30...0x39).contains(c) || (0x41...0x46).contains(c) || (0x61...0x66).contains(c)
    }

    private mutating func literal(_ word: String) throws(Problem) {
      let expected = Array(word.utf8)
      guard bytes[position...].starts(with: expected) else { throw Problem(message: "unexpected word") }
      position += expected.count
    }

    private mutating func number() throws(Problem) {
      if current == UInt8(ascii: "-") { position += 1 }
      let start = position
      guard digits() > 0 else { throw Problem(message: "bad number") }
      if position - start > 1, bytes[start] == UInt8(ascii: "0") {
        throw Problem(message: "number with a leading zero")
      }
      if current == UInt8(ascii: ".") {
        position += 1
        guard digits() > 0 else { throw Problem(message: "bad number (no digits after '.')") }
      }
      if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
        position += 1
        if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
        guard digits() > 0 else { throw Problem(message: "bad number (no exponent digits)") }
      }
    }

    /// Reads a run of decimal digits and returns how many.
    private mutating func digits() -> Int {
      let start = position
      while let c = current, (0x30...0x39).contains(c) { position += 1 }
      return position - start
    }
  }
}
