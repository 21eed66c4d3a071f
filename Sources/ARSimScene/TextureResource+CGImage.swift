import ARSim
import Foundation

// Textures from in-memory CoreGraphics images, as RealityKit makes them: the image's pixels are read
// through its layout (component size, pixel size, row stride, alpha position, byte order) into the
// texture's 8-bit RGB pixels.
extension TextureResource {
  /// The texture of `cgImage`'s pixels, as RealityKit's `generate(from:withName:options:)`. Alpha is not
  /// kept (as for image files); premultiplied colour is divided by its alpha first. 16-bit components keep
  /// their high byte.
  /// - Throws: ``TextureError`` naming the resource and the problem for layouts ARSim does not read:
  ///   floating-point or sub-byte components, an alpha-only image, or a colour space other than grey or RGB.
  public static func generate(
    from cgImage: CGImage, withName resourceName: String? = nil, options: TextureResource.CreateOptions
  ) throws -> TextureResource {
    let name = resourceName ?? ""
    return TextureResource(image: try rgbImage(of: cgImage, name: name), name: name)
  }

  /// The texture of `cgImage`'s pixels, made without blocking (RealityKit's async
  /// `generate(from:named:options:)`); as ``generate(from:withName:options:)``.
  public static func generate(
    from cgImage: CGImage, named resourceName: String? = nil, options: TextureResource.CreateOptions
  ) async throws -> TextureResource {
    try generate(from: cgImage, withName: resourceName, options: options)
  }

  /// A texture of `cgImage`'s pixels (RealityKit's async `init(image:withName:options:)`); as
  /// ``generate(from:withName:options:)``.
  public convenience init(
    image cgImage: CGImage, withName resourceName: String? = nil, options: TextureResource.CreateOptions
  ) async throws {
    let name = resourceName ?? ""
    self.init(image: try Self.rgbImage(of: cgImage, name: name), name: name)
  }

  /// `image`'s pixels as 8-bit RGB, rows from the top.
  static func rgbImage(of image: CGImage, name: String) throws -> RGBImage {
    func unsupported(_ what: String) -> TextureError {
      TextureError(file: name.isEmpty ? "CGImage" : name, problem: "has \(what), which ARSim cannot read")
    }
    let colorComponents: Int
    switch image.colorSpace?.model {
    case .rgb?: colorComponents = 3
    case .monochrome?: colorComponents = 1
    default: throw unsupported("a colour space other than grey or RGB")
    }
    let alpha = image.alphaInfo
    guard alpha != .alphaOnly else { throw unsupported("no colour (alpha only)") }
    guard !image.bitmapInfo.contains(.floatComponents) else { throw unsupported("floating-point components") }
    let componentBytes: Int
    switch image.bitsPerComponent {
    case 8: componentBytes = 1
    case 16: componentBytes = 2
    default: throw unsupported("\(image.bitsPerComponent)-bit components")
    }
    guard image.bitsPerPixel % (8 * componentBytes) == 0 else {
      throw unsupported("\(image.bitsPerPixel) bits per pixel")
    }
    let slots = image.bitsPerPixel / (8 * componentBytes)
    let hasAlphaSlot = alpha != .none
    guard slots >= colorComponents + (hasAlphaSlot ? 1 : 0), let data = image.dataProvider?.data else {
      throw unsupported("fewer bits per pixel than its components")
    }
    // Where colour and alpha sit among a pixel's slots, in the image's logical component order.
    let alphaFirst = [.first, .premultipliedFirst, .noneSkipFirst].contains(alpha)
    let colorStart = alphaFirst ? 1 : 0
    let alphaSlot: Int? =
      [.first, .premultipliedFirst].contains(alpha)
      ? 0 : [.last, .premultipliedLast].contains(alpha) ? colorComponents : nil
    let premultiplied = alpha == .premultipliedFirst || alpha == .premultipliedLast
    // Little-endian words store a word's components in reverse: 32-bit words reverse a 4-byte pixel,
    // 16-bit words reverse each 2-byte unit (a 16-bit component, or two 8-bit components).
    let order = image.byteOrderInfo
    let wordBytes = order == .byteOrder32Little ? 4 : order == .byteOrder16Little ? 2 : 1
    let pixelBytes = image.bitsPerPixel / 8
    let count = CFDataGetLength(data)
    let bytes = UnsafeBufferPointer(start: CFDataGetBytePtr(data), count: count)
    var pixels = [UInt8](repeating: 0, count: 3 * image.width * image.height)
    // The high byte of component `slot` of the pixel starting at byte `base`.
    func component(_ base: Int, _ slot: Int) -> Int {
      var offset = slot * componentBytes
      if componentBytes == 1 {
        if wordBytes > 1 {
          let word = offset / wordBytes * wordBytes
          offset = word + (wordBytes - 1 - offset % wordBytes)
        }
        return Int(bytes[base + offset])
      }
      return Int(bytes[base + offset + (wordBytes == 2 ? 1 : 0)])
    }
    for y in 0..<image.height {
      for x in 0..<image.width {
        let base = y * image.bytesPerRow + x * pixelBytes
        var color = (0..<colorComponents).map { component(base, colorStart + $0) }
        if premultiplied, let alphaSlot {
          let a = component(base, alphaSlot)
          color = color.map { a == 0 ? 0 : Swift.min(255, ($0 * 255 + a / 2) / a) }
        }
        let out = 3 * (y * image.width + x)
        for channel in 0..<3 {
          pixels[out + channel] = UInt8(color[colorComponents == 1 ? 0 : channel])
        }
      }
    }
    return RGBImage(width: image.width, height: image.height, pixels: pixels)
  }
}
