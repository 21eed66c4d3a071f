import ARSim
import Foundation

// UIColor's named colours and accessors on ``MaterialColor``, so material code written against UIKit
// compiles unchanged. The system colours are iOS's light-appearance values (sRGB); ARSim has no dark
// mode.
extension MaterialColor {
  /// A colour of 0–255 sRGB components and an opacity.
  private init(_ red: Int, _ green: Int, _ blue: Int, _ alpha: CGFloat = 1) {
    self.init(red: CGFloat(red) / 255, green: CGFloat(green) / 255, blue: CGFloat(blue) / 255, alpha: alpha)
  }

  /// A colour of hue, saturation and brightness (HSB, each 0...1; hue wraps), as UIColor's
  /// `init(hue:saturation:brightness:alpha:)`.
  public init(hue: CGFloat, saturation: CGFloat, brightness: CGFloat, alpha: CGFloat = 1) {
    let h = (hue - hue.rounded(.down)) * 6
    let s = Swift.min(Swift.max(saturation, 0), 1)
    let v = Swift.min(Swift.max(brightness, 0), 1)
    let sector = Int(h) % 6
    let f = h - CGFloat(Int(h))
    let p = v * (1 - s)
    let q = v * (1 - s * f)
    let t = v * (1 - s * (1 - f))
    let (r, g, b): (CGFloat, CGFloat, CGFloat)
    switch sector {
    case 0: (r, g, b) = (v, t, p)
    case 1: (r, g, b) = (q, v, p)
    case 2: (r, g, b) = (p, v, t)
    case 3: (r, g, b) = (p, q, v)
    case 4: (r, g, b) = (t, p, v)
    default: (r, g, b) = (v, p, q)
    }
    self.init(red: r, green: g, blue: b, alpha: alpha)
  }

  /// Writes the components (0...1) where the pointers are non-nil, as UIColor's
  /// `getRed(_:green:blue:alpha:)`; always succeeds.
  @discardableResult
  public func getRed(
    _ red: UnsafeMutablePointer<CGFloat>?, green: UnsafeMutablePointer<CGFloat>?,
    blue: UnsafeMutablePointer<CGFloat>?, alpha: UnsafeMutablePointer<CGFloat>?
  ) -> Bool {
    red?.pointee = CGFloat(self.red)
    green?.pointee = CGFloat(self.green)
    blue?.pointee = CGFloat(self.blue)
    alpha?.pointee = CGFloat(self.alpha)
    return true
  }

  /// Writes the brightness (the mean of red, green and blue, 0...1) and the opacity where the pointers
  /// are non-nil, as UIColor's `getWhite(_:alpha:)`; always succeeds.
  @discardableResult
  public func getWhite(_ white: UnsafeMutablePointer<CGFloat>?, alpha: UnsafeMutablePointer<CGFloat>?) -> Bool
  {
    white?.pointee = CGFloat((red + green + blue) / 3)
    alpha?.pointee = CGFloat(self.alpha)
    return true
  }

  /// Writes hue, saturation, brightness (HSB, 0...1) and opacity where the pointers are non-nil, as
  /// UIColor's `getHue(_:saturation:brightness:alpha:)`; always succeeds. A grey has hue 0.
  @discardableResult
  public func getHue(
    _ hue: UnsafeMutablePointer<CGFloat>?, saturation: UnsafeMutablePointer<CGFloat>?,
    brightness: UnsafeMutablePointer<CGFloat>?, alpha: UnsafeMutablePointer<CGFloat>?
  ) -> Bool {
    let high = Swift.max(red, green, blue)
    let low = Swift.min(red, green, blue)
    let span = high - low
    var h: Float = 0
    if span > 0 {
      if high == red {
        h = (green - blue) / span
      } else if high == green {
        h = 2 + (blue - red) / span
      } else {
        h = 4 + (red - green) / span
      }
      h /= 6
      if h < 0 { h += 1 }
    }
    hue?.pointee = CGFloat(h)
    saturation?.pointee = CGFloat(high > 0 ? span / high : 0)
    brightness?.pointee = CGFloat(high)
    alpha?.pointee = CGFloat(self.alpha)
    return true
  }

  /// The colour as CoreGraphics would hold it (UIColor's `cgColor`): the sRGB components and opacity.
  public var cgColor: CGColor {
    CGColor(components: [CGFloat(red), CGFloat(green), CGFloat(blue), CGFloat(alpha)])
  }

  // MARK: UIColor's fixed colours

  /// Black (0, 0, 0).
  public static let black = MaterialColor(white: 0)
  /// Dark grey (one third white).
  public static let darkGray = MaterialColor(white: 1.0 / 3)
  /// Light grey (two thirds white).
  public static let lightGray = MaterialColor(white: 2.0 / 3)
  /// White.
  public static let white = MaterialColor(white: 1)
  /// Mid grey (half white).
  public static let gray = MaterialColor(white: 0.5)
  /// Fully transparent black.
  public static let clear = MaterialColor(white: 0, alpha: 0)
  /// Red (1, 0, 0).
  public static let red = MaterialColor(red: 1, green: 0, blue: 0)
  /// Green (0, 1, 0).
  public static let green = MaterialColor(red: 0, green: 1, blue: 0)
  /// Blue (0, 0, 1).
  public static let blue = MaterialColor(red: 0, green: 0, blue: 1)
  /// Cyan (0, 1, 1).
  public static let cyan = MaterialColor(red: 0, green: 1, blue: 1)
  /// Yellow (1, 1, 0).
  public static let yellow = MaterialColor(red: 1, green: 1, blue: 0)
  /// Magenta (1, 0, 1).
  public static let magenta = MaterialColor(red: 1, green: 0, blue: 1)
  /// Orange (1, 0.5, 0).
  public static let orange = MaterialColor(red: 1, green: 0.5, blue: 0)
  /// Purple (0.5, 0, 0.5).
  public static let purple = MaterialColor(red: 0.5, green: 0, blue: 0.5)
  /// Brown (0.6, 0.4, 0.2).
  public static let brown = MaterialColor(red: 0.6, green: 0.4, blue: 0.2)

  // MARK: iOS system colours (light appearance)

  /// iOS's system red.
  public static let systemRed = MaterialColor(255, 59, 48)
  /// iOS's system orange.
  public static let systemOrange = MaterialColor(255, 149, 0)
  /// iOS's system yellow.
  public static let systemYellow = MaterialColor(255, 204, 0)
  /// iOS's system green.
  public static let systemGreen = MaterialColor(52, 199, 89)
  /// iOS's system mint.
  public static let systemMint = MaterialColor(0, 199, 190)
  /// iOS's system teal.
  public static let systemTeal = MaterialColor(48, 176, 199)
  /// iOS's system cyan.
  public static let systemCyan = MaterialColor(50, 173, 230)
  /// iOS's system blue.
  public static let systemBlue = MaterialColor(0, 122, 255)
  /// iOS's system indigo.
  public static let systemIndigo = MaterialColor(88, 86, 214)
  /// iOS's system purple.
  public static let systemPurple = MaterialColor(175, 82, 222)
  /// iOS's system pink.
  public static let systemPink = MaterialColor(255, 45, 85)
  /// iOS's system brown.
  public static let systemBrown = MaterialColor(162, 132, 94)
  /// iOS's system grey.
  public static let systemGray = MaterialColor(142, 142, 147)
  /// iOS's second system grey.
  public static let systemGray2 = MaterialColor(174, 174, 178)
  /// iOS's third system grey.
  public static let systemGray3 = MaterialColor(199, 199, 204)
  /// iOS's fourth system grey.
  public static let systemGray4 = MaterialColor(209, 209, 214)
  /// iOS's fifth system grey.
  public static let systemGray5 = MaterialColor(229, 229, 234)
  /// iOS's sixth system grey.
  public static let systemGray6 = MaterialColor(242, 242, 247)

  // MARK: iOS semantic colours (light appearance)

  /// Primary text.
  public static let label = MaterialColor(0, 0, 0)
  /// Secondary text.
  public static let secondaryLabel = MaterialColor(60, 60, 67, 0.6)
  /// Tertiary text.
  public static let tertiaryLabel = MaterialColor(60, 60, 67, 0.3)
  /// Quaternary text.
  public static let quaternaryLabel = MaterialColor(60, 60, 67, 0.18)
  /// Placeholder text.
  public static let placeholderText = MaterialColor(60, 60, 67, 0.3)
  /// Links.
  public static let link = MaterialColor(0, 122, 255)
  /// Thin separators (translucent).
  public static let separator = MaterialColor(60, 60, 67, 0.29)
  /// Separators that hide what is under them.
  public static let opaqueSeparator = MaterialColor(198, 198, 200)
  /// The main background.
  public static let systemBackground = MaterialColor(255, 255, 255)
  /// Content layered on the main background.
  public static let secondarySystemBackground = MaterialColor(242, 242, 247)
  /// Content layered on the secondary background.
  public static let tertiarySystemBackground = MaterialColor(255, 255, 255)
  /// The background of grouped content.
  public static let systemGroupedBackground = MaterialColor(242, 242, 247)
  /// Content layered on the grouped background.
  public static let secondarySystemGroupedBackground = MaterialColor(255, 255, 255)
  /// Content layered on the secondary grouped background.
  public static let tertiarySystemGroupedBackground = MaterialColor(242, 242, 247)
  /// Fill for thin and small shapes.
  public static let systemFill = MaterialColor(120, 120, 128, 0.2)
  /// Fill for medium-size shapes.
  public static let secondarySystemFill = MaterialColor(120, 120, 128, 0.16)
  /// Fill for large shapes.
  public static let tertiarySystemFill = MaterialColor(118, 118, 128, 0.12)
  /// Fill for large areas holding complex content.
  public static let quaternarySystemFill = MaterialColor(116, 116, 128, 0.08)
  /// Text on light backgrounds.
  public static let darkText = MaterialColor(0, 0, 0)
  /// Text on dark backgrounds (translucent white).
  public static let lightText = MaterialColor(255, 255, 255, 0.6)
}

extension MaterialColor: _ExpressibleByColorLiteral {
  /// The colour of a `#colorLiteral(red:green:blue:alpha:)` (sRGB, 0...1).
  public init(_colorLiteralRed red: Float, green: Float, blue: Float, alpha: Float) {
    self.init(red: CGFloat(red), green: CGFloat(green), blue: CGFloat(blue), alpha: CGFloat(alpha))
  }
}

/// The type a `#colorLiteral(...)` without context makes (UIKit's `_ColorLiteralType`): a material colour.
public typealias _ColorLiteralType = MaterialColor
