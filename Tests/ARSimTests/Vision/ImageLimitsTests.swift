import Foundation
import Testing

@testable import ARSim

/// Image sizes are bounded from the header before any allocation, and a damaged image is one error
/// message, with nothing printed on stderr.
@Suite struct ImageLimitsTests {
  /// A PNG whose IHDR declares `width` x `height` (default grey, 8-bit, not interlaced), with
  /// `chunks` (type, data) before one IDAT (default tiny) and IEND.
  static func png(
    width: UInt32, height: UInt32, depth: UInt8 = 8, colorType: UInt8 = 0, interlace: UInt8 = 0,
    chunks: [(String, [UInt8])] = [], idat: [UInt8] = [0x78, 0x9C, 0x63, 0, 0, 0, 1, 0, 1]
  ) -> [UInt8] {
    func be(_ v: UInt32) -> [UInt8] {
      [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }
    func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
      let body = Array(type.utf8) + data
      var crc: UInt32 = 0xFFFF_FFFF  // CRC-32 (IEEE), bit by bit
      for byte in body {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
      }
      crc ^= 0xFFFF_FFFF
      return be(UInt32(data.count)) + body + be(crc)
    }
    return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
      + chunk("IHDR", be(width) + be(height) + [depth, colorType, 0, 0, interlace])
      + chunks.flatMap { chunk($0.0, $0.1) } + chunk("IDAT", idat) + chunk("IEND", [])
  }

  /// A baseline JPEG header declaring `width` x `height`, ending with EOI (no real scan data).
  static func jpeg(width: Int, height: Int) -> [UInt8] {
    let sof: [UInt8] = [
      0xFF, 0xC0, 0x00, 0x0B, 0x08, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8),
      UInt8(width & 0xFF), 0x01, 0x01, 0x11, 0x00,
    ]
    return [0xFF, 0xD8] + sof + [0xFF, 0xD9]
  }

  func decodeError(_ data: [UInt8]) -> String? {
    do {
      _ = try ImageCodec.decodeGray(data)
      return nil
    } catch {
      return error.message
    }
  }

  @Test func hugeHeadersAreRefusedBeforeAllocating() {
    let limit = "more than the 16384 x 16384 (67108864 pixels) accepted"
    #expect(
      decodeError(Self.png(width: 1 << 31 - 1, height: 1 << 31 - 1))
        == "PNG header declares 2147483647 x 2147483647 pixels, \(limit)")
    #expect(
      decodeError(Self.png(width: 100_000, height: 100_000))
        == "PNG header declares 100000 x 100000 pixels, \(limit)")
    #expect(
      decodeError(Self.jpeg(width: 65500, height: 65500))
        == "JPEG header declares 65500 x 65500 pixels, \(limit)")
    #expect(
      decodeError(Self.png(width: 16384, height: 8192)) == "PNG header declares 16384 x 8192 pixels, \(limit)"
    )
    #expect(ImageCodec.maxDimension == 16384 && ImageCodec.maxPixels == 1 << 26)
  }

  @Test func damagedPNGDataIsOneErrorAndNothingIsPrinted() throws {
    // Capture this process's stderr around the decode: nothing may reach it.
    let capture = FileManager.default.temporaryDirectory.appendingPathComponent("stderr-\(UUID().uuidString)")
      .path
    let file = open(capture, O_RDWR | O_CREAT | O_TRUNC, 0o600)
    let saved = dup(2)
    fflush(nil)
    dup2(file, 2)
    let message = decodeError(Self.png(width: 32, height: 24, idat: Array("garbage".utf8)))
    fflush(nil)
    dup2(saved, 2)
    close(saved)
    close(file)
    let printed = try String(contentsOfFile: capture, encoding: .utf8)
    // (Other tests running meanwhile may print; the decoder's diagnostics must not be there.)
    #expect(!printed.contains("libpng") && !printed.contains("IDAT"), "printed on stderr: \(printed)")
    #expect(message == "PNG image data (IDAT) is not a valid zlib stream")
  }
}
