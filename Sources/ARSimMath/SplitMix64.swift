#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// SplitMix64 (Steele, Lea and Flood 2014): a small, fast, seedable generator with the same output on
/// every platform. ARSim's every random choice (RANSAC samples, anchor identifiers, the synthesiser's
/// noise and textures, test inputs) draws from one, so that results follow from a seed.
public struct SplitMix64: RandomNumberGenerator, Sendable {
  private var state: UInt64

  /// The generator's increment (the golden ratio's 64-bit fraction, odd).
  public static let increment: UInt64 = 0x9E37_79B9_7F4A_7C15

  /// A generator whose sequence is determined by `seed`.
  public init(seed: UInt64) { state = seed }

  /// The next 64 random bits.
  @inline(__always)
  public mutating func next() -> UInt64 {
    state &+= Self.increment
    return Self.mix(state)
  }

  /// The SplitMix64 finaliser (a bijection on 64-bit values), also a good hash of one.
  @inline(__always)
  public static func mix(_ value: UInt64) -> UInt64 {
    var z = value
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// Uniform in `[0, 1)`: the top 53 bits of the next value.
  @inline(__always)
  public mutating func uniform() -> Double { Double(next() >> 11) * 0x1.0p-53 }

  /// Uniform in `[low, high)`.
  @inline(__always)
  public mutating func uniform(_ low: Double, _ high: Double) -> Double { low + (high - low) * uniform() }

  /// A standard normal value (Box–Muller).
  public mutating func gaussian() -> Double {
    let u1 = max(uniform(), 0x1.0p-53)
    let u2 = uniform()
    return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
  }

  /// An index in `0..<count` (`count > 0`), by the remainder (a bias below 2⁻⁵⁰ for any array size).
  @inline(__always)
  public mutating func index(below count: Int) -> Int { Int(next() % UInt64(count)) }
}
