import Testing

@testable import ARSimRun

@Suite struct ReplaySummaryTests {
  /// The SIMD count agrees with `isFinite` one value at a time, on every length around the lane
  /// width (the tail) and on every kind of value: NaN (quiet, signalling, negative), both
  /// infinities, zeros, subnormals and the largest finite magnitudes.
  @Test func finiteCountMatchesIsFinite() {
    let kinds: [Float] = [
      .nan, -.nan, .signalingNaN, .infinity, -.infinity, 0, -0, .leastNonzeroMagnitude,
      -.leastNormalMagnitude, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 1.5, 0.001,
    ]
    var state: UInt64 = 7
    for length in [0, 1, 7, 8, 9, 15, 16, 17, 31, 64, 100, 1003] {
      let values = (0..<length).map { _ -> Float in
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return kinds[Int(state >> 33) % kinds.count]
      }
      #expect(
        ReplaySummary.finiteCount(values) == values.filter(\.isFinite).count, "length \(length)")
    }
    #expect(ReplaySummary.finiteCount([Float](repeating: .nan, count: 40)) == 0)
    #expect(ReplaySummary.finiteCount([Float](repeating: 2, count: 41)) == 41)
  }
}
