import ARSimScene
import CoreGraphics
import CoreText
import Foundation
import Testing

@Suite struct CoreGraphicsTests {
  /// A `width` × `height` image of `bytes` laid out as told.
  static func image(
    _ bytes: [UInt8], width: Int, height: Int, bitsPerPixel: Int, bytesPerRow: Int,
    space: CGColorSpace = CGColorSpaceCreateDeviceRGB(), info: CGBitmapInfo, bitsPerComponent: Int = 8
  ) -> CGImage? {
    guard let provider = CGDataProvider(data: Data(bytes) as CFData) else { return nil }
    return CGImage(
      width: width, height: height, bitsPerComponent: bitsPerComponent, bitsPerPixel: bitsPerPixel,
      bytesPerRow: bytesPerRow, space: space, bitmapInfo: info, provider: provider, decode: nil,
      shouldInterpolate: true, intent: .defaultIntent)
  }

  /// Red, green / blue, half-transparent white: the colours the layouts below store.
  static let expected: [UInt8] = [255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255]

  @Test func texturesFromRGBAImagesReadEachLayout() throws {
    // RGBA, alpha last, not premultiplied; rows padded to 12 bytes.
    let rgba: [UInt8] = [
      255, 0, 0, 255, 0, 255, 0, 255, 9, 9, 9, 9,
      0, 0, 255, 255, 255, 255, 255, 128, 9, 9, 9, 9,
    ]
    let straight = try #require(
      Self.image(
        rgba, width: 2, height: 2, bitsPerPixel: 32, bytesPerRow: 12,
        info: CGBitmapInfo(rawValue: CGImageAlphaInfo.last.rawValue)))
    #expect(straight.alphaInfo == .last && straight.width == 2 && straight.bytesPerRow == 12)
    let texture = try TextureResource.generate(
      from: straight, withName: "tiles", options: .init(semantic: .color))
    #expect(texture.width == 2 && texture.height == 2 && texture.name == "tiles")
    #expect(texture.image.pixels == Self.expected)

    // The same colours as premultiplied BGRA (ARGB in little-endian 32-bit words): the half-transparent
    // white is stored as 128 and divided back to 255.
    let bgra: [UInt8] = [0, 0, 255, 255, 0, 255, 0, 255, 255, 0, 0, 255, 128, 128, 128, 128]
    let premultiplied = try #require(
      Self.image(
        bgra, width: 2, height: 2, bitsPerPixel: 32, bytesPerRow: 8,
        info: CGBitmapInfo(rawValue: CGImageAlphaInfo.premultipliedFirst.rawValue).union(.byteOrder32Little)))
    #expect(premultiplied.byteOrderInfo == .byteOrder32Little)
    let options = TextureResource.CreateOptions(semantic: nil, mipmapsMode: .none)
    #expect(options.mipmapsMode == .none)
    #expect(try TextureResource.generate(from: premultiplied, options: options).image.pixels == Self.expected)
  }

  @Test func greyImagesBecomeGreyTexturesAndCropKeepsTheirPixels() async throws {
    let space = try #require(CGColorSpace(name: CGColorSpace.genericGrayGamma2_2))
    let grey = try #require(
      Self.image(
        [0, 50, 100, 150, 200, 250], width: 3, height: 2, bitsPerPixel: 8, bytesPerRow: 3, space: space,
        info: []))
    #expect(grey.colorSpace?.numberOfComponents == 1)
    let texture = try await TextureResource(image: grey, withName: "ramp", options: .init(semantic: .raw))
    #expect(
      texture.image.pixels == [
        0, 0, 0, 50, 50, 50, 100, 100, 100, 150, 150, 150, 200, 200, 200, 250, 250, 250,
      ])
    // The right column, both rows: x 1.5 rounds outwards to 1.
    let column = try #require(grey.cropping(to: CGRect(x: 1.5, y: 0, width: 1.5, height: 2)))
    #expect(column.width == 2 && column.height == 2)
    let cropped = try await TextureResource.generate(from: column, options: .init(semantic: nil))
    #expect(cropped.image.gray.pixels == [50, 100, 200, 250])
    #expect(grey.cropping(to: CGRect(x: 5, y: 5, width: 1, height: 1)) == nil, "outside the image")
  }

  @Test func inconsistentLayoutsAndUnreadableImagesAreRefused() throws {
    // 2 × 2 RGBA needs 16 bytes; 15 are given.
    #expect(
      Self.image(
        [UInt8](repeating: 0, count: 15), width: 2, height: 2, bitsPerPixel: 32, bytesPerRow: 8,
        info: CGBitmapInfo(rawValue: CGImageAlphaInfo.last.rawValue)) == nil)
    // Rows shorter than their pixels.
    #expect(
      Self.image(
        [UInt8](repeating: 0, count: 64), width: 2, height: 2, bitsPerPixel: 32, bytesPerRow: 4,
        info: CGBitmapInfo(rawValue: CGImageAlphaInfo.last.rawValue)) == nil)
    #expect(CGColorSpace(name: "no such space") == nil)
    // Float components are a valid image ARSim cannot turn into a texture: a named error, not garbage.
    let float = try #require(
      Self.image(
        [UInt8](repeating: 0, count: 12), width: 1, height: 1, bitsPerPixel: 96, bytesPerRow: 12,
        info: .floatComponents, bitsPerComponent: 32))
    #expect {
      try TextureResource.generate(from: float, withName: "hdr", options: .init(semantic: .hdrColor))
    } throws: { error in
      "\(error)".hasPrefix("hdr: ") && "\(error)".contains("floating-point")
    }
  }

  @Test func vectorsColoursAndTextOptionsKeepCoreGraphicsValues() {
    let offset = CGVector(dx: 3, dy: -4)
    #expect(offset.dx == 3 && offset.dy == -4 && CGVector.zero == CGVector())
    let moved = CGPoint(x: 1, y: 1).applying(CGAffineTransform(translationX: offset.dx, y: offset.dy))
    #expect(moved == CGPoint(x: 4, y: -3))
    #expect(
      CGColor(gray: 0.5, alpha: 0.25).components == [0.5, 0.25]
        && CGColor(gray: 0.5, alpha: 0.25).alpha == 0.25)
    let bytes = Data([7, 8, 9]) as CFData
    #expect(CFDataGetLength(bytes) == 3 && CFDataGetBytePtr(bytes)[2] == 9)
    #expect(CTTextAlignment.center.rawValue == 2 && CTLineBreakMode.byWordWrapping.rawValue == 0)
  }
}
