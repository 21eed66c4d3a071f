import Foundation

/// How a plane lies with respect to gravity, as the ground truth and the plane detector name it.
public enum SurfaceAlignment: String, Sendable, Hashable, Codable, CaseIterable {
  /// Perpendicular to gravity (floors, tables, seats, ceilings).
  case horizontal
  /// Parallel to gravity (walls).
  case vertical
  /// Neither (only ground truth has these; a detector reports horizontal or vertical planes).
  case other
}

/// A ground-truth plane, in the ground-truth world frame (metres), as plane evaluation needs it
/// (`planes.json` of a synthetic recording holds these values).
public struct ReferencePlane: Sendable, Hashable {
  /// The surface's identifier in the ground truth.
  public var id: Int
  /// The surface's label (`floor`, `table`, `wall`, `ceiling`, `seat`, `other`).
  public var label: String
  /// Orientation with respect to gravity.
  public var alignment: SurfaceAlignment
  /// The infinite plane `n·x + d = 0` in the ground-truth world; the normal points to the side the
  /// camera saw the surface from.
  public var plane: Plane
  /// The outline's vertices in the ground-truth world, metres, in order (a convex polygon in the plane).
  public var polygon: [SIMD3<Double>]
  /// Area in square metres.
  public var area: Double
  /// Timestamp (seconds, recording clock) of the first frame that shows the surface; nil when none does.
  public var firstSeen: Double?
  /// How long the surface was in view, seconds (frames showing it divided by the frame rate).
  public var secondsSeen: Double
  /// The fraction of the surface's area that some frame saw (see
  /// ``seenFractions(ofPolygons:cameraPoses:intrinsics:maximumDistance:gridSize:)``), in `[0, 1]`;
  /// nil when not computed.
  public var seenFraction: Double?

  /// A reference plane from its values (see the properties for units and frames).
  public init(
    id: Int, label: String, alignment: SurfaceAlignment, plane: Plane, polygon: [SIMD3<Double>], area: Double,
    firstSeen: Double?, secondsSeen: Double, seenFraction: Double? = nil
  ) {
    self.id = id
    self.label = label
    self.alignment = alignment
    self.plane = plane
    self.polygon = polygon
    self.area = area
    self.firstSeen = firstSeen
    self.secondsSeen = secondsSeen
    self.seenFraction = seenFraction
  }
}

/// A detected plane (a plane anchor) as plane evaluation needs it: its surface in some world frame
/// (the session's, or the ground truth's after alignment), metres.
public struct DetectedPlane: Sendable, Hashable {
  /// The anchor's identifier (any text that is unique within one session).
  public var identifier: String
  /// Horizontal or vertical, as the detector reports it.
  public var alignment: SurfaceAlignment
  /// The detector's classification (`none`, `floor`, `table`, `wall`, `ceiling`, `seat`, ...).
  public var classification: String
  /// The unit normal in the world (the anchor's y axis).
  public var normal: SIMD3<Double>
  /// A point of the surface in the world where its offset is measured: the anchor's `center`.
  public var center: SIMD3<Double>
  /// The boundary polygon's vertices in the world, in order (convex).
  public var polygon: [SIMD3<Double>]

  /// A detected plane from values already in the world frame. `normal` is normalised here (it must be
  /// non-zero and finite).
  public init(
    identifier: String, alignment: SurfaceAlignment, classification: String, normal: SIMD3<Double>,
    center: SIMD3<Double>, polygon: [SIMD3<Double>]
  ) {
    self.identifier = identifier
    self.alignment = alignment
    self.classification = classification
    self.normal = simd_normalize(normal)
    self.center = center
    self.polygon = polygon
  }

  /// A detected plane from a plane anchor: its fixed transform `worldFromAnchor`, and its `center` and
  /// boundary vertices in anchor space (metres). The anchor's y axis is the normal; the centre and the
  /// boundary are mapped into the world as they are (their y may be a few millimetres off 0 as the
  /// detector refines the surface under a fixed transform, so the offset is measured at the centre).
  public init(
    identifier: String, alignment: SurfaceAlignment, classification: String, worldFromAnchor: RigidTransform,
    center: SIMD3<Double>, boundary: [SIMD3<Double>]
  ) {
    self.init(
      identifier: identifier, alignment: alignment, classification: classification,
      normal: worldFromAnchor.rotate(SIMD3(0, 1, 0)), center: worldFromAnchor.apply(to: center),
      polygon: boundary.map { worldFromAnchor.apply(to: $0) })
  }

  /// The same plane in another world frame: `similarity` maps this plane's world into the destination
  /// (for example the trajectory alignment from the session world into the ground-truth world). Points
  /// are scaled with the similarity; the normal is only rotated.
  public func transformed(by similarity: Similarity) -> DetectedPlane {
    var result = self
    result.normal = simd_normalize(similarity.rotation.act(normal))
    result.center = similarity.apply(to: center)
    result.polygon = polygon.map { similarity.apply(to: $0) }
    return result
  }

  /// The area of the boundary polygon in its own plane, square metres.
  public var area: Double {
    let frame = PlaneFrame(normal: normal, origin: center)
    return Polygon2D.area(Polygon2D.convexHull(polygon.map { frame.project($0) }))
  }
}

/// The detected planes at one moment of a replay (one frame).
public struct PlaneSnapshot: Sendable, Hashable {
  /// The frame's timestamp, seconds (recording clock).
  public var timestamp: Double
  /// The planes that existed at that frame.
  public var planes: [DetectedPlane]

  /// A snapshot of `planes` at `timestamp` (seconds).
  public init(timestamp: Double, planes: [DetectedPlane]) {
    self.timestamp = timestamp
    self.planes = planes
  }
}

/// Thresholds of plane evaluation, with the defaults of the plane-detection issue.
public struct PlaneEvaluationOptions: Sendable, Hashable, Codable {
  /// A detected plane matches a reference when the angle between the two surfaces (normals compared
  /// without their sign) is at most this many degrees. Default 10.
  public var maximumAngleDegrees: Double = 10
  /// ... and the detected plane's centre is at most this far from the reference plane, metres.
  /// Default 0.05.
  public var maximumOffset: Double = 0.05
  /// ... and the two polygons, projected onto the reference plane, overlap in more than this area,
  /// square metres. Default 0 (any overlap of positive area).
  public var minimumOverlapArea: Double = 0
  /// References count towards recall when their area is at least this, square metres. Default 0.25.
  public var minimumEligibleArea: Double = 0.25
  /// ... and they were in view at least this long, seconds. Default 1.
  public var minimumEligibleSeconds: Double = 1
  /// ... and their alignment is one of these (a detector finds horizontal and vertical planes).
  /// Default horizontal and vertical.
  public var eligibleAlignments: Set<SurfaceAlignment> = [.horizontal, .vertical]
  /// A reference counts as "seen whole" when its `seenFraction` is at least this. Default 0.9.
  public var seenWholeFraction: Double = 0.9
  /// The union IoU of a reference covered by several planes uses at most this many of them (those
  /// overlapping it most), since its cost grows with the number of overlapping subsets. Default 10.
  public var maximumUnionPlanes: Int = 10

  /// The defaults.
  public init() {}

  /// Decodes the options; missing keys keep their defaults.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let defaults = PlaneEvaluationOptions()
    maximumAngleDegrees =
      try container.decodeIfPresent(Double.self, forKey: .maximumAngleDegrees) ?? defaults.maximumAngleDegrees
    maximumOffset =
      try container.decodeIfPresent(Double.self, forKey: .maximumOffset) ?? defaults.maximumOffset
    minimumOverlapArea =
      try container.decodeIfPresent(Double.self, forKey: .minimumOverlapArea) ?? defaults.minimumOverlapArea
    minimumEligibleArea =
      try container.decodeIfPresent(Double.self, forKey: .minimumEligibleArea) ?? defaults.minimumEligibleArea
    minimumEligibleSeconds =
      try container.decodeIfPresent(Double.self, forKey: .minimumEligibleSeconds)
      ?? defaults.minimumEligibleSeconds
    eligibleAlignments =
      try container.decodeIfPresent(Set<SurfaceAlignment>.self, forKey: .eligibleAlignments)
      ?? defaults.eligibleAlignments
    seenWholeFraction =
      try container.decodeIfPresent(Double.self, forKey: .seenWholeFraction) ?? defaults.seenWholeFraction
    maximumUnionPlanes =
      try container.decodeIfPresent(Int.self, forKey: .maximumUnionPlanes) ?? defaults.maximumUnionPlanes
  }

  /// Whether `reference` counts towards recall: large enough, in view long enough, of an eligible
  /// alignment. Areas within 1e-9 m² of the limit count as reaching it.
  public func isEligible(_ reference: ReferencePlane) -> Bool {
    reference.area >= minimumEligibleArea - 1e-9 && reference.secondsSeen >= minimumEligibleSeconds - 1e-9
      && eligibleAlignments.contains(reference.alignment)
  }

  /// Whether `reference` counts as seen whole (`seenFraction ≥ seenWholeFraction`); false when its
  /// seen fraction is unknown.
  public func isSeenWhole(_ reference: ReferencePlane) -> Bool {
    (reference.seenFraction ?? 0) >= seenWholeFraction
  }
}

/// How a detected plane compares with a reference plane.
public struct PlaneComparison: Sendable, Hashable {
  /// The angle between the two surfaces, degrees in `[0, 90]` (normals compared without their sign).
  public var angleDegrees: Double
  /// Whether the detected normal points to the other side of the surface than the reference's.
  public var isFlipped: Bool
  /// The signed distance of the detected plane's centre from the reference plane, metres (positive on
  /// the side the reference normal points to).
  public var offset: Double
  /// The area of the intersection of the two polygons projected onto the reference plane, m².
  public var intersectionArea: Double
  /// The area of the detected polygon projected onto the reference plane, m².
  public var detectedArea: Double
  /// The area of the reference polygon, m².
  public var referenceArea: Double

  /// Intersection over union of the two projected polygons, in `[0, 1]`.
  public var intersectionOverUnion: Double {
    let union = detectedArea + referenceArea - intersectionArea
    return union > 0 ? min(max(intersectionArea / union, 0), 1) : 0
  }

  /// Whether the comparison is a match under `options`: angle, offset and overlap within the limits.
  public func isMatch(_ options: PlaneEvaluationOptions) -> Bool {
    angleDegrees <= options.maximumAngleDegrees && offset.magnitude <= options.maximumOffset
      && intersectionArea > options.minimumOverlapArea
  }
}

/// Compares `detected` with `reference` (both in the same world frame, metres): the angle between the
/// surfaces, the offset of the detected centre from the reference plane, and the overlap of the two
/// polygons projected onto the reference plane (each replaced by its convex hull).
public func comparePlanes(reference: ReferencePlane, detected: DetectedPlane) -> PlaneComparison {
  ProjectedReference(reference).compare(detected)
}

/// The result of plane evaluation for one reference plane. Errors are those of its primary match: the
/// final detected plane that overlaps it most among those that match it.
public struct ReferencePlaneResult: Sendable, Hashable {
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
  /// The identifiers of the final detected planes that match it, most overlap first.
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
public struct DetectedPlaneResult: Sendable, Hashable {
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
public struct PlaneEvaluation: Sendable, Hashable {
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
/// by several planes: its errors are those of the one overlapping it most (the primary match), and both
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
    let matching = detected.indices.filter { comparisons[r][$0].isMatch(options) }
      .sorted { comparisons[r][$0].intersectionArea > comparisons[r][$1].intersectionArea }
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
        of: matching.prefix(options.maximumUnionPlanes).map { detected[$0] })
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

/// For each polygon (convex, in the world, metres), the fraction of its area that some camera saw: the
/// polygon is sampled on a grid of at most `gridSize × gridSize` cells over its bounding rectangle in
/// its plane, and a sample counts as seen when, for some pose, it is in front of the camera, inside
/// the image, within `maximumDistance` of the camera, and the segment from the camera to it does not
/// cross another of the polygons more than 1 cm before reaching it. Geometry only: no texture or
/// lighting is considered. A polygon without area gives 0.
///
/// - Parameters:
///   - polygons: the ground-truth outlines, also the occluders of one another.
///   - cameraPoses: `worldFromOptical` poses (optical frame: x right, y down, z forward).
///   - intrinsics: the camera's pinhole intrinsics.
///   - maximumDistance: metres (default 5, the depth range of the synthetic sessions).
///   - gridSize: cells along the longer side of the bounding rectangle (default 20).
public func seenFractions(
  ofPolygons polygons: [[SIMD3<Double>]], cameraPoses: [RigidTransform], intrinsics: CameraIntrinsics,
  maximumDistance: Double = 5, gridSize: Int = 20
) -> [Double] {
  let occluders = polygons.map(Occluder.init)
  let views = cameraPoses.map { (opticalFromWorld: $0.inverse, centre: $0.translation) }
  return polygons.indices.map { index in
    guard let occluder = occluders[index] else { return 0 }
    let samples = occluder.gridSamples(gridSize: max(gridSize, 1))
    guard !samples.isEmpty else { return 0 }
    var seen = 0
    for sample in samples {
      for view in views {
        let distance = simd_distance(view.centre, sample)
        guard distance <= maximumDistance, intrinsics.sees(view.opticalFromWorld.apply(to: sample)) else {
          continue
        }
        let hidden = occluders.indices.contains { other in
          other != index && occluders[other]?.blocks(from: view.centre, to: sample, margin: 0.01) == true
        }
        if !hidden {
          seen += 1
          break
        }
      }
    }
    return Double(seen) / Double(samples.count)
  }
}

/// An orthonormal frame of a plane: 2-D coordinates `(u, v)` of 3-D points projected onto it.
struct PlaneFrame {
  var origin: SIMD3<Double>
  var u: SIMD3<Double>
  var v: SIMD3<Double>
  var normal: SIMD3<Double>

  init(normal: SIMD3<Double>, origin: SIMD3<Double>) {
    let n = simd_normalize(normal)
    // The coordinate axis least aligned with the normal gives a well-conditioned in-plane axis.
    let magnitudes = SIMD3(abs(n.x), abs(n.y), abs(n.z))
    let axis: SIMD3<Double> =
      magnitudes.x <= magnitudes.y && magnitudes.x <= magnitudes.z
      ? SIMD3(1, 0, 0) : magnitudes.y <= magnitudes.z ? SIMD3(0, 1, 0) : SIMD3(0, 0, 1)
    u = simd_normalize(simd_cross(n, axis))
    v = simd_cross(n, u)
    self.normal = n
    self.origin = origin
  }

  /// The 2-D coordinates of `point` projected onto the plane, metres.
  func project(_ point: SIMD3<Double>) -> SIMD2<Double> {
    let d = point - origin
    return SIMD2(simd_dot(d, u), simd_dot(d, v))
  }

  /// The 3-D point of the plane at 2-D coordinates `p`.
  func point(_ p: SIMD2<Double>) -> SIMD3<Double> { origin + p.x * u + p.y * v }
}

/// The normal of a polygon by Newell's method (unnormalised; zero for a degenerate polygon).
func newellNormal(_ polygon: [SIMD3<Double>]) -> SIMD3<Double> {
  var normal = SIMD3<Double>.zero
  guard polygon.count >= 3 else { return normal }
  var previous = polygon[polygon.count - 1]
  for p in polygon {
    normal.x += (previous.y - p.y) * (previous.z + p.z)
    normal.y += (previous.z - p.z) * (previous.x + p.x)
    normal.z += (previous.x - p.x) * (previous.y + p.y)
    previous = p
  }
  return normal
}

/// A reference plane with its polygon projected once into its own plane frame.
struct ProjectedReference {
  let reference: ReferencePlane
  let frame: PlaneFrame
  let hull: [SIMD2<Double>]
  let hullArea: Double

  init(_ reference: ReferencePlane) {
    self.reference = reference
    let origin =
      reference.polygon.isEmpty
      ? reference.plane.pointClosestToOrigin
      : reference.plane.project(reference.polygon.reduce(.zero, +) / Double(reference.polygon.count))
    let frame = PlaneFrame(normal: reference.plane.normal, origin: origin)
    self.frame = frame
    hull = Polygon2D.convexHull(reference.polygon.map { frame.project($0) })
    hullArea = Polygon2D.area(hull)
  }

  func projectedHull(of plane: DetectedPlane) -> [SIMD2<Double>] {
    Polygon2D.convexHull(plane.polygon.map { frame.project($0) })
  }

  func compare(_ plane: DetectedPlane) -> PlaneComparison {
    let n = reference.plane.normal
    let dot = simd_dot(n, plane.normal)
    let angle = atan2(simd_length(simd_cross(n, plane.normal)), abs(dot)) * 180 / Double.pi
    let detectedHull = projectedHull(of: plane)
    let detectedArea = Polygon2D.area(detectedHull)
    let intersection =
      detectedHull.count >= 3 && hull.count >= 3 ? Polygon2D.convexIntersectionArea(hull, detectedHull) : 0
    return PlaneComparison(
      angleDegrees: angle, isFlipped: dot < 0, offset: reference.plane.signedDistance(to: plane.center),
      intersectionArea: intersection, detectedArea: detectedArea, referenceArea: hullArea)
  }

  /// `|R ∩ ∪D| / |R ∪ ∪D|` for the planes `D` projected onto the reference plane, by inclusion and
  /// exclusion over the subsets of `D` (intersections of convex polygons are convex; subsets whose
  /// intersection is empty are pruned with all their supersets).
  func unionIntersectionOverUnion(of planes: [DetectedPlane]) -> Double {
    let hulls = planes.map(projectedHull).filter { $0.count >= 3 }
    guard hullArea > 0 || !hulls.isEmpty else { return 0 }
    var unionArea = 0.0  // |∪D|
    var coveredArea = 0.0  // |R ∩ ∪D|
    func visit(from start: Int, intersection: [SIMD2<Double>], withReference: [SIMD2<Double>], size: Int) {
      for k in start..<hulls.count {
        let next = size == 0 ? hulls[k] : Polygon2D.convexIntersection(intersection, hulls[k])
        guard next.count >= 3 else { continue }
        let nextWithReference = hull.count >= 3 ? Polygon2D.convexIntersection(next, hull) : []
        let sign: Double = size % 2 == 0 ? 1 : -1
        unionArea += sign * Polygon2D.area(next)
        coveredArea += sign * Polygon2D.area(nextWithReference)
        visit(from: k + 1, intersection: next, withReference: nextWithReference, size: size + 1)
      }
    }
    visit(from: 0, intersection: [], withReference: [], size: 0)
    let union = hullArea + unionArea - coveredArea
    return union > 0 ? min(max(coveredArea / union, 0), 1) : 0
  }
}

/// A convex polygon that can hide points behind it.
struct Occluder {
  let frame: PlaneFrame
  let hull: [SIMD2<Double>]

  init?(_ polygon: [SIMD3<Double>]) {
    let normal = newellNormal(polygon)
    guard simd_length(normal) > 1e-12 else { return nil }
    let frame = PlaneFrame(normal: normal, origin: polygon.reduce(.zero, +) / Double(polygon.count))
    self.frame = frame
    hull = Polygon2D.convexHull(polygon.map { frame.project($0) })
    guard hull.count >= 3 else { return nil }
  }

  /// Cell centres of a grid over the hull's bounding rectangle that fall inside the hull (3-D points).
  func gridSamples(gridSize: Int) -> [SIMD3<Double>] {
    var low = hull[0]
    var high = hull[0]
    for p in hull {
      low = pointwiseMin(low, p)
      high = pointwiseMax(high, p)
    }
    let size = high - low
    let step = max(size.x, size.y) / Double(gridSize)
    guard step > 0 else { return [] }
    var samples: [SIMD3<Double>] = []
    let columns = max(Int((size.x / step).rounded(.up)), 1)
    let rows = max(Int((size.y / step).rounded(.up)), 1)
    for row in 0..<rows {
      for column in 0..<columns {
        let p = low + SIMD2(Double(column) + 0.5, Double(row) + 0.5) * step
        if p.x <= high.x, p.y <= high.y, Polygon2D.contains(p, in: hull) { samples.append(frame.point(p)) }
      }
    }
    return samples
  }

  /// Whether the segment from `start` to `end` crosses this polygon more than `margin` metres before
  /// `end`.
  func blocks(from start: SIMD3<Double>, to end: SIMD3<Double>, margin: Double) -> Bool {
    let direction = end - start
    let length = simd_length(direction)
    let denominator = simd_dot(frame.normal, direction)
    guard length > 0, abs(denominator) > 1e-12 * length else { return false }
    let t = simd_dot(frame.normal, frame.origin - start) / denominator
    guard t > 0, (1 - t) * length > margin else { return false }
    return Polygon2D.contains(frame.project(start + t * direction), in: hull)
  }
}
