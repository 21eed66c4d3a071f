import ARSim
import Foundation
import Testing

@testable import arsim

@Suite struct FixedDecimalTests {
  private func text(_ value: Double, _ digits: Int) -> String {
    var bytes: [UInt8] = []
    FixedDecimal.append(value, digits: digits, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  @Test("writes what printf's %.Nf writes: signs, zero, halves, large and non-finite values")
  func matchesPrintfOnEdges() {
    let values: [Double] = [
      0, -0.0, 1, -1, 0.5, 1.5, 2.5, -2.5, 0.0000005, 0.0000015, 0.0000025, -0.0000005, -0.0000004,
      0.00005, 0.00015, 123.4565, 1e-300, -1e-300, 0x1p52 / 1e6, 1e9, -1e9, 1e300, .greatestFiniteMagnitude,
      .infinity, -.infinity, .nan, 0.1, 0.2, 0.3, 1 / 3.0, -2 / 3.0, 9.9999995, 9.99999949999, 999999.9999995,
    ]
    for value in values {
      for digits in [0, 1, 4, 6, 9] {
        #expect(
          text(value, digits) == String(format: "%.\(digits)f", value), "\(value) with \(digits) digits")
      }
    }
  }

  @Test("writes what printf writes for random values, and for values on and next to decimal halves")
  func matchesPrintfOnRandomValues() {
    var generator = SplitMix64(seed: 47)
    for _ in 0..<20000 {
      let magnitude = Double.random(in: -6...4, using: &generator)
      let value = (Bool.random(using: &generator) ? 1 : -1) * pow(10, magnitude)
      let float = Double(Float(value))
      let half = (Double(Int.random(in: -10_000_000...10_000_000, using: &generator)) + 0.5) / 1e6
      for v in [value, float, half, half.nextUp, half.nextDown] {
        #expect(text(v, 6) == String(format: "%.6f", v))
        #expect(text(v, 4) == String(format: "%.4f", v))
      }
    }
  }
}
