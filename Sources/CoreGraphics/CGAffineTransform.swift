import Foundation

// CoreGraphics' affine transform, which Foundation on Linux lacks, so ARKit code that handles
// `displayTransform(for:viewportSize:)` compiles unchanged.

/// A 2-D affine transform with CoreGraphics' names and semantics (`CGAffineTransform`), for platforms
/// without CoreGraphics.
///
/// The matrix is `[a b 0; c d 0; tx ty 1]` acting on row vectors `[x y 1]`, so a point maps to
/// `x' = a·x + c·y + tx`, `y' = b·x + d·y + ty`. `t1.concatenating(t2)` is the matrix product
/// `t1 · t2`: it applies `t1` first, then `t2`. Units are those of the coordinates transformed (points,
/// pixels or normalized coordinates); angles are radians, and a positive rotation turns +x towards +y
/// (clockwise on screen, where +y points down).
public struct CGAffineTransform: Sendable, Hashable, Codable {
  /// The entry in the first row, first column.
  public var a: CGFloat
  /// The entry in the first row, second column.
  public var b: CGFloat
  /// The entry in the second row, first column.
  public var c: CGFloat
  /// The entry in the second row, second column.
  public var d: CGFloat
  /// The translation along x (third row, first column).
  public var tx: CGFloat
  /// The translation along y (third row, second column).
  public var ty: CGFloat

  /// A transform with all six entries zero, as CoreGraphics' memberwise default initializer gives (not
  /// the identity: use ``identity``).
  public init() {
    self.init(a: 0, b: 0, c: 0, d: 0, tx: 0, ty: 0)
  }

  /// The transform with the given matrix entries.
  public init(a: CGFloat, b: CGFloat, c: CGFloat, d: CGFloat, tx: CGFloat, ty: CGFloat) {
    self.a = a
    self.b = b
    self.c = c
    self.d = d
    self.tx = tx
    self.ty = ty
  }

  /// The identity transform.
  public static let identity = CGAffineTransform(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)

  /// The translation by (`tx`, `ty`): `x' = x + tx`, `y' = y + ty`.
  public init(translationX tx: CGFloat, y ty: CGFloat) {
    self.init(a: 1, b: 0, c: 0, d: 1, tx: tx, ty: ty)
  }

  /// The scale by `sx` along x and `sy` along y about the origin.
  public init(scaleX sx: CGFloat, y sy: CGFloat) {
    self.init(a: sx, b: 0, c: 0, d: sy, tx: 0, ty: 0)
  }

  /// The rotation by `angle` radians about the origin: `x' = x·cos − y·sin`, `y' = x·sin + y·cos`.
  public init(rotationAngle angle: CGFloat) {
    let cosine = CGFloat(cos(Double(angle)))
    let sine = CGFloat(sin(Double(angle)))
    self.init(a: cosine, b: sine, c: -sine, d: cosine, tx: 0, ty: 0)
  }

  /// Whether this is exactly the identity transform.
  public var isIdentity: Bool { self == .identity }

  /// The transform that applies `self` first and then `t2` (the matrix product `self · t2`).
  public func concatenating(_ t2: CGAffineTransform) -> CGAffineTransform {
    CGAffineTransform(
      a: a * t2.a + b * t2.c,
      b: a * t2.b + b * t2.d,
      c: c * t2.a + d * t2.c,
      d: c * t2.b + d * t2.d,
      tx: tx * t2.a + ty * t2.c + t2.tx,
      ty: tx * t2.b + ty * t2.d + t2.ty)
  }

  /// The inverse transform. As in CoreGraphics, a singular transform (zero determinant) is returned
  /// unchanged.
  public func inverted() -> CGAffineTransform {
    let determinant = a * d - b * c
    guard determinant != 0, determinant.isFinite else { return self }
    return CGAffineTransform(
      a: d / determinant,
      b: -b / determinant,
      c: -c / determinant,
      d: a / determinant,
      tx: (c * ty - d * tx) / determinant,
      ty: (b * tx - a * ty) / determinant)
  }

  /// This transform preceded by a translation: `CGAffineTransform(translationX:y:).concatenating(self)`.
  public func translatedBy(x tx: CGFloat, y ty: CGFloat) -> CGAffineTransform {
    CGAffineTransform(translationX: tx, y: ty).concatenating(self)
  }

  /// This transform preceded by a scale: `CGAffineTransform(scaleX:y:).concatenating(self)`.
  public func scaledBy(x sx: CGFloat, y sy: CGFloat) -> CGAffineTransform {
    CGAffineTransform(scaleX: sx, y: sy).concatenating(self)
  }

  /// This transform preceded by a rotation of `angle` radians:
  /// `CGAffineTransform(rotationAngle:).concatenating(self)`.
  public func rotated(by angle: CGFloat) -> CGAffineTransform {
    CGAffineTransform(rotationAngle: angle).concatenating(self)
  }

  /// Encodes the six entries in an unkeyed container, in the order `a, b, c, d, tx, ty` (CoreGraphics'
  /// encoding).
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.unkeyedContainer()
    try container.encode(a)
    try container.encode(b)
    try container.encode(c)
    try container.encode(d)
    try container.encode(tx)
    try container.encode(ty)
  }

  /// Decodes six entries in the order `a, b, c, d, tx, ty`.
  public init(from decoder: any Decoder) throws {
    var container = try decoder.unkeyedContainer()
    let a = try container.decode(CGFloat.self)
    let b = try container.decode(CGFloat.self)
    let c = try container.decode(CGFloat.self)
    let d = try container.decode(CGFloat.self)
    let tx = try container.decode(CGFloat.self)
    let ty = try container.decode(CGFloat.self)
    self.init(a: a, b: b, c: c, d: d, tx: tx, ty: ty)
  }
}

extension CGPoint {
  /// The point mapped by `t`: `(a·x + c·y + tx, b·x + d·y + ty)`.
  public func applying(_ t: CGAffineTransform) -> CGPoint {
    CGPoint(x: t.a * x + t.c * y + t.tx, y: t.b * x + t.d * y + t.ty)
  }
}

extension CGSize {
  /// The size mapped by `t` as a vector, without translation: `(a·w + c·h, b·w + d·h)`. The result
  /// may be negative, as in CoreGraphics.
  public func applying(_ t: CGAffineTransform) -> CGSize {
    CGSize(width: t.a * width + t.c * height, height: t.b * width + t.d * height)
  }
}

extension CGRect {
  /// The smallest rectangle containing the four transformed corners of this rectangle (after
  /// standardizing it). The null rectangle is returned unchanged.
  public func applying(_ t: CGAffineTransform) -> CGRect {
    if isNull { return self }
    let r = standardized
    let corners = [
      CGPoint(x: r.minX, y: r.minY), CGPoint(x: r.maxX, y: r.minY),
      CGPoint(x: r.minX, y: r.maxY), CGPoint(x: r.maxX, y: r.maxY),
    ].map { $0.applying(t) }
    let xs = corners.map(\.x)
    let ys = corners.map(\.y)
    let minX = xs.min()!
    let minY = ys.min()!
    return CGRect(x: minX, y: minY, width: xs.max()! - minX, height: ys.max()! - minY)
  }
}
