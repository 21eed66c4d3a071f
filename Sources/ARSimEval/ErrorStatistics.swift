/// Summary statistics of a list of errors, defined as evo defines them (`evo.core.metrics`), in the
/// errors' unit (metres, or degrees for rotation errors).
public struct ErrorStatistics: Sendable, Hashable, Codable {
  /// The root mean square `sqrt(sse / count)`.
  public var rmse: Double
  /// The arithmetic mean.
  public var mean: Double
  /// The median: the middle value, or the mean of the two middle values for an even count (NumPy's).
  public var median: Double
  /// The population standard deviation `sqrt(Σ (e − mean)² / count)` (NumPy's default, `ddof = 0`).
  public var std: Double
  /// The smallest error.
  public var min: Double
  /// The largest error.
  public var max: Double
  /// The sum of squared errors `Σ e²`.
  public var sse: Double
  /// The number of errors.
  public var count: Int

  /// The statistics of `errors`; `nil` when there is none. The errors should be finite: a NaN makes
  /// `rmse`, `mean`, `std` and `sse` NaN and leaves `min`, `max` and `median` unspecified.
  public init?(_ errors: [Double]) {
    guard !errors.isEmpty else { return nil }
    let n = Double(errors.count)
    var sum = 0.0
    var squares = 0.0
    for e in errors {
      sum += e
      squares += e * e
    }
    let mean = sum / n
    var deviations = 0.0
    for e in errors { deviations += (e - mean) * (e - mean) }
    let sorted = errors.sorted()
    let middle = sorted.count / 2
    self.rmse = (squares / n).squareRoot()
    self.mean = mean
    self.median = sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    self.std = (deviations / n).squareRoot()
    self.min = sorted.first!
    self.max = sorted.last!
    self.sse = squares
    self.count = errors.count
  }
}
