/// Dense row-major square matrices of any size (`[Double]`, `n * n` entries), for small least-squares
/// problems whose size is not a SIMD type's.
package enum DenseMatrix {
  /// The inverse of a row-major square matrix by Gauss–Jordan elimination with partial pivoting; nil
  /// when singular.
  package static func inverse(_ matrix: [Double], dimension n: Int) -> [Double]? {
    var a = matrix
    var inverse = [Double](repeating: 0, count: n * n)
    for i in 0..<n { inverse[(n + 1) * i] = 1 }
    let scale = matrix.map(abs).max() ?? 0
    guard scale > 0 else { return nil }
    for column in 0..<n {
      let pivot = (column..<n).max { abs(a[n * $0 + column]) < abs(a[n * $1 + column]) }!
      guard abs(a[n * pivot + column]) > 1e-12 * scale else { return nil }
      if pivot != column {
        for k in 0..<n {
          a.swapAt(n * pivot + k, n * column + k)
          inverse.swapAt(n * pivot + k, n * column + k)
        }
      }
      let p = a[n * column + column]
      for k in 0..<n {
        a[n * column + k] /= p
        inverse[n * column + k] /= p
      }
      for row in 0..<n where row != column {
        let factor = a[n * row + column]
        guard factor != 0 else { continue }
        for k in 0..<n {
          a[n * row + k] -= factor * a[n * column + k]
          inverse[n * row + k] -= factor * inverse[n * column + k]
        }
      }
    }
    return inverse
  }
}
