import Testing

@testable import ARSimEval

@Suite struct ErrorStatisticsTests {
  @Test func matchesHandComputedFigures() throws {
    let s = try #require(ErrorStatistics([3, 1, 4, 1, 5, 9]))
    #expect(s.count == 6)
    #expect(s.mean == 23.0 / 6)
    #expect(s.median == 3.5)
    #expect(s.min == 1)
    #expect(s.max == 9)
    #expect(s.sse == 133)
    #expect(abs(s.rmse - (133.0 / 6).squareRoot()) < 1e-15)
    // Population variance: Σ(e − mean)² / n = (133 − 6·mean²) / 6.
    let variance = (133.0 - 6 * (23.0 / 6) * (23.0 / 6)) / 6
    #expect(abs(s.std - variance.squareRoot()) < 1e-14)
  }

  @Test func oddCountMedianIsTheMiddleValue() throws {
    let s = try #require(ErrorStatistics([0.5, 0.1, 0.3]))
    #expect(s.median == 0.3)
    #expect(s.std > 0)
  }

  @Test func emptyHasNoStatistics() {
    #expect(ErrorStatistics([]) == nil)
  }
}
