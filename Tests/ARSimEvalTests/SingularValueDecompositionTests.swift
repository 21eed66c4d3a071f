import Testing

@testable import ARSimEval

@Suite struct SingularValueDecompositionTests {
  /// `u * diag(values) * vᵀ`.
  private func recompose(_ svd: SignedSingularValueDecomposition) -> simd_double3x3 {
    svd.u * simd_double3x3(diagonal: svd.values) * svd.v.transpose
  }

  private func isRotation(_ m: simd_double3x3, tolerance: Double = 1e-12) -> Bool {
    simd_almost_equal_elements(m.transpose * m, .identity, tolerance) && abs(m.determinant - 1) < tolerance
  }

  @Test func reconstructsRandomMatricesWithRotationFactors() {
    var rng = SplitMix64(seed: 11)
    for _ in 0..<200 {
      let a = simd_double3x3(rng.vector(-2, 2), rng.vector(-2, 2), rng.vector(-2, 2))
      let svd = SignedSingularValueDecomposition(a)
      #expect(simd_almost_equal_elements(recompose(svd), a, 1e-12))
      #expect(isRotation(svd.u))
      #expect(isRotation(svd.v))
      #expect(svd.values.x >= svd.values.y && svd.values.y >= abs(svd.values.z))
      // The sign of the last value is the sign of the determinant.
      #expect((svd.values.z < 0) == (a.determinant < 0))
      #expect(abs(svd.values.x * svd.values.y * svd.values.z - a.determinant) < 1e-11)
    }
  }

  @Test func knownSingularValuesOfARotatedDiagonal() {
    // A = R1 · diag(5, 3, −0.5) · R2ᵀ has singular values 5, 3, 0.5 and negative determinant.
    var rng = SplitMix64(seed: 3)
    let r1 = simd_double3x3(rng.rotation())
    let r2 = simd_double3x3(rng.rotation())
    let a = r1 * simd_double3x3(diagonal: SIMD3(5, 3, -0.5)) * r2.transpose
    let svd = SignedSingularValueDecomposition(a)
    #expect(abs(svd.values.x - 5) < 1e-13)
    #expect(abs(svd.values.y - 3) < 1e-13)
    #expect(abs(svd.values.z + 0.5) < 1e-13)
    #expect(simd_almost_equal_elements(recompose(svd), a, 1e-13))
  }

  @Test func rankDeficientMatricesStillDecompose() {
    var rng = SplitMix64(seed: 5)
    let r1 = simd_double3x3(rng.rotation())
    let r2 = simd_double3x3(rng.rotation())
    for diagonal in [SIMD3<Double>(4, 2, 0), SIMD3(4, 0, 0), SIMD3(0, 0, 0), SIMD3(1, 1, 1)] {
      let a = r1 * simd_double3x3(diagonal: diagonal) * r2.transpose
      let svd = SignedSingularValueDecomposition(a)
      #expect(simd_almost_equal_elements(recompose(svd), a, 1e-13))
      #expect(isRotation(svd.u))
      #expect(isRotation(svd.v))
      #expect(abs(svd.values.x - diagonal.x) < 1e-13)
      #expect(abs(svd.values.y - diagonal.y) < 1e-13)
      #expect(abs(svd.values.z) < 1e-13 || abs(svd.values.z - diagonal.z) < 1e-13)
    }
  }
}
