/// An 8-bit single-channel image.
///
/// Pixels are row-major and tightly packed: pixel (x, y) is `pixels[y * width + x]`, with
/// (0, 0) the top-left pixel. Values are intensities 0...255; no colour space is implied.
public struct GrayImage: Sendable, Equatable {
  /// Width in pixels.
  public var width: Int
  /// Height in pixels.
  public var height: Int
  /// `width * height` intensities, row by row from the top.
  public var pixels: [UInt8]

  /// Creates an image from its pixels; `pixels.count` must be `width * height` (checked).
  public init(width: Int, height: Int, pixels: [UInt8]) {
    precondition(width >= 0 && height >= 0, "image size must not be negative")
    precondition(pixels.count == width * height, "GrayImage needs width * height pixels")
    self.width = width
    self.height = height
    self.pixels = pixels
  }

  /// Creates an image of one intensity.
  public init(width: Int, height: Int, fill: UInt8 = 0) {
    self.init(width: width, height: height, pixels: [UInt8](repeating: fill, count: width * height))
  }

  /// The intensity at column `x`, row `y` (both must be inside the image).
  public subscript(x: Int, y: Int) -> UInt8 {
    get { pixels[y * width + x] }
    set { pixels[y * width + x] = newValue }
  }
}

/// An 8-bit three-channel colour image.
///
/// Pixels are row-major and tightly packed, three bytes per pixel in R, G, B order:
/// the red value of pixel (x, y) is `pixels[3 * (y * width + x)]`. Values are as
/// stored (normally sRGB-encoded).
public struct RGBImage: Sendable, Equatable {
  /// Width in pixels.
  public var width: Int
  /// Height in pixels.
  public var height: Int
  /// `3 * width * height` bytes, R, G, B per pixel, row by row from the top.
  public var pixels: [UInt8]

  /// Creates an image from its pixels; `pixels.count` must be `3 * width * height` (checked).
  public init(width: Int, height: Int, pixels: [UInt8]) {
    precondition(width >= 0 && height >= 0, "image size must not be negative")
    precondition(pixels.count == 3 * width * height, "RGBImage needs 3 * width * height bytes")
    self.width = width
    self.height = height
    self.pixels = pixels
  }

  /// Creates an image of one colour.
  public init(width: Int, height: Int, fill: (red: UInt8, green: UInt8, blue: UInt8) = (0, 0, 0)) {
    var pixels = [UInt8](repeating: 0, count: 3 * width * height)
    for i in stride(from: 0, to: pixels.count, by: 3) {
      pixels[i] = fill.red
      pixels[i + 1] = fill.green
      pixels[i + 2] = fill.blue
    }
    self.init(width: width, height: height, pixels: pixels)
  }

  /// The luma image: ITU-R BT.601 weights on the stored values,
  /// `Y = 0.299 R + 0.587 G + 0.114 B`, rounded to the nearest integer.
  public var gray: GrayImage {
    var luma = [UInt8](repeating: 0, count: width * height)
    pixels.withUnsafeBufferPointer { rgb in
      for i in 0..<luma.count {
        let red = UInt32(rgb[3 * i])
        let green = UInt32(rgb[3 * i + 1])
        let blue = UInt32(rgb[3 * i + 2])
        luma[i] = UInt8((4899 * red + 9617 * green + 1868 * blue + 8192) >> 14)
      }
    }
    return GrayImage(width: width, height: height, pixels: luma)
  }
}

/// A depth map in metres.
///
/// Values are row-major and tightly packed: the depth of pixel (x, y) is
/// `metres[y * width + x]`, measured along the camera's optical axis (z), not along
/// the ray. Pixels without a valid measurement hold `Float.nan`.
public struct DepthImage: Sendable, Equatable {
  /// Width in pixels.
  public var width: Int
  /// Height in pixels.
  public var height: Int
  /// `width * height` depths in metres; `Float.nan` where the depth is unknown.
  public var metres: [Float]

  /// Creates a depth map; `metres.count` must be `width * height` (checked).
  ///
  /// Note that `==` treats two maps with NaN at the same pixel as different
  /// (NaN never equals NaN); compare `metres` bit patterns when that matters.
  public init(width: Int, height: Int, metres: [Float]) {
    precondition(width >= 0 && height >= 0, "image size must not be negative")
    precondition(metres.count == width * height, "DepthImage needs width * height values")
    self.width = width
    self.height = height
    self.metres = metres
  }

  /// Creates a depth map of one value (NaN by default: nothing measured).
  public init(width: Int, height: Int, fill: Float = .nan) {
    self.init(width: width, height: height, metres: [Float](repeating: fill, count: width * height))
  }

  /// Converts raw 16-bit depth values: metres = value * `metresPerUnit`; 0 means no
  /// measurement and becomes NaN (TUM RGB-D: `metresPerUnit` = 1 / 5000).
  package init(width: Int, height: Int, depth16: [UInt16], metresPerUnit: Float) {
    self.init(
      width: width, height: height,
      metres: depth16.map { $0 == 0 ? Float.nan : Float($0) * metresPerUnit })
  }
}
