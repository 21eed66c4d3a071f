import ARSim
import Foundation
import Testing

@Suite struct CGAffineTransformTests {
  static func close(_ p: CGPoint, _ q: CGPoint, tolerance: CGFloat = 1e-12) -> Bool {
    abs(p.x - q.x) <= tolerance && abs(p.y - q.y) <= tolerance
  }

  static func close(_ s: CGAffineTransform, _ t: CGAffineTransform, tolerance: CGFloat = 1e-12) -> Bool {
    [s.a - t.a, s.b - t.b, s.c - t.c, s.d - t.d, s.tx - t.tx, s.ty - t.ty].allSatisfy {
      abs($0) <= tolerance
    }
  }

  @Test func pointMappingUsesRowVectorConvention() {
    let t = CGAffineTransform(a: 1, b: 2, c: 3, d: 4, tx: 5, ty: 6)
    // x' = a x + c y + tx, y' = b x + d y + ty
    #expect(CGPoint(x: 1, y: 1).applying(t) == CGPoint(x: 9, y: 12))
    #expect(CGPoint(x: 2, y: -1).applying(t) == CGPoint(x: 4, y: 6))
  }

  @Test func basicConstructors() {
    #expect(CGAffineTransform.identity.isIdentity)
    #expect(!CGAffineTransform(translationX: 0, y: 1).isIdentity)
    #expect(CGAffineTransform(translationX: 0, y: 0).isIdentity)
    #expect(CGAffineTransform() == CGAffineTransform(a: 0, b: 0, c: 0, d: 0, tx: 0, ty: 0))
    #expect(CGPoint(x: 1, y: 2).applying(CGAffineTransform(translationX: 3, y: -4)) == CGPoint(x: 4, y: -2))
    #expect(CGPoint(x: 1, y: 2).applying(CGAffineTransform(scaleX: 3, y: -4)) == CGPoint(x: 3, y: -8))
    // A positive rotation turns +x towards +y.
    let quarter = CGAffineTransform(rotationAngle: .pi / 2)
    #expect(Self.close(CGPoint(x: 1, y: 0).applying(quarter), CGPoint(x: 0, y: 1)))
    #expect(Self.close(CGPoint(x: 0, y: 1).applying(quarter), CGPoint(x: -1, y: 0)))
  }

  @Test func concatenationAppliesTheReceiverFirst() {
    let translate = CGAffineTransform(translationX: 10, y: 0)
    let scale = CGAffineTransform(scaleX: 2, y: 3)
    let point = CGPoint(x: 1, y: 1)
    // Translate, then scale: (1 + 10) * 2, 1 * 3.
    #expect(point.applying(translate.concatenating(scale)) == CGPoint(x: 22, y: 3))
    // Scale, then translate: 1 * 2 + 10, 1 * 3.
    #expect(point.applying(scale.concatenating(translate)) == CGPoint(x: 12, y: 3))
    // Same as applying one after the other, for general transforms.
    let t1 = CGAffineTransform(a: 0.3, b: -1.2, c: 2.5, d: 0.7, tx: -4, ty: 9)
    let t2 = CGAffineTransform(a: -2, b: 0.5, c: 1.5, d: 3, tx: 0.25, ty: -6)
    let p = CGPoint(x: 1.75, y: -3.5)
    #expect(Self.close(p.applying(t1.concatenating(t2)), p.applying(t1).applying(t2), tolerance: 1e-12))
    #expect(!Self.close(p.applying(t1.concatenating(t2)), p.applying(t2.concatenating(t1)), tolerance: 1e-3))
  }

  @Test func prependingHelpersApplyTheirOperationFirst() {
    let scale = CGAffineTransform(scaleX: 2, y: 2)
    // translatedBy prepends: translate (1, 0) first, then scale by 2.
    #expect(CGPoint.zero.applying(scale.translatedBy(x: 1, y: 0)) == CGPoint(x: 2, y: 0))
    #expect(
      CGPoint(x: 1, y: 1).applying(CGAffineTransform.identity.scaledBy(x: 3, y: 4)) == CGPoint(x: 3, y: 4))
    let rotated = CGAffineTransform(translationX: 5, y: 0).rotated(by: .pi / 2)
    #expect(Self.close(CGPoint(x: 1, y: 0).applying(rotated), CGPoint(x: 5, y: 1)))
  }

  @Test func inversionUndoesTheTransform() {
    let t = CGAffineTransform(a: 0.3, b: -1.2, c: 2.5, d: 0.7, tx: -4, ty: 9)
    let inverse = t.inverted()
    #expect(Self.close(t.concatenating(inverse), .identity, tolerance: 1e-12))
    #expect(Self.close(inverse.concatenating(t), .identity, tolerance: 1e-12))
    let p = CGPoint(x: -7.5, y: 3.25)
    #expect(Self.close(p.applying(t).applying(inverse), p, tolerance: 1e-12))
    // Known inverse of a translate-then-scale.
    let known = CGAffineTransform(translationX: 1, y: 2).concatenating(CGAffineTransform(scaleX: 4, y: 5))
    #expect(Self.close(known.inverted(), CGAffineTransform(a: 0.25, b: 0, c: 0, d: 0.2, tx: -1, ty: -2)))
    // A singular transform comes back unchanged, as in CoreGraphics.
    let singular = CGAffineTransform(a: 1, b: 2, c: 2, d: 4, tx: 3, ty: 3)
    #expect(singular.inverted() == singular)
  }

  @Test func sizesIgnoreTranslationAndRectsGetTheirBoundingBox() {
    let t = CGAffineTransform(scaleX: 2, y: -1).concatenating(CGAffineTransform(translationX: 100, y: 100))
    #expect(CGSize(width: 3, height: 4).applying(t) == CGSize(width: 6, height: -4))
    let rect = CGRect(x: 1, y: 2, width: 3, height: 4).applying(t)
    #expect(rect == CGRect(x: 102, y: 94, width: 6, height: 4))
    let rotated = CGRect(x: 0, y: 0, width: 2, height: 1).applying(CGAffineTransform(rotationAngle: .pi / 2))
    #expect(abs(rotated.minX + 1) < 1e-12 && abs(rotated.minY) < 1e-12)
    #expect(abs(rotated.width - 1) < 1e-12 && abs(rotated.height - 2) < 1e-12)
    #expect(CGRect.null.applying(t).isNull)
  }

  @Test func codableUsesCoreGraphicsOrder() throws {
    let t = CGAffineTransform(a: 1, b: 2, c: 3, d: 4, tx: 5, ty: 6)
    let data = try JSONEncoder().encode(t)
    #expect(String(decoding: data, as: UTF8.self) == "[1,2,3,4,5,6]")
    #expect(try JSONDecoder().decode(CGAffineTransform.self, from: data) == t)
  }
}
