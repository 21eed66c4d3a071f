#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(ucrt)
  import ucrt
#endif

/// Planar polygon utilities over `[SIMD2<Double>]` (an ARSim namespace).
///
/// A polygon is its vertices in order, the last joined to the first (not repeated). Counter-clockwise
/// means positive signed area in a right-handed x/y frame. Units are whatever the points are in (metres
/// for plane boundaries in anchor space). Non-finite coordinates are not supported unless stated.
public enum Polygon2D {
  /// The signed area (shoelace formula): positive for counter-clockwise vertex order, negative for
  /// clockwise, 0 for fewer than three vertices.
  public static func signedArea(_ polygon: [SIMD2<Double>]) -> Double {
    guard polygon.count >= 3 else { return 0 }
    var twice = 0.0
    var previous = polygon[polygon.count - 1]
    for p in polygon {
      twice += previous.x * p.y - p.x * previous.y
      previous = p
    }
    return twice / 2
  }

  /// The area enclosed by a simple polygon, `|signedArea|`.
  public static func area(_ polygon: [SIMD2<Double>]) -> Double {
    signedArea(polygon).magnitude
  }

  /// The convex hull by Andrew's monotone chain, O(n log n): counter-clockwise, starting at the vertex
  /// with the smallest x (then smallest y), without collinear or repeated vertices. Deterministic for a
  /// given input. Non-finite points are ignored. Fewer than three distinct points, or all collinear, give
  /// the (at most two) extreme points.
  public static func convexHull(_ points: [SIMD2<Double>]) -> [SIMD2<Double>] {
    var sorted = withoutInterior(points.filter { $0.x.isFinite && $0.y.isFinite })
    sorted.sort { $0.x < $1.x || ($0.x == $1.x && $0.y < $1.y) }
    var unique: [SIMD2<Double>] = []
    unique.reserveCapacity(sorted.count)
    for p in sorted where unique.last != p { unique.append(p) }
    guard unique.count >= 3 else { return unique }
    var hull: [SIMD2<Double>] = []
    hull.reserveCapacity(unique.count + 1)
    // Lower chain left to right, then upper chain right to left; pop while not turning left.
    for p in unique {
      while hull.count >= 2 && cross(hull[hull.count - 2], hull[hull.count - 1], p) <= 0 { hull.removeLast() }
      hull.append(p)
    }
    let lowerCount = hull.count + 1
    for p in unique.reversed().dropFirst() {
      while hull.count >= lowerCount && cross(hull[hull.count - 2], hull[hull.count - 1], p) <= 0 {
        hull.removeLast()
      }
      hull.append(p)
    }
    hull.removeLast()  // the first point again
    return hull
  }

  /// `points` without those well inside the octagon of their extreme points in eight directions
  /// (Akl and Toussaint's heuristic), in their order: no such point is a vertex of the hull, so the hull
  /// of what is left is the hull of all, and the sort sees a fraction of the points (of a plane's
  /// support, thousands of points filling an area, a few hundred are left). A point within a
  /// billionth of the octagon's size of an edge is kept, so that rounding cannot drop a vertex.
  static func withoutInterior(_ points: [SIMD2<Double>]) -> [SIMD2<Double>] {
    guard points.count > 64 else { return points }
    // Counter-clockwise: the extremes along x, x + y, y, −x + y, −x, −x − y, −y, x − y.
    let directions: [SIMD2<Double>] = [
      SIMD2(1, 0), SIMD2(1, 1), SIMD2(0, 1), SIMD2(-1, 1), SIMD2(-1, 0), SIMD2(-1, -1), SIMD2(0, -1),
      SIMD2(1, -1),
    ]
    var extremes = [SIMD2<Double>](repeating: points[0], count: 8)
    var best = directions.map { simd_dot($0, points[0]) }
    for p in points {
      for k in 0..<8 {
        let value = simd_dot(directions[k], p)
        if value > best[k] {
          best[k] = value
          extremes[k] = p
        }
      }
    }
    var octagon: [SIMD2<Double>] = []
    for p in extremes where octagon.last != p && octagon.first != p { octagon.append(p) }
    guard octagon.count >= 3 else { return points }
    let size = max(best[0] + best[4], best[2] + best[6])
    let margin = 1e-9 * size * size
    guard margin > 0, margin.isFinite else { return points }
    return points.filter { p in
      var previous = octagon[octagon.count - 1]
      for vertex in octagon {
        if cross(previous, vertex, p) <= margin { return true }
        previous = vertex
      }
      return false
    }
  }

  /// Whether `point` is inside `polygon` (any simple polygon, either orientation), by the even-odd
  /// crossing rule. Points exactly on an edge may be reported either way.
  public static func contains(_ point: SIMD2<Double>, in polygon: [SIMD2<Double>]) -> Bool {
    guard polygon.count >= 3 else { return false }
    var inside = false
    var j = polygon.count - 1
    for i in polygon.indices {
      let a = polygon[i]
      let b = polygon[j]
      if (a.y > point.y) != (b.y > point.y) {
        let xAtY = a.x + (point.y - a.y) / (b.y - a.y) * (b.x - a.x)
        if point.x < xAtY { inside.toggle() }
      }
      j = i
    }
    return inside
  }

  /// The intersection of two convex polygons (either orientation) by Sutherland–Hodgman clipping:
  /// counter-clockwise, possibly with repeated vertices where edges touch; empty when they do not
  /// overlap in a region of positive area.
  public static func convexIntersection(_ a: [SIMD2<Double>], _ b: [SIMD2<Double>]) -> [SIMD2<Double>] {
    guard a.count >= 3, b.count >= 3 else { return [] }
    var output = signedArea(a) < 0 ? Array(a.reversed()) : a
    let clip = signedArea(b) < 0 ? Array(b.reversed()) : b
    var edgeStart = clip[clip.count - 1]
    for edgeEnd in clip {
      let input = output
      output.removeAll(keepingCapacity: true)
      guard !input.isEmpty else { break }
      var previous = input[input.count - 1]
      var previousSide = cross(edgeStart, edgeEnd, previous)
      for current in input {
        let side = cross(edgeStart, edgeEnd, current)
        if side >= 0 {
          if previousSide < 0 { output.append(lineIntersection(previous, previousSide, current, side)) }
          output.append(current)
        } else if previousSide >= 0 {
          output.append(lineIntersection(previous, previousSide, current, side))
        }
        previous = current
        previousSide = side
      }
      edgeStart = edgeEnd
    }
    return output.count >= 3 && area(output) > 0 ? output : []
  }

  /// The area of the intersection of two convex polygons.
  public static func convexIntersectionArea(_ a: [SIMD2<Double>], _ b: [SIMD2<Double>]) -> Double {
    area(convexIntersection(a, b))
  }

  /// Intersection over union of the areas of two convex polygons, in `[0, 1]`; 0 when the union has no
  /// area.
  public static func convexIntersectionOverUnion(_ a: [SIMD2<Double>], _ b: [SIMD2<Double>]) -> Double {
    let intersection = convexIntersectionArea(a, b)
    let union = area(a) + area(b) - intersection
    return union > 0 ? Swift.min(Swift.max(intersection / union, 0), 1) : 0
  }

  /// The rectangle of least area containing `points`, by rotating calipers over the convex hull (one
  /// side of the optimum lies along a hull edge), O(n log n). `nil` when there is no finite point. One
  /// point gives a zero-size rectangle at it; collinear points a rectangle of zero height along them.
  /// Among rectangles of equal area the first hull edge wins, so the result is deterministic.
  public static func minimumAreaRectangle(_ points: [SIMD2<Double>]) -> OrientedRectangle? {
    let hull = convexHull(points)
    switch hull.count {
    case 0:
      return nil
    case 1:
      return OrientedRectangle(center: hull[0], width: 0, height: 0, angle: 0)
    case 2:
      let d = hull[1] - hull[0]
      return OrientedRectangle(
        center: (hull[0] + hull[1]) / 2, width: simd_length(d), height: 0, angle: atan2(d.y, d.x))
    default:
      break
    }
    let n = hull.count
    @inline(__always) func next(_ i: Int) -> Int { i + 1 == n ? 0 : i + 1 }
    // For edge i (direction u, inward normal v), the hull's extreme vertices along +u, −u and +v.
    // They move counter-clockwise monotonically as the edge does, so each pointer goes round once.
    var maxU = 0
    var minU = 0
    var maxV = 0
    var best: (area: Double, center: SIMD2<Double>, width: Double, height: Double, u: SIMD2<Double>)?
    for i in 0..<n {
      let origin = hull[i]
      let u = simd_normalize(hull[next(i)] - origin)
      let v = SIMD2(-u.y, u.x)
      if i == 0 {
        for k in 0..<n {
          if simd_dot(hull[k] - origin, u) > simd_dot(hull[maxU] - origin, u) { maxU = k }
          if simd_dot(hull[k] - origin, u) < simd_dot(hull[minU] - origin, u) { minU = k }
          if simd_dot(hull[k] - origin, v) > simd_dot(hull[maxV] - origin, v) { maxV = k }
        }
      } else {
        var steps = 0
        while steps < n && simd_dot(hull[next(maxU)] - hull[maxU], u) > 0 {
          maxU = next(maxU)
          steps += 1
        }
        steps = 0
        while steps < n && simd_dot(hull[next(minU)] - hull[minU], u) < 0 {
          minU = next(minU)
          steps += 1
        }
        steps = 0
        while steps < n && simd_dot(hull[next(maxV)] - hull[maxV], v) > 0 {
          maxV = next(maxV)
          steps += 1
        }
      }
      let high = simd_dot(hull[maxU] - origin, u)
      let low = simd_dot(hull[minU] - origin, u)
      let height = simd_dot(hull[maxV] - origin, v)
      let width = high - low
      let area = width * height
      if best == nil || area < best!.area {
        let center = origin + u * ((high + low) / 2) + v * (height / 2)
        best = (area, center, width, height, u)
      }
    }
    let b = best!
    return OrientedRectangle(center: b.center, width: b.width, height: b.height, angle: atan2(b.u.y, b.u.x))
  }

  /// `(b − a) × (c − a)`: positive when `a → b → c` turns left (counter-clockwise).
  @inline(__always)
  static func cross(_ a: SIMD2<Double>, _ b: SIMD2<Double>, _ c: SIMD2<Double>) -> Double {
    let ab = b - a
    let ac = c - a
    return ab.x * ac.y - ab.y * ac.x
  }

  /// The point where segment p→q crosses the clip line, given their signed sides.
  @inline(__always)
  static func lineIntersection(
    _ p: SIMD2<Double>, _ pSide: Double, _ q: SIMD2<Double>, _ qSide: Double
  ) -> SIMD2<Double> {
    let t = pSide / (pSide - qSide)
    return p + t * (q - p)
  }
}

/// A rectangle in the plane with arbitrary orientation (an ARSim type), e.g. the extent of a plane anchor.
///
/// `width` is measured along the direction `(cos angle, sin angle)` and `height` along the
/// perpendicular `(−sin angle, cos angle)`; units are those of the points. The initialiser brings `angle`
/// into `[0, π/2)`, swapping width and height when it turns by a quarter turn, so each rectangle has one
/// representation.
public struct OrientedRectangle: Sendable, Hashable, Codable {
  /// The centre.
  public var center: SIMD2<Double>
  /// The side length along `(cos angle, sin angle)`.
  public var width: Double
  /// The side length along `(−sin angle, cos angle)`.
  public var height: Double
  /// The direction of the width side in radians, counter-clockwise from +x, in `[0, π/2)`.
  public var angle: Double

  /// A rectangle from its centre, side lengths and the direction (radians) of the `width` side; the
  /// angle is reduced to `[0, π/2)` (swapping `width` and `height` on odd quarter turns).
  public init(center: SIMD2<Double>, width: Double, height: Double, angle: Double) {
    let quarter = Double.pi / 2
    var turns = (angle / quarter).rounded(.down)
    var reduced = angle - turns * quarter
    if reduced >= quarter {
      reduced -= quarter
      turns += 1
    }
    if reduced < 0 {
      reduced = 0
    }
    let odd = turns.truncatingRemainder(dividingBy: 2) != 0
    self.center = center
    self.width = odd ? height : width
    self.height = odd ? width : height
    self.angle = reduced
  }

  /// `width * height`.
  public var area: Double { width * height }

  /// The four corners, counter-clockwise, starting at centre − (width/2)·u − (height/2)·v.
  public var corners: [SIMD2<Double>] {
    let u = SIMD2(cos(angle), sin(angle))
    let v = SIMD2(-u.y, u.x)
    let hu = u * (width / 2)
    let hv = v * (height / 2)
    return [center - hu - hv, center + hu - hv, center + hu + hv, center - hu + hv]
  }
}
