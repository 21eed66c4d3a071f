import ARSimTestSupport
import Foundation
import Testing

@testable import ARSim

/// The PNG decoder on the layouts OpenCV's encoder never writes: palettes, bit depths under 8 and
/// Adam7 interlacing, built by hand (stored deflate blocks) with known pixels.
@Suite struct PNGDecoderTests {
  /// A zlib stream of `data` in one stored (uncompressed) deflate block.
  static func zlibStored(_ data: [UInt8]) -> [UInt8] {
    let length = UInt16(data.count)
    var a: UInt32 = 1
    var b: UInt32 = 0
    for byte in data {
      a = (a + UInt32(byte)) % 65521
      b = (b + a) % 65521
    }
    let adler = b << 16 | a
    return [
      0x78, 0x01, 0x01, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8),
    ]
      + data + [24, 16, 8, 0].map { UInt8((adler >> $0) & 0xFF) }
  }

  @Test func twoBitPaletteImagesDecodeToTheirColours() throws {
    // 5 x 2 pixels, indices 0 1 2 3 0 / 3 2 1 0 3, four per byte, each row after filter byte 0.
    let rows: [UInt8] = [0, 0b0001_1011, 0b0000_0000, 0, 0b1110_0100, 0b1100_0000]
    let palette: [UInt8] = [0, 0, 0, 255, 0, 0, 0, 255, 0, 90, 90, 90]
    let data = ImageLimitsTests.png(
      width: 5, height: 2, depth: 2, colorType: 3, chunks: [("PLTE", palette)], idat: Self.zlibStored(rows))
    let indices = [0, 1, 2, 3, 0, 3, 2, 1, 0, 3]
    let rgb = try ImageCodec.decodeRGB(data)
    #expect(rgb.width == 5 && rgb.height == 2)
    #expect(rgb.pixels == indices.flatMap { Array(palette[$0 * 3..<$0 * 3 + 3]) })
    // Grey with libpng's BT.601 weights, as OpenCV gives: red 76, green 149, grey as is.
    let grey = try ImageCodec.decodeGray(data)
    #expect(grey.pixels == indices.map { [0, 76, 149, 90][$0] })
    #expect(throws: VisionError.self) { try ImageCodec.decodeDepth16(data) }
  }

  @Test func adam7InterlacedImagesDecodeToTheirPixels() throws {
    let (width, height) = (10, 9)
    let value = { (x: Int, y: Int) in UInt8(y * width + x) }
    // The seven passes (x0, y0, dx, dy), each a reduced image with rows after filter byte 0.
    let passes = [
      (0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2),
    ]
    var raw: [UInt8] = []
    for (x0, y0, dx, dy) in passes {
      for y in stride(from: y0, to: height, by: dy) where x0 < width {
        raw.append(0)
        for x in stride(from: x0, to: width, by: dx) { raw.append(value(x, y)) }
      }
    }
    let data = ImageLimitsTests.png(
      width: UInt32(width), height: UInt32(height), interlace: 1, idat: Self.zlibStored(raw))
    let grey = try ImageCodec.decodeGray(data)
    #expect(grey.pixels == (0..<height).flatMap { y in (0..<width).map { value($0, y) } })
  }

  /// `raw` rows of `rowBytes` bytes filtered as the PNG specification defines, row `y` with
  /// filter `filters[y]`, for pixels of `step` bytes (the reference the decoder is checked against).
  static func filtered(_ raw: [UInt8], rowBytes: Int, step: Int, filters: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    for (y, filter) in filters.enumerated() {
      out.append(filter)
      for x in 0..<rowBytes {
        let a = x >= step ? Int(raw[y * rowBytes + x - step]) : 0
        let b = y > 0 ? Int(raw[(y - 1) * rowBytes + x]) : 0
        let c = x >= step && y > 0 ? Int(raw[(y - 1) * rowBytes + x - step]) : 0
        let p = a + b - c
        let (pa, pb, pc) = (abs(p - a), abs(p - b), abs(p - c))
        let paeth = pa <= pb && pa <= pc ? a : pb <= pc ? b : c
        let predictor = [0, a, b, (a + b) / 2, paeth][Int(filter)]
        out.append(UInt8(truncatingIfNeeded: Int(raw[y * rowBytes + x]) - predictor))
      }
    }
    return out
  }

  @Test func everyFilterTypeIsReversedOnEveryRow() throws {
    // Pseudo-random bytes (so that every predictor branch is taken), each filter on the first
    // row (no row above) and on later rows, for 16-bit grey (2-byte pixels) and RGB (3-byte).
    var state: UInt32 = 12345
    let next = { () -> UInt8 in
      state = state &* 1_103_515_245 &+ 12345
      return UInt8(truncatingIfNeeded: state >> 16)
    }
    let filters: [UInt8] = [4, 3, 2, 1, 0, 4, 4, 3, 3, 1, 2, 4]
    for filter in filters.prefix(5) {
      let (width, height) = (9, filters.count)
      let order = [filter] + filters.dropFirst()
      let depth = (0..<width * height * 2).map { _ in next() }
      let data = ImageLimitsTests.png(
        width: UInt32(width), height: UInt32(height), depth: 16,
        idat: Self.zlibStored(Self.filtered(depth, rowBytes: width * 2, step: 2, filters: order)))
      let values = (0..<width * height).map { UInt16(depth[2 * $0]) << 8 | UInt16(depth[2 * $0 + 1]) }
      #expect(try ImageCodec.decodeDepth16(data).values == values, "16-bit grey, first row filter \(filter)")
      let rgb = (0..<width * height * 3).map { _ in next() }
      let colour = ImageLimitsTests.png(
        width: UInt32(width), height: UInt32(height), colorType: 2,
        idat: Self.zlibStored(Self.filtered(rgb, rowBytes: width * 3, step: 3, filters: order)))
      #expect(try ImageCodec.decodeRGB(colour).pixels == rgb, "RGB, first row filter \(filter)")
    }
  }

  @Test func imageDataOfTheWrongLengthIsAnError() throws {
    let short = ImageLimitsTests.png(width: 4, height: 2, idat: Self.zlibStored([0, 1, 2, 3, 4]))
    #expect(throws: VisionError.self) { try ImageCodec.decodeGray(short) }
    let long = ImageLimitsTests.png(width: 1, height: 1, idat: Self.zlibStored([0, 1, 2, 3]))
    let error = #expect(throws: VisionError.self) { try ImageCodec.decodeGray(long) }
    #expect(error?.message == "PNG holds more image data than its header declares")
    let filter = ImageLimitsTests.png(width: 1, height: 1, idat: Self.zlibStored([7, 1]))
    #expect(throws: VisionError.self) { try ImageCodec.decodeGray(filter) }
  }
}

/// CVision's own PNG and JPEG decoders (libdeflate, libjpeg-turbo directly) against OpenCV's
/// (`imdecode`: libpng, libjpeg) on the files real recordings hold: every decoded byte equal.
@Suite struct DecoderAgreementTests {
  /// The first `count` files (sorted by name) starting with `prefix` and ending in `suffix` in `folder`.
  static func files(_ folder: String, prefix: String = "", suffix: String, count: Int = 3) throws -> [String]
  {
    try FileManager.default.contentsOfDirectory(atPath: folder)
      .filter { $0.hasPrefix(prefix) && $0.hasSuffix(suffix) }.sorted().prefix(count).map {
        folder + "/" + $0
      }
  }

  /// Expects both decoders to give the same size and bytes for `path` in each of `modes`.
  static func expectAgreement(_ path: String, _ modes: [ImageCodec.DecodeMode]) throws {
    let data = try VisionTestSupport.bytes(at: path)
    for mode in modes {
      let own = try ImageCodec.decodeBytes(data, mode: mode)
      let reference = try ImageCodec.decodeBytes(data, mode: mode, withOpenCV: true)
      #expect(own.width == reference.width && own.height == reference.height, "\(path) \(mode)")
      #expect(own.bytes == reference.bytes, "\(path) \(mode): decoded bytes differ from OpenCV's")
    }
  }

  @Test func committedDatasetsDecodeAsOpenCVDecodes() throws {
    var checked = 0
    for name in ["tabletop", "room-phone", "door"] where Datasets.exists(name) {
      let folder = Datasets.path(name)
      for path in try Self.files(folder + "/rgb", suffix: ".png")
        + Self.files(folder + "/rgb", suffix: ".jpg")
      {
        try Self.expectAgreement(path, [.gray, .rgb])
        checked += 1
      }
      for path in try Self.files(folder + "/depth", suffix: ".png") {
        try Self.expectAgreement(path, [.depth16, .gray])
        checked += 1
      }
    }
    #expect(checked > 0)
  }

  @Test(
    .enabled(
      if: Datasets.sharedExists("arkitscenes-40777063") && Datasets.sharedExists("stray-demo2")
        && Datasets.sharedExists("scanner3d-corridor"), "../shared/datasets is absent"))
  func phoneCapturesDecodeAsOpenCVDecodes() throws {
    let arkitscenes = Datasets.shared + "/arkitscenes-40777063/40777063_frames"
    let stray = Datasets.shared + "/stray-demo2"
    let scanner = Datasets.shared + "/scanner3d-corridor/All_Data"
    let cases: [(String, String, String, [ImageCodec.DecodeMode])] = [
      // Grey from these RGB PNGs is left out: CVision's luma differs from OpenCV's on some pixels.
      (arkitscenes + "/lowres_wide", "", ".png", [.rgb]),
      (arkitscenes + "/lowres_depth", "", ".png", [.depth16]),
      (stray + "/depth", "", ".png", [.depth16]),
      (stray + "/confidence", "", ".png", [.gray]),
      (scanner, "frame_", ".jpg", [.gray, .rgb]),
      (scanner, "depth_", ".png", [.depth16]),
      (scanner, "conf_", ".png", [.gray]),
    ]
    for (folder, prefix, suffix, modes) in cases {
      let paths = try Self.files(folder, prefix: prefix, suffix: suffix, count: 2)
      #expect(!paths.isEmpty, "no \(prefix)*\(suffix) files in \(folder)")
      for path in paths { try Self.expectAgreement(path, modes) }
    }
  }
}
