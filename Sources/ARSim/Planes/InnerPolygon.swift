/// A convex polygon inside a convex hull, for a quick test of whether a point lies inside the hull:
/// the hull's vertices that are extreme along x, y and the two diagonals, in the hull's
/// (counter-clockwise) order. Most of a growing support's new points fall well inside its hull; they
/// cannot be vertices of the grown hull, so ``PlaneTrack/add(points:cameraHeight:viewpoint:)`` leaves
/// them out of the hull's sort, which otherwise takes every new point. A few cross products a point
/// cost less than sorting it.
struct InnerPolygon {
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
