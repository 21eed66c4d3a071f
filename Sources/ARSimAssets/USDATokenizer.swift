import Foundation

/// A lexical token of the USDA text format, with the line it starts on.
struct USDAToken {
  enum Kind: Equatable {
    /// A name or keyword: letters, digits, `_`, `:` and `.` (`xformOp:rotateZ.timeSamples`, `def`).
    case identifier
    /// A number as written.
    case number
    /// A quoted string (single, double or triple quotes), unescaped.
    case string
    /// An asset path between `@` (or `@@@`) delimiters.
    case asset
    /// A path between `<` and `>`.
    case path
    /// One of `( ) [ ] { } = , : ;`.
    case punctuation
  }

  var kind: Kind
  var text: String
  var line: Int

  func `is`(_ punctuation: String) -> Bool { kind == .punctuation && text == punctuation }
}

/// Splits USDA text into tokens; `#` comments are dropped (the `#usda 1.0` header is checked first).
enum USDATokenizer {
  static func tokens(_ bytes: [UInt8]) throws -> [USDAToken] {
    guard bytes.starts(with: Array("#usda ".utf8)) else {
      throw FormatError("line 1: not a USDA layer (it must start with '#usda 1.0')")
    }
    var result: [USDAToken] = []
    result.reserveCapacity(bytes.count / 4)
    var at = 0
    var line = 1
    let count = bytes.count
    func text(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }
    while at < count {
      let c = bytes[at]
      switch c {
      case UInt8(ascii: "\n"):
        line += 1
        at += 1
      case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
        at += 1
      case UInt8(ascii: "#"):
        while at < count, bytes[at] != UInt8(ascii: "\n") { at += 1 }
      case UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "{"),
        UInt8(ascii: "}"), UInt8(ascii: "="), UInt8(ascii: ","), UInt8(ascii: ":"), UInt8(ascii: ";"):
        result.append(USDAToken(kind: .punctuation, text: String(UnicodeScalar(c)), line: line))
        at += 1
      case UInt8(ascii: "\""), UInt8(ascii: "'"):
        let (value, end, lines) = try quoted(bytes, at: at, line: line)
        result.append(USDAToken(kind: .string, text: value, line: line))
        line += lines
        at = end
      case UInt8(ascii: "@"):
        let triple = bytes[at...].starts(with: Array("@@@".utf8))
        let delimiter = triple ? Array("@@@".utf8) : [UInt8(ascii: "@")]
        let start = at + delimiter.count
        var end = start
        while end < count, !bytes[end...].starts(with: delimiter) {
          if bytes[end] == UInt8(ascii: "\n") { throw FormatError("line \(line): asset path is not closed") }
          end += 1
        }
        guard end < count else { throw FormatError("line \(line): asset path is not closed") }
        result.append(USDAToken(kind: .asset, text: text(start..<end), line: line))
        at = end + delimiter.count
      case UInt8(ascii: "<"):
        var end = at + 1
        while end < count, bytes[end] != UInt8(ascii: ">"), bytes[end] != UInt8(ascii: "\n") { end += 1 }
        guard end < count, bytes[end] == UInt8(ascii: ">") else {
          throw FormatError("line \(line): path is not closed with '>'")
        }
        result.append(USDAToken(kind: .path, text: text(at + 1..<end), line: line))
        at = end + 1
      default:
        if isNumberStart(c) {
          var end = at + 1
          while end < count, isNumberPart(bytes[end], previous: bytes[end - 1]) { end += 1 }
          result.append(USDAToken(kind: .number, text: text(at..<end), line: line))
          at = end
        } else if isIdentifierPart(c) && !(c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9"))
          || c == UInt8(ascii: "!")
        {
          var end = at + 1
          while end < count, isIdentifierPart(bytes[end]) || bytes[end] == UInt8(ascii: "!") { end += 1 }
          result.append(USDAToken(kind: .identifier, text: text(at..<end), line: line))
          at = end
        } else {
          throw FormatError("line \(line): unexpected character '\(String(UnicodeScalar(c)))'")
        }
      }
    }
    return result
  }

  private static func isNumberStart(_ c: UInt8) -> Bool {
    (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || c == UInt8(ascii: "-") || c == UInt8(ascii: "+")
      || c == UInt8(ascii: ".")
  }

  private static func isNumberPart(_ c: UInt8, previous: UInt8) -> Bool {
    if c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") || c == UInt8(ascii: ".") { return true }
    if c == UInt8(ascii: "e") || c == UInt8(ascii: "E") { return true }
    if c == UInt8(ascii: "-") || c == UInt8(ascii: "+") {
      return previous == UInt8(ascii: "e") || previous == UInt8(ascii: "E")
    }
    // `-inf`
    return c == UInt8(ascii: "i") || c == UInt8(ascii: "n") || c == UInt8(ascii: "f")
  }

  private static func isIdentifierPart(_ c: UInt8) -> Bool {
    (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
      || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || c == UInt8(ascii: "_")
      || c == UInt8(ascii: ":")
      || c == UInt8(ascii: ".") || c >= 0x80
  }

  /// A quoted string starting at `at`: its unescaped text, the offset after it and the newlines it spans.
  private static func quoted(_ bytes: [UInt8], at: Int, line: Int) throws -> (String, Int, Int) {
    let quote = bytes[at]
    let triple = bytes[at...].starts(with: [quote, quote, quote])
    var end = at + (triple ? 3 : 1)
    var value: [UInt8] = []
    var lines = 0
    while end < bytes.count {
      let c = bytes[end]
      if triple ? bytes[end...].starts(with: [quote, quote, quote]) : c == quote {
        return (String(decoding: value, as: UTF8.self), end + (triple ? 3 : 1), lines)
      }
      if c == UInt8(ascii: "\n") {
        guard triple else { break }
        lines += 1
      }
      if c == UInt8(ascii: "\\"), end + 1 < bytes.count {
        end += 1
        let escaped = bytes[end]
        value.append(
          escaped == UInt8(ascii: "n") ? UInt8(ascii: "\n") : escaped == UInt8(ascii: "t") ? 9 : escaped)
      } else {
        value.append(c)
      }
      end += 1
    }
    throw FormatError("line \(line): string is not closed")
  }
}
