// Apple's `CoreGraphics` module, where Linux has none: `import CoreGraphics` compiles unchanged. On Linux,
// Foundation itself defines `CGFloat`, `CGPoint`, `CGSize` and `CGRect` (with their geometry); this module
// re-exports those four and adds what Foundation lacks: `CGVector`, `CGAffineTransform`, `CGColor` and a
// bitmap `CGImage` with its data provider, colour space and pixel-format descriptions. Nothing is drawn:
// there is no `CGContext`.
@_exported import struct Foundation.CGFloat
@_exported import struct Foundation.CGPoint
@_exported import struct Foundation.CGRect
@_exported import struct Foundation.CGSize

/// A two-dimensional vector (CoreGraphics' `CGVector`), in the units of the coordinates it offsets.
public struct CGVector: Sendable, Hashable, Codable {
  /// The x component.
  public var dx: CGFloat
  /// The y component.
  public var dy: CGFloat

  /// The zero vector.
  public init() {
    dx = 0
    dy = 0
  }

  /// The vector (`dx`, `dy`).
  public init(dx: CGFloat, dy: CGFloat) {
    self.dx = dx
    self.dy = dy
  }

  /// The vector (`dx`, `dy`).
  public init(dx: Double, dy: Double) {
    self.init(dx: CGFloat(dx), dy: CGFloat(dy))
  }

  /// The vector (`dx`, `dy`).
  public init(dx: Int, dy: Int) {
    self.init(dx: CGFloat(dx), dy: CGFloat(dy))
  }

  /// The zero vector.
  public static let zero = CGVector()
}
