import Foundation

/// A track as ARKit reports it: the anchor, its outline, centre, extent and boundary.
extension PlaneTrack {
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
