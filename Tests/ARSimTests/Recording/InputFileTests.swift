import ARSimTestSupport
import Foundation
import Testing

@testable import ARSim

/// The checks every reader goes through: regular files only, bounded lines, UTF-8 text, strict JSON.
@Suite struct InputFileTests {
  func message(_ body: () throws -> Void) -> String? {
    do {
      try body()
      return nil
    } catch {
      #expect(error is RecordingError)
      #expect(!"\(error)".contains("\n"), "errors are one line")
      return "\(error)"
    }
  }

  @Test("An error naming text read from a damaged file stays one line: control characters are escaped")
  func errorsStayOneLine() {
    let error = RecordingError(file: "odd\nname.json", line: 3, "unknown key 'a\u{0}b'")
    #expect(error.description == #"odd\nname.json:3: unknown key 'a\0b'"#)
  }

  @Test func devicesFIFOsAndDirectoriesAreRefusedWithoutReading() throws {
    let folder = RecordingFixtures.temporaryFolder()
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let fifo = folder + "/pipe.txt"
    #expect(mkfifo(fifo, 0o644) == 0)
    // A FIFO without a writer would block an open for reading: the check must come first.
    #expect(
      message { _ = try LineReader(path: fifo) } == "\(fifo): is a FIFO (named pipe), expected a regular file"
    )
    #expect(
      message { _ = try InputFile.contents(fifo) }
        == "\(fifo): is a FIFO (named pipe), expected a regular file")
    for device in ["/dev/zero", "/dev/urandom", "/dev/null"] {
      #expect(
        message { _ = try LineReader(path: device) } == "\(device): is a device, expected a regular file")
    }
    #expect(
      message { _ = try InputFile.contents(folder) } == "\(folder): is a directory, expected a regular file")
    #expect(message { _ = try InputFile.contents(folder + "/none") } == "\(folder)/none: no such file")
  }

  @Test func optionalFilesAreAbsentOnlyWhenNothingIsThere() throws {
    let folder = RecordingFixtures.temporaryFolder()
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    #expect(try InputFile.exists(folder + "/none") == false)
    try "x\n".write(toFile: folder + "/file", atomically: true, encoding: .utf8)
    #expect(try InputFile.exists(folder + "/file"))
    #expect(symlink("loop", folder + "/loop") == 0)
    #expect(
      message { _ = try InputFile.exists(folder + "/loop") } == "\(folder)/loop: is a symbolic link loop")
    #expect(symlink("missing", folder + "/dangling") == 0)
    #expect(
      message { _ = try InputFile.exists(folder + "/dangling") }
        == "\(folder)/dangling: is a broken symbolic link (its target does not exist)")
  }

  @Test func linesAreBoundedAndTextIsUTF8() throws {
    let folder = RecordingFixtures.temporaryFolder()
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let long = folder + "/long.txt"
    try ("ok\n" + String(repeating: "1", count: InputFile.maxLineBytes + 10)).write(
      toFile: long, atomically: true, encoding: .utf8)
    let reader = try LineReader(path: long)
    #expect(try reader.nextLine() == "ok")
    #expect(message { _ = try reader.nextLine() } == "\(long):2: line is longer than 65536 bytes")

    let utf16 = folder + "/utf16.txt"
    try "1.0 rgb/a.png\n".data(using: .utf16)!.write(to: URL(fileURLWithPath: utf16))
    #expect(
      message { _ = try LineReader(path: utf16).nextLine() }
        == "\(utf16): is UTF-16 text; expected UTF-8 (convert it, e.g. with iconv)")
    let utf16NoMark = folder + "/utf16le.txt"
    try "1.0 rgb/a.png\n".data(using: .utf16LittleEndian)!.write(to: URL(fileURLWithPath: utf16NoMark))
    #expect(message { _ = try LineReader(path: utf16NoMark).nextLine() }?.contains("is UTF-16 text") == true)

    let latin1 = folder + "/latin1.txt"
    try Data([0x31, 0x0A, 0x61, 0xE9, 0x0A]).write(to: URL(fileURLWithPath: latin1))
    let latin = try LineReader(path: latin1)
    #expect(try latin.nextLine() == "1")
    #expect(message { _ = try latin.nextLine() } == "\(latin1):2: is not UTF-8 text")
  }

  @Test func strictJSONRejectsWhatFoundationLetsThrough() throws {
    func check(_ text: String) -> String? {
      message { try StrictJSON.check(Array(text.utf8), path: "x.json") }
    }
    #expect(check(#"{"a": [1, 2], "b": {"c": null}}"#) == nil)
    #expect(check("{\"a\": 1,\n}") == "x.json:2: not valid JSON: expected a key after ',' (trailing comma?)")
    #expect(check(#"{"a": [1, 2,]}"#) == "x.json:1: not valid JSON: trailing comma before ']'")
    #expect(check(#"{"a": 1, "a": 2}"#) == "x.json:1: not valid JSON: key 'a' appears twice")
    #expect(check(#"{"a": NaN}"#) == "x.json:1: not valid JSON: unexpected character")
    #expect(check(#"{"a": 01}"#) == "x.json:1: not valid JSON: number with a leading zero")
    #expect(check(#"{"a": 1} x"#) == "x.json:1: not valid JSON: unexpected text after the value")
    let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
    #expect(check(deep) == "x.json:1: not valid JSON: nested more than 256 levels deep")
  }
}
