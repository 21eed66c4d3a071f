import ARSimMath
import Foundation

extension SplitMix64 {
  /// A generator seeded by mixing all `parts` (order matters).
  init(_ parts: UInt64...) {
    var state: UInt64 = 0x853C_49E6_748F_EA9B
    for part in parts {
      state = Self.mix(state ^ Self.mix(part &+ Self.increment))
    }
    self.init(seed: state)
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
