import Foundation

/// An orthonormal frame of a plane: 2-D coordinates `(u, v)` of 3-D points projected onto it.
struct PlaneFrame {
  var origin: SIMD3<Double>
  var u: SIMD3<Double>
  var v: SIMD3<Double>
  var normal: SIMD3<Double>

  init(normal: SIMD3<Double>, origin: SIMD3<Double>) {
    let n = simd_normalize(normal)
    // The coordinate axis least aligned with the normal gives a well-conditioned in-plane axis.
    let magnitudes = SIMD3(abs(n.x), abs(n.y), abs(n.z))
    let axis: SIMD3<Double> =
      magnitudes.x <= magnitudes.y && magnitudes.x <= magnitudes.z
      ? SIMD3(1, 0, 0) : magnitudes.y <= magnitudes.z ? SIMD3(0, 1, 0) : SIMD3(0, 0, 1)
    u = simd_normalize(simd_cross(n, axis))
    v = simd_cross(n, u)
    self.normal = n
    self.origin = origin
  }

  /// The 2-D coordinates of `point` projected onto the plane, metres.
  func project(_ point: SIMD3<Double>) -> SIMD2<Double> {
    let d = point - origin
    return SIMD2(simd_dot(d, u), simd_dot(d, v))
  }

  /// The 3-D point of the plane at 2-D coordinates `p`.
  func point(_ p: SIMD2<Double>) -> SIMD3<Double> { origin + p.x * u + p.y * v }
}

/// The normal of a polygon by Newell's method (unnormalised; zero for a degenerate polygon).
func newellNormal(_ polygon: [SIMD3<Double>]) -> SIMD3<Double> {
  var normal = SIMD3<Double>.zero
  guard polygon.count >= 3 else { return normal }
  var previous = polygon[polygon.count - 1]
  for p in polygon {
    normal.x += (previous.y - p.y) * (previous.z + p.z)
    normal.y += (previous.z - p.z) * (previous.x + p.x)
    normal.z += (previous.x - p.x) * (previous.y + p.y)
    previous = p
  }
  return normal
}
