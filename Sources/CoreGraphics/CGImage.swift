import Foundation

// A bitmap image as CoreGraphics describes one: pixel bytes from a data provider and the layout that reads
// them (bits per component and per pixel, bytes per row, colour space, alpha and byte order). ARSim draws
// nothing, so there is no `CGContext`; images are made from bytes and read back as bytes (for instance by
// RealityKit's `TextureResource.generate(from:withName:options:)`).

/// Core Foundation's immutable byte buffer, which Linux's Foundation does not expose: `NSData` (toll-free
/// bridged with `CFData` on Apple platforms), so `data as CFData` compiles unchanged.
public typealias CFData = NSData
/// Core Foundation's string, which Linux's Foundation does not expose: `NSString` (toll-free bridged with
/// `CFString` on Apple platforms), the type of colour-space names.
public typealias CFString = NSString

/// The number of bytes in `data` (Core Foundation's `CFDataGetLength`).
public func CFDataGetLength(_ data: CFData) -> Int { data.length }

/// The first byte of `data` (Core Foundation's `CFDataGetBytePtr`); valid while `data` lives.
public func CFDataGetBytePtr(_ data: CFData) -> UnsafePointer<UInt8>! {
  data.bytes.assumingMemoryBound(to: UInt8.self)
}

/// A source of bytes (CoreGraphics' `CGDataProvider`). Only in-memory providers exist here.
public final class CGDataProvider: Sendable {
  private let bytes: Data

  /// A provider of a copy of `data`'s bytes. Never nil here; the optional is CoreGraphics'.
  public init?(data: CFData) {
    bytes = Data(referencing: data)
  }

  /// A copy of the provider's bytes (CoreGraphics' `data`).
  public var data: CFData? { NSData(data: bytes) }

  /// The provider's bytes, without a copy through `NSData`.
  package var contents: Data { bytes }
}

/// How a colour space models colour (CoreGraphics' `CGColorSpaceModel`).
public enum CGColorSpaceModel: Int32, Sendable {
  /// An unknown model.
  case unknown = -1
  /// Grey levels: one component.
  case monochrome = 0
  /// Red, green and blue: three components.
  case rgb = 1
  /// Cyan, magenta, yellow and black: four components.
  case cmyk = 2
}

/// A colour space (CoreGraphics' `CGColorSpace`): its name, model and number of colour components (without
/// alpha). Only grey and RGB spaces are known here; no colour conversion happens between them.
public final class CGColorSpace: Sendable {
  /// The space's name, one of the `CGColorSpace` name constants, or nil for device spaces.
  public var name: CFString? { key.map { NSString(string: $0) } }
  private let key: String?
  /// The space's model.
  public let model: CGColorSpaceModel
  /// The number of colour components (1 for grey, 3 for RGB), alpha not counted.
  public var numberOfComponents: Int { model == .monochrome ? 1 : model == .rgb ? 3 : 0 }

  init(key: String?, model: CGColorSpaceModel) {
    self.key = key
    self.model = model
  }

  /// The colour space of this name (``sRGB``, ``linearSRGB``, ``extendedSRGB``, ``displayP3``,
  /// ``genericRGBLinear``, ``genericGrayGamma2_2``, ``linearGray``, ``extendedGray``), or nil for a name not
  /// known here.
  public convenience init?(name: CFString) {
    let key = name as String
    if CGColorSpace.rgbNames.contains(key) {
      self.init(key: key, model: .rgb)
    } else if CGColorSpace.grayNames.contains(key) {
      self.init(key: key, model: .monochrome)
    } else {
      return nil
    }
  }

  /// The standard RGB space (IEC 61966-2-1).
  public static var sRGB: CFString { "kCGColorSpaceSRGB" }
  /// sRGB primaries with a linear transfer function.
  public static var linearSRGB: CFString { "kCGColorSpaceLinearSRGB" }
  /// sRGB extended beyond 0...1.
  public static var extendedSRGB: CFString { "kCGColorSpaceExtendedSRGB" }
  /// Display P3 primaries with sRGB's transfer function.
  public static var displayP3: CFString { "kCGColorSpaceDisplayP3" }
  /// Generic RGB with a linear transfer function.
  public static var genericRGBLinear: CFString { "kCGColorSpaceGenericRGBLinear" }
  /// Grey with a 2.2 gamma.
  public static var genericGrayGamma2_2: CFString { "kCGColorSpaceGenericGrayGamma2_2" }
  /// Grey with a linear transfer function.
  public static var linearGray: CFString { "kCGColorSpaceLinearGray" }
  /// Grey extended beyond 0...1.
  public static var extendedGray: CFString { "kCGColorSpaceExtendedGray" }

  private static let rgbNames: Set<String> = [
    "kCGColorSpaceSRGB", "kCGColorSpaceLinearSRGB", "kCGColorSpaceExtendedSRGB", "kCGColorSpaceDisplayP3",
    "kCGColorSpaceGenericRGBLinear",
  ]
  private static let grayNames: Set<String> = [
    "kCGColorSpaceGenericGrayGamma2_2", "kCGColorSpaceLinearGray", "kCGColorSpaceExtendedGray",
  ]
}

/// The device-dependent RGB space (CoreGraphics' `CGColorSpaceCreateDeviceRGB`).
public func CGColorSpaceCreateDeviceRGB() -> CGColorSpace { CGColorSpace(key: nil, model: .rgb) }

/// The device-dependent grey space (CoreGraphics' `CGColorSpaceCreateDeviceGray`).
public func CGColorSpaceCreateDeviceGray() -> CGColorSpace { CGColorSpace(key: nil, model: .monochrome) }

/// Where a pixel keeps its alpha, and whether colour is premultiplied by it (CoreGraphics'
/// `CGImageAlphaInfo`, with its raw values).
public enum CGImageAlphaInfo: UInt32, Sendable {
  /// No alpha.
  case none = 0
  /// Alpha last, colour premultiplied by it (RGBA).
  case premultipliedLast = 1
  /// Alpha first, colour premultiplied by it (ARGB).
  case premultipliedFirst = 2
  /// Alpha last, colour not premultiplied.
  case last = 3
  /// Alpha first, colour not premultiplied.
  case first = 4
  /// A last byte that is ignored (RGBX).
  case noneSkipLast = 5
  /// A first byte that is ignored (XRGB).
  case noneSkipFirst = 6
  /// Alpha only, no colour.
  case alphaOnly = 7
}

/// A pixel layout (CoreGraphics' `CGBitmapInfo`): the alpha information in the low five bits
/// (``CGImageAlphaInfo``'s raw value), float components, and the byte order of 16- and 32-bit words.
public struct CGBitmapInfo: OptionSet, Sendable, Hashable {
  /// The bits.
  public let rawValue: UInt32
  /// A layout of these bits.
  public init(rawValue: UInt32) { self.rawValue = rawValue }

  /// The bits that hold a ``CGImageAlphaInfo``.
  public static let alphaInfoMask = CGBitmapInfo(rawValue: 0x1F)
  /// The bits that describe floating-point components.
  public static let floatInfoMask = CGBitmapInfo(rawValue: 0xF00)
  /// Components are floating-point numbers.
  public static let floatComponents = CGBitmapInfo(rawValue: 1 << 8)
  /// The bits that hold the byte order.
  public static let byteOrderMask = CGBitmapInfo(rawValue: 0x7000)
  /// The default byte order (big-endian: components in memory order).
  public static let byteOrderDefault = CGBitmapInfo([])
  /// 16-bit words, little-endian.
  public static let byteOrder16Little = CGBitmapInfo(rawValue: 1 << 12)
  /// 32-bit words, little-endian: an ARGB pixel is stored B, G, R, A.
  public static let byteOrder32Little = CGBitmapInfo(rawValue: 2 << 12)
  /// 16-bit words, big-endian.
  public static let byteOrder16Big = CGBitmapInfo(rawValue: 3 << 12)
  /// 32-bit words, big-endian.
  public static let byteOrder32Big = CGBitmapInfo(rawValue: 4 << 12)
}

/// How colours outside a space's gamut are mapped (CoreGraphics' `CGColorRenderingIntent`); kept, not used.
public enum CGColorRenderingIntent: Int32, Sendable {
  /// The default intent.
  case defaultIntent = 0
  /// Absolute colorimetric.
  case absoluteColorimetric = 1
  /// Relative colorimetric.
  case relativeColorimetric = 2
  /// Perceptual.
  case perceptual = 3
  /// Saturation.
  case saturation = 4
}

/// A bitmap image (CoreGraphics' `CGImage`): pixel bytes and the layout that reads them. Immutable.
public final class CGImage: Sendable {
  /// The width, pixels.
  public let width: Int
  /// The height, pixels.
  public let height: Int
  /// The bits of one colour or alpha component.
  public let bitsPerComponent: Int
  /// The bits of one pixel (components plus any skipped bits).
  public let bitsPerPixel: Int
  /// The bytes from the start of one row to the start of the next (at least the pixels of a row).
  public let bytesPerRow: Int
  /// The colour space of the colour components.
  public let colorSpace: CGColorSpace?
  /// The pixel layout: alpha information and byte order.
  public let bitmapInfo: CGBitmapInfo
  /// The source of the pixel bytes, rows from the top.
  public let dataProvider: CGDataProvider?
  /// Whether the image is smoothed when scaled; kept, not used.
  public let shouldInterpolate: Bool
  /// How out-of-gamut colours are mapped; kept, not used.
  public let renderingIntent: CGColorRenderingIntent

  /// The alpha information of ``bitmapInfo``.
  public var alphaInfo: CGImageAlphaInfo {
    CGImageAlphaInfo(rawValue: bitmapInfo.rawValue & CGBitmapInfo.alphaInfoMask.rawValue) ?? .none
  }

  /// The byte order of ``bitmapInfo`` (one of the `byteOrder` options, or empty for the default).
  public var byteOrderInfo: CGBitmapInfo { bitmapInfo.intersection(.byteOrderMask) }

  /// An image of `height` rows of `bytesPerRow` bytes from `provider`, as CoreGraphics'
  /// `init(width:height:bitsPerComponent:bitsPerPixel:bytesPerRow:space:bitmapInfo:provider:decode:shouldInterpolate:intent:)`.
  /// Nil, as there, when the layout is inconsistent: a non-positive size, a component size other than 1, 2,
  /// 4, 5, 8, 16 or 32 bits, fewer bits per pixel than the colour space's components (plus alpha) need,
  /// rows shorter than their pixels, or a provider holding fewer bytes than the rows. `decode` (component
  /// remapping) is not supported: a non-nil `decode` also gives nil.
  public init?(
    width: Int, height: Int, bitsPerComponent: Int, bitsPerPixel: Int, bytesPerRow: Int, space: CGColorSpace,
    bitmapInfo: CGBitmapInfo, provider: CGDataProvider, decode: UnsafePointer<CGFloat>?,
    shouldInterpolate: Bool,
    intent: CGColorRenderingIntent
  ) {
    guard width > 0, height > 0, decode == nil, [1, 2, 4, 5, 8, 16, 32].contains(bitsPerComponent) else {
      return nil
    }
    let alpha = CGImageAlphaInfo(rawValue: bitmapInfo.rawValue & CGBitmapInfo.alphaInfoMask.rawValue)
    guard let alpha, space.numberOfComponents > 0 else { return nil }
    let components = space.numberOfComponents + (alpha == .none ? 0 : 1)
    let (rowBits, overflow) = width.multipliedReportingOverflow(by: bitsPerPixel)
    guard bitsPerPixel >= components * bitsPerComponent, !overflow, bytesPerRow >= (rowBits + 7) / 8 else {
      return nil
    }
    let (needed, tooMany) = bytesPerRow.multipliedReportingOverflow(by: height - 1)
    guard !tooMany, provider.contents.count >= needed + (rowBits + 7) / 8 else { return nil }
    self.width = width
    self.height = height
    self.bitsPerComponent = bitsPerComponent
    self.bitsPerPixel = bitsPerPixel
    self.bytesPerRow = bytesPerRow
    colorSpace = space
    self.bitmapInfo = bitmapInfo
    dataProvider = provider
    self.shouldInterpolate = shouldInterpolate
    renderingIntent = intent
  }

  /// The part of the image inside `rect` (pixels, origin at the top-left corner), as CoreGraphics'
  /// `cropping(to:)`: the rectangle is rounded outwards to whole pixels and clipped to the image; nil when
  /// nothing is left. The result keeps this image's layout and copies only the rows it covers.
  public func cropping(to rect: CGRect) -> CGImage? {
    let r = rect.standardized.intersection(CGRect(x: 0, y: 0, width: width, height: height))
    guard !r.isNull, !r.isEmpty, bitsPerPixel % 8 == 0, let provider = dataProvider else { return nil }
    let x0 = Int(r.minX.rounded(.down))
    let y0 = Int(r.minY.rounded(.down))
    let x1 = Int(r.maxX.rounded(.up))
    let y1 = Int(r.maxY.rounded(.up))
    let bytesPerPixel = bitsPerPixel / 8
    let rowBytes = (x1 - x0) * bytesPerPixel
    let source = provider.contents
    var bytes = Data(capacity: rowBytes * (y1 - y0))
    for y in y0..<y1 {
      let start = source.startIndex + y * bytesPerRow + x0 * bytesPerPixel
      bytes.append(source[start..<(start + rowBytes)])
    }
    guard let space = colorSpace, let cropped = CGDataProvider(data: bytes as CFData) else { return nil }
    return CGImage(
      width: x1 - x0, height: y1 - y0, bitsPerComponent: bitsPerComponent, bitsPerPixel: bitsPerPixel,
      bytesPerRow: rowBytes, space: space, bitmapInfo: bitmapInfo, provider: cropped, decode: nil,
      shouldInterpolate: shouldInterpolate, intent: renderingIntent)
  }
}
