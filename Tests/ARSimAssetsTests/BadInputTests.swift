import Foundation
import Testing

@testable import ARSimAssets

/// Broken files: each gives one error naming the file and the problem, never a crash.
@Suite struct BadInputTests {
  /// The error of reading `bytes` as a `fileExtension` file named `file`.
  func error(_ bytes: [UInt8], _ fileExtension: String, file: String = "bad") -> AssetError? {
    do {
      _ = try ModelAsset(bytes: bytes, file: file, fileExtension: fileExtension)
      return nil
    } catch {
      return error
    }
  }

  /// Offset of the end-of-central-directory record and of the first central directory header.
  func directory(_ zip: [UInt8]) -> (end: Int, central: Int) {
    let end = zip.count - 22
    let central =
      Int(zip[end + 16]) | Int(zip[end + 17]) << 8 | Int(zip[end + 18]) << 16 | Int(zip[end + 19]) << 24
    return (end, central)
  }

  /// A fuzzer finding: a damaged archive whose member name holds a line break gave a two-line error.
  @Test func namesFromTheFileStayOnOneLine() throws {
    var bytes = try Fixtures.bytes("scene.usdz")
    // The first local header's name starts at byte 30: put a line break into it.
    bytes[31] = UInt8(ascii: "\n")
    let error = try #require(self.error(bytes, "usdz", file: "model.usdz"))
    #expect(!error.description.contains("\n"))
    #expect(error.description.hasPrefix("model.usdz"))
    #expect(AssetError(file: "a\nb", problem: "x\ry\u{0}").description == #"a\nb: x\ry\0"#)
  }

  @Test func truncatedArchives() throws {
    let zip = try Fixtures.bytes("scene.usdz")
    for length in [0, 10, 21, zip.count / 2, zip.count - 1] {
      let problem = try #require(error(Array(zip.prefix(length)), "usdz", file: "cut.usdz"))
      #expect(problem.file == "cut.usdz")
      #expect(problem.problem.contains("truncated"), "\(length): \(problem)")
    }
  }

  @Test func compressedEntry() throws {
    var zip = try Fixtures.bytes("scene.usdz")
    zip[directory(zip).central + 10] = 8  // deflate
    let problem = try #require(error(zip, "usdz", file: "deflated.usdz"))
    #expect(
      problem.description
        == "deflated.usdz: entry 'scene.usdc' is compressed (method 8); USDZ entries must be stored")
  }

  @Test func misalignedEntry() throws {
    var zip = try Fixtures.bytes("scene.usdz")
    // The first entry's local header at 0: one byte less of extra field moves its data off the 64-byte grid.
    zip[28] -= 1
    let problem = try #require(error(zip, "usdz", file: "shifted.usdz"))
    #expect(problem.problem.contains("is not 64-byte aligned"), "\(problem)")
  }

  @Test func badCentralDirectory() throws {
    var zip = try Fixtures.bytes("scene.usdz")
    let (end, central) = directory(zip)
    zip[central] = 0  // signature
    #expect(error(zip, "usdz")?.problem.contains("bad central directory") == true)
    zip = try Fixtures.bytes("scene.usdz")
    zip[end + 16] &+= 7  // the directory's offset
    #expect(error(zip, "usdz")?.problem.contains("bad central directory") == true)
    zip = try Fixtures.bytes("scene.usdz")
    zip[central + 42] &+= 1  // an entry's local header offset
    #expect(error(zip, "usdz")?.problem.contains("not a local header") == true)
  }

  @Test func crateWithBadVersion() throws {
    var crate = try Fixtures.bytes("scene.usdc")
    crate[9] = 99
    let problem = try #require(error(crate, "usdc", file: "future.usdc"))
    #expect(problem.description.hasPrefix("future.usdc: unsupported crate version 0.99."))
  }

  @Test func crateOffsetsPastTheEnd() throws {
    var crate = try Fixtures.bytes("scene.usdc")
    crate.replaceSubrange(
      16..<24, with: withUnsafeBytes(of: Int64(crate.count + 100).littleEndian, Array.init))
    #expect(error(crate, "usdc")?.problem.contains("table of contents offset") == true)
    // A section starting past the end: the first section's start in the table of contents.
    crate = try Fixtures.bytes("scene.usdc")
    let toc = Int(crate[16]) | Int(crate[17]) << 8 | Int(crate[18]) << 16
    crate.replaceSubrange(
      toc + 24..<toc + 32, with: withUnsafeBytes(of: Int64(1 << 40).littleEndian, Array.init))
    #expect(error(crate, "usdc")?.problem.contains("lies past the end of the file") == true)
    // A truncated crate: its table of contents is gone.
    crate = try Fixtures.bytes("scene.usdc")
    #expect(error(Array(crate.prefix(toc)), "usdc", file: "cut.usdc")?.file == "cut.usdc")
  }

  @Test func cyclicReferences() throws {
    let problem = try #require(throws: AssetError.self) {
      try ModelAsset(contentsOf: Fixtures.url("cycle.usdz"))
    }
    #expect(problem.file.hasSuffix("cycle.usdz"))
    #expect(problem.problem == "reference cycle: a.usda</Root> -> b.usda</Root> -> a.usda</Root>")
  }

  @Test func missingReferencedLayer() throws {
    let problem = try #require(throws: AssetError.self) {
      try ModelAsset(contentsOf: Fixtures.url("missing.usdz"))
    }
    #expect(problem.file.hasSuffix("missing.usdz[a.usda]"))
    #expect(problem.problem == "references 'b.usda', which the archive does not hold")
  }

  @Test func realityFilesAreRefused() {
    let problem = error(Array("PK".utf8), "reality", file: "Experience.reality")
    #expect(
      problem?.description.contains("Apple's .reality format is proprietary and cannot be read") == true)
  }

  @Test func badText() throws {
    let cases: [(String, String)] = [
      (
        "#usda 1.0\ndef Xform \"A\" {\n  double3 xformOp:translate = (1, 2\n}\n",
        "line 4: expected ')', found '}'"
      ),
      ("#usda 1.0\ndef Xform \"A\" {\n", "line 2: the prim 'A' is not closed with '}'"),
      ("#usda 1.0\ndef \"A\" { string s = \"open\n}", "line 2: string is not closed"),
      ("hello", "neither a USDA layer (starting #usda) nor a USDC crate (starting PXR-USDC)"),
      (
        "#usda 1.0\ndef Xform \"A\" {\n  uniform token[] xformOpOrder = [\"xformOp:translate\"]\n}\n",
        "prim /A: xformOpOrder names 'xformOp:translate', which has no value"
      ),
    ]
    for (text, expected) in cases {
      let problem = error(Array(text.utf8), "usda", file: "t.usda")
      #expect(problem?.description == "t.usda: \(expected)", "\(text)")
    }
  }
}

extension BadInputTests {
  @Test func referencesOnlyReadRegularFiles() throws {
    let text = "#usda 1.0\ndef Xform \"A\" (\n  references = @/dev/zero@</B>\n)\n{\n}\n"
    let problem = error(Array(text.utf8), "usda", file: "device.usda")
    #expect(problem?.description == "device.usda: references '/dev/zero', which cannot be read")
    #expect(throws: AssetError.self) { try ModelAsset(contentsOf: URL(fileURLWithPath: "/dev/zero")) }
  }
  /// Sampled values at a time no comparison orders (a NaN time code, or NaN sample times, as a
  /// fuzzed usdc file gave): the last sample is held, not a crash.
  @Test func samplesAtATimeThatIsNotANumberHoldTheLastValue() {
    let spec = AttributeSpec(value: nil, timeSamples: [(0, .double(1)), (1, .double(3))])
    #expect(spec.value(at: .nan) == .double(3))
    #expect(spec.value(at: 0.5) == .double(2))
    let unordered = AttributeSpec(value: nil, timeSamples: [(.nan, .double(5)), (1, .double(3))])
    #expect(unordered.value(at: 0.5) != nil)
  }
}
