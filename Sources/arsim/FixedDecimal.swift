import Foundation

/// Decimal text of a `Double` with a fixed number of fraction digits, exactly what C's printf
/// writes for `%.Nf` (the exact binary value rounded half to even; a minus sign on negative zero),
/// without printf's cost in the common case: a mesh's PLY has six numbers a vertex.
enum FixedDecimal {
  /// Powers of ten up to the most fraction digits handled here.
  private static let powers: [UInt64] = (0...9).map { (0..<$0).reduce(1) { value, _ in value * 10 } }

  /// Appends `value` with `digits` (0...9) fraction digits to `text`, as UTF-8.
  static func append(_ value: Double, digits: Int, to text: inout [UInt8]) {
    precondition((0...9).contains(digits), "FixedDecimal: 0...9 fraction digits")
    let power = powers[digits]
    let scaled = value.magnitude * Double(power)
    // Scaled values below 2^52 keep a fraction that `scaled - whole` gives exactly.
    guard value.isFinite, scaled < 0x1p52 else { return appendPrinted(value, digits: digits, to: &text) }
    let whole = scaled.rounded(.down)
    let fraction = scaled - whole
    // The product is off the exact one by at most half an ulp: a fraction that close to a half may
    // round the other way in exact arithmetic, which printf uses.
    guard (fraction - 0.5).magnitude > scaled.ulp else {
      return appendPrinted(value, digits: digits, to: &text)
    }
    let units = UInt64(whole) + (fraction > 0.5 ? 1 : 0)
    if value.sign == .minus { text.append(UInt8(ascii: "-")) }
    appendDigits(units / power, minimumCount: 1, to: &text)
    guard digits > 0 else { return }
    text.append(UInt8(ascii: "."))
    appendDigits(units % power, minimumCount: digits, to: &text)
  }

  /// The decimal digits of `number`, zero-padded on the left to `minimumCount`.
  private static func appendDigits(_ number: UInt64, minimumCount: Int, to text: inout [UInt8]) {
    var count = 0
    var rest = number
    repeat {
      count += 1
      rest /= 10
    } while rest > 0
    text.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: max(count, minimumCount)))
    var position = text.count - 1
    rest = number
    repeat {
      text[position] = UInt8(ascii: "0") + UInt8(rest % 10)
      rest /= 10
      position -= 1
    } while rest > 0
  }

  /// printf's own text, for the values the fast path leaves (near-halves, large, not finite).
  private static func appendPrinted(_ value: Double, digits: Int, to text: inout [UInt8]) {
    var buffer = [CChar](repeating: 0, count: 400)
    let length = withVaList([Int32(digits), value]) { vsnprintf(&buffer, buffer.count, "%.*f", $0) }
    precondition(length >= 0 && Int(length) < buffer.count, "FixedDecimal: printf failed")
    text.append(contentsOf: buffer[..<Int(length)].map { UInt8(bitPattern: $0) })
  }
}
