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
