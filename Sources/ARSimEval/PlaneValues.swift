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
  /// The surface's label (`floor`, `table`, `wall`, `ceiling`, `seat`, `door`, `window`, `other`).
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
