import Foundation

/// A colour (CoreGraphics' `CGColor`): its components in its colour space, the opacity last. ARSim's
/// colours (``CGColor/init(red:green:blue:alpha:)`` and UIColor's `cgColor`) are sRGB red, green, blue and
/// alpha; ``CGColor/init(gray:alpha:)`` makes a grey and alpha pair.
public struct CGColor: Sendable, Hashable {
  /// The components, the opacity last.
  public let components: [CGFloat]?
  /// The number of components.
  public var numberOfComponents: Int { components?.count ?? 0 }
  /// The opacity, 0...1 (the last component; 1 without components).
  public var alpha: CGFloat { components?.last ?? 1 }

  /// A colour of these components, the opacity last.
  public init(components: [CGFloat]) { self.components = components }

  /// An sRGB colour.
  public init(red: CGFloat, green: CGFloat, blue: CGFloat, alpha: CGFloat) {
    components = [red, green, blue, alpha]
  }

  /// A grey of this level (0 black ... 1 white) and opacity: two components.
  public init(gray: CGFloat, alpha: CGFloat) {
    components = [gray, alpha]
  }
}
