import Foundation

/// Everything measured on one recording.
public struct RecordingEvaluation: Sendable, Hashable, Codable {
  /// The recording's path (or name).
  public var recording: String
  /// The tracking mode (`rgbd`, `mono`).
  public var mode: String
  /// Where gravity came from, when known.
  public var gravitySource: String?
  /// Plain remarks: what could not be scored and why.
  public var notes: [String]
  /// Tracking.
  public var tracking: TrackingEvaluation
  /// Planes, when the recording has ground-truth planes and a ground-truth trajectory.
  public var planes: PlaneEvaluation?
  /// Raycasts, when the recording has ground-truth taps and a ground-truth trajectory.
  public var raycasts: RaycastEvaluation?

  /// An evaluation from its parts.
  public init(
    recording: String, mode: String, gravitySource: String?, notes: [String], tracking: TrackingEvaluation,
    planes: PlaneEvaluation?, raycasts: RaycastEvaluation?
  ) {
    self.recording = recording
    self.mode = mode
    self.gravitySource = gravitySource
    self.notes = notes
    self.tracking = tracking
    self.planes = planes
    self.raycasts = raycasts
  }
}

/// One row of the batch table: a metric across recordings.
public struct BatchMetric: Sendable, Hashable {
  /// Whether smaller or larger values are better (this decides the worst value).
  public enum Direction: String, Sendable, Hashable {
    /// Errors and times: the worst is the largest.
    case lowerIsBetter
    /// Rates and overlaps: the worst is the smallest.
    case higherIsBetter
  }

  /// A short key (`ate_rmse`, `plane_recall`, ...), as the JSON report names it.
  public var key: String
  /// A label for tables.
  public var label: String
  /// The unit (`m`, `deg`, `s`, or empty for ratios).
  public var unit: String
  /// Which way is better.
  public var direction: Direction
  /// The value of each recording, in order; nil where it was not measured.
  public var values: [Double?]

  /// The measured values.
  public var measured: [Double] { values.compactMap { $0 } }
  /// The mean of the measured values.
  public var mean: Double? { measured.isEmpty ? nil : measured.reduce(0, +) / Double(measured.count) }
  /// The median of the measured values.
  public var median: Double? { ErrorStatistics(measured)?.median }
  /// The worst measured value (the largest for errors, the smallest for rates).
  public var worst: Double? { direction == .lowerIsBetter ? measured.max() : measured.min() }
}

/// The batch table: each metric across the recordings (mean, median, worst).
public func batchSummary(_ recordings: [RecordingEvaluation]) -> [BatchMetric] {
  typealias Extract = (RecordingEvaluation) -> Double?
  let lower = BatchMetric.Direction.lowerIsBetter
  let higher = BatchMetric.Direction.higherIsBetter
  let rows: [(String, String, String, BatchMetric.Direction, Extract)] = [
    ("ate_rmse", "ATE rmse", "m", lower, { $0.tracking.ate?.rmse }),
    ("rpe_rmse", "RPE rmse (1 frame)", "m", lower, { $0.tracking.rpe?.rmse }),
    ("tracked_fraction", "tracked fraction", "", higher, { $0.tracking.trackedFraction }),
    ("plane_precision", "plane precision", "", higher, { $0.planes?.precision }),
    ("plane_recall", "plane recall", "", higher, { $0.planes?.recall }),
    (
      "plane_angle_median", "plane normal error median", "deg", lower,
      { $0.planes?.angleErrorDegrees?.median }
    ),
    ("plane_offset_median", "plane offset error median", "m", lower, { $0.planes?.offsetError?.median }),
    (
      "plane_iou_median", "plane IoU median (matched)", "", higher,
      { $0.planes?.intersectionOverUnion?.median }
    ),
    (
      "plane_iou_seen_whole_median", "plane IoU median (seen whole)", "", higher,
      { $0.planes?.seenWholeIntersectionOverUnion?.median }
    ),
    (
      "plane_union_iou_median", "plane union IoU median (matched)", "", higher,
      { $0.planes?.unionIntersectionOverUnion?.median }
    ),
    (
      "time_to_first_detection_median", "time to first detection median", "s", lower,
      { $0.planes?.timeToFirstDetection?.median }
    ),
    (
      "first_horizontal_plane", "first horizontal plane after start", "s", lower,
      { $0.planes?.firstHorizontalPlaneTime }
    ),
    ("classification_accuracy", "classification accuracy", "", higher, { $0.planes?.classificationAccuracy }),
    (
      "raycast_hit_rate_on_plane", "raycast hit rate (on detected planes)", "", higher,
      { $0.raycasts?.onPlaneHitRate }
    ),
    ("raycast_hit_rate", "raycast hit rate (all taps)", "", higher, { $0.raycasts?.hitRate }),
    ("raycast_error_median", "raycast error median", "m", lower, { $0.raycasts?.worldError?.median }),
    ("raycast_error_p90", "raycast error p90", "m", lower, { $0.raycasts?.worldErrorP90 }),
    (
      "raycast_camera_error_median", "raycast camera-relative error median", "m", lower,
      { $0.raycasts?.cameraError?.median }
    ),
  ]
  return rows.map { key, label, unit, direction, extract in
    BatchMetric(key: key, label: label, unit: unit, direction: direction, values: recordings.map(extract))
  }
}
