import Foundation

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
