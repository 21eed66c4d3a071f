import Foundation

/// The occupancy of a plane anchor's surface: square cells of its anchor 2-D coordinates (``PlaneCells``
/// keys), each with the number of frames that saw the surface there, less those that saw through it.
/// Cells are kept in the order they were first seen (deterministic iteration).
struct SurfaceGrid {
  let cellSize: Double
  /// The hits that make a cell part of the anchor's outline and area.
  let minimumHits: Int32
  private var index = PlaneCellIndex()
  private(set) var keys: [Int64] = []
  private(set) var hits: [Int32] = []
  /// The detector frame in which each cell last changed, and the time of its last sighting (seconds).
  private var lastFrame: [Int32] = []
  private var lastSighting: [Double] = []
  /// The cells with at least ``minimumHits``.
  private(set) var occupied = 0
  /// Changes whenever a cell reaches or drops below ``minimumHits``: the occupied set is the same
  /// between two reads that see the same value.
  private(set) var shapeVersion = 0
  /// The smallest and largest cell coordinates of any key (cells keep their keys when their hits drop
  /// to 0, so a box over all hit cells).
  private(set) var low = SIMD2<Int64>(.max, .max)
  private(set) var high = SIMD2<Int64>(.min, .min)

  init(cellSize: Double, minimumHits: Int32) {
    self.cellSize = cellSize
    self.minimumHits = minimumHits
  }

  var count: Int { keys.count }

  /// The hits of `key` (0 when unknown).
  func hits(_ key: Int64) -> Int32 { index[key].map { hits[$0] } ?? 0 }

  /// Counts `key` as seen in `frame` at `time`: once per frame, and not again within `interval`
  /// seconds of its last sighting (a high frame rate does not make a passing object a surface sooner).
  mutating func see(_ key: Int64, frame: Int32, time: Double, interval: Double) {
    if let i = index[key] {
      guard lastFrame[i] != frame, !(time - lastSighting[i] < interval) else { return }
      setHits(i, hits[i] + 1)
      lastFrame[i] = frame
      lastSighting[i] = time
    } else {
      append(key, hits: 1, frame: frame, time: time)
    }
  }

  /// Counts cell `i` as seen through in `frame` (once per frame, never below 0). True when it changed.
  mutating func seeThrough(_ i: Int, frame: Int32) -> Bool {
    guard lastFrame[i] != frame, hits[i] > 0 else { return false }
    setHits(i, hits[i] - 1)
    lastFrame[i] = frame
    return true
  }

  private mutating func setHits(_ i: Int, _ value: Int32) {
    let was = hits[i] >= minimumHits
    hits[i] = value
    if was != (value >= minimumHits) {
      occupied += was ? -1 : 1
      shapeVersion += 1
    }
  }

  private mutating func append(_ key: Int64, hits h: Int32, frame: Int32, time: Double) {
    index.set(key, keys.count)
    keys.append(key)
    hits.append(0)
    lastFrame.append(frame)
    lastSighting.append(time)
    setHits(keys.count - 1, h)
    let (x, y) = PlaneCells.components(key)
    low = pointwiseMin(low, SIMD2(x, y))
    high = pointwiseMax(high, SIMD2(x, y))
  }

  /// Adds `other`'s cells (same frame and cell size) with their hits.
  mutating func add(_ other: SurfaceGrid, moving: (Int64) -> Int64 = { $0 }) {
    for (key, h) in zip(other.keys, other.hits) {
      let k = moving(key)
      if let i = index[k] {
        setHits(i, hits[i] + h)
      } else {
        append(k, hits: h, frame: -1, time: -.infinity)
      }
    }
  }

  /// Whether a cell within `gap` cells of `key` (Chebyshev) has hits.
  func hasNeighbour(of key: Int64, gap: Int) -> Bool {
    let (x, y) = PlaneCells.components(key)
    for dy in -gap...gap {
      for dx in -gap...gap where hits(PlaneCells.key(x + Int64(dx), y + Int64(dy))) > 0 { return true }
    }
    return false
  }

  /// The centre of cell `key`, anchor 2-D.
  func centre(_ key: Int64) -> SIMD2<Double> {
    let (x, y) = PlaneCells.components(key)
    return SIMD2(Double(x) + 0.5, Double(y) + 0.5) * cellSize
  }

  /// The cell holding anchor 2-D point `p`.
  func key(_ p: SIMD2<Double>) -> Int64 {
    PlaneCells.key(PlaneCells.floor(p.x / cellSize), PlaneCells.floor(p.y / cellSize))
  }

}

/// One plane anchor of the surface detector: the surface's moments and gravity-aligned plane, its
/// occupancy grid in the anchor's frame, and the anchor as last reported. The anchor's frame (its
/// transform) is set when the surface is first seen and moves only with the world; the refined plane
/// shows in the reported centre and boundary (lifted onto it in anchor space), as ARKit keeps an
/// anchor's transform while its geometry grows.
struct SurfaceTrack {
  let identifier: UUID
  let alignment: ARPlaneAnchor.Alignment
  /// Horizontal: seen from above (a floor, a table) rather than from below (a ceiling).
  let facesUp: Bool
  /// The detector frame in which it was last seen (a loop closure moves it by that frame's correction).
  var lastSeen: Int32
  /// The sightings of it (frames at least the sighting interval apart), and the time of the last.
  var framesSeen = 0
  var lastSighting = -Double.infinity
  var moments: PlaneMoments
  var plane: Plane
  /// worldFromAnchor: origin (world) and rotation (columns: the anchor's axes in world).
  private(set) var origin: SIMD3<Double>
  private(set) var rotation: simd_double3x3
  var grid: SurfaceGrid
  var classification: ARPlaneAnchor.Classification = .none(.undetermined)
  var alive = true
  /// Reported to the session (seen in enough frames, large enough).
  var confirmed = false
  var dirty = true
  var reported: ARPlaneAnchor?
  /// The outline's convex hull (anchor 2-D) for the grid's ``SurfaceGrid/shapeVersion``: the cells stay
  /// in the anchor's frame, so only a change of the occupied cells changes it.
  private var hull: (shapeVersion: Int, points: [SIMD2<Double>])?
  /// Changes whenever the anchor's frame moves (a world correction).
  private var frameVersion = 0
  /// ``verticalExtent()`` for the grid's shape version and the frame version.
  private var extent:
    (shapeVersion: Int, frameVersion: Int, value: (bottom: Double, top: Double, width: Double)?)?

  /// A track for `surface`, its anchor frame on the surface's plane at the centre of its cells.
  init(identifier: UUID, surface: FrameSurface, frame: Int32, cellSize: Double, minimumHits: Int32) {
    self.identifier = identifier
    alignment = surface.alignment
    facesUp = surface.facesUp
    lastSeen = frame
    moments = PlaneMoments()
    plane = surface.plane
    let y = surface.plane.normal
    let (e1, _) = GravityAlignedPlane.axes(normal: y, alignment: surface.alignment)
    let x = surface.alignment == .vertical ? e1 : SIMD3(1, 0, 0)
    let centre = surface.points.reduce(SIMD3<Double>.zero, +) / Double(surface.points.count)
    origin = surface.plane.project(centre)
    rotation = simd_double3x3(x, y, simd_cross(x, y))
    grid = SurfaceGrid(cellSize: cellSize, minimumHits: minimumHits)
  }

  /// A world point in anchor 2-D coordinates `(x, −z)`, metres (projected along the anchor's y axis).
  func anchor2D(_ world: SIMD3<Double>) -> SIMD2<Double> {
    let d = world - origin
    return SIMD2(simd_dot(d, rotation.columns.0), -simd_dot(d, rotation.columns.2))
  }

  /// The world point of anchor 2-D `p` on the anchor's own plane (y = 0).
  func world(anchor2D p: SIMD2<Double>) -> SIMD3<Double> {
    origin + rotation.columns.0 * p.x - rotation.columns.2 * p.y
  }

  /// The cells of the anchor's grid that `surface`'s footprint points fall in, each once, in the order
  /// of the first point in it (``SurfaceGrid/see(_:frame:time:interval:)`` counts a cell once a frame,
  /// so the repeats of a cell would change nothing but the work).
  func cells(of surface: FrameSurface) -> [Int64] {
    var seen = Set<Int64>(minimumCapacity: surface.points.count / 8)
    var cells: [Int64] = []
    var last: Int64?
    for point in surface.points {
      let key = grid.key(anchor2D(point))
      // Neighbouring points mostly share a cell: the set is asked only when the cell changes.
      if key != last, seen.insert(key).inserted { cells.append(key) }
      last = key
    }
    return cells
  }

  /// Adds `surface` as seen in `frame` at `time` (its cells already worked out by ``cells(of:)``);
  /// sightings within `interval` seconds of the last count once.
  mutating func add(_ surface: FrameSurface, cells: [Int64], frame: Int32, time: Double, interval: Double) {
    moments += surface.moments
    for key in cells { grid.see(key, frame: frame, time: time, interval: interval) }
    if !(time - lastSighting < interval) {
      framesSeen += 1
      lastSighting = time
    }
    lastSeen = frame
    refit()
    dirty = true
  }

  /// Takes a sighting from each cell with hits whose centre (world, on the anchor's plane)
  /// `isSeenThrough` says this frame's depth lies beyond; marks the track dirty when one changed.
  mutating func seeThrough(frame: Int32, isSeenThrough: (SIMD3<Double>) -> Bool) {
    var changed = false
    for i in grid.keys.indices
    where grid.hits[i] > 0 && isSeenThrough(world(anchor2D: grid.centre(grid.keys[i]))) {
      if grid.seeThrough(i, frame: frame) { changed = true }
    }
    if changed { dirty = true }
  }

  /// Takes in `other` (the same surface): its moments and cells (moved into this anchor's frame).
  mutating func absorb(_ other: SurfaceTrack) {
    moments += other.moments
    let into = self
    grid.add(other.grid) { key in into.grid.key(into.anchor2D(other.world(anchor2D: other.grid.centre(key))))
    }
    framesSeen = max(framesSeen, other.framesSeen)
    lastSighting = max(lastSighting, other.lastSighting)
    lastSeen = max(lastSeen, other.lastSeen)
    refit()
    dirty = true
  }

  /// The plane refitted to the moments, its normal kept on the side it faces.
  mutating func refit() {
    if let fitted = GravityAlignedPlane.fit(moments, alignment: alignment, reference: plane.normal) {
      plane = simd_dot(fitted.normal, plane.normal) >= 0 ? fitted : fitted.flipped
    }
  }

  /// Occupied cells' area (cells with the grid's minimum hits), square metres.
  var area: Double { Double(grid.occupied) * grid.cellSize * grid.cellSize }

  /// Moves the track with a rigid correction of the world (`newWorldFromOld`): moments, plane and frame
  /// move with it; the frame is levelled again (a horizontal anchor's y axis up, a vertical anchor's y
  /// and x axes horizontal). The cells stay in the anchor's frame.
  mutating func applyWorldCorrection(_ correction: RigidTransform) {
    let r = simd_double3x3(correction.rotation)
    moments = moments.transformed(by: correction)
    plane = plane.transformed(by: correction)
    refit()
    origin = correction.apply(to: origin)
    let up = GravityAlignedPlane.up
    let y: SIMD3<Double>
    var x: SIMD3<Double>
    switch alignment {
    case .horizontal:
      y = facesUp ? up : -up
      let moved = r * rotation.columns.0
      x = moved - simd_dot(moved, y) * y
      x = simd_length(x) > 1e-9 ? simd_normalize(x) : SIMD3(1, 0, 0)
    case .vertical:
      let moved = r * rotation.columns.1
      var level = moved - simd_dot(moved, up) * up
      level = simd_length(level) > 1e-9 ? simd_normalize(level) : plane.normal
      y = level
      x = GravityAlignedPlane.axes(normal: y, alignment: .vertical).0
    }
    rotation = simd_double3x3(x, y, simd_cross(x, y))
    frameVersion += 1
    dirty = true
  }

  /// The anchor as ARKit would report it now: its outline the convex hull of the large 8-connected
  /// groups of occupied cells (``SurfaceGrid/outlineRows()``: a few cells apart from them, seen across a gap,
  /// would stretch the hull over what is not the surface), each cell taken as the half of it around
  /// its centre.
  mutating func makeAnchor(maximumBoundaryVertices: Int, sessionIdentifier: UUID?) -> ARPlaneAnchor {
    if hull?.shapeVersion != grid.shapeVersion {
      hull = (grid.shapeVersion, outlineHull())
    }
    let z = rotation.columns.2
    let transform = simd_float4x4(
      SIMD4<Float>(SIMD4(rotation.columns.0, 0)), SIMD4<Float>(SIMD4(rotation.columns.1, 0)),
      SIMD4<Float>(SIMD4(z, 0)), SIMD4<Float>(SIMD4(origin, 1)))
    return PlaneTrack.anchor(
      identifier: identifier, transform: transform, alignment: alignment,
      outline: hull?.points ?? [], normal: rotation.transpose * plane.normal,
      offset: plane.signedDistance(to: origin), maximumBoundaryVertices: maximumBoundaryVertices,
      classification: classification, sessionIdentifier: sessionIdentifier)
  }

  /// The convex hull of the inner halves of the cells of the outline groups
  /// (``SurfaceGrid/outlineRows()``). Only the first and last cell of each row can hold a vertex (the
  /// cells between lie between them), so only theirs go to the hull.
  private func outlineHull() -> [SIMD2<Double>] {
    var corners: [SIMD2<Double>] = []
    let half = grid.cellSize / 4
    for row in grid.outlineRows() {
      for x in row.first == row.last ? [row.first] : [row.first, row.last] {
        let c = grid.centre(PlaneCells.key(x, row.y))
        corners += [
          c + SIMD2(-half, -half), c + SIMD2(half, -half), c + SIMD2(half, half), c + SIMD2(-half, half),
        ]
      }
    }
    return Polygon2D.convexHull(corners)
  }

  /// The occupied cells' extent along world up (vertical anchors: bottom and top, metres) and across
  /// (width, metres), for classification.
  mutating func verticalExtent() -> (bottom: Double, top: Double, width: Double)? {
    if let extent, extent.shapeVersion == grid.shapeVersion, extent.frameVersion == frameVersion {
      return extent.value
    }
    var (bottom, top) = (Double.infinity, -Double.infinity)
    var (left, right) = (Double.infinity, -Double.infinity)
    for (key, h) in zip(grid.keys, grid.hits) where h >= grid.minimumHits {
      let c = grid.centre(key)
      let w = world(anchor2D: c)
      bottom = min(bottom, w.y - grid.cellSize / 2)
      top = max(top, w.y + grid.cellSize / 2)
      left = min(left, c.x - grid.cellSize / 2)
      right = max(right, c.x + grid.cellSize / 2)
    }
    let value = bottom < top ? (bottom, top, right - left) : nil
    extent = (grid.shapeVersion, frameVersion, value)
    return value
  }
}
