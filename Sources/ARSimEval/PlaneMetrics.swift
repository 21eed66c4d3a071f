import Foundation

/// The result of plane evaluation for one reference plane. Errors are those of its primary match: the
/// final detected plane of the best IoU with it among those that match it (of the most overlap among
/// equals).
public struct ReferencePlaneResult: Sendable, Hashable, Codable {
  /// The reference's identifier.
  public var id: Int
  /// The reference's label.
  public var label: String
  /// The reference's alignment.
  public var alignment: SurfaceAlignment
  /// The reference's area, m².
  public var area: Double
  /// How long the reference was in view, seconds.
  public var secondsSeen: Double
  /// The fraction of its area that was seen, when known.
  public var seenFraction: Double?
  /// Whether it counts towards recall (see ``PlaneEvaluationOptions/isEligible(_:)``).
  public var isEligible: Bool
  /// Whether it counts as seen whole (see ``PlaneEvaluationOptions/isSeenWhole(_:)``).
  public var isSeenWhole: Bool
  /// The identifiers of the final detected planes that match it, best IoU first.
  public var matches: [String]
  /// The angle between the primary match's surface and the reference, degrees; nil when unmatched.
  public var angleDegrees: Double?
  /// Whether the primary match's normal points to the other side; nil when unmatched.
  public var isFlipped: Bool?
  /// The absolute offset of the primary match's centre from the reference plane, metres.
  public var offsetError: Double?
  /// The best IoU of one matching plane with the reference (projected onto the reference plane).
  public var bestIntersectionOverUnion: Double?
  /// The IoU of the union of all matching planes with the reference.
  public var unionIntersectionOverUnion: Double?
  /// The primary match's classification.
  public var classification: String?
  /// Whether that classification agrees with the label (`other` agrees with `none`).
  public var isClassificationCorrect: Bool?
  /// Timestamp of the first snapshot in which some plane matched the reference, seconds.
  public var firstDetection: Double?
  /// `firstDetection − firstSeen`, seconds; nil when either is unknown.
  public var timeToFirstDetection: Double?
}

/// The result of plane evaluation for one final detected plane.
public struct DetectedPlaneResult: Sendable, Hashable, Codable {
  /// The detected plane's identifier.
  public var identifier: String
  /// Horizontal or vertical.
  public var alignment: SurfaceAlignment
  /// The detector's classification.
  public var classification: String
  /// The polygon's area in its own plane, m².
  public var area: Double
  /// The identifiers of the references it matches (the first is the one it overlaps most).
  public var matches: [Int]
}

/// Plane detection scored against ground truth: per reference and per final detected plane, and the
/// summary figures of the plane-detection issue.
public struct PlaneEvaluation: Sendable, Hashable, Codable {
  /// One result per reference, in the order given.
  public var references: [ReferencePlaneResult]
  /// One result per final detected plane, in the order given.
  public var detected: [DetectedPlaneResult]
  /// Fraction of final detected planes that match some reference; nil when there is none.
  public var precision: Double?
  /// Fraction of eligible references matched by some final detected plane; nil when none is eligible.
  public var recall: Double?
  /// The number of eligible references.
  public var eligibleCount: Int
  /// The number of eligible references matched.
  public var eligibleMatchedCount: Int
  /// The number of final detected planes matching no reference.
  public var unmatchedDetectedCount: Int
  /// Angle errors of the matched references (all, eligible or not), degrees.
  public var angleErrorDegrees: ErrorStatistics?
  /// Absolute offset errors of the matched references, metres.
  public var offsetError: ErrorStatistics?
  /// Best single-plane IoU of the matched references (the statistics of values in `[0, 1]`).
  public var intersectionOverUnion: ErrorStatistics?
  /// Union IoU of the matched references.
  public var unionIntersectionOverUnion: ErrorStatistics?
  /// Best single-plane IoU of the matched references that were seen whole.
  public var seenWholeIntersectionOverUnion: ErrorStatistics?
  /// Union IoU of the matched references that were seen whole.
  public var seenWholeUnionIntersectionOverUnion: ErrorStatistics?
  /// Times to first detection of the references detected at some moment, seconds.
  public var timeToFirstDetection: ErrorStatistics?
  /// Fraction of matched references whose primary match is classified as labelled; nil when none.
  public var classificationAccuracy: Double?
  /// Seconds from the start time to the first snapshot with any detected plane.
  public var firstPlaneTime: Double?
  /// Seconds from the start time to the first snapshot with a horizontal detected plane.
  public var firstHorizontalPlaneTime: Double?
}

/// Scores plane detection against ground truth. Pure: values in, values out.
///
/// Each reference is compared with each final detected plane (``comparePlanes(reference:detected:)``);
/// a pair matches when the surfaces are within `maximumAngleDegrees`, the detected centre within
/// `maximumOffset` of the reference plane, and the projected polygons overlap. A reference may be covered
/// by several planes: its errors are those of the one of the best IoU with it (the primary match), and both
/// the best single IoU and the IoU of the union are reported. Precision is over all final planes, recall
/// over eligible references; error statistics over all matched references. The time to first detection
/// of a reference is the first snapshot of `history` in which a plane matched it, minus its `firstSeen`.
///
/// - Parameters:
///   - references: ground-truth planes, ground-truth world.
///   - detected: the final detected planes, already in the ground-truth world.
///   - history: the planes of every frame in time order, already in the ground-truth world (may be
///     empty: then no time to first detection).
///   - startTime: the time `firstPlaneTime` counts from (the first frame's timestamp), seconds.
public func evaluatePlanes(
  references: [ReferencePlane], detected: [DetectedPlane], history: [PlaneSnapshot] = [],
  startTime: Double? = nil, options: PlaneEvaluationOptions = PlaneEvaluationOptions()
) -> PlaneEvaluation {
  let projected = references.map(ProjectedReference.init)
  // comparisons[r][d]
  let comparisons = projected.map { reference in detected.map { reference.compare($0) } }
  var referenceResults: [ReferencePlaneResult] = []
  var detectedMatches = Array(repeating: [(reference: Int, area: Double)](), count: detected.count)
  for (r, reference) in references.enumerated() {
    // The primary match is the one of the best IoU (then the most overlap): a wall's convex hull covers
    // the door set into it as much as the door's own anchor does, but not as closely.
    let matching = detected.indices.filter { comparisons[r][$0].isMatch(options) }
      .sorted {
        let (a, b) = (comparisons[r][$0], comparisons[r][$1])
        return a.intersectionOverUnion != b.intersectionOverUnion
          ? a.intersectionOverUnion > b.intersectionOverUnion : a.intersectionArea > b.intersectionArea
      }
    for d in matching { detectedMatches[d].append((r, comparisons[r][d].intersectionArea)) }
    var result = ReferencePlaneResult(
      id: reference.id, label: reference.label, alignment: reference.alignment, area: reference.area,
      secondsSeen: reference.secondsSeen, seenFraction: reference.seenFraction,
      isEligible: options.isEligible(reference), isSeenWhole: options.isSeenWhole(reference),
      matches: matching.map { detected[$0].identifier })
    if let primary = matching.first {
      let comparison = comparisons[r][primary]
      result.angleDegrees = comparison.angleDegrees
      result.isFlipped = comparison.isFlipped
      result.offsetError = comparison.offset.magnitude
      result.bestIntersectionOverUnion = matching.map { comparisons[r][$0].intersectionOverUnion }.max()
      result.unionIntersectionOverUnion = projected[r].unionIntersectionOverUnion(
        of: matching.sorted { comparisons[r][$0].intersectionArea > comparisons[r][$1].intersectionArea }
          .prefix(options.maximumUnionPlanes).map { detected[$0] })
      result.classification = detected[primary].classification
      result.isClassificationCorrect = classificationAgrees(
        label: reference.label, classification: detected[primary].classification)
    }
    referenceResults.append(result)
  }
  // First detection from the history.
  var firstPlaneTime: Double?
  var firstHorizontalPlaneTime: Double?
  var pending = Set(references.indices)
  for snapshot in history {
    if firstPlaneTime == nil, !snapshot.planes.isEmpty { firstPlaneTime = snapshot.timestamp }
    if firstHorizontalPlaneTime == nil, snapshot.planes.contains(where: { $0.alignment == .horizontal }) {
      firstHorizontalPlaneTime = snapshot.timestamp
    }
    for r in pending.sorted()
    where snapshot.planes.contains(where: { projected[r].compare($0).isMatch(options) }) {
      pending.remove(r)
      referenceResults[r].firstDetection = snapshot.timestamp
      if let seen = references[r].firstSeen {
        referenceResults[r].timeToFirstDetection = snapshot.timestamp - seen
      }
    }
  }
  let detectedResults = detected.enumerated().map { d, plane in
    DetectedPlaneResult(
      identifier: plane.identifier, alignment: plane.alignment, classification: plane.classification,
      area: plane.area,
      matches: detectedMatches[d].sorted { $0.area > $1.area }.map { references[$0.reference].id })
  }
  let matched = referenceResults.filter { !$0.matches.isEmpty }
  let seenWhole = matched.filter(\.isSeenWhole)
  let eligible = referenceResults.filter(\.isEligible)
  let eligibleMatched = eligible.filter { !$0.matches.isEmpty }.count
  let unmatchedDetected = detectedResults.filter(\.matches.isEmpty).count
  let classified = matched.compactMap(\.isClassificationCorrect)
  return PlaneEvaluation(
    references: referenceResults, detected: detectedResults,
    precision: detected.isEmpty ? nil : Double(detected.count - unmatchedDetected) / Double(detected.count),
    recall: eligible.isEmpty ? nil : Double(eligibleMatched) / Double(eligible.count),
    eligibleCount: eligible.count, eligibleMatchedCount: eligibleMatched,
    unmatchedDetectedCount: unmatchedDetected,
    angleErrorDegrees: ErrorStatistics(matched.compactMap(\.angleDegrees)),
    offsetError: ErrorStatistics(matched.compactMap(\.offsetError)),
    intersectionOverUnion: ErrorStatistics(matched.compactMap(\.bestIntersectionOverUnion)),
    unionIntersectionOverUnion: ErrorStatistics(matched.compactMap(\.unionIntersectionOverUnion)),
    seenWholeIntersectionOverUnion: ErrorStatistics(seenWhole.compactMap(\.bestIntersectionOverUnion)),
    seenWholeUnionIntersectionOverUnion: ErrorStatistics(seenWhole.compactMap(\.unionIntersectionOverUnion)),
    timeToFirstDetection: ErrorStatistics(referenceResults.compactMap(\.timeToFirstDetection)),
    classificationAccuracy: classified.isEmpty
      ? nil : Double(classified.filter { $0 }.count) / Double(classified.count),
    firstPlaneTime: firstPlaneTime.map { $0 - (startTime ?? 0) },
    firstHorizontalPlaneTime: firstHorizontalPlaneTime.map { $0 - (startTime ?? 0) })
}

/// Whether a detector's classification agrees with a ground-truth label: equal names, or the label
/// `other` with the classification `none`.
public func classificationAgrees(label: String, classification: String) -> Bool {
  label == classification || (label == "other" && classification == "none")
}
