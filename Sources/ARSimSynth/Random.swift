import Foundation

/// SplitMix64 (Steele, Lea and Flood 2014): a small, fast, seedable generator. Every random choice
/// of the synthesiser comes from one of these, seeded from the scene seed and the purpose (frame,
/// row, material...), so that results never depend on thread scheduling.
struct SplitMix64: RandomNumberGenerator {
  private var state: UInt64

  /// A generator seeded by mixing all `parts` (order matters).
  init(_ parts: UInt64...) {
    var state: UInt64 = 0x853C_49E6_748F_EA9B
    for part in parts {
      state = Self.mix(state ^ Self.mix(part &+ 0x9E37_79B9_7F4A_7C15))
    }
    self.state = state
  }

  @inline(__always)
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    return Self.mix(state)
  }

  @inline(__always)
  static func mix(_ value: UInt64) -> UInt64 {
    var z = value
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// Uniform in [0, 1).
  @inline(__always)
  mutating func uniform() -> Double { Double(next() >> 11) * 0x1.0p-53 }

  /// Uniform in [`low`, `high`).
  @inline(__always)
  mutating func uniform(_ low: Double, _ high: Double) -> Double { low + (high - low) * uniform() }

  /// A standard normal value (Box–Muller).
  mutating func gaussian() -> Double {
    let u1 = max(uniform(), 0x1.0p-53)
    let u2 = uniform()
    return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
  }

  /// An approximately standard normal value, cheap enough for per-pixel noise: the centred sum of
  /// four 16-bit uniforms (Irwin–Hall), which has unit variance and tails cut at ±3.5.
  @inline(__always)
  mutating func fastGaussian() -> Float {
    let bits = next()
    let sum = (bits & 0xFFFF) + ((bits >> 16) & 0xFFFF) + ((bits >> 32) & 0xFFFF) + (bits >> 48)
    return (Float(sum) - 131_070) * (1 / 37_837.23)
  }
}

/// A stable 64-bit hash of a string (FNV-1a), for seeds derived from names.
func stableHash(_ text: String) -> UInt64 {
  var hash: UInt64 = 0xCBF2_9CE4_8422_2325
  for byte in text.utf8 {
    hash ^= UInt64(byte)
    hash &*= 0x0000_0100_0000_01B3
  }
  return hash
}
