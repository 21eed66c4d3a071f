import ARSimTestSupport
import Foundation
import Testing

@testable import ARSim

/// Depth EXRs decoded with OpenEXR's own library: the depth channel chosen by name, HALF widened
/// exactly, against files written by OpenEXR's Python binding (Tools/make_exr_fixtures.py) and by
/// ARSim's encoder.
@Suite struct ExrDecodeTests {
  static let folder = Datasets.root + "/Tests/Fixtures/exr/"

  static func fixture(_ name: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + name)))
  }

  /// 0.5 + x/8 + y/4, 0 at (0, 0): exact in half floats.
  static let rValues: [Float] = (0..<48).map { (i: Int) -> Float in
    let x = Float(i % 8)
    let y = Float(i / 8)
    return i == 0 ? 0 : 0.5 + x / 8 + y / 4
  }
  /// 1 + 0.01 i as float32.
  static let zValues: [Float] = (0..<48).map { 1 + 0.01 * Float($0) }

  func decodeError(_ data: [UInt8]) -> String? {
    do {
      _ = try ImageCodec.decodeFloat32(data)
      return nil
    } catch {
      #expect(!error.message.contains("\n"), "one line: \(error.message)")
      return error.message
    }
  }

  /// What Record3D's EXR export holds (a lone HALF `R`), and a lone channel of other names, types
  /// and compressions.
  @Test(arguments: [
    ("r3d-R-half-8x6.exr", rValues), ("depth-half-piz-8x6.exr", rValues), ("Z-float-8x6.exr", zValues),
  ])
  func aLoneChannelIsTheDepth(_ name: String, _ expected: [Float]) throws {
    let decoded = try ImageCodec.decodeFloat32(try Self.fixture(name))
    #expect(decoded.width == 8 && decoded.height == 6)
    #expect(decoded.values.map(\.bitPattern) == expected.map(\.bitPattern))
  }

  @Test func aChannelNamedZWinsAmongSeveral() throws {
    let decoded = try ImageCodec.decodeFloat32(try Self.fixture("RGBZ-8x6.exr"))
    #expect(decoded.values.map(\.bitPattern) == Self.zValues.map(\.bitPattern))
  }

  @Test func ambiguousAndIntegerChannelsAreOneLineErrors() throws {
    #expect(
      decodeError(try Self.fixture("RG-half-8x6.exr"))
        == "OpenEXR image has 2 channels (G, R) and none is named Z, D or depth: which one is depth is"
        + " ambiguous (expected one channel, or one named Z, D or depth)")
    #expect(
      decodeError(try Self.fixture("A-uint-8x6.exr"))
        == "OpenEXR depth channel 'A' holds UINT samples, not HALF or FLOAT")
    let two = try ImageCodec.encodeEXR(
      width: 4, height: 3,
      channels: [("Z", Array(repeating: 1, count: 12)), ("depth", Array(repeating: 2, count: 12))],
      type: .float)
    #expect(
      decodeError(two)?.hasPrefix("OpenEXR image has 2 channels (Z, depth) and several are named") == true)
  }

  /// HALF samples are widened exactly and the encoder rounds to nearest, ties to even, as Swift's
  /// own Float16 conversion does: every half bit pattern goes through.
  @Test func halfFloatsRoundTripExactly() throws {
    let all = (0...UInt16.max).map { Float(Float16(bitPattern: $0)) }
    let width = 256
    let height = all.count / width
    let bytes = try ImageCodec.encodeEXR(
      width: width, height: height, channels: [("R", all)], type: .half, compression: .none)
    let decoded = try ImageCodec.decodeFloat32(bytes)
    for (a, b) in zip(decoded.values, all) where !(a.isNaN && b.isNaN) {
      #expect(a.bitPattern == b.bitPattern)
    }
    #expect(decoded.values.filter(\.isNaN).count == all.filter(\.isNaN).count)
    // Floats between halves: the nearest half, ties to even, beyond 65504 infinity.
    var generator = SplitMix64(seed: 7)
    let floats: [Float] =
      (0..<4096).map { _ in Float(bitPattern: UInt32(truncatingIfNeeded: generator.next())) }.filter {
        !$0.isNaN
      }
      + [
        65504, 65519.99, 65520, 1e-8, 2.9802322e-8, 2.9802326e-8, 5.9604645e-8, -0.0, 1.0009766,
        1.00048828125,
      ]
    let rounded = try ImageCodec.decodeFloat32(
      try ImageCodec.encodeEXR(width: floats.count, height: 1, channels: [("R", floats)], type: .half))
    #expect(rounded.values.map(\.bitPattern) == floats.map { Float(Float16($0)).bitPattern })
  }

  /// The encoder's other compressions and FLOAT keep every value; whatever OpenCV wrote is still read.
  @Test(arguments: [ImageCodec.EXRCompression.none, .rle, .zips, .zip, .piz])
  func everyCompressionRoundTrips(_ compression: ImageCodec.EXRCompression) throws {
    let width = 37
    let height = 41
    let values = (0..<(width * height)).map { Float($0 % 113) * 0.013 + 0.2 }
    let bytes = try ImageCodec.encodeEXR(
      width: width, height: height, channels: [("depth", values)], type: .float, compression: compression)
    let decoded = try ImageCodec.decodeFloat32(bytes)
    #expect(decoded.width == width && decoded.height == height && decoded.values == values)
  }

  /// Damaged chunks are one line that names no file (the data never was one) and holds nothing the
  /// library printed.
  @Test func damagedDataIsAOneLineErrorWithoutAFileName() throws {
    let values = (0..<(64 * 48)).map { Float($0 % 97) * 0.01 + 0.5 }
    let good = try ImageCodec.encodeEXR(width: 64, height: 48, channels: [("R", values)], type: .half)
    var rejected = 0
    var generator = SplitMix64(seed: 3)
    for _ in 0..<200 {
      var data = good
      let at = 300 + Int(generator.next() % UInt64(data.count - 300))
      data[at] ^= UInt8(1 + generator.next() % 255)
      guard let message = decodeError(data) else { continue }
      rejected += 1
      #expect(!message.contains("/tmp") && !message.contains(".exr") && !message.contains("\r"))
    }
    #expect(rejected > 0)
    for cut in [good.count - 1, good.count / 2, 400] {
      #expect(decodeError(Array(good[..<cut])) != nil)
    }
  }
}
