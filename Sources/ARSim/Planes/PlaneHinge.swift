#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Two parallel surfaces side by side under one vertical plane turned between them, for
/// ``PlaneSegmenter``.
extension PlaneSegmenter {
  /// The inliers of the larger side when `inliers` (of the vertical `plane`) are two parallel surfaces
  /// side by side that the plane holds by turning about the vertical between them; nil when they are
  /// one surface.
  ///
  /// A door a few centimetres proud of its wall and the wall beside it: a plane yawed by a degree passes
  /// within a centimetre of both, so the narrow band's refit, the densest layer and the regions' step
  /// test (whose cells straddling the door's edge hold both and bridge it) all keep them together. Along
  /// the plane's horizontal axis the distances then break at the edge: each side lies on its own line,
  /// the two lines parallel and apart at the edge. So the points, ordered along that axis, are split
  /// where two lines fit them best (least squares, each side at least ``PlaneDetectionOptions/minimumSide``
  /// wide and ``PlaneDetectionOptions/minimumInliers`` strong); the split is a hinge when the two lines
  /// are parallel within ``PlaneDetectionOptions/mergeAngleDegrees`` and apart at the split by more than
  /// ``PlaneDetectionOptions/hingeStep`` and four standard errors. A flat wall's two lines
  /// coincide; a bent one's meet at the bend. Horizontal planes need no such test: their normal is
  /// gravity's, so no turn can join two heights. O(n log n) in the inliers.
  func hingedSide(of plane: Plane, inliers: [Int], positions: [SIMD3<Double>]) -> [Int]? {
    let minimumCount = max(options.minimumInliers, 3)
    guard options.hingeStep.isFinite, inliers.count >= 2 * minimumCount else { return nil }
    let (e1, _) = GravityAlignedPlane.axes(normal: plane.normal, alignment: .vertical)
    var points: [HingePoint] = inliers.map { i in
      HingePoint(u: simd_dot(e1, positions[i]), r: plane.signedDistance(to: positions[i]), index: i)
    }
    points.sort { $0.u < $1.u || ($0.u == $1.u && $0.index < $1.index) }
    // Prefix sums of 1, u, r, u², u·r, r² (centred on the first u for conditioning).
    let origin = points[0].u
    var sums = [LineSums](repeating: LineSums(), count: points.count + 1)
    for (k, p) in points.enumerated() { sums[k + 1] = sums[k].adding(u: p.u - origin, r: p.r) }
    let total = sums[points.count]
    var best: (k: Int, rss: Double)?
    for k in minimumCount...(points.count - minimumCount) where points[k].u > points[k - 1].u {
      guard points[k - 1].u - points[0].u >= options.minimumSide,
        points[points.count - 1].u - points[k].u >= options.minimumSide,
        let left = sums[k].line, let right = (total - sums[k]).line
      else { continue }
      let rss = left.rss + right.rss
      if rss < best?.rss ?? .infinity { best = (k, rss) }
    }
    guard let (k, rss) = best, let left = sums[k].line, let right = (total - sums[k]).line,
      abs(atan(left.slope) - atan(right.slope)) <= options.mergeAngleDegrees * .pi / 180
    else { return nil }
    let u0 = (points[k - 1].u + points[k].u) / 2 - origin
    let step = (left.value(at: u0) - right.value(at: u0)).magnitude
    let variance = rss / Double(max(points.count - 4, 1))
    let error = (variance * (left.leverage(at: u0) + right.leverage(at: u0))).squareRoot()
    guard step > max(options.hingeStep, 4 * error) else { return nil }
    let side = k >= points.count - k ? points[..<k] : points[k...]
    return side.map { $0.index }.sorted()
  }
}

/// A point's place along the plane's horizontal axis, its signed distance from the plane, its index.
private struct HingePoint {
  let u: Double
  let r: Double
  let index: Int
}

/// Running sums for a least-squares line `r = a + b·u`.
private struct LineSums {
  var n = 0.0
  var u = 0.0
  var r = 0.0
  var uu = 0.0
  var ur = 0.0
  var rr = 0.0

  func adding(u x: Double, r y: Double) -> LineSums {
    LineSums(n: n + 1, u: u + x, r: r + y, uu: uu + x * x, ur: ur + x * y, rr: rr + y * y)
  }

  static func - (a: LineSums, b: LineSums) -> LineSums {
    LineSums(n: a.n - b.n, u: a.u - b.u, r: a.r - b.r, uu: a.uu - b.uu, ur: a.ur - b.ur, rr: a.rr - b.rr)
  }

  /// The least-squares line and its residual sum of squares; nil when the u values do not spread.
  var line: FittedLine? {
    guard n >= 2 else { return nil }
    let sxx = uu - u * u / n
    guard sxx > 1e-12 else { return nil }
    let sxy = ur - u * r / n
    let syy = rr - r * r / n
    let slope = sxy / sxx
    return FittedLine(
      slope: slope, intercept: (r - slope * u) / n, rss: max(syy - slope * sxy, 0), n: n, meanU: u / n,
      sxx: sxx)
  }
}

/// A least-squares line `r = intercept + slope·u` with what its prediction's variance needs.
private struct FittedLine {
  let slope: Double
  let intercept: Double
  let rss: Double
  let n: Double
  let meanU: Double
  let sxx: Double

  func value(at u: Double) -> Double { intercept + slope * u }

  /// The prediction's variance at `u` per unit noise variance.
  func leverage(at u: Double) -> Double { 1 / n + (u - meanU) * (u - meanU) / sxx }
}
