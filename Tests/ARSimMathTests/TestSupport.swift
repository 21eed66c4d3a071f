import ARSimMath

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Test inputs drawn from ARSimMath's seeded generator.
extension SplitMix64 {
  /// A vector with components uniform in `[lower, upper)`.
  mutating func vector3(_ lower: Double, _ upper: Double) -> SIMD3<Double> {
    SIMD3(uniform(lower, upper), uniform(lower, upper), uniform(lower, upper))
  }

  /// A unit vector uniform on the sphere.
  mutating func unitVector() -> SIMD3<Double> {
    while true {
      let v = SIMD3(gaussian(), gaussian(), gaussian())
      let length = simd_length(v)
      if length > 1e-6 { return v / length }
    }
  }

  /// A rotation uniform on SO(3) (Shoemake's subgroup algorithm).
  mutating func rotation() -> simd_quatd {
    let u1 = uniform(0, 1)
    let u2 = uniform(0, 2 * Double.pi)
    let u3 = uniform(0, 2 * Double.pi)
    let a = (1 - u1).squareRoot()
    let b = u1.squareRoot()
    return simd_quatd(ix: a * sin(u2), iy: a * cos(u2), iz: b * sin(u3), r: b * cos(u3))
  }

  /// A rigid transform with a uniform rotation and a translation within ±5 m.
  mutating func rigidTransform() -> RigidTransform {
    RigidTransform(rotation: rotation(), translation: vector3(-5, 5))
  }
}

/// Largest absolute element difference of two matrices.
func maxDifference<S>(_ a: SIMDMatrix4x4<S>, _ b: SIMDMatrix4x4<S>) -> S {
  var result: S = 0
  for c in 0..<4 {
    for r in 0..<4 { result = Swift.max(result, (a[c, r] - b[c, r]).magnitude) }
  }
  return result
}

/// Largest absolute element difference of two matrices.
func maxDifference<S>(_ a: SIMDMatrix3x3<S>, _ b: SIMDMatrix3x3<S>) -> S {
  var result: S = 0
  for c in 0..<3 {
    for r in 0..<3 { result = Swift.max(result, (a[c, r] - b[c, r]).magnitude) }
  }
  return result
}

/// Whether two vectors agree within `tolerance` in every lane.
func isClose<V: SIMD>(_ a: V, _ b: V, _ tolerance: V.Scalar) -> Bool where V.Scalar: FloatingPoint {
  simd_abs(a - b).max() <= tolerance
}

/// Whether two quaternions are the same rotation within `tolerance` (either sign).
func isSameRotation<S>(_ p: SIMDQuaternion<S>, _ q: SIMDQuaternion<S>, _ tolerance: S) -> Bool {
  isClose(p.vector, q.vector, tolerance) || isClose(p.vector, -q.vector, tolerance)
}

/// Whether two rigid transforms agree as matrices within `tolerance`.
func isClose(_ a: RigidTransform, _ b: RigidTransform, _ tolerance: Double) -> Bool {
  maxDifference(a.matrix, b.matrix) <= tolerance
}
