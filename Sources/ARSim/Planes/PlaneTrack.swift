import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The detector's state of one plane anchor: a fixed anchor frame, the least-squares plane of all the
/// points that ever supported it (moments that merge by addition), the occupied cells of a grid in anchor
/// space (for growth and merging), and the convex hull of its support in anchor space (which only grows).
///
/// Anchor-space 2-D coordinates are `(x, −z)`: counter-clockwise in them is counter-clockwise seen from
/// the anchor's +y side, and a rotation by `θ` in them is a rotation by `θ` about the anchor's y axis.
struct PlaneTrack {
  let identifier: UUID
  let alignment: ARPlaneAnchor.Alignment
  /// The detector frame in which the plane was found.
  let createdFrame: Int32
  /// The detector frame in which it was last reported changed (a loop closure moves it by the
  /// correction of that frame's time).
  var updatedFrame: Int32
  /// The anchor's origin in world coordinates, metres.
  private(set) var origin: SIMD3<Double>
  /// worldFromAnchor's rotation; columns are the anchor's axes in world coordinates.
  private(set) var rotation: simd_double3x3
  /// anchorFromWorld's rotation.
  private(set) var inverseRotation: simd_double3x3
  /// The anchor's transform as ARKit reports it (anchor to world).
  private(set) var transform: simd_float4x4
  /// The grid cell size in anchor space, metres.
  let cellSize: Double

  /// The moments of every point that supported the plane (world).
  private(set) var moments: PlaneMoments
  /// ``moments``' mean squared distance from their free least-squares plane once ``spread()`` has
  /// worked it out (`.some(nil)`: there is none), `nil` until then; ``refit()`` forgets it. Merging
  /// asks for it for every pair of parallel tracks of which one changed, and each answer is an eigen
  /// decomposition; a track that did not change keeps its answer from frame to frame.
  private var knownSpread: Double?? = nil
  /// The gravity-aligned least-squares plane of `moments` (world); its normal is the anchor's y axis
  /// up to the refinement of a vertical plane's direction.
  var plane: Plane
  /// The convex hull of the support in anchor 2-D coordinates, counter-clockwise.
  var hull: [SIMD2<Double>]
  /// Occupied cells of the anchor-space grid.
  var cells = PlaneCellSet()
  /// A vertical track's occupied cells of a finer anchor-space grid (``extentCellSize``), and how many
  /// of them each column and each row holds: the area of its support along the anchor's horizontal x
  /// axis and along world up, for ``verticalExtent``.
  private var extentCells = PlaneCellSet()
  private var extentColumns = PlaneCountLine()
  private var extentRows = PlaneCountLine()
  /// The cell size of ``verticalExtent``'s grid, metres (the plane detector's default voxel size).
  static let extentCellSize = 0.02
  /// Points added while the camera was above (below) a horizontal plane.
  var seenFromAbove = 0
  var seenFromBelow = 0
  var classification: ARPlaneAnchor.Classification = .none(.undetermined)
  /// Whether the anchor is still in the session (not absorbed).
  var alive = true
  /// Whether its support or plane changed since it was last reported.
  var dirty = true
  /// The anchor as last reported; `nil` before it is first reported.
  var reported: ARPlaneAnchor?

  /// A new track for a candidate region whose plane is already oriented (vertical planes towards the
  /// camera). The anchor's origin is the centre of the region's minimum-area rectangle on the plane; a
  /// horizontal anchor's x axis runs along the rectangle's width, a vertical anchor's x axis is
  /// horizontal and its z axis points down.
  init(
    identifier: UUID, candidate: PlaneCandidate, plane: Plane, cameraHeight: Double,
    viewpoint: SIMD3<Double>?, frame: Int32, cellSize: Double
  ) {
    self.identifier = identifier
    self.alignment = candidate.alignment
    self.createdFrame = frame
    self.updatedFrame = frame
    self.cellSize = cellSize
    self.moments = PlaneMoments()
    self.plane = plane
    let (e1, e2) = GravityAlignedPlane.axes(normal: plane.normal, alignment: candidate.alignment)
    let points2D = candidate.positions.map { SIMD2(simd_dot(e1, $0), simd_dot(e2, $0)) }
    let rectangle =
      Polygon2D.minimumAreaRectangle(points2D)
      ?? OrientedRectangle(center: points2D.first ?? .zero, width: 0, height: 0, angle: 0)
    let centre = rectangle.center
    let planeShift = -plane.offset  // n·p for points p on the plane
    let x: SIMD3<Double>
    let y = plane.normal
    switch candidate.alignment {
    case .horizontal:
      let angle = Self.reduced(rectangle).angle
      x = SIMD3(cos(angle), 0, -sin(angle))
    case .vertical:
      x = e1
    }
    origin = e1 * centre.x + e2 * centre.y + y * planeShift
    (rotation, inverseRotation, transform) = Self.frame(x: x, y: y, origin: origin)
    hull = []
    add(points: candidate.positions, cameraHeight: cameraHeight, viewpoint: viewpoint)
  }

  /// The track rebuilt on `candidate` alone, as a new track is made of it (support, plane, anchor
  /// frame), but with its identity: identifier, creation frame, classification and last report.
  /// `frame` is the detector frame of the change.
  func rebuilt(on candidate: PlaneCandidate, plane: Plane, cameraHeight: Double, frame: Int32) -> PlaneTrack {
    var track = PlaneTrack(
      identifier: identifier, candidate: candidate, plane: plane, cameraHeight: cameraHeight,
      viewpoint: nil, frame: createdFrame, cellSize: cellSize)
    track.updatedFrame = frame
    track.classification = classification
    track.reported = reported
    return track
  }

  /// The anchor frame with axes `x`, `y` (unit, orthogonal) and `z = x × y` at `origin` (world).
  private static func frame(x: SIMD3<Double>, y: SIMD3<Double>, origin: SIMD3<Double>) -> (
    simd_double3x3, simd_double3x3, simd_float4x4
  ) {
    let z = simd_cross(x, y)
    let rotation = simd_double3x3(x, y, z)
    let transform = simd_float4x4(
      SIMD4<Float>(SIMD4(x, 0)), SIMD4<Float>(SIMD4(y, 0)), SIMD4<Float>(SIMD4(z, 0)),
      SIMD4<Float>(SIMD4(origin, 1)))
    return (rotation, rotation.transpose, transform)
  }

  /// Moves the track with a rigid correction of the world (`newWorldFromOld`: a re-level, or a map
  /// correction): the physical surface stays, its coordinates change. The moments move exactly and the
  /// plane is refitted against the new gravity; the anchor frame moves with the world and is then
  /// levelled again (a horizontal anchor's y axis up with its x axis kept as close as possible, a
  /// vertical anchor's y axis and x axis made horizontal), so its transform changes (rigidly, for a
  /// turn about the vertical and a translation); the hull and the occupied cells
  /// move into the new anchor frame (for a correction of a fraction of a degree the cells map one to
  /// one).
  mutating func applyWorldCorrection(_ correction: RigidTransform) {
    let old = self
    let r = simd_double3x3(correction.rotation)
    moments = moments.transformed(by: correction)
    plane = plane.transformed(by: correction)
    rotation = r * old.rotation
    refit()
    let up = GravityAlignedPlane.up
    var x: SIMD3<Double>
    var y: SIMD3<Double>
    switch alignment {
    case .horizontal:
      y = plane.normal
      let moved = rotation.columns.0
      x = moved - simd_dot(moved, y) * y
      x =
        simd_length(x) > 1e-9
        ? simd_normalize(x) : GravityAlignedPlane.axes(normal: y, alignment: .horizontal).0
    case .vertical:
      // The moved y axis made horizontal again (it may differ from the refined normal, as before).
      let moved = rotation.columns.1
      y = moved - simd_dot(moved, up) * up
      y = simd_length(y) > 1e-9 ? simd_normalize(y) : plane.normal
      x = GravityAlignedPlane.axes(normal: y, alignment: .vertical).0
    }
    origin = correction.apply(to: old.origin)
    (rotation, inverseRotation, transform) = Self.frame(x: x, y: y, origin: origin)
    let levelled = self
    let moved = { (p: SIMD2<Double>) in levelled.anchor2D(correction.apply(to: old.world(anchor2D: p))) }
    hull = Polygon2D.convexHull(old.hull.map(moved))
    let move = AnchorMove(
      exact: moved, oldRotation: old.rotation, oldOrigin: old.origin, newInverseRotation: inverseRotation,
      newOrigin: origin, correction: PreparedCorrection(correction))
    cells = PlaneCellSet(minimumCapacity: old.cells.count)
    for key in old.cells {
      let (cx, cy) = move.cell(of: Self.centre(of: key, cellSize: cellSize), cellSize: cellSize)
      cells.insert(PlaneCells.key(cx, cy))
    }
    // The extent's counts are made once the cells are known (counting cell by cell grew the lines).
    extentCells = PlaneCellSet(minimumCapacity: old.extentCells.count)
    var columns: [Int64] = []
    var rows: [Int64] = []
    columns.reserveCapacity(old.extentCells.count)
    rows.reserveCapacity(old.extentCells.count)
    for key in old.extentCells {
      let centre = Self.centre(of: key, cellSize: Self.extentCellSize)
      let (cx, cy) = move.cell(of: centre, cellSize: Self.extentCellSize)
      if extentCells.insert(PlaneCells.key(cx, cy)) {
        columns.append(cx)
        rows.append(cy)
      }
    }
    (extentColumns, extentRows) = (PlaneCountLine(counting: columns), PlaneCountLine(counting: rows))
    dirty = true
  }

  // MARK: Frames

  /// A world point in anchor 2-D coordinates `(x, −z)`, metres (projected along the anchor's y axis).
  @inline(__always)
  func anchor2D(_ world: SIMD3<Double>) -> SIMD2<Double> {
    let q = inverseRotation * (world - origin)
    return SIMD2(q.x, -q.z)
  }

  /// The world point at anchor 2-D coordinates `(x, −z)` on the anchor's `y = 0` plane.
  @inline(__always)
  func world(anchor2D p: SIMD2<Double>) -> SIMD3<Double> {
    origin + rotation * SIMD3(p.x, 0, -p.y)
  }

  @inline(__always)
  private func cell(_ p: SIMD2<Double>) -> (Int64, Int64) {
    (PlaneCells.floor(p.x / cellSize), PlaneCells.floor(p.y / cellSize))
  }

  /// Whether the cell of `p` (anchor 2-D) or one of its eight neighbours is occupied.
  @inline(__always)
  func touches(anchor2D p: SIMD2<Double>) -> Bool {
    let (cx, cy) = cell(p)
    for dy in Int64(-1)...1 {
      for dx in Int64(-1)...1 where cells.contains(PlaneCells.key(cx + dx, cy + dy)) { return true }
    }
    return false
  }

  /// Whether the support may grow to `point` (world): its cell is occupied, or at least two of the
  /// eight cells around it are. A surface spreads over an area this way, but not along a line (such as
  /// where a wall crosses a table's plane) more than a cell or two. (Inlined: called on a track in an
  /// array, or from a mutating method, a call took a copy of the whole track.)
  @inline(__always)
  func canGrow(into point: SIMD3<Double>) -> Bool {
    let (cx, cy) = cell(anchor2D(point))
    if cells.contains(PlaneCells.key(cx, cy)) { return true }
    var neighbours = 0
    for dy in Int64(-1)...1 {
      for dx in Int64(-1)...1 where (dx != 0 || dy != 0) && cells.contains(PlaneCells.key(cx + dx, cy + dy)) {
        neighbours += 1
        if neighbours >= 2 { return true }
      }
    }
    return false
  }

  /// Whether `point` (world) lies next to the support (its cell or a neighbouring one is occupied).
  func touches(point: SIMD3<Double>) -> Bool { touches(anchor2D: anchor2D(point)) }

  /// Marks the cell of `point` (world) as occupied.
  mutating func occupy(point: SIMD3<Double>) {
    let (cx, cy) = cell(anchor2D(point))
    cells.insert(PlaneCells.key(cx, cy))
  }

  /// The world centres of the occupied cells, in no particular order.
  private var cellCentres: [SIMD3<Double>] { cellCentres2D.map { world(anchor2D: $0) } }

  /// The anchor 2-D centres of the occupied cells, in no particular order.
  private var cellCentres2D: [SIMD2<Double>] { cells.map { Self.centre(of: $0, cellSize: cellSize) } }

  /// The anchor 2-D centre of the cell with key `key` in a grid of `cellSize`.
  @inline(__always)
  private static func centre(of key: Int64, cellSize: Double) -> SIMD2<Double> {
    let cx = Double(key >> 32)
    let cy = Double(Int32(truncatingIfNeeded: key))
    return SIMD2((cx + 0.5) * cellSize, (cy + 0.5) * cellSize)
  }

  /// The height of a horizontal plane (world y), metres.
  var height: Double { -plane.offset * plane.normal.y }

  /// A vertical plane's extent, for classification: the horizontal span of its support along the
  /// anchor's x axis (metres, anchor space) and its world heights, lowest and highest; nil for
  /// horizontal planes or no support.
  ///
  /// The span is robust, not the hull's box: along each axis, the 2nd and 98th percentiles of the
  /// support's area (the occupied cells of ``extentCellSize``), widened by 2/96 of their distance on
  /// either side, which for a uniformly covered rectangle are its edges. A few outlying points (a strip
  /// of the wall beside a door, taken into the door's band where the two meet the floor) or the noisy
  /// edges of the hull, which only grows, move it little.
  var verticalExtent: (left: Double, right: Double, bottom: Double, top: Double)? {
    guard alignment == .vertical, let x = Self.robustSpan(extentColumns, cellSize: Self.extentCellSize),
      let y = Self.robustSpan(extentRows, cellSize: Self.extentCellSize)
    else { return nil }
    // Anchor 2-D y is −z, which for a vertical anchor is world up.
    return (x.low, x.high, origin.y + y.low, origin.y + y.high)
  }

  /// The span of a distribution given as counts per cell (`line`'s key `k` covers
  /// `[k, k + 1)·cellSize`, uniform within): its `tail` and `1 − tail` quantiles, widened by
  /// `tail / (1 − 2·tail)` of their distance on either side (the edges of a uniform distribution); nil
  /// with no counts.
  static func robustSpan(_ line: PlaneCountLine, cellSize: Double, tail: Double = 0.02) -> (
    low: Double, high: Double
  )? {
    let total = Double(line.total)
    guard total > 0, let last = line.highest else { return nil }
    let (lowest, counts) = (line.lowest, line.counts)
    func quantile(_ q: Double) -> Double {
      let target = q * total
      var before = 0.0
      for (offset, count) in counts.enumerated() where count > 0 {
        let n = Double(count)
        if before + n >= target { return (Double(lowest + Int64(offset)) + (target - before) / n) * cellSize }
        before += n
      }
      return Double(last + 1) * cellSize
    }
    let (low, high) = (quantile(tail), quantile(1 - tail))
    let margin = (high - low) * tail / (1 - 2 * tail)
    return (low - margin, high + margin)
  }

  /// Marks the fine cell of `p` (anchor 2-D) in ``extentCells`` and counts it in its column and row.
  private mutating func markExtent(_ p: SIMD2<Double>) {
    let (cx, cy) = (PlaneCells.floor(p.x / Self.extentCellSize), PlaneCells.floor(p.y / Self.extentCellSize))
    guard extentCells.insert(PlaneCells.key(cx, cy)) else { return }
    extentColumns.add(at: cx)
    extentRows.add(at: cy)
  }

  /// The anchor 2-D centres of ``extentCells``, in no particular order.
  private var extentCentres2D: [SIMD2<Double>] {
    extentCells.map { Self.centre(of: $0, cellSize: Self.extentCellSize) }
  }

  /// The area of the hull, square metres.
  var area: Double { Polygon2D.area(hull) }

  // MARK: Growth and merging

  /// Adds supporting points (world): moments, cells, hull, which side the camera saw it from; refits.
  ///
  /// A depth point's error lies along its viewing ray, and where the ray meets the plane obliquely most
  /// of that error is parallel to the plane: taken as they are, the outermost points of a noisy support
  /// push the hull beyond the surface's edge (by two or three times the depth noise). So the hull takes
  /// each point where the ray from `viewpoint` (the camera that saw it) through it meets the plane, as
  /// long as that moves it at most ``maximumRaySnap`` times its distance from the plane; the moments
  /// and cells take the points as measured.
  mutating func add(points: [SIMD3<Double>], cameraHeight: Double, viewpoint: SIMD3<Double>?) {
    guard !points.isEmpty else { return }
    var outline = hull
    outline.reserveCapacity(hull.count + points.count)
    let inner = InnerPolygon(hull)
    for p in points {
      moments.add(p)
      let (cx, cy) = cell(anchor2D(p))
      cells.insert(PlaneCells.key(cx, cy))
      let flat = anchor2D(viewpoint.map { onPlane(p, seenFrom: $0) } ?? p)
      // A point well inside the hull is no vertex of the new one: only the others are sorted.
      if !inner.contains(flat) { outline.append(flat) }
      if alignment == .vertical { markExtent(flat) }
    }
    if alignment == .horizontal {
      if cameraHeight >= height { seenFromAbove += points.count } else { seenFromBelow += points.count }
    }
    hull = Polygon2D.convexHull(outline)
    refit()
    dirty = true
  }

  /// How far, as a multiple of a point's distance from the plane, ``onPlane(_:seenFrom:)`` may move it
  /// along its ray (a ray within about 20° of the plane moves it further, and falls back to the
  /// orthogonal projection).
  static let maximumRaySnap = 3.0

  /// Where the ray from `viewpoint` through `point` meets the plane; `point` itself when the ray runs
  /// nearly parallel to the plane (see ``maximumRaySnap``). (Inlined as ``canGrow(into:)`` is.)
  @inline(__always)
  func onPlane(_ point: SIMD3<Double>, seenFrom viewpoint: SIMD3<Double>) -> SIMD3<Double> {
    let ray = point - viewpoint
    let along = simd_dot(plane.normal, ray)
    let distance = plane.signedDistance(to: point)
    // point − t·ray lies on the plane for t = distance / along; it moves |t|·|ray|.
    guard along.magnitude > 1e-12 else { return point }
    let t = distance / along
    guard (t * simd_length(ray)).magnitude <= Self.maximumRaySnap * distance.magnitude else { return point }
    return point - t * ray
  }

  /// Refits the plane from the moments, keeping the previous one when the fit is degenerate.
  mutating func refit() {
    knownSpread = nil
    if let fitted = GravityAlignedPlane.fit(moments, alignment: alignment, reference: rotation.columns.1) {
      plane = fitted
    }
  }

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

  /// The mean squared distance of the support's points from their free least-squares plane (the
  /// smallest eigenvalue of their covariance), worked out once until the support changes; nil for a
  /// degenerate support.
  mutating func spread() -> Double? {
    if let known = knownSpread { return known }
    let spread = moments.meanSquaredDistance
    knownSpread = .some(spread)
    return spread
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

  /// Takes over the support of `other` (moments, cells, hull, votes) and refits.
  mutating func absorb(_ other: PlaneTrack) {
    moments += other.moments
    cells.reserveCapacity(cells.count + other.cells.count)
    extentCells.reserveCapacity(extentCells.count + other.extentCells.count)
    for centre in other.cellCentres { occupy(point: centre) }
    for centre in other.extentCentres2D { markExtent(anchor2D(other.world(anchor2D: centre))) }
    hull = Polygon2D.convexHull(hull + other.hull.map { anchor2D(other.world(anchor2D: $0)) })
    seenFromAbove += other.seenFromAbove
    seenFromBelow += other.seenFromBelow
    refit()
    dirty = true
  }

  // MARK: Reporting

  /// The anchor as ARKit would report it now.
  func makeAnchor(maximumBoundaryVertices: Int, sessionIdentifier: UUID?) -> ARPlaneAnchor {
    Self.anchor(
      identifier: identifier, transform: transform, alignment: alignment, outline: reportedOutline,
      normal: inverseRotation * plane.normal, offset: plane.signedDistance(to: origin),
      maximumBoundaryVertices: maximumBoundaryVertices, classification: classification,
      sessionIdentifier: sessionIdentifier)
  }

  /// The anchor ARKit reports for `outline` (anchor 2-D, convex): its boundary simplified to
  /// `maximumBoundaryVertices`, its centre and extent the outline's minimum-area rectangle, each point
  /// lifted onto the refined plane `normal·q + offset = 0` in anchor space (its y solved at (x, z)).
  static func anchor(
    identifier: UUID, transform: simd_float4x4, alignment: ARPlaneAnchor.Alignment, outline: [SIMD2<Double>],
    normal: SIMD3<Double>, offset: Double, maximumBoundaryVertices: Int,
    classification: ARPlaneAnchor.Classification, sessionIdentifier: UUID?
  ) -> ARPlaneAnchor {
    func lifted(_ p: SIMD2<Double>) -> simd_float3 {
      let x = p.x
      let z = -p.y
      let y = normal.y.magnitude > 1e-9 ? -(offset + normal.x * x + normal.z * z) / normal.y : 0
      return simd_float3(micrometres(x), micrometres(y), micrometres(z))
    }
    let boundary = simplified(outline, maximumCount: max(maximumBoundaryVertices, 3))
    let rectangle = reduced(
      Polygon2D.minimumAreaRectangle(outline)
        ?? OrientedRectangle(center: .zero, width: 0, height: 0, angle: 0))
    return ARPlaneAnchor(
      identifier: identifier, transform: transform, alignment: alignment, center: lifted(rectangle.center),
      planeExtent: ARPlaneExtent(
        width: Float(rectangle.width), height: Float(rectangle.height),
        rotationOnYAxis: Float(rectangle.angle)),
      geometry: ARPlaneGeometry(boundary: boundary.map(lifted)), classification: classification,
      sessionIdentifier: sessionIdentifier)
  }

  /// The outline an anchor reports (anchor 2-D): the hull, for a vertical plane cut to the robust
  /// horizontal span of its support (``robustSpan(_:cellSize:tail:)`` of the extent columns, tails of
  /// ``outlineTail``) when that leaves a polygon. The hull holds every point ever added: a few voxels
  /// where a wall meets the floor (their means in front of the wall, on a door's plane beside it) can
  /// join the door's anchor, and its convex hull then takes a sliver over the wall, where taps hit the
  /// door's plane in front of the wall. The vertical span is left whole: the rows near a wall's top,
  /// seen less, are sparse, and a cut there would take part of the walls' real extent.
  var reportedOutline: [SIMD2<Double>] {
    guard alignment == .vertical,
      let span = Self.robustSpan(extentColumns, cellSize: Self.extentCellSize, tail: Self.outlineTail)
    else { return hull }
    let (low, high) = hull.reduce((Double.infinity, -Double.infinity)) { (min($0.0, $1.y), max($0.1, $1.y)) }
    guard low < high else { return hull }
    let band = [SIMD2(span.low, low), SIMD2(span.high, low), SIMD2(span.high, high), SIMD2(span.low, high)]
    let clipped = Polygon2D.convexHull(Polygon2D.convexIntersection(hull, band))
    return clipped.count >= 3 ? clipped : hull
  }

  /// The tail of ``reportedOutline``'s span: a few voxels of a support of hundreds are cut off, the
  /// edges of a uniformly seen surface are kept (the span is widened by the tails' share). 0.005, a
  /// quarter of ``verticalExtent``'s: a larger tail cuts real edges off walls, and taps near them miss
  /// (the plane IoU and taps of `arsim eval`).
  static let outlineTail = 0.005

  /// `metres` rounded to the micrometre, so that rounding noise of the frame changes (1e-16 m) does not
  /// show: a new anchor's centre is exactly `(0, 0, 0)`.
  static func micrometres(_ metres: Double) -> Float {
    Float((metres * 1e6).rounded() / 1e6)
  }

  /// The rectangle with its angle in `(−π/4, π/4]`, width and height swapped when it turns.
  static func reduced(_ rectangle: OrientedRectangle) -> (
    center: SIMD2<Double>, width: Double, height: Double, angle: Double
  ) {
    if rectangle.angle > Double.pi / 4 {
      return (rectangle.center, rectangle.height, rectangle.width, rectangle.angle - Double.pi / 2)
    }
    return (rectangle.center, rectangle.width, rectangle.height, rectangle.angle)
  }

  /// A convex polygon with at most `maximumCount` vertices: repeatedly drops the vertex whose removal
  /// loses the least area (the result stays inside the polygon).
  static func simplified(_ polygon: [SIMD2<Double>], maximumCount: Int) -> [SIMD2<Double>] {
    var result = polygon
    while result.count > maximumCount {
      var smallest = Double.infinity
      var victim = 0
      for i in result.indices {
        let a = result[(i + result.count - 1) % result.count]
        let b = result[i]
        let c = result[(i + 1) % result.count]
        let loss = ((b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x)).magnitude
        if loss < smallest {
          smallest = loss
          victim = i
        }
      }
      result.remove(at: victim)
    }
    return result
  }
}

/// How a world correction moves a track's anchor 2-D points (from the old anchor frame through the
/// corrected world into the re-levelled one), for the cells of its grids: a correction moves every
/// cell of every track, and the exact move (``PlaneTrack/applyWorldCorrection(_:)``'s `moved`: three
/// changes of frame, one a quaternion's) cost most of what moving a track did.
///
/// That move is an affine map of the plane (a rotation and a shift, up to rounding), worked out here
/// once. A cell is what the affine map's point gives whenever that point lies farther from the cell's
/// edges than the two can differ by rounding (a bound far above it: 10⁻¹⁰ of the coordinates' size);
/// nearer an edge, the exact move decides. So the cells are, to the bit, those the exact move gives.
struct AnchorMove {
  /// The exact move.
  let exact: (SIMD2<Double>) -> SIMD2<Double>
  /// The affine map: `shift + x·xImage + y·yImage`.
  private let shift: SIMD2<Double>
  private let xImage: SIMD2<Double>
  private let yImage: SIMD2<Double>
  /// The size of the coordinates the exact move goes through, metres: origins and translation.
  private let scale: Double

  /// The move of points from an old anchor frame (`oldRotation`: worldFromAnchor's, at `oldOrigin`)
  /// across `correction` into a new one (`newInverseRotation`: anchorFromWorld's, at `newOrigin`);
  /// `exact` maps a point of the old frame to the new (``PlaneTrack/anchor2D(_:)`` of the new frame of
  /// the corrected ``PlaneTrack/world(anchor2D:)`` of the old).
  init(
    exact: @escaping (SIMD2<Double>) -> SIMD2<Double>, oldRotation: simd_double3x3, oldOrigin: SIMD3<Double>,
    newInverseRotation: simd_double3x3, newOrigin: SIMD3<Double>, correction: PreparedCorrection
  ) {
    self.exact = exact
    shift = exact(.zero)
    // Anchor 2-D (x, y) is the anchor's (x, 0, −y); back in anchor 2-D, a vector's (x, −z).
    func image(_ axis: SIMD3<Double>) -> SIMD2<Double> {
      let q = newInverseRotation * correction.rotate(oldRotation * axis)
      return SIMD2(q.x, -q.z)
    }
    xImage = image(SIMD3(1, 0, 0))
    yImage = image(SIMD3(0, 0, -1))
    func size(_ v: SIMD3<Double>) -> Double { v.x.magnitude + v.y.magnitude + v.z.magnitude }
    scale = size(oldOrigin) + size(newOrigin) + size(correction.translation)
  }

  /// The cell of a grid of `cellSize` (anchor 2-D of the new frame) that `p` (anchor 2-D of the old
  /// frame) moves into: `(⌊x / cellSize⌋, ⌊y / cellSize⌋)` of the exact move.
  @inline(__always)
  func cell(of p: SIMD2<Double>, cellSize: Double) -> (Int64, Int64) {
    let q = shift + p.x * xImage + p.y * yImage
    let tolerance = 1e-10 * (1 + scale + p.x.magnitude + p.y.magnitude)
    if let cx = Self.floor(q.x, cellSize, tolerance), let cy = Self.floor(q.y, cellSize, tolerance) {
      return (cx, cy)
    }
    let moved = exact(p)
    return (PlaneCells.floor(moved.x / cellSize), PlaneCells.floor(moved.y / cellSize))
  }

  /// `⌊value / size⌋` when every value within `tolerance` of `value` gives the same (and the quotient is
  /// well within `Int64`), else nil (also for NaN).
  @inline(__always)
  private static func floor(_ value: Double, _ size: Double, _ tolerance: Double) -> Int64? {
    let x = value / size
    guard x.magnitude < 0x1p40 else { return nil }
    let cell = PlaneCells.floor(x)
    // The tolerance in cells, and the quotient's own rounding (far below 10⁻¹² of it).
    let margin = tolerance / size + 1e-12 * x.magnitude
    guard x - Double(cell) > margin, Double(cell + 1) - x > margin else { return nil }
    return cell
  }
}

/// A convex polygon inside a convex hull, for a quick test of whether a point lies inside the hull:
/// the hull's vertices that are extreme along x, y and the two diagonals, in the hull's
/// (counter-clockwise) order. Most of a growing support's new points fall well inside its hull; they
/// cannot be vertices of the grown hull, so ``PlaneTrack/add(points:cameraHeight:viewpoint:)`` leaves
/// them out of the hull's sort, which otherwise takes every new point. A few cross products a point
/// cost less than sorting it.
private struct InnerPolygon {
  /// The vertices, counter-clockwise, no two consecutive ones equal; fewer than three: empty.
  private var vertices: [SIMD2<Double>] = []

  /// How far inside every edge a point must lie (its cross product with the edge, square metres):
  /// well beyond rounding, so a point taken as inside is inside the hull exactly, too.
  private static let margin = 1e-12

  /// The inner polygon of `hull` (convex, counter-clockwise, as ``Polygon2D/convexHull(_:)`` gives it).
  init(_ hull: [SIMD2<Double>]) {
    guard hull.count >= 3 else { return }
    @inline(__always) func key(_ p: SIMD2<Double>, _ direction: Int) -> Double {
      switch direction {
      case 0: p.x
      case 1: p.y
      case 2: p.x + p.y
      default: p.x - p.y
      }
    }
    // Per direction d, the index of the lowest vertex along it at 2d, of the highest at 2d + 1.
    var extreme = [Int](repeating: 0, count: 8)
    for i in hull.indices.dropFirst() {
      for d in 0..<4 {
        if key(hull[i], d) < key(hull[extreme[2 * d]], d) { extreme[2 * d] = i }
        if key(hull[i], d) > key(hull[extreme[2 * d + 1]], d) { extreme[2 * d + 1] = i }
      }
    }
    extreme.sort()
    for i in extreme where vertices.last != hull[i] { vertices.append(hull[i]) }
    if vertices.count < 3 { vertices = [] }
  }

  /// Whether `p` lies inside the polygon, by more than ``margin`` from every edge (false when empty).
  @inline(__always)
  func contains(_ p: SIMD2<Double>) -> Bool {
    guard var a = vertices.last else { return false }
    for b in vertices {
      let cross = (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x)
      guard cross > Self.margin else { return false }
      a = b
    }
    return true
  }
}
