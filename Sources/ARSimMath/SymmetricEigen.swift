#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(ucrt)
  import ucrt
#endif

/// The eigen-decomposition of a symmetric 3×3 matrix (for example a covariance), by cyclic Jacobi
/// rotations.
///
/// Only the symmetric part `(m + mᵀ)/2` is used. `eigenvalues` are sorted ascending and column `i` of
/// `eigenvectors` is the unit eigenvector of `eigenvalues[i]`; each eigenvector's component of largest
/// magnitude is made positive so the result is deterministic. Accuracy is near machine precision relative
/// to the largest eigenvalue magnitude.
public func symmetricEigenDecomposition(
  _ matrix: simd_double3x3
) -> (eigenvalues: SIMD3<Double>, eigenvectors: simd_double3x3) {
  var a = SIMD16<Double>(repeating: 0)
  for r in 0..<3 {
    for c in 0..<3 { a[r * 4 + c] = (matrix[c, r] + matrix[r, c]) / 2 }
  }
  let (values, vectors) = jacobiEigen(a, size: 3)
  let v = { (i: Int) in SIMD3(vectors[0 * 4 + i], vectors[1 * 4 + i], vectors[2 * 4 + i]) }
  return (SIMD3(values[0], values[1], values[2]), simd_double3x3(v(0), v(1), v(2)))
}

/// Cyclic Jacobi eigen-solver for a symmetric `size`×`size` matrix (`size` ≤ 4) stored row-major in the
/// first rows/columns of a 4×4 block (`a[row * 4 + column]`). Returns the eigenvalues sorted ascending
/// and the eigenvectors as the columns of the same kind of block, each with its largest-magnitude
/// component positive.
///
/// The rotations work on a stack buffer rather than on the `SIMD16` values themselves: a `SIMD16`
/// subscripted by a run-time index is spilled and reloaded at every access, which made this solver the
/// largest cost of per-cell plane fits.
func jacobiEigen(_ input: SIMD16<Double>, size n: Int) -> (values: SIMD4<Double>, vectors: SIMD16<Double>) {
  precondition(n >= 1 && n <= 4)
  return withUnsafeTemporaryAllocation(of: Double.self, capacity: 32) { buffer in
    let a = buffer.baseAddress!
    let v = a + 16
    for i in 0..<16 {
      a[i] = input[i]
      v[i] = 0
    }
    for i in 0..<n { v[i * 4 + i] = 1 }
    jacobiRotate(a, v, size: n)
    // Sort ascending (stable, so ties keep their index order) and fix each vector's sign.
    var order = SIMD4<Int>(0, 1, 2, 3)
    for i in 1..<max(n, 1) {
      var j = i
      while j > 0 {
        let x = a[order[j] &* 5]
        let y = a[order[j - 1] &* 5]
        guard x < y || (x == y && order[j] < order[j - 1]) else { break }
        (order[j], order[j - 1]) = (order[j - 1], order[j])
        j -= 1
      }
    }
    var values = SIMD4<Double>(repeating: 0)
    var vectors = SIMD16<Double>(repeating: 0)
    for column in 0..<n {
      let index = order[column]
      values[column] = a[index * 4 + index]
      var largest = 0
      for k in 0..<n where v[k * 4 + index].magnitude > v[largest * 4 + index].magnitude { largest = k }
      let sign: Double = v[largest * 4 + index] < 0 ? -1 : 1
      for k in 0..<n { vectors[k * 4 + column] = sign * v[k * 4 + index] }
    }
    return (values, vectors)
  }
}

/// The rotations of ``jacobiEigen(_:size:)`` on `a` (diagonalised in place) and `v` (accumulating the
/// eigenvectors as columns), both row-major 4×4 blocks.
private func jacobiRotate(_ a: UnsafeMutablePointer<Double>, _ v: UnsafeMutablePointer<Double>, size n: Int) {
  var frobenius = 0.0
  for r in 0..<n {
    for c in 0..<n { frobenius += a[r * 4 + c] * a[r * 4 + c] }
  }
  let threshold = frobenius * 1e-36
  for _ in 0..<64 {
    var off = 0.0
    for p in 0..<n {
      for q in (p + 1)..<n { off += a[p * 4 + q] * a[p * 4 + q] }
    }
    if off <= threshold || off == 0 { break }
    for p in 0..<(n - 1) {
      for q in (p + 1)..<n {
        let apq = a[p * 4 + q]
        if apq == 0 { continue }
        // Rotation that annihilates a[p][q]: t = tan(φ) is the smaller root of t² + 2θt − 1 = 0.
        let theta = (a[q * 4 + q] - a[p * 4 + p]) / (2 * apq)
        let t: Double
        if theta.magnitude > 1e150 {
          t = 1 / (2 * theta)
        } else {
          let sign: Double = theta >= 0 ? 1 : -1
          t = sign / (theta.magnitude + (theta * theta + 1).squareRoot())
        }
        let c = 1 / (t * t + 1).squareRoot()
        let s = t * c
        for k in 0..<n {
          // Columns p and q of a ← a·J.
          let akp = a[k * 4 + p]
          let akq = a[k * 4 + q]
          a[k * 4 + p] = c * akp - s * akq
          a[k * 4 + q] = s * akp + c * akq
        }
        for k in 0..<n {
          // Rows p and q of a ← Jᵀ·a.
          let apk = a[p * 4 + k]
          let aqk = a[q * 4 + k]
          a[p * 4 + k] = c * apk - s * aqk
          a[q * 4 + k] = s * apk + c * aqk
        }
        a[p * 4 + q] = 0
        a[q * 4 + p] = 0
        for k in 0..<n {
          let vkp = v[k * 4 + p]
          let vkq = v[k * 4 + q]
          v[k * 4 + p] = c * vkp - s * vkq
          v[k * 4 + q] = s * vkp + c * vkq
        }
      }
    }
  }
}

/// The eigenvalues of a symmetric 3×3 matrix in closed form (the trigonometric solution of its
/// characteristic cubic, Smith 1961), ascending, and the unit eigenvector of the smallest: the cross
/// product of two rows of `m − λ₀I`, the longest of the three such products. Only the symmetric part is
/// used. The eigenvector is accurate when the smallest eigenvalue is well apart from the middle one (a
/// plane's points: the spread across the plane far above the spread off it); nil when no row pair
/// spans a plane (the smallest eigenvalue repeated). Several times faster than
/// ``symmetricEigenDecomposition(_:)`` for the many small fits of a depth map's cells; its sign is
/// arbitrary.
public func smallestSymmetricEigenpair(
  _ matrix: simd_double3x3
) -> (eigenvalues: SIMD3<Double>, eigenvector: SIMD3<Double>?) {
  let a00 = matrix[0, 0]
  let a11 = matrix[1, 1]
  let a22 = matrix[2, 2]
  let a01 = (matrix[0, 1] + matrix[1, 0]) / 2
  let a02 = (matrix[0, 2] + matrix[2, 0]) / 2
  let a12 = (matrix[1, 2] + matrix[2, 1]) / 2
  let off = a01 * a01 + a02 * a02 + a12 * a12
  let q = (a00 + a11 + a22) / 3
  let (b00, b11, b22) = (a00 - q, a11 - q, a22 - q)
  let p = ((b00 * b00 + b11 * b11 + b22 * b22 + 2 * off) / 6).squareRoot()
  let values: SIMD3<Double>
  if p == 0 || !p.isFinite {
    values = SIMD3(repeating: q)
  } else {
    // det(B)/2 with B = (m − qI)/p, in [−1, 1] up to rounding.
    let det = b00 * (b11 * b22 - a12 * a12) - a01 * (a01 * b22 - a12 * a02) + a02 * (a01 * a12 - b11 * a02)
    let r = min(max(det / (2 * p * p * p), -1), 1)
    let phi = acos(r) / 3
    let largest = q + 2 * p * cos(phi)
    let smallest = q + 2 * p * cos(phi + 2 * Double.pi / 3)
    values = SIMD3(smallest, 3 * q - largest - smallest, largest)
  }
  let r0 = SIMD3(a00 - values.x, a01, a02)
  let r1 = SIMD3(a01, a11 - values.x, a12)
  let r2 = SIMD3(a02, a12, a22 - values.x)
  var best = simd_cross(r0, r1)
  for c in [simd_cross(r0, r2), simd_cross(r1, r2)] where simd_length_squared(c) > simd_length_squared(best) {
    best = c
  }
  let length = simd_length(best)
  guard length > 0, length.isFinite else { return (values, nil) }
  return (values, best / length)
}
