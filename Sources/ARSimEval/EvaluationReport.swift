import Foundation

/// Renders evaluations as text for a terminal, Markdown, or JSON. Pure: strings out, no IO. Numbers in
/// JSON are the values in their shortest exact form (metres, seconds, degrees, ratios in `[0, 1]`);
/// unmeasured values are `null`. Text and Markdown round for reading. One renderer per format
/// (`TextReport.swift`, `MarkdownReport.swift`, `JSONReport.swift`); here are the lines and tables the
/// text and Markdown renderers share.
public enum EvaluationReport {
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
    if let gravity = tracking.gravityError {
      lines.append(
        "gravity error: median \(fixed(gravity.median, 3))°, max \(fixed(gravity.max, 3))° over \(gravity.count)"
          + " frames after the first second")
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
}
