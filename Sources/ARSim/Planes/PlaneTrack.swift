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
  private(set) var extentColumns = PlaneCountLine()
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
  var cellCentres: [SIMD3<Double>] { cellCentres2D.map { world(anchor2D: $0) } }

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

  /// The mean squared distance of the support's points from their free least-squares plane (the
  /// smallest eigenvalue of their covariance), worked out once until the support changes; nil for a
  /// degenerate support.
  mutating func spread() -> Double? {
    if let known = knownSpread { return known }
    let spread = moments.meanSquaredDistance
    knownSpread = .some(spread)
    return spread
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
}
