import ARSimTestSupport
import Foundation
import Testing

@testable import ARSim

/// OpenEXR data is parsed and checked (attributes, channel list, windows, line-offset table and
/// chunks) before OpenCV decodes it: a damaged header is a one-line error, never an allocation of
/// what a garbled attribute declares.
@Suite struct ExrHeaderTests {
  /// An uncompressed single-part scanline OpenEXR image of FLOAT channels built byte by byte, so
  /// each part can be damaged on its own.
  struct EXR {
    var width = 4
    var height = 2
    var channels = ["Y"]
    var pixelType: Int32 = 2
    var version: UInt32 = 2
    /// Attributes after the channel list, in order (name, type, value).
    var attributes: [(String, String, [UInt8])] = []
    /// Changes the line-offset table (entry, value) after it is made.
    var offsets: [Int: UInt64] = [:]
    /// Changes chunk headers after they are made (chunk, y, stored byte count).
    var chunks: [Int: (y: Int32, stored: Int32)] = [:]
    var values: [Float] { (0..<(width * height)).map { Float($0) * 0.25 + 1 } }

    static func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
      withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }
    static func attribute(_ name: String, _ type: String, _ value: [UInt8]) -> [UInt8] {
      Array(name.utf8) + [0] + Array(type.utf8) + [0] + le(UInt32(value.count)) + value
    }

    init(width: Int = 4, height: Int = 2) {
      self.width = width
      self.height = height
      let box = [0, 0, Int32(width - 1), Int32(height - 1)].flatMap { Self.le($0) }
      attributes = [
        ("compression", "compression", [0]), ("dataWindow", "box2i", box), ("displayWindow", "box2i", box),
        ("lineOrder", "lineOrder", [0]), ("pixelAspectRatio", "float", Self.le(Float(1).bitPattern)),
        ("screenWindowCenter", "v2f", Self.le(Float(0).bitPattern) + Self.le(Float(0).bitPattern)),
        ("screenWindowWidth", "float", Self.le(Float(1).bitPattern)),
      ]
    }

    var bytes: [UInt8] {
      var list: [UInt8] = []
      for name in channels {
        list +=
          Array(name.utf8) + [0] + Self.le(pixelType) + [0, 0, 0, 0] + Self.le(Int32(1)) + Self.le(Int32(1))
      }
      var out: [UInt8] = [0x76, 0x2F, 0x31, 0x01] + Self.le(version)
      out += Self.attribute("channels", "chlist", list + [0])
      for (name, type, value) in attributes { out += Self.attribute(name, type, value) }
      out.append(0)
      let line = width * 4 * channels.count
      let tableEnd = out.count + height * 8
      for y in 0..<height { out += Self.le(offsets[y] ?? UInt64(tableEnd + y * (8 + line))) }
      for y in 0..<height {
        let (chunkY, stored) = chunks[y] ?? (Int32(y), Int32(line))
        out += Self.le(chunkY) + Self.le(stored)
        for _ in channels {
          for x in 0..<width { out += Self.le(values[y * width + x].bitPattern) }
        }
      }
      return out
    }
  }

  func decodeError(_ data: [UInt8]) -> String? {
    do {
      _ = try ImageCodec.decodeFloat32(data)
      return nil
    } catch {
      #expect(!error.message.contains("\n"), "one line: \(error.message)")
      return error.message
    }
  }

  @Test func aWellFormedImageDecodes() throws {
    let image = EXR(width: 5, height: 3)
    let decoded = try ImageCodec.decodeFloat32(image.bytes)
    #expect(decoded.width == 5 && decoded.height == 3 && decoded.values == image.values)
  }

  @Test func whatOpenCVWritesIsAccepted() throws {
    let folder = RecordingFixtures.temporaryFolder("exr")
    defer { try? FileManager.default.removeItem(atPath: folder) }
    for (width, height) in [(64, 48), (1000, 40)] {
      for constant in [false, true] {  // a constant image is compressed the most
        let values = (0..<(width * height)).map { constant ? 1.5 : Float($0 % 97) * 0.01 }
        let path = folder + "/\(width)-\(constant).exr"
        try ImageCodec.writeFloat32(width: width, height: height, values: values, to: path)
        let decoded = try ImageCodec.decodeFloat32([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        #expect(decoded.width == width && decoded.values == values)
      }
    }
  }

  /// The committed fuzz seeds, written by OpenCV: FLOAT (ZIP) and HALF channels.
  @Test func theCommittedSeedsDecode() throws {
    let folder = Datasets.root + "/Tests/Fixtures/exr/"
    let float = try ImageCodec.decodeFloat32(
      [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "depth-8x6.exr"))))
    #expect(float.width == 8 && float.height == 6)
    #expect(float.values == (0..<48).map { 0.5 + 0.01 * Float($0) })
    let half = try ImageCodec.decodeFloat32(
      [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "half-16x20.exr"))))
    #expect(half.width == 16 && half.height == 20 && half.values.allSatisfy { $0 == 1.25 })
  }

  /// The fuzzer's finding: a dataWindow, then a garbled attribute that declared 1.8 GB.
  @Test func theOutOfMemoryFindingIsAOneLineError() throws {
    let path = Datasets.root + "/Tests/Fixtures/exr/oom-garbled-header.exr"
    let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    #expect(data.count == 67)
    #expect(decodeError(data) == "OpenEXR header has an empty attribute type (at byte 55)")
    #expect(throws: VisionError.self) { try ImageCodec.decodeGray(data) }
  }

  @Test func attributesAreChecked() {
    #expect(
      decodeError([0x76, 0x2F, 0x31, 0x01, 2, 0, 0, 0, 0]) == "OpenEXR header has no 'channels' attribute")
    var image = EXR()
    image.attributes.removeFirst()
    #expect(decodeError(image.bytes) == "OpenEXR header has no 'compression' attribute")
    image = EXR()
    image.attributes.append(("comment", "string", []))
    var bytes = image.bytes
    let at = bytes.count - image.height * (8 + 8 + 16) - 1 - 4
    bytes.replaceSubrange(at..<(at + 4), with: [0xFF, 0xFF, 0xFF, 0xFF])
    #expect(
      decodeError(bytes)
        == "OpenEXR attribute 'comment' declares 4294967295 bytes; \(bytes.count - at - 4) are left in the data"
    )
    image = EXR()
    image.attributes.append(image.attributes[1])
    #expect(decodeError(image.bytes) == "OpenEXR attribute 'dataWindow' appears twice")
    image = EXR()
    image.attributes[0].2 = [10]
    #expect(decodeError(image.bytes) == "OpenEXR compression 10 is unknown (0 NONE ... 9 DWAB)")
    image = EXR()
    image.attributes[4].1 = "double"
    #expect(
      decodeError(image.bytes) == "OpenEXR attribute 'pixelAspectRatio' is a 4-byte 'double' (expected float)"
    )
    image = EXR()
    image.version = 0x202
    #expect(decodeError(image.bytes) == "tiled OpenEXR images are not read (only scanline images)")
    image.version = 0x1002
    #expect(decodeError(image.bytes) == "multi-part OpenEXR files are not read (only single-part images)")
  }

  @Test func channelListsAreChecked() {
    var image = EXR()
    image.pixelType = 3
    #expect(
      decodeError(image.bytes) == "OpenEXR channel 'Y' has unknown pixel type 3 (0 UINT, 1 HALF, 2 FLOAT)")
    image = EXR()
    image.channels = (0..<65).map { "c\($0)" }
    #expect(decodeError(image.bytes) == "OpenEXR channel list has more than 64 channels")
    image.channels = ["Y", "Y"]
    #expect(decodeError(image.bytes) == "OpenEXR channel 'Y' is listed twice")
    image.channels = ["a\nb"]
    image.pixelType = -1
    #expect(
      decodeError(image.bytes)
        == #"OpenEXR channel 'a\x0Ab' has unknown pixel type -1 (0 UINT, 1 HALF, 2 FLOAT)"#)
    image.channels = []
    #expect(decodeError(image.bytes) == "OpenEXR channel list is empty")
  }

  @Test func windowsAreBounded() {
    let limit = "more than the 16384 x 16384 (67108864 pixels) accepted"
    var image = EXR()
    image.attributes[1].2 = [0, 0, 99_999, 99_999].flatMap { EXR.le(Int32($0)) }
    #expect(decodeError(image.bytes) == "OpenEXR header declares 100000 x 100000 pixels, \(limit)")
    image = EXR()
    image.attributes[1].2 = [0, 0, -5, 0].flatMap { EXR.le(Int32($0)) }
    #expect(decodeError(image.bytes) == "OpenEXR dataWindow is empty (-4 x 1 pixels)")
    // 64 float channels of 4096 x 4096 pixels: 4 GiB of pixels in a file of a few hundred bytes.
    image = EXR()
    image.channels = (0..<64).map { "c\($0)" }
    image.attributes[1].2 = [0, 0, 4095, 4095].flatMap { EXR.le(Int32($0)) }
    #expect(
      decodeError(image.bytes)
        == "OpenEXR channels hold 4294967296 bytes of pixels, more than the 268435456 accepted")
  }

  @Test func theOffsetTableAndChunksAreChecked() {
    let image = EXR()
    let bytes = image.bytes
    let headerEnd = bytes.count - image.height * (8 + 8 + 16)
    #expect(
      decodeError(Array(bytes[..<(headerEnd + 12)]))
        == "OpenEXR line-offset table (2 entries) runs past the end of the data (\(headerEnd + 12) bytes)")
    var damaged = image
    damaged.offsets[1] = 1 << 40
    #expect(
      decodeError(damaged.bytes)
        == "OpenEXR line offset 1 (1099511627776) is outside the pixel data (bytes \(headerEnd + 16)...\(bytes.count))"
    )
    damaged = image
    damaged.chunks[1] = (5, 16)
    #expect(decodeError(damaged.bytes) == "OpenEXR chunk 1 starts at scanline 5; expected 1")
    damaged = image
    damaged.chunks[0] = (0, 8)
    #expect(
      decodeError(damaged.bytes)
        == "OpenEXR chunk 0 stores 8 bytes for 16 bytes of pixels (40 left in the data, compression 0)")
    damaged.chunks[0] = (0, 1 << 30)
    #expect(decodeError(damaged.bytes)?.hasPrefix("OpenEXR chunk 0 stores 1073741824 bytes") == true)
  }
}
