import ARSim
import Foundation
import Testing

@Suite struct ImageCodecTests {
  typealias Support = VisionTestSupport

  /// A gray gradient with a checker pattern: every value 0...255 occurs.
  static func grayPattern(width: Int = 37, height: Int = 23) -> GrayImage {
    var image = GrayImage(width: width, height: height)
    for y in 0..<height {
      for x in 0..<width {
        image[x, y] = UInt8((x * 7 + y * 13 + ((x / 4 + y / 4) % 2) * 100) % 256)
      }
    }
    return image
  }

  static func rgbPattern(width: Int = 31, height: Int = 17) -> RGBImage {
    var pixels = [UInt8]()
    for y in 0..<height {
      for x in 0..<width {
        pixels += [UInt8((x * 8) % 256), UInt8((y * 15) % 256), UInt8((x * y) % 256)]
      }
    }
    return RGBImage(width: width, height: height, pixels: pixels)
  }

  /// Writes with ImageCodec and returns the encoded bytes.
  static func encoded(_ write: (String) throws -> Void, extension ext: String) throws -> [UInt8] {
    let path = Support.temporaryPath(extension: ext)
    defer { try? FileManager.default.removeItem(atPath: path) }
    try write(path)
    return try Support.bytes(at: path)
  }

  @Test func grayPNGRoundTripIsExact() throws {
    let image = Self.grayPattern()
    let data = try Self.encoded({ try ImageCodec.write(image, to: $0) }, extension: "png")
    #expect(Array(data.prefix(4)) == [0x89, 0x50, 0x4E, 0x47])
    #expect(try ImageCodec.decodeGray(data) == image)
  }

  @Test func rgbPNGRoundTripIsExactAndChannelOrderIsKept() throws {
    let image = Self.rgbPattern()
    let data = try Self.encoded({ try ImageCodec.write(image, to: $0, quality: 9) }, extension: "PNG")
    let decoded = try ImageCodec.decodeRGB(data)
    #expect(decoded == image)
    // Pixel (3, 2): R = 24, G = 30, B = 6 (a swapped R/B would show here).
    let i = 3 * (2 * image.width + 3)
    #expect(Array(decoded.pixels[i..<i + 3]) == [24, 30, 6])
  }

  @Test func depth16PNGRoundTripIsExact() throws {
    let width = 19
    let height = 11
    let values = (0..<(width * height)).map { UInt16(truncatingIfNeeded: $0 * 331 + ($0 % 3) * 20_000) }
    let data = try Self.encoded(
      { try ImageCodec.writeDepth16(width: width, height: height, values: values, to: $0) }, extension: "png")
    let decoded = try ImageCodec.decodeDepth16(data)
    #expect(decoded.width == width)
    #expect(decoded.height == height)
    #expect(decoded.values == values)
    #expect(values.contains { $0 > 40_000 })  // the high byte matters
  }

  @Test func grayAndRGBDecodeConvertBetweenEachOther() throws {
    let gray = Self.grayPattern()
    let grayData = try Self.encoded({ try ImageCodec.write(gray, to: $0) }, extension: "png")
    let asRGB = try ImageCodec.decodeRGB(grayData)
    #expect(asRGB.width == gray.width && asRGB.height == gray.height)
    for i in 0..<gray.pixels.count {
      #expect(asRGB.pixels[3 * i] == gray.pixels[i] && asRGB.pixels[3 * i + 2] == gray.pixels[i])
    }
    let rgb = Self.rgbPattern()
    let rgbData = try Self.encoded({ try ImageCodec.write(rgb, to: $0) }, extension: "png")
    let asGray = try ImageCodec.decodeGray(rgbData)
    // OpenCV's fixed-point BT.601 conversion agrees with ours within one level.
    let expected = rgb.gray
    let worst = zip(asGray.pixels, expected.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 99
    #expect(worst <= 1)
  }

  @Test func jpegRoundTripIsClose() throws {
    let texture = Support.Texture(width: 96, height: 64, seed: 7).render(width: 96, height: 64)
    let data = try Self.encoded({ try ImageCodec.write(texture, to: $0, quality: 95) }, extension: "jpg")
    #expect(Array(data.prefix(2)) == [0xFF, 0xD8])
    let decoded = try ImageCodec.decodeGray(data)
    #expect(decoded.width == 96 && decoded.height == 64)
    let meanError =
      Double(zip(decoded.pixels, texture.pixels).map { abs(Int($0) - Int($1)) }.reduce(0, +))
      / Double(texture.pixels.count)
    #expect(meanError < 2)

    var rgbPixels = [UInt8]()
    for value in texture.pixels { rgbPixels += [value, 255 - value, 128] }
    let rgb = RGBImage(width: 96, height: 64, pixels: rgbPixels)
    let rgbData = try Self.encoded({ try ImageCodec.write(rgb, to: $0, quality: 98) }, extension: "jpeg")
    let decodedRGB = try ImageCodec.decodeRGB(rgbData)
    let rgbError =
      Double(zip(decodedRGB.pixels, rgb.pixels).map { abs(Int($0) - Int($1)) }.reduce(0, +))
      / Double(rgb.pixels.count)
    #expect(rgbError < 4)
  }

  /// Decoded at 1/2, 1/4 and 1/8 (DCT scaling), a JPEG gives ceil(side / reduction) pixels a side,
  /// each close to the mean of the full decode's pixels it stands for (the block's low frequencies).
  @Test func reducedJPEGDecodeGivesTheBlockMeans() throws {
    let (width, height) = (100, 70)  // not multiples of 8: the last blocks are partial
    let texture = Support.Texture(width: width, height: height, seed: 11).render(width: width, height: height)
    let data = try Self.encoded({ try ImageCodec.write(texture, to: $0, quality: 95) }, extension: "jpg")
    let full = try ImageCodec.decodeGray(data)
    #expect(try ImageCodec.decodeGray(data, reduction: 1) == full)
    for reduction in [2, 4, 8] {
      let reduced = try ImageCodec.decodeGray(data, reduction: reduction)
      #expect(reduced.width == (width + reduction - 1) / reduction)
      #expect(reduced.height == (height + reduction - 1) / reduction)
      var total = 0.0
      for y in 0..<reduced.height {
        for x in 0..<reduced.width {
          var sum = 0
          var count = 0
          for v in y * reduction..<min((y + 1) * reduction, height) {
            for u in x * reduction..<min((x + 1) * reduction, width) {
              sum += Int(full[u, v])
              count += 1
            }
          }
          total += abs(Double(reduced[x, y]) - Double(sum) / Double(count))
        }
      }
      let meanError = total / Double(reduced.pixels.count)
      #expect(meanError < 2.5, "reduction \(reduction): mean error \(meanError)")
    }
  }

  @Test func reducedDecodeTakesOnlyJPEGAndPowersOfTwo() throws {
    let png = try Self.encoded({ try ImageCodec.write(Self.grayPattern(), to: $0) }, extension: "png")
    let error = #expect(throws: VisionError.self) { try ImageCodec.decodeGray(png, reduction: 2) }
    #expect(error?.code == VisionError.invalidArgument.code)
    #expect(error?.message.contains("only JPEG") == true)
    #expect(try ImageCodec.decodeGray(png, reduction: 1) == ImageCodec.decodeGray(png))
    let jpeg = try Self.encoded({ try ImageCodec.write(Self.grayPattern(), to: $0) }, extension: "jpg")
    let odd = #expect(throws: VisionError.self) { try ImageCodec.decodeGray(jpeg, reduction: 3) }
    #expect(odd?.message.contains("1, 2, 4 or 8") == true)
  }

  @Test func truncatedPNGIsRejected() throws {
    let data = try Self.encoded({ try ImageCodec.write(Self.grayPattern(), to: $0) }, extension: "png")
    let error = #expect(throws: VisionError.self) { try ImageCodec.decodeGray(Array(data.dropLast(20))) }
    #expect(error?.code == VisionError.decode.code)
    #expect(error?.message.contains("truncated PNG") == true)
    // Cut inside the image data as well.
    let middle = #expect(throws: VisionError.self) {
      try ImageCodec.decodeRGB(Array(data.prefix(data.count / 2)))
    }
    #expect(middle?.code == VisionError.decode.code)
    #expect(middle?.message.contains("truncated") == true)
  }

  @Test func truncatedJPEGIsRejectedButZeroPaddingIsAccepted() throws {
    let texture = Support.Texture(width: 64, height: 48, seed: 3).render(width: 64, height: 48)
    let data = try Self.encoded({ try ImageCodec.write(texture, to: $0) }, extension: "jpg")
    let error = #expect(throws: VisionError.self) { try ImageCodec.decodeGray(Array(data.dropLast(100))) }
    #expect(error?.code == VisionError.decode.code)
    #expect(error?.message.contains("truncated JPEG") == true)
    let padded = data + [UInt8](repeating: 0, count: 16)
    #expect(try ImageCodec.decodeGray(padded) == ImageCodec.decodeGray(data))
  }

  @Test func garbageAndEmptyDataAreRejected() throws {
    var generator = SplitMix64(seed: 42)
    let garbage = (0..<500).map { _ in UInt8.random(in: 0...255, using: &generator) }
    let error = #expect(throws: VisionError.self) { try ImageCodec.decodeGray(garbage) }
    #expect(error?.code == VisionError.decode.code)
    #expect(error?.message == "not a PNG, JPEG or OpenEXR image (unrecognised first bytes)")

    let empty = #expect(throws: VisionError.self) { try ImageCodec.decodeRGB([]) }
    #expect(empty?.code == VisionError.decode.code)
    #expect(empty?.message.contains("empty") == true)

    // A PNG signature followed by garbage is caught as truncated, not crashed on.
    let fakePNG: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + garbage
    let fake = #expect(throws: VisionError.self) { try ImageCodec.decodeDepth16(fakePNG) }
    #expect(fake?.code == VisionError.decode.code)
  }

  @Test func depth16RejectsEightBitImagesNamingTheType() throws {
    let gray = try Self.encoded({ try ImageCodec.write(Self.grayPattern(), to: $0) }, extension: "png")
    let error = #expect(throws: VisionError.self) { try ImageCodec.decodeDepth16(gray) }
    #expect(error?.code == VisionError.decode.code)
    #expect(error?.message == "expected a single-channel 16-bit image, got an 8-bit grey PNG")

    let rgb = try Self.encoded({ try ImageCodec.write(Self.rgbPattern(), to: $0) }, extension: "png")
    let rgbError = #expect(throws: VisionError.self) { try ImageCodec.decodeDepth16(rgb) }
    #expect(rgbError?.message == "expected a single-channel 16-bit image, got an 8-bit RGB PNG")
    #expect(
      {
        do {
          _ = try ImageCodec.decodeDepth16(rgb)
          return false
        } catch VisionError.decode {
          return true  // the `~=` pattern matches by code
        } catch {
          return false
        }
      }())
  }

  @Test func writeRejectsBadPathsAndArguments() throws {
    let image = Self.grayPattern()
    let bmp = #expect(throws: VisionError.self) {
      try ImageCodec.write(image, to: Support.temporaryPath(extension: "bmp"))
    }
    #expect(bmp?.code == VisionError.invalidArgument.code)
    #expect(bmp?.message.contains("extension") == true)

    let missingDirectory = FileManager.default.temporaryDirectory
      .appendingPathComponent("no-such-dir-\(UUID().uuidString)/image.png").path
    let io = #expect(throws: VisionError.self) { try ImageCodec.write(image, to: missingDirectory) }
    #expect(io?.code == VisionError.io.code)

    let quality = #expect(throws: VisionError.self) {
      try ImageCodec.write(image, to: Support.temporaryPath(extension: "jpg"), quality: 0)
    }
    #expect(quality?.code == VisionError.invalidArgument.code)

    let depthJPEG = #expect(throws: VisionError.self) {
      try ImageCodec.writeDepth16(
        width: 2, height: 2, values: [1, 2, 3, 4], to: Support.temporaryPath(extension: "jpg"))
    }
    #expect(depthJPEG?.code == VisionError.invalidArgument.code)

    let wrongCount = #expect(throws: VisionError.self) {
      try ImageCodec.writeDepth16(
        width: 2, height: 2, values: [1, 2, 3], to: Support.temporaryPath(extension: "png"))
    }
    #expect(wrongCount?.code == VisionError.invalidArgument.code)
  }

  @Test func rgbToGrayUsesRoundedBT601Luma() {
    let image = RGBImage(
      width: 5, height: 1, pixels: [255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255, 10, 20, 30])
    // 0.299 * 255 = 76.2, 0.587 * 255 = 149.7, 0.114 * 255 = 29.1, 2.99 + 11.74 + 3.42 = 18.15
    #expect(image.gray.pixels == [76, 150, 29, 255, 18])
    #expect(RGBImage(width: 2, height: 1, fill: (red: 1, green: 2, blue: 3)).pixels == [1, 2, 3, 1, 2, 3])
  }

  @Test func depthImageFromRawValuesMarksZeroAsNaN() {
    let depth = DepthImage(width: 3, height: 1, depth16: [0, 5000, 12_500], metresPerUnit: 1 / 5000)
    #expect(depth.metres[0].isNaN)
    #expect(depth.metres[1] == 1)
    #expect(abs(depth.metres[2] - 2.5) < 1e-6)
    #expect(DepthImage(width: 2, height: 2).metres.allSatisfy { $0.isNaN })
  }
}
