import Foundation

/// Deterministic anchor identifiers: UUIDs from a seed and a running number, so that two replays of one
/// recording with one seed name their anchors identically (ARKit uses random UUIDs; replays must not).
///
/// The UUIDs are RFC 9562 version 8 ("custom"): the last 62 bits encode the running number (masked by
/// a hash of the seed), so the identifiers of one generator never repeat (up to 2⁶² of them); the first
/// 64 bits are a hash of the seed and the number, so identifiers differ from their first characters
/// on (as people compare them) and generators with different seeds almost surely differ.
package struct AnchorIdentifierGenerator: Sendable {
  private let high: UInt64
  private let mask: UInt64
  /// How many identifiers were handed out.
  package private(set) var count: UInt64 = 0

  /// A generator for `seed`.
  package init(seed: UInt64) {
    high = Self.mix(seed ^ 0x4152_5369_6D41_6E63)  // "ARSimAnc"
    mask = Self.mix(~seed) & Self.low62
  }

  /// The next identifier.
  package mutating func next() -> UUID {
    count += 1
    let versioned = (Self.mix(high ^ Self.mix(count)) & ~0x0000_0000_0000_F000) | 0x0000_0000_0000_8000
    let low = ((count ^ mask) & Self.low62) | 0x8000_0000_0000_0000
    var bytes = [UInt8](repeating: 0, count: 16)
    for i in 0..<8 {
      bytes[i] = UInt8(truncatingIfNeeded: versioned >> (56 - 8 * UInt64(i)))
      bytes[8 + i] = UInt8(truncatingIfNeeded: low >> (56 - 8 * UInt64(i)))
    }
    return UUID(
      uuid: (
        bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8],
        bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
      ))
  }

  private static let low62: UInt64 = (1 << 62) - 1

  /// SplitMix64's step and finaliser, a bijection on 64-bit values.
  private static func mix(_ value: UInt64) -> UInt64 { SplitMix64.mix(value &+ SplitMix64.increment) }
}
