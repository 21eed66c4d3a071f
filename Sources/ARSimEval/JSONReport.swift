import Foundation

extension EvaluationReport {
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
          ("gravityErrorDegrees", statisticsJSON(tracking.gravityError)),
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
