import ARSimMath
import Foundation
import Testing

@testable import ARSimAssets

/// The readers on deterministically mutated fixtures (seeded byte flips, overwrites with boundary
/// values, truncations, duplicated runs): every input loads or fails with an `AssetError` naming the
/// file, and none crashes or hangs the process.
@Suite struct RobustnessTests {
  static let inputs = ["scene.usdz", "scene.usdc", "scene.usda", "parts.usda", "cycle.usdz"]

  /// One mutation of `bytes` drawn from `random`.
  static func mutate(_ bytes: [UInt8], _ random: inout SplitMix64) -> [UInt8] {
    var result = bytes
    guard !result.isEmpty else { return result }
    for _ in 0...random.index(below: 4) {
      let at = random.index(below: result.count)
      switch random.index(below: 5) {
      case 0: result[at] ^= UInt8(1 << random.index(below: 8))
      case 1: result[at] = [0, 1, 0x7F, 0x80, 0xFF][random.index(below: 5)]
      case 2:
        // A little-endian 32-bit boundary value over whatever was there (counts, offsets, indices).
        let value: UInt32 = [0, 1, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF, UInt32(bytes.count)][
          random.index(below: 6)]
        for k in 0..<4 where at + k < result.count {
          result[at + k] = UInt8(truncatingIfNeeded: value >> (8 * k))
        }
      case 3: result = Array(result.prefix(at))
      default:
        let length = min(random.index(below: 64) + 1, result.count - at)
        result.insert(contentsOf: result[at..<at + length], at: at)
      }
      if result.isEmpty { break }
    }
    return result
  }

  @Test(arguments: inputs)
  func mutatedFixturesLoadOrFailCleanly(_ name: String) throws {
    let original = try Fixtures.bytes(name)
    let fileExtension = String(name.split(separator: ".").last!)
    var random = SplitMix64(seed: SplitMix64.mix(UInt64(name.utf8.reduce(0) { $0 &* 31 &+ UInt64($1) })))
    var failures = 0
    for _ in 0..<400 {
      let mutated = Self.mutate(original, &random)
      do {
        _ = try ModelAsset(bytes: mutated, file: name, fileExtension: fileExtension)
      } catch {
        failures += 1
        #expect(error.file.hasPrefix(name))
        #expect(!error.problem.isEmpty)
      }
    }
    #expect(failures > 0, "the mutations should break some inputs")
  }
}
