/// The rotation `R` that best turns the vectors `source` into the corresponding vectors `target`: it
/// minimises `Σ |target[i] − R·source[i]|²` (no translation, no scale), by Horn's closed form (Horn,
/// "Closed-form solution of absolute orientation using unit quaternions", JOSA A 4(4), 1987): the
/// unit eigenvector of the largest eigenvalue of a symmetric 4×4 matrix built from `Σ source[i]·target[i]ᵀ`.
///
/// For unit vectors (bearings) this is also the rotation that maximises `Σ target[i]·(R·source[i])`,
/// the sum of the cosines between the rotated sources and the targets. Longer vectors weigh more, in
/// proportion to the product of their lengths.
///
/// Returns a unit quaternion with a non-negative real part, or nil when the rotation is not determined:
/// the arrays differ in length, are empty, hold a non-finite component, or the pairs do not fix the
/// rotation (fewer than two non-parallel pairs, or all vectors zero).
public func rotationAligning(_ source: [SIMD3<Double>], to target: [SIMD3<Double>]) -> simd_quatd? {
  guard source.count == target.count, !source.isEmpty else { return nil }
  // s[r][c] = Σ source_r · target_c.
  var s = simd_double3x3()
  for (a, b) in zip(source, target) {
    guard a.x.isFinite, a.y.isFinite, a.z.isFinite, b.x.isFinite, b.y.isFinite, b.z.isFinite else {
      return nil
    }
    for r in 0..<3 {
      for c in 0..<3 { s[c, r] += a[r] * b[c] }
    }
  }
  let (xx, xy, xz) = (s[0, 0], s[1, 0], s[2, 0])
  let (yx, yy, yz) = (s[0, 1], s[1, 1], s[2, 1])
  let (zx, zy, zz) = (s[0, 2], s[1, 2], s[2, 2])
  // Horn's N, row-major, for the quaternion ordered (real, x, y, z).
  let n = SIMD16<Double>(
    xx + yy + zz, yz - zy, zx - xz, xy - yx,
    yz - zy, xx - yy - zz, xy + yx, zx + xz,
    zx - xz, xy + yx, -xx + yy - zz, yz + zy,
    xy - yx, zx + xz, yz + zy, -xx - yy + zz)
  let (values, vectors) = jacobiEigen(n, size: 4)
  // The largest eigenvalue must stand apart from the next, or a family of rotations fits equally well.
  let magnitude = max(values[3].magnitude, values[0].magnitude)
  guard magnitude > 0, values[3] - values[2] > 1e-9 * magnitude else { return nil }
  var q = simd_quatd(
    ix: vectors[1 * 4 + 3], iy: vectors[2 * 4 + 3], iz: vectors[3 * 4 + 3], r: vectors[0 * 4 + 3])
  if q.real < 0 { q = simd_quatd(vector: -q.vector) }
  return q.normalized
}
