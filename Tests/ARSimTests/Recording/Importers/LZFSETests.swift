import ARSim
import ARSimTestSupport
import Foundation
import Testing

/// Vectors made by Apple's reference encoder (Tools/make_lzfse_vectors.py), decoded byte-exact.
@Suite struct LZFSETests {
  struct Vector: Sendable, CustomTestStringConvertible {
    var name: String
    var rawCount: Int
    var hash: UInt64
    var blocks: String
    var testDescription: String { name }
  }

  static let folder = Datasets.root + "/Tests/Fixtures/lzfse"

  static let vectors: [Vector] = {
    guard let text = try? String(contentsOfFile: folder + "/manifest.txt", encoding: .utf8) else { return [] }
    return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
      let f = line.split(separator: " ")
      return Vector(
        name: String(f[0]), rawCount: Int(f[1])!, hash: UInt64(f[2], radix: 16)!, blocks: String(f[3]))
    }
  }()

  static func stream(_ name: String) -> [UInt8] {
    [UInt8](FileManager.default.contents(atPath: folder + "/" + name + ".lzfse") ?? Data())
  }

  static func fnv1a64(_ bytes: [UInt8]) -> UInt64 {
    bytes.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
  }

  @Test func manifestCoversEveryBlockKind() {
    let kinds = Set(Self.vectors.flatMap(\.blocks))
    #expect(kinds == ["-", "n", "1", "2", "$"])
    #expect(Self.vectors.contains { $0.blocks.filter { $0 == "2" }.count > 1 })
  }

  @Test(arguments: vectors) func decodesByteExact(_ vector: Vector) throws {
    let decoded = try LZFSE.decode(Self.stream(vector.name))
    #expect(decoded.count == vector.rawCount)
    #expect(Self.fnv1a64(decoded) == vector.hash)
  }

  /// Stored-block encoding is byte for byte what Apple's reference encoder wrote for the vectors
  /// it left uncompressed, and round-trips across the 1 MiB block limit.
  @Test(arguments: ["empty", "tiny", "random-stored"]) func encodesStoredBlocksLikeApple(_ name: String)
    throws
  {
    let stream = Self.stream(name)
    #expect(LZFSE.encodeStored(try LZFSE.decode(stream)) == stream)
  }

  @Test func storedEncodingRoundTripsOverSeveralBlocks() throws {
    let bytes = (0..<(1 << 20) + 7).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
    let encoded = LZFSE.encodeStored(bytes)
    #expect(encoded.count == bytes.count + 2 * 8 + 4)
    #expect(try LZFSE.decode(encoded) == bytes)
  }

  @Test func decodesTheTextItWasGiven() throws {
    #expect(try LZFSE.decode(Self.stream("tiny")) == Array("hello".utf8))
    let text = try LZFSE.decode(Self.stream("text-lzvn"))
    #expect(
      String(decoding: text, as: UTF8.self).hasPrefix("Stray Scanner, Record3D and ARKitScenes recordings"))
  }

  /// Apple's encoder codes an all-equal map's literals in zero bits and periodic bytes in a few:
  /// entropy payloads shorter than the bit stream's first 8-byte read decode to what was encoded.
  @Test func shortEntropyPayloadsDecode() throws {
    let cases: [(name: String, raw: [UInt8], literalPayload: Int)] = [
      ("confidence-zeros-256x192", [UInt8](repeating: 0, count: 256 * 192), 0),
      ("confidence-twos-256x192", [UInt8](repeating: 2, count: 256 * 192), 0),
      ("zeros-4096", [UInt8](repeating: 0, count: 4096), 0),
      ("period2-10000", Array(String(repeating: "ab", count: 5000).utf8), 1),
      ("period8-8000", Array(String(repeating: "abcdefgh", count: 1000).utf8), 5),
    ]
    for c in cases {
      let stream = Self.stream(c.name)
      // v2 header: the literal payload's byte count is bits 20..<40 of the first packed field.
      let packed = stream[8..<16].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
      #expect(Array(stream[0..<4]) == Array("bvx2".utf8), "\(c.name)")
      #expect(Int(packed >> 20 & 0xfffff) == c.literalPayload, "\(c.name)")
      #expect(try LZFSE.decode(stream) == c.raw, "\(c.name)")
      for cut in [stream.count - 5, stream.count - 12, 40] {
        #expect(throws: LZFSEError.self, "\(c.name) cut at \(cut)") {
          try LZFSE.decode(Array(stream[..<cut]))
        }
      }
    }
  }

  @Test(arguments: [
    "text-lzvn", "depth-128x96", "v1-confidence-256x192", "random-stored", "words-multiblock",
  ])
  func truncatedStreamsAreRejected(_ name: String) {
    let data = Self.stream(name)
    for cut in [4, 11, 31, 100, data.count / 2, data.count - 5, data.count - 1] where cut < data.count {
      #expect(throws: LZFSEError.self) { try LZFSE.decode(Array(data[..<cut])) }
    }
  }

  @Test func corruptBlocksAreRejected() {
    var data = Self.stream("depth-128x96")
    data[3] = UInt8(ascii: "7")
    #expect(throws: LZFSEError(offset: 0, "unknown block magic 0x37787662")) { try LZFSE.decode(data) }
    data = Self.stream("depth-128x96")
    data[4] &+= 1  // one raw byte more than the payload decodes to
    #expect(throws: LZFSEError.self) { try LZFSE.decode(data) }
    data = Self.stream("depth-128x96")
    data[34] ^= 0xff  // the frequency tables
    #expect(throws: LZFSEError.self) { try LZFSE.decode(data) }
    data = Self.stream("text-lzvn")
    data[4] = 0xff
    data[5] = 0xff
    data[6] = 0xff
    data[7] = 0x7f
    #expect(throws: LZFSEError.self) { try LZFSE.decode(data, maxSize: 1 << 20) }
    data = Self.stream("confidence-256x192")
    data[1000] ^= 0x55  // the (L, M, D) payload: the matches no longer add up to the block's size
    #expect(throws: LZFSEError.self) { try LZFSE.decode(data) }
  }

  /// Flipped bytes anywhere: the decoder never crashes or hangs, and it rejects most of them.
  @Test(arguments: ["words-lzvn", "depth-128x96", "v1-confidence-256x192", "words-multiblock"])
  func corruptPayloadsNeverCrash(_ name: String) throws {
    let original = Self.stream(name)
    var generator = SplitMix64(seed: 12)
    var rejected = 0
    for _ in 0..<30 {
      var data = original
      let position = 12 + Int(generator.next() % UInt64(data.count - 16))
      data[position] ^= UInt8(1 + generator.next() % 255)
      if let decoded = try? LZFSE.decode(data) {
        #expect(decoded.count < 1 << 20)
      } else {
        rejected += 1
      }
    }
    #expect(rejected >= 10)
  }
}
