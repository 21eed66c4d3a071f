import ARSimMath
import Foundation

/// A scene surface resolved into world geometry: its plane, a 2-D surface frame in metres (which the
/// texture is fixed to) and its convex outline in that frame.
public struct SurfaceGeometry: Sendable, Equatable {
  /// The plane, with the normal as the scene describes it (a rectangle's `normal`; for a polygon, the
  /// side from which its vertices run counter-clockwise).
  public let plane: Plane
  /// The origin of the surface frame, a world point on the plane (metres).
  public let origin: SIMD3<Double>
  /// Unit in-plane axes of the surface frame; `(xAxis, yAxis, normal)` is right-handed.
  public let xAxis: SIMD3<Double>
  public let yAxis: SIMD3<Double>
  /// The convex outline in surface coordinates (metres), counter-clockwise.
  public let outline: [SIMD2<Double>]

  /// Resolves a surface of a validated scene (``SyntheticScene/validate(source:)``); an invalid
  /// surface is a precondition failure.
  public init(_ surface: SyntheticScene.Surface) {
    // A validated surface cannot fail; the checker only names keys.
    self = try! SurfaceGeometry(surface, check: Checker(file: "scene"), key: "surface")
  }

  init(_ surface: SyntheticScene.Surface, check: Checker, key: String) throws(SceneError) {
    if let rectangle = surface.rectangle {
      let key = key + ".rectangle"
      try check.finite(rectangle.center, key + ".center")
      try check.direction(rectangle.normal, key + ".normal")
      try check.direction(rectangle.xAxis, key + ".xAxis")
      try check.positive(rectangle.width, key + ".width", unit: " (metres)")
      try check.positive(rectangle.height, key + ".height", unit: " (metres)")
      let normal = simd_normalize(rectangle.normal)
      let inPlane = rectangle.xAxis - simd_dot(rectangle.xAxis, normal) * normal
      try check.that(
        simd_length(inPlane) > 1e-3 * simd_length(rectangle.xAxis), key + ".xAxis",
        "is parallel to the normal")
      let (w, h) = (rectangle.width / 2, rectangle.height / 2)
      self.init(
        normal: normal, origin: rectangle.center, xAxis: simd_normalize(inPlane),
        outline: [SIMD2(-w, -h), SIMD2(w, -h), SIMD2(w, h), SIMD2(-w, h)])
      return
    }
    let key = key + ".polygon"
    let vertices = surface.polygon ?? []
    try check.that(vertices.count >= 3, key, "needs at least three vertices")
    for (i, vertex) in vertices.enumerated() { try check.finite(vertex, key + "[\(i)]") }
    let centroid = vertices.reduce(SIMD3<Double>.zero, +) / Double(vertices.count)
    var newell = SIMD3<Double>.zero
    for i in vertices.indices {
      newell += simd_cross(vertices[i] - centroid, vertices[(i + 1) % vertices.count] - centroid)
    }
    try check.that(simd_length(newell) > 1e-9, key, "has no area (its vertices are on one line)")
    let normal = simd_normalize(newell)
    for (i, vertex) in vertices.enumerated() {
      let off = abs(simd_dot(vertex - centroid, normal))
      try check.that(
        off <= 1e-4, key,
        "vertices are not coplanar (vertex \(i) is \(String(format: "%.4g", off)) m off their plane)")
    }
    let edge = vertices[1] - vertices[0]
    let inPlane = edge - simd_dot(edge, normal) * normal
    try check.that(simd_length(inPlane) > 1e-9, key, "vertices 0 and 1 coincide")
    let xAxis = simd_normalize(inPlane)
    let yAxis = simd_cross(normal, xAxis)
    let outline = vertices.map { SIMD2(simd_dot($0 - vertices[0], xAxis), simd_dot($0 - vertices[0], yAxis)) }
    // Convex and simple: every turn is to the left and the turns add up to one full turn.
    var turning = 0.0
    for i in outline.indices {
      let a = outline[(i + 1) % outline.count] - outline[i]
      let b = outline[(i + 2) % outline.count] - outline[(i + 1) % outline.count]
      let cross = a.x * b.y - a.y * b.x
      try check.that(simd_length(a) > 1e-9, key, "vertices \(i) and \((i + 1) % outline.count) coincide")
      try check.that(
        cross >= -1e-9 * simd_length(a) * simd_length(b), key,
        "is not convex (at vertex \((i + 1) % outline.count))")
      turning += atan2(cross, simd_dot(a, b))
    }
    try check.that(abs(turning - 2 * .pi) < 1e-6, key, "is not convex (its edges cross)")
    self.init(normal: normal, origin: vertices[0], xAxis: xAxis, outline: outline)
  }

  private init(normal: SIMD3<Double>, origin: SIMD3<Double>, xAxis: SIMD3<Double>, outline: [SIMD2<Double>]) {
    plane = Plane(point: origin, normal: normal)
    self.origin = origin
    self.xAxis = xAxis
    yAxis = simd_cross(normal, xAxis)
    self.outline = outline
  }

  /// The outline's vertices in the world, metres.
  public var vertices: [SIMD3<Double>] { outline.map(world) }

  /// The area in square metres.
  public var area: Double { Polygon2D.area(outline) }

  /// The world point of surface coordinates `point` (metres).
  public func world(_ point: SIMD2<Double>) -> SIMD3<Double> { origin + point.x * xAxis + point.y * yAxis }

  /// The surface coordinates (metres) of a world point's projection onto the plane.
  public func surfaceCoordinates(_ point: SIMD3<Double>) -> SIMD2<Double> {
    SIMD2(simd_dot(point - origin, xAxis), simd_dot(point - origin, yAxis))
  }

  /// Whether surface coordinates `point` lie inside the outline.
  public func contains(_ point: SIMD2<Double>) -> Bool { Polygon2D.contains(point, in: outline) }
}
