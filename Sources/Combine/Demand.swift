extension Subscribers {
  /// How many values a subscriber wants (Apple's `Subscribers.Demand`): a count, or `unlimited`.
  /// Arithmetic saturates: anything plus `unlimited` is `unlimited`, an overflowing sum becomes
  /// `unlimited`, and a subtraction that would go below zero gives `none`.
  public struct Demand: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The count, or `UInt.max` for unlimited.
    private let rawValue: UInt

    private init(rawValue: UInt) { self.rawValue = rawValue }

    /// As many values as the publisher produces.
    public static let unlimited = Demand(rawValue: .max)
    /// No values.
    public static let none = Demand(rawValue: 0)

    /// At most `value` values; `value` must not be negative.
    public static func max(_ value: Int) -> Demand {
      precondition(value >= 0, "a demand cannot be negative")
      return Demand(rawValue: UInt(value))
    }

    /// The count, or nil when unlimited.
    public var max: Int? { rawValue == .max ? nil : Int(clamping: rawValue) }

    /// `unlimited` or `max(n)`.
    public var description: String { rawValue == .max ? "unlimited" : "max(\(rawValue))" }

    /// The sum (saturating at `unlimited`).
    public static func + (lhs: Demand, rhs: Demand) -> Demand {
      if lhs == .unlimited || rhs == .unlimited { return .unlimited }
      let (sum, overflow) = lhs.rawValue.addingReportingOverflow(rhs.rawValue)
      return overflow || sum == .max ? .unlimited : Demand(rawValue: sum)
    }

    /// The sum with a count (saturating; a negative count subtracts).
    public static func + (lhs: Demand, rhs: Int) -> Demand {
      rhs < 0 ? lhs - .max(-rhs) : lhs + .max(rhs)
    }

    /// The difference: `unlimited` stays `unlimited`; anything minus `unlimited`, or a negative
    /// result, is `none`.
    public static func - (lhs: Demand, rhs: Demand) -> Demand {
      if lhs == .unlimited { return .unlimited }
      if rhs == .unlimited || rhs.rawValue >= lhs.rawValue { return .none }
      return Demand(rawValue: lhs.rawValue - rhs.rawValue)
    }

    /// The difference with a count (as for two demands).
    public static func - (lhs: Demand, rhs: Int) -> Demand {
      rhs < 0 ? lhs + .max(-rhs) : lhs - .max(rhs)
    }

    /// The product with a non-negative count (`unlimited` stays `unlimited`; overflow saturates).
    public static func * (lhs: Demand, rhs: Int) -> Demand {
      precondition(rhs >= 0, "a demand cannot be negative")
      if lhs == .unlimited { return .unlimited }
      let (product, overflow) = lhs.rawValue.multipliedReportingOverflow(by: UInt(rhs))
      return overflow || product == .max ? .unlimited : Demand(rawValue: product)
    }

    /// Adds in place.
    public static func += (lhs: inout Demand, rhs: Demand) { lhs = lhs + rhs }
    /// Adds a count in place.
    public static func += (lhs: inout Demand, rhs: Int) { lhs = lhs + rhs }
    /// Subtracts in place.
    public static func -= (lhs: inout Demand, rhs: Demand) { lhs = lhs - rhs }
    /// Subtracts a count in place.
    public static func -= (lhs: inout Demand, rhs: Int) { lhs = lhs - rhs }
    /// Multiplies in place.
    public static func *= (lhs: inout Demand, rhs: Int) { lhs = lhs * rhs }

    /// Orders by count, `unlimited` last.
    public static func < (lhs: Demand, rhs: Demand) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Whether the demand is exactly this count (never for `unlimited`).
    public static func == (lhs: Demand, rhs: Int) -> Bool { rhs >= 0 && lhs.rawValue == UInt(rhs) }
    /// Whether the demand is not exactly this count.
    public static func != (lhs: Demand, rhs: Int) -> Bool { !(lhs == rhs) }
    /// Whether the demand is more than the count (`unlimited` is more than any count).
    public static func > (lhs: Demand, rhs: Int) -> Bool { rhs < 0 || lhs.rawValue > UInt(rhs) }
    /// Whether the demand is at least the count.
    public static func >= (lhs: Demand, rhs: Int) -> Bool { rhs < 0 || lhs.rawValue >= UInt(rhs) }
    /// Whether the demand is less than the count.
    public static func < (lhs: Demand, rhs: Int) -> Bool { rhs > 0 && lhs.rawValue < UInt(rhs) }
    /// Whether the demand is at most the count.
    public static func <= (lhs: Demand, rhs: Int) -> Bool { rhs >= 0 && lhs.rawValue <= UInt(rhs) }
  }
}
