import Foundation

/// A stretch of frames in one tracking state.
public struct TrackingStateSpan: Sendable, Hashable {
  /// The state's name as the events file writes it (`normal`, `limited:initializing`, ...).
  public var state: String
  /// Timestamp of the first frame in the state, seconds.
  public var start: Double
  /// Timestamp of the first frame of the next state (or of the last frame, for the last span), seconds.
  public var end: Double

  /// A span from its state name and times (seconds).
  public init(state: String, start: Double, end: Double) {
    self.state = state
    self.start = start
    self.end = end
  }

  /// `end − start`, seconds.
  public var duration: Double { end - start }
}

/// The tracking-state time line: consecutive frames in the same state form one span, which ends where
/// the next begins (the last ends at the last frame). `timestamps` (seconds) and `states` correspond.
///
/// - Precondition: `timestamps.count == states.count`.
public func trackingStateSpans(timestamps: [Double], states: [String]) -> [TrackingStateSpan] {
  precondition(timestamps.count == states.count, "one state per timestamp")
  var spans: [TrackingStateSpan] = []
  for (time, state) in zip(timestamps, states) {
    if spans.last?.state == state {
      spans[spans.count - 1].end = time
    } else {
      if !spans.isEmpty { spans[spans.count - 1].end = time }
      spans.append(TrackingStateSpan(state: state, start: time, end: time))
    }
  }
  return spans
}

/// One frame as tracking evaluation needs it.
public struct EvaluatedFrame: Sendable, Hashable {
  /// Timestamp, seconds.
  public var timestamp: Double
  /// The tracking state's name (`normal`, `limited:initializing`, ...).
  public var state: String
  /// Whether the frame has a tracked pose.
  public var isTracked: Bool
  /// Whether the frame has a pose at all: tracked, or one measured while initialising (a monocular
  /// camera that has not moved measurably: rotation only, position held). At least `isTracked`.
  public var hasPose: Bool
  /// The estimated `worldFromOptical` pose, session world.
  public var estimate: RigidTransform
  /// The ground-truth `worldFromOptical` pose, ground-truth world, when known.
  public var groundTruth: RigidTransform?

  /// A frame from its values (see the properties for units and frames); `hasPose` is true whenever
  /// `isTracked` is.
  public init(
    timestamp: Double, state: String, isTracked: Bool, hasPose: Bool = false, estimate: RigidTransform,
    groundTruth: RigidTransform?
  ) {
    self.timestamp = timestamp
    self.state = state
    self.isTracked = isTracked
    self.hasPose = isTracked || hasPose
    self.estimate = estimate
    self.groundTruth = groundTruth
  }
}

/// Tracking scored against ground truth.
public struct TrackingEvaluation: Sendable, Hashable {
  /// The number of frames.
  public var frameCount: Int
  /// The number of tracked frames.
  public var trackedCount: Int
  /// `trackedCount / frameCount`; nil without frames.
  public var trackedFraction: Double?
  /// The state time line.
  public var states: [TrackingStateSpan]
  /// How the estimate was aligned (`se3`, or `sim3` for monocular tracking); nil without ground truth.
  public var alignmentKind: TrajectoryAlignment?
  /// The alignment from the session world into the ground-truth world (Umeyama over the tracked frames'
  /// optical positions); nil with fewer than three tracked frames with ground truth.
  public var alignment: Similarity?
  /// ATE: position errors after alignment, metres.
  public var ate: ErrorStatistics?
  /// RPE: translation errors between consecutive tracked frames, metres.
  public var rpe: ErrorStatistics?
  /// Length of the ground-truth path over the tracked frames, metres.
  public var pathLength: Double?
  /// The number of frames with a pose (``EvaluatedFrame/hasPose``): the tracked ones and those measured
  /// while initialising.
  public var poseCount = 0
  /// The largest distance of the estimated camera (optical centre) from its first pose, over the frames
  /// with a pose, in the session world without alignment: metres, or the unit of the initial baseline
  /// for unscaled monocular tracking. It reads drift and jitter where the camera barely moves, which the
  /// ATE cannot (an alignment to a still trajectory is degenerate). Nil without frames with a pose.
  public var maxDistanceFromStart: Double?
  /// The same for the ground truth: the largest distance of the true camera from its pose at the first
  /// frame with a pose and ground truth, over the frames with both, metres. Nil without such frames.
  public var groundTruthMaxDistanceFromStart: Double?
}

/// The largest distance of `positions` from the first one; nil when empty.
func maxDistanceFromFirst(_ positions: [SIMD3<Double>]) -> Double? {
  guard let first = positions.first else { return nil }
  return positions.map { simd_length($0 - first) }.max()
}

/// Scores tracking: tracked fraction, state time line, the largest distance from the first pose (estimate
/// and ground truth, over the frames with a pose), and, with at least three tracked frames with
/// ground truth, ATE (after SE(3) alignment, or Sim(3) when `withScale`) and RPE over one frame (after
/// the same alignment, so that a monocular estimate's scale is corrected), as evo defines them. The alignment is kept: it maps the session world into the ground-truth world, for
/// scoring planes and raycasts.
///
/// - Throws: `EvaluationError` when the alignment is degenerate.
public func evaluateTracking(_ frames: [EvaluatedFrame], withScale: Bool) throws -> TrackingEvaluation {
  let tracked = frames.filter(\.isTracked)
  var result = TrackingEvaluation(
    frameCount: frames.count, trackedCount: tracked.count,
    trackedFraction: frames.isEmpty ? nil : Double(tracked.count) / Double(frames.count),
    states: trackingStateSpans(timestamps: frames.map(\.timestamp), states: frames.map(\.state)))
  let posed = frames.filter(\.hasPose)
  result.poseCount = posed.count
  result.maxDistanceFromStart = maxDistanceFromFirst(posed.map(\.estimate.translation))
  result.groundTruthMaxDistanceFromStart = maxDistanceFromFirst(posed.compactMap(\.groundTruth?.translation))
  let pairs = tracked.filter { $0.groundTruth != nil }
  guard pairs.count >= 3 else { return result }
  let reference = Trajectory(timestamps: pairs.map(\.timestamp), poses: pairs.map { $0.groundTruth! })
  let estimate = Trajectory(timestamps: pairs.map(\.timestamp), poses: pairs.map(\.estimate))
  let kind: TrajectoryAlignment = withScale ? .sim3 : .se3
  let ate = try absoluteTrajectoryError(
    reference: reference, estimate: estimate, options: AbsoluteErrorOptions(alignment: kind))
  var rpeOptions = RelativeErrorOptions()
  rpeOptions.alignment = kind
  let rpe = try relativePoseError(reference: reference, estimate: estimate, options: rpeOptions)
  result.alignmentKind = kind
  result.alignment = ate.alignment
  result.ate = ate.statistics
  result.rpe = rpe.statistics
  result.pathLength = reference.pathLength
  return result
}

/// Everything measured on one recording.
public struct RecordingEvaluation: Sendable, Hashable {
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

// MARK: - Formatting

/// Renders evaluations as text for a terminal, Markdown, or JSON. Pure: strings out, no IO. Numbers in
/// JSON are the values in their shortest exact form (metres, seconds, degrees, ratios in `[0, 1]`);
/// unmeasured values are `null`. Text and Markdown round for reading.
public enum EvaluationReport {
  /// The human-readable report: per recording its figures and tables, then the batch table when there
  /// are several recordings.
  public static func text(_ recordings: [RecordingEvaluation]) -> String {
    var out: [String] = []
    for recording in recordings {
      out.append("recording: \(recording.recording)")
      out.append("mode: \(recording.mode)" + (recording.gravitySource.map { ", gravity from \($0)" } ?? ""))
      out += trackingLines(recording.tracking)
      if let planes = recording.planes {
        out += planeSummaryLines(planes)
        out.append(referenceTable(planes).plain)
        if !planes.detected.isEmpty { out.append(anchorTable(planes).plain) }
      }
      if let raycasts = recording.raycasts { out += raycastLines(raycasts) }
      for note in recording.notes { out.append("note: \(note)") }
      out.append("")
    }
    if recordings.count > 1 {
      out.append("batch summary over \(recordings.count) recordings:")
      out.append(batchTable(recordings).plain)
    }
    return out.joined(separator: "\n")
  }

  /// The Markdown report: a section per recording with tables, and a batch table.
  public static func markdown(_ recordings: [RecordingEvaluation]) -> String {
    var out = ["# arsim eval", ""]
    if recordings.count > 1 {
      out += ["## Batch summary (\(recordings.count) recordings)", "", batchTable(recordings).markdown, ""]
    }
    for recording in recordings {
      out.append("## \(recording.recording)")
      out.append("")
      out.append(
        "Mode \(recording.mode)" + (recording.gravitySource.map { ", gravity from \($0)" } ?? "") + ".")
      out.append("")
      out += trackingLines(recording.tracking).map { "- " + $0 }
      out.append("")
      if let planes = recording.planes {
        out += ["### Planes", ""]
        out += planeSummaryLines(planes).map { "- " + $0 }
        out += ["", referenceTable(planes).markdown, ""]
        if !planes.detected.isEmpty { out += [anchorTable(planes).markdown, ""] }
      }
      if let raycasts = recording.raycasts {
        out += ["### Raycasts", ""]
        out += raycastLines(raycasts).map { "- " + $0 }
        out.append("")
      }
      if !recording.notes.isEmpty {
        out += recording.notes.map { "> " + $0 }
        out.append("")
      }
    }
    return out.joined(separator: "\n")
  }

  /// The JSON report: `{"format": "arsim-eval", "version": 1, "recordings": [...], "batch": {...}}`;
  /// keys in a fixed order, so equal evaluations give identical text.
  public static func json(_ recordings: [RecordingEvaluation]) -> String {
    let batch = batchSummary(recordings)
    return JSONValue.object([
      ("format", .string("arsim-eval")), ("version", .int(1)),
      ("recordings", .array(recordings.map(recordingJSON))),
      (
        "batch",
        .object([
          ("recordings", .array(recordings.map { .string($0.recording) })),
          (
            "metrics",
            .array(
              batch.map { metric in
                .object([
                  ("key", .string(metric.key)), ("label", .string(metric.label)),
                  ("unit", .string(metric.unit)),
                  ("better", .string(metric.direction == .lowerIsBetter ? "lower" : "higher")),
                  ("values", .array(metric.values.map(JSONValue.number))), ("mean", .number(metric.mean)),
                  ("median", .number(metric.median)), ("worst", .number(metric.worst)),
                ])
              })
          ),
        ])
      ),
    ]).text + "\n"
  }

  // MARK: Text pieces

  static func trackingLines(_ tracking: TrackingEvaluation) -> [String] {
    var lines = [
      "tracked: \(tracking.trackedCount) of \(tracking.frameCount) frames"
        + (tracking.trackedFraction.map { " (" + fixed($0 * 100, 1) + "%)" } ?? ""),
      "states: "
        + tracking.states.map { "\($0.state) " + fixed($0.duration, 2) + " s" }.joined(separator: " > "),
    ]
    if let ate = tracking.ate, let kind = tracking.alignmentKind {
      let path = tracking.pathLength ?? 0
      lines.append(
        "ATE (\(kind == .sim3 ? "Sim(3)" : "SE(3)")): rmse \(fixed(ate.rmse, 4)) m, median \(fixed(ate.median, 4)) m,"
          + " max \(fixed(ate.max, 4)) m over \(ate.count) poses; "
          + fixed(100 * ate.rmse / max(path, 1e-9), 2) + "% of the \(fixed(path, 2)) m path")
      if kind == .sim3, let alignment = tracking.alignment {
        lines.append("Sim(3) scale: \(fixed(alignment.scale, 4))")
      }
    } else {
      lines.append("accuracy: no ground truth to compare with")
    }
    if let distance = tracking.maxDistanceFromStart {
      lines.append(
        "max distance from the first pose: estimate \(fixed(distance, 4)) m, ground truth"
          + " \(optional(tracking.groundTruthMaxDistanceFromStart, " m", 4)) over \(tracking.poseCount) frames"
          + " with a pose")
    }
    if let rpe = tracking.rpe {
      lines.append(
        "RPE (1 frame): rmse \(fixed(rpe.rmse, 4)) m, median \(fixed(rpe.median, 4)) m, max \(fixed(rpe.max, 4)) m"
          + " over \(rpe.count) pairs")
    }
    return lines
  }

  static func planeSummaryLines(_ planes: PlaneEvaluation) -> [String] {
    let anchors = planes.detected.count
    return [
      "planes: precision \(ratio(planes.precision)) (\(anchors - planes.unmatchedDetectedCount) of \(anchors)"
        + " anchors match a ground-truth plane), recall \(ratio(planes.recall)) (\(planes.eligibleMatchedCount)"
        + " of \(planes.eligibleCount) planes of >= 0.25 m² seen >= 1 s)",
      "plane errors (matched): normal \(statistic(planes.angleErrorDegrees, "°", 2)),"
        + " offset \(statistic(planes.offsetError, " m", 4))",
      "plane IoU: matched \(statistic(planes.intersectionOverUnion, "", 3)),"
        + " seen whole \(statistic(planes.seenWholeIntersectionOverUnion, "", 3)),"
        + " union of matches \(statistic(planes.unionIntersectionOverUnion, "", 3))",
      "time to first detection: \(statistic(planes.timeToFirstDetection, " s", 2));"
        + " first plane \(optional(planes.firstPlaneTime, " s", 2)) after start,"
        + " first horizontal \(optional(planes.firstHorizontalPlaneTime, " s", 2))",
      "classification accuracy: \(ratio(planes.classificationAccuracy))",
    ]
  }

  static func raycastLines(_ raycasts: RaycastEvaluation) -> [String] {
    [
      "raycasts: \(raycasts.tapCount) taps; hit rate on detected planes \(ratio(raycasts.onPlaneHitRate))"
        + " (\(raycasts.onPlaneHitCount) of \(raycasts.onPlaneCount)), all taps \(ratio(raycasts.hitRate))"
        + " (\(raycasts.hitCount) of \(raycasts.tapCount))",
      "raycast error (world): \(statistic(raycasts.worldError, " m", 4)), p90 \(optional(raycasts.worldErrorP90, " m", 4));"
        + " on detected planes \(statistic(raycasts.onPlaneWorldError, " m", 4)),"
        + " p90 \(optional(raycasts.onPlaneWorldErrorP90, " m", 4))",
      "raycast error (camera-relative, along the ray): \(statistic(raycasts.cameraError, " m", 4)),"
        + " p90 \(optional(raycasts.cameraErrorP90, " m", 4)); range bias \(optional(raycasts.rangeBias, " m", 4))"
        + " (positive: hits beyond the surface)",
    ]
  }

  static func referenceTable(_ planes: PlaneEvaluation) -> TextTable {
    TextTable(
      header: [
        "plane", "label", "area m²", "seen s", "seen %", "eligible", "anchors", "normal °", "offset m", "IoU",
        "union IoU", "class", "first det. s",
      ],
      rows: planes.references.map { r in
        [
          "\(r.id)", r.label, fixed(r.area, 2), fixed(r.secondsSeen, 1),
          r.seenFraction.map { fixed($0 * 100, 0) } ?? "-", r.isEligible ? "yes" : "no", "\(r.matches.count)",
          r.angleDegrees.map { fixed($0, 2) } ?? "-", r.offsetError.map { fixed($0, 4) } ?? "-",
          r.bestIntersectionOverUnion.map { fixed($0, 3) } ?? "-",
          r.unionIntersectionOverUnion.map { fixed($0, 3) } ?? "-",
          r.classification.map { $0 + (r.isClassificationCorrect == true ? "" : " (x)") } ?? "-",
          r.timeToFirstDetection.map { fixed($0, 2) } ?? "-",
        ]
      })
  }

  static func anchorTable(_ planes: PlaneEvaluation) -> TextTable {
    TextTable(
      header: ["anchor", "alignment", "class", "area m²", "matches"],
      rows: planes.detected.map { d in
        [
          String(d.identifier.split(separator: "-").last ?? Substring(d.identifier)), d.alignment.rawValue,
          d.classification, fixed(d.area, 2),
          d.matches.isEmpty ? "none" : d.matches.map(String.init).joined(separator: ","),
        ]
      })
  }

  static func batchTable(_ recordings: [RecordingEvaluation]) -> TextTable {
    let names = recordings.map { ($0.recording as NSString).lastPathComponent }
    return TextTable(
      header: ["metric", "unit"] + names + ["mean", "median", "worst"],
      rows: batchSummary(recordings).map { metric in
        let digits = metric.unit == "m" ? 4 : metric.unit == "" ? 3 : 2
        let cell = { (value: Double?) in value.map { fixed($0, digits) } ?? "-" }
        return [metric.label, metric.unit] + metric.values.map(cell) + [
          cell(metric.mean), cell(metric.median), cell(metric.worst),
        ]
      })
  }

  static func fixed(_ value: Double, _ digits: Int) -> String {
    value.isFinite ? String(format: "%.\(digits)f", value) : "-"
  }

  static func ratio(_ value: Double?) -> String { value.map { fixed($0, 3) } ?? "n/a" }

  static func optional(_ value: Double?, _ unit: String, _ digits: Int) -> String {
    value.map { fixed($0, digits) + unit } ?? "n/a"
  }

  static func statistic(_ statistics: ErrorStatistics?, _ unit: String, _ digits: Int) -> String {
    guard let s = statistics else { return "n/a" }
    return
      "median \(fixed(s.median, digits))\(unit) (mean \(fixed(s.mean, digits)), max \(fixed(s.max, digits)),"
      + " n \(s.count))"
  }

  // MARK: JSON pieces

  static func statisticsJSON(_ statistics: ErrorStatistics?, p90: Double? = nil) -> JSONValue {
    guard let s = statistics else { return .null }
    var members: [(String, JSONValue)] = [
      ("rmse", .number(s.rmse)), ("mean", .number(s.mean)), ("median", .number(s.median)),
      ("std", .number(s.std)), ("min", .number(s.min)), ("max", .number(s.max)), ("count", .int(s.count)),
    ]
    if let p90 { members.append(("p90", .number(p90))) }
    return .object(members)
  }

  static func recordingJSON(_ recording: RecordingEvaluation) -> JSONValue {
    let tracking = recording.tracking
    return .object([
      ("recording", .string(recording.recording)), ("mode", .string(recording.mode)),
      ("gravitySource", recording.gravitySource.map(JSONValue.string) ?? .null),
      ("notes", .array(recording.notes.map(JSONValue.string))),
      (
        "tracking",
        .object([
          ("frames", .int(tracking.frameCount)), ("tracked", .int(tracking.trackedCount)),
          ("trackedFraction", .number(tracking.trackedFraction)),
          (
            "states",
            .array(
              tracking.states.map {
                .object([
                  ("state", .string($0.state)), ("start", .number($0.start)), ("end", .number($0.end)),
                  ("duration", .number($0.duration)),
                ])
              })
          ),
          ("alignment", tracking.alignmentKind.map { .string($0.rawValue) } ?? .null),
          ("scale", .number(tracking.alignment?.scale)), ("pathLength", .number(tracking.pathLength)),
          ("ate", statisticsJSON(tracking.ate)), ("rpe", statisticsJSON(tracking.rpe)),
          ("withPose", .int(tracking.poseCount)),
          ("maxDistanceFromStart", .number(tracking.maxDistanceFromStart)),
          ("groundTruthMaxDistanceFromStart", .number(tracking.groundTruthMaxDistanceFromStart)),
        ])
      ),
      ("planes", recording.planes.map(planesJSON) ?? .null),
      ("raycasts", recording.raycasts.map(raycastsJSON) ?? .null),
    ])
  }

  static func planesJSON(_ planes: PlaneEvaluation) -> JSONValue {
    .object([
      ("precision", .number(planes.precision)), ("recall", .number(planes.recall)),
      ("anchors", .int(planes.detected.count)), ("unmatchedAnchors", .int(planes.unmatchedDetectedCount)),
      ("eligible", .int(planes.eligibleCount)), ("eligibleMatched", .int(planes.eligibleMatchedCount)),
      ("angleErrorDegrees", statisticsJSON(planes.angleErrorDegrees)),
      ("offsetError", statisticsJSON(planes.offsetError)),
      ("iou", statisticsJSON(planes.intersectionOverUnion)),
      ("unionIoU", statisticsJSON(planes.unionIntersectionOverUnion)),
      ("seenWholeIoU", statisticsJSON(planes.seenWholeIntersectionOverUnion)),
      ("seenWholeUnionIoU", statisticsJSON(planes.seenWholeUnionIntersectionOverUnion)),
      ("timeToFirstDetection", statisticsJSON(planes.timeToFirstDetection)),
      ("classificationAccuracy", .number(planes.classificationAccuracy)),
      ("firstPlaneTime", .number(planes.firstPlaneTime)),
      ("firstHorizontalPlaneTime", .number(planes.firstHorizontalPlaneTime)),
      (
        "references",
        .array(
          planes.references.map { r in
            .object([
              ("id", .int(r.id)), ("label", .string(r.label)), ("alignment", .string(r.alignment.rawValue)),
              ("area", .number(r.area)), ("secondsSeen", .number(r.secondsSeen)),
              ("seenFraction", .number(r.seenFraction)), ("eligible", .bool(r.isEligible)),
              ("seenWhole", .bool(r.isSeenWhole)), ("anchors", .array(r.matches.map(JSONValue.string))),
              ("angleErrorDegrees", .number(r.angleDegrees)),
              ("flipped", r.isFlipped.map(JSONValue.bool) ?? .null),
              ("offsetError", .number(r.offsetError)), ("iou", .number(r.bestIntersectionOverUnion)),
              ("unionIoU", .number(r.unionIntersectionOverUnion)),
              ("classification", r.classification.map(JSONValue.string) ?? .null),
              ("classificationCorrect", r.isClassificationCorrect.map(JSONValue.bool) ?? .null),
              ("firstDetection", .number(r.firstDetection)),
              ("timeToFirstDetection", .number(r.timeToFirstDetection)),
            ])
          })
      ),
      (
        "detected",
        .array(
          planes.detected.map { d in
            .object([
              ("id", .string(d.identifier)), ("alignment", .string(d.alignment.rawValue)),
              ("classification", .string(d.classification)), ("area", .number(d.area)),
              ("matches", .array(d.matches.map(JSONValue.int))),
            ])
          })
      ),
    ])
  }

  static func raycastsJSON(_ raycasts: RaycastEvaluation) -> JSONValue {
    .object([
      ("taps", .int(raycasts.tapCount)), ("hits", .int(raycasts.hitCount)),
      ("hitRate", .number(raycasts.hitRate)),
      ("onPlaneTaps", .int(raycasts.onPlaneCount)), ("onPlaneHits", .int(raycasts.onPlaneHitCount)),
      ("onPlaneHitRate", .number(raycasts.onPlaneHitRate)),
      ("worldError", statisticsJSON(raycasts.worldError, p90: raycasts.worldErrorP90)),
      ("onPlaneWorldError", statisticsJSON(raycasts.onPlaneWorldError, p90: raycasts.onPlaneWorldErrorP90)),
      ("cameraError", statisticsJSON(raycasts.cameraError, p90: raycasts.cameraErrorP90)),
      ("rangeError", statisticsJSON(raycasts.rangeError, p90: raycasts.rangeErrorP90)),
      ("rangeBias", .number(raycasts.rangeBias)),
      (
        "results",
        .array(
          raycasts.taps.map { t in
            .object([
              ("t", .number(t.timestamp)), ("plane", t.referenceId.map(JSONValue.int) ?? .null),
              ("onDetectedPlane", .bool(t.isOnDetectedPlane)), ("hit", .bool(t.isHit)),
              ("anchor", t.hitIdentifier.map(JSONValue.string) ?? .null),
              ("worldError", .number(t.worldError)),
              ("cameraError", .number(t.cameraError)), ("rangeError", .number(t.rangeError)),
            ])
          })
      ),
    ])
  }
}

/// A table rendered as aligned plain text or as Markdown.
struct TextTable {
  var header: [String]
  var rows: [[String]]

  /// Columns padded to their widest cell (in characters), two spaces apart; numbers right-aligned.
  var plain: String {
    let widths = header.indices.map { c in
      ([header] + rows).map { $0.indices.contains(c) ? $0[c].count : 0 }.max() ?? 0
    }
    func line(_ cells: [String]) -> String {
      cells.enumerated().map { c, cell in
        let pad = String(repeating: " ", count: max(widths[c] - cell.count, 0))
        return Self.isNumeric(cell) ? pad + cell : cell + pad
      }.joined(separator: "  ").replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
    }
    return ([line(header)] + rows.map(line)).joined(separator: "\n")
  }

  /// A GitHub-flavoured Markdown table (numbers right-aligned).
  var markdown: String {
    let numeric = header.indices.map { c in
      !rows.isEmpty && rows.allSatisfy { !$0.indices.contains(c) || Self.isNumeric($0[c]) || $0[c] == "-" }
    }
    let escape = { (cell: String) in cell.replacingOccurrences(of: "|", with: "\\|") }
    var lines = ["| " + header.map(escape).joined(separator: " | ") + " |"]
    lines.append("|" + numeric.map { $0 ? " ---: |" : " --- |" }.joined())
    for row in rows { lines.append("| " + row.map(escape).joined(separator: " | ") + " |") }
    return lines.joined(separator: "\n")
  }

  static func isNumeric(_ cell: String) -> Bool { Double(cell) != nil }
}

/// A JSON value with keys in the order given and numbers in Swift's shortest exact form (so outputs
/// are byte-identical across runs): the evaluation report's, and the CLI's outputs'.
package enum JSONValue {
  case string(String)
  case double(Double)
  case float(Float)
  case int(Int)
  case bool(Bool)
  case null
  case array([JSONValue])
  case object([(String, JSONValue)])

  /// A number, or `null` when nil or not finite.
  package static func number(_ value: Double?) -> JSONValue {
    guard let value, value.isFinite else { return .null }
    return .double(value)
  }

  /// The JSON text.
  package var text: String {
    switch self {
    case .string(let s): return Self.quote(s)
    case .double(let x): return x.isFinite ? "\(x)" : "null"
    case .float(let x): return x.isFinite ? "\(x)" : "null"
    case .int(let x): return "\(x)"
    case .bool(let b): return b ? "true" : "false"
    case .null: return "null"
    case .array(let items): return "[" + items.map(\.text).joined(separator: ",") + "]"
    case .object(let members):
      return "{" + members.map { Self.quote($0.0) + ":" + $0.1.text }.joined(separator: ",") + "}"
    }
  }

  /// `s` as a JSON string literal.
  package static func quote(_ s: String) -> String {
    var out = "\""
    for scalar in s.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\t": out += "\\t"
      case "\r": out += "\\r"
      default:
        if scalar.value < 0x20 {
          out += String(format: "\\u%04x", scalar.value)
        } else {
          out.unicodeScalars.append(scalar)
        }
      }
    }
    return out + "\""
  }
}
