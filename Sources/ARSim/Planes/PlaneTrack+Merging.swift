#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Whether two tracks are one surface (the merge tests; ``PlaneTrack/absorb(_:)`` merges them).
extension PlaneTrack {
  /// What the tests of ``match(_:options:)``, which need no spread, tell of whether another track is
  /// the same surface as this one.
  enum SurfaceMatch {
    /// The same surface.
    case same
    /// Not the same surface.
    case different
    /// The same surface if the supports lie on one plane (``continues(_:spreads:options:)``) and touch
    /// or overlap (``touchesOrOverlaps(_:)``).
    case ifContinuing
  }

  /// Whether `other` is the same surface as this one (``PlaneDetectionOptions`` has the thresholds):
  /// the same alignment, normals within ``PlaneDetectionOptions/mergeAngleDegrees``, and either
  /// - two floors (both classified `.floor`) at heights within ``PlaneDetectionOptions/floorMergeDistance``,
  ///   or two walls (both `.wall`) each within ``PlaneDetectionOptions/wallMergeDistance`` of the other's
  ///   plane: one floor or wall, even where furniture or a door hides it between them; or
  /// - the supports touching (an occupied cell of one next to an occupied cell of the other) or the
  ///   hulls overlapping, and the planes coinciding: each centroid within
  ///   ``PlaneDetectionOptions/mergeDistance`` of the other's plane, or both supports together lying on
  ///   one plane (``continues(_:spreads:options:)``). The last test needs each support's spread
  ///   (``spread()``, which a track keeps until it changes), so this answers ``SurfaceMatch/ifContinuing``
  ///   when only it can decide.
  func match(_ other: PlaneTrack, options: PlaneDetectionOptions) -> SurfaceMatch {
    guard alignment == other.alignment, plane.angle(to: other.plane) <= options.mergeAngleDegrees * .pi / 180,
      let mine = moments.mean, let theirs = other.moments.mean
    else { return .different }
    if alignment == .horizontal && classification == .floor && other.classification == .floor
      && (height - other.height).magnitude <= options.floorMergeDistance
    {
      return .same
    }
    if alignment == .vertical && classification == .wall && other.classification == .wall
      && plane.signedDistance(to: theirs).magnitude <= options.wallMergeDistance
      && other.plane.signedDistance(to: mine).magnitude <= options.wallMergeDistance
    {
      return .same
    }
    let coplanar =
      plane.signedDistance(to: theirs).magnitude <= options.mergeDistance
      && other.plane.signedDistance(to: mine).magnitude <= options.mergeDistance
    guard coplanar else { return .ifContinuing }
    return touchesOrOverlaps(other) ? .same : .different
  }

  /// Whether the supports touch (an occupied cell of one next to an occupied cell of the other) or the
  /// hulls overlap.
  func touchesOrOverlaps(_ other: PlaneTrack) -> Bool {
    let (small, large) = cells.count <= other.cells.count ? (self, other) : (other, self)
    for centre in small.cellCentres where large.touches(point: centre) { return true }
    let mapped = other.hull.map { anchor2D(other.world(anchor2D: $0)) }
    return Polygon2D.convexIntersectionArea(hull, mapped) > 0
  }

  /// Whether the points of both supports lie on one plane: the root-mean-square distance of all of them
  /// from their free least-squares plane exceeds the larger of the two supports' own (`spreads`, this
  /// one's and `other`'s ``spread()``) by at most ``PlaneDetectionOptions/mergeRoughening``, and that
  /// plane is within the alignment's tolerance; two parallel vertical planes found in one detection a
  /// step of several spreads apart never are (``PlaneDetectionOptions/distinctStepDegrees``).
  ///
  /// Gravity-aligned planes cannot follow a surface that is tilted against the estimated gravity (a
  /// gravity error of a few degrees, a wall out of plumb): such a surface splits into parallel bands a
  /// few centimetres apart, whose centroids are too far from each other's planes to merge, but whose
  /// points together are one flat surface. Two parallel surfaces (a door set into a wall) are not: their
  /// union is as rough as their separation.
  func continues(_ other: PlaneTrack, spreads: (Double?, Double?), options: PlaneDetectionOptions) -> Bool {
    guard let (free, together) = (moments + other.moments).planeFit, let a = spreads.0, let b = spreads.1,
      GravityAlignedPlane.isWithinTolerance(free, alignment: alignment, options: options),
      let mine = moments.mean, let theirs = other.moments.mean
    else { return false }
    let rougher = max(a, b).squareRoot()
    if alignment == .vertical, createdFrame == other.createdFrame,
      plane.angle(to: other.plane) <= options.distinctStepDegrees * .pi / 180
    {
      // A step between parallel planes that their union takes up by turning about the vertical (the
      // union of a wall's bands under a gravity error tilts instead).
      let up = GravityAlignedPlane.up
      let tilt = asin(min(1, abs(simd_dot(free.normal, up))))
      let across = free.normal - simd_dot(free.normal, up) * up
      let turn = acos(min(1, abs(simd_dot(simd_normalize(across), plane.normal))))
      let step = min(
        plane.signedDistance(to: theirs).magnitude, other.plane.signedDistance(to: mine).magnitude)
      if turn > tilt && step > options.distinctStepMultiple * rougher { return false }
    }
    return together.squareRoot() <= rougher + options.mergeRoughening
  }
}
