/// The singular value decomposition of a 3×3 matrix with both factors proper rotations:
/// `matrix = u * diag(values) * vᵀ` with `det(u) = det(v) = +1`.
///
/// To keep both factors rotations, the last value carries the sign of `det(matrix)`: `values.x ≥
/// values.y ≥ |values.z|`, and `values.z < 0` exactly when the matrix reverses orientation. (A
/// conventional SVD with non-negative values is obtained by negating `values.z` and the last column of
/// `u` when `values.z < 0`.) This "signed" form is what Umeyama's alignment needs: the best rotation is
/// `u * vᵀ` and the best scale uses `values.x + values.y + values.z`, which already includes the
/// reflection correction.
struct SignedSingularValueDecomposition {
  /// The left factor, a rotation; its columns are the left singular vectors.
  var u: simd_double3x3
  /// The singular values, descending in magnitude, the last one signed as `det(matrix)`.
  var values: SIMD3<Double>
  /// The right factor, a rotation; its columns are the right singular vectors.
  var v: simd_double3x3

  /// The decomposition of `matrix`, by one-sided Jacobi rotations (Hestenes' method) on its columns,
  /// which gives the small singular values to high relative accuracy.
  ///
  /// When the matrix is rank deficient the missing left singular vectors are completed to a right-handed
  /// orthonormal basis, deterministically; they are then not unique (nor is the decomposition).
  init(_ matrix: simd_double3x3) {
    // Work on the columns w = A·V: rotate pairs of columns until they are mutually orthogonal.
    var w = [matrix.columns.0, matrix.columns.1, matrix.columns.2]
    var vColumns = [SIMD3<Double>(1, 0, 0), SIMD3<Double>(0, 1, 0), SIMD3<Double>(0, 0, 1)]
    for _ in 0..<64 {
      var rotated = false
      for (p, q) in [(0, 1), (0, 2), (1, 2)] {
        let alpha = simd_length_squared(w[p])
        let beta = simd_length_squared(w[q])
        let gamma = simd_dot(w[p], w[q])
        if gamma == 0 || gamma.magnitude <= 1e-15 * (alpha * beta).squareRoot() { continue }
        rotated = true
        // The Jacobi rotation diagonalising [[α, γ], [γ, β]]: t = tan θ, the smaller root of
        // t² + 2ζt − 1 = 0.
        let zeta = (beta - alpha) / (2 * gamma)
        let t: Double
        if zeta.magnitude > 1e150 {
          t = 1 / (2 * zeta)
        } else {
          t = (zeta >= 0 ? 1 : -1) / (zeta.magnitude + (1 + zeta * zeta).squareRoot())
        }
        let c = 1 / (1 + t * t).squareRoot()
        let s = c * t
        let (wp, wq) = (w[p], w[q])
        w[p] = c * wp - s * wq
        w[q] = s * wp + c * wq
        let (vp, vq) = (vColumns[p], vColumns[q])
        vColumns[p] = c * vp - s * vq
        vColumns[q] = s * vp + c * vq
      }
      if !rotated { break }
    }
    // Sort by descending norm; the order of ties is by index, so the result is deterministic.
    let norms = w.map { simd_length($0) }
    let order = [0, 1, 2].sorted { norms[$0] > norms[$1] || (norms[$0] == norms[$1] && $0 < $1) }
    var sortedW = order.map { w[$0] }
    var right = simd_double3x3(vColumns[order[0]], vColumns[order[1]], vColumns[order[2]])
    // Make V a rotation; flipping a column of V flips the same column of W = A·V.
    if right.determinant < 0 {
      right.columns.2 = -right.columns.2
      sortedW[2] = -sortedW[2]
    }
    v = right
    let sigma0 = simd_length(sortedW[0])
    let sigma1 = simd_length(sortedW[1])
    let tiny = Swift.max(sigma0, Double.leastNormalMagnitude) * 1e-13
    // First left singular vector; any unit vector for the zero matrix.
    let u0 = sigma0 > 0 ? sortedW[0] / sigma0 : SIMD3<Double>(1, 0, 0)
    // Second: the normalised second column, or any unit vector orthogonal to the first.
    var u1: SIMD3<Double>
    if sigma1 > tiny {
      u1 = sortedW[1] / sigma1
      // Re-orthogonalise against u0 (the columns are orthogonal to rounding already).
      u1 = simd_normalize(u1 - simd_dot(u1, u0) * u0)
    } else {
      u1 = SignedSingularValueDecomposition.unitOrthogonal(to: u0)
    }
    let u2 = simd_cross(u0, u1)
    u = simd_double3x3(u0, u1, u2)
    // With U and V rotations, the third value is the signed component of A·v₂ along u₂.
    values = SIMD3(sigma0, sigma1, simd_dot(u2, sortedW[2]))
  }

  /// A unit vector orthogonal to the unit vector `n`, chosen deterministically.
  private static func unitOrthogonal(to n: SIMD3<Double>) -> SIMD3<Double> {
    let axis: SIMD3<Double>
    if n.x.magnitude <= n.y.magnitude && n.x.magnitude <= n.z.magnitude {
      axis = SIMD3(1, 0, 0)
    } else if n.y.magnitude <= n.z.magnitude {
      axis = SIMD3(0, 1, 0)
    } else {
      axis = SIMD3(0, 0, 1)
    }
    return simd_normalize(simd_cross(n, axis))
  }
}
