import ARSimMath
import Foundation
import Testing

@Suite struct MatrixTests {
  let a = simd_float4x4(rows: [
    SIMD4(1, 2, 3, 4), SIMD4(5, 6, 7, 8), SIMD4(9, 10, 11, 12), SIMD4(13, 14, 15, 16),
  ])
  let b = simd_float4x4(rows: [
    SIMD4(1, 0, 2, 0), SIMD4(0, 1, 0, 2), SIMD4(3, 0, 1, 0), SIMD4(0, 3, 0, 1),
  ])

  @Test func rowsColumnsAndSubscripts() {
    #expect(a.columns.0 == SIMD4(1, 5, 9, 13))
    #expect(a[3] == SIMD4(4, 8, 12, 16))
    #expect(a[2, 1] == 7)  // column 2, row 1
    #expect(a.transpose.columns.0 == SIMD4(1, 2, 3, 4))
    #expect(simd_float4x4([a.columns.0, a.columns.1, a.columns.2, a.columns.3]) == a)
    var m = a
    m[1, 3] = -1
    m[0] = SIMD4(0, 0, 0, 0)
    #expect(m.columns.1.w == -1)
    #expect(m.columns.0 == .zero)
    #expect(simd_float4x4() == simd_float4x4(diagonal: .zero))
    #expect(simd_float4x4(2) == simd_float4x4(diagonal: SIMD4(2, 2, 2, 2)))
    #expect(
      simd_matrix_from_rows(
        SIMD4<Float>(1, 2, 3, 4), SIMD4(5, 6, 7, 8), SIMD4(9, 10, 11, 12),
        SIMD4(13, 14, 15, 16)) == a)
  }

  @Test func productOfTwoKnownMatrices() {
    let expected = simd_float4x4(rows: [
      SIMD4(10, 14, 5, 8), SIMD4(26, 30, 17, 20), SIMD4(42, 46, 29, 32), SIMD4(58, 62, 41, 44),
    ])
    #expect(a * b == expected)
    #expect(simd_mul(a, b) == expected)
    #expect(a * SIMD4<Float>(1, 2, 3, 1) == SIMD4(18, 46, 74, 102))
    #expect(SIMD4<Float>(1, 2, 3, 1) * a.transpose == SIMD4(18, 46, 74, 102))
    var c = a
    c *= b
    #expect(c == expected)
  }

  @Test func elementWiseArithmetic() {
    #expect(a + b - b == a)
    #expect(2 * a == a + a)
    #expect(a * 2 == a + a)
    #expect(-a + a == simd_float4x4())
    #expect(simd_add(a, b) == a + b)
    #expect(simd_sub(a, b) == a - b)
  }

  @Test func determinantsOfKnownMatrices() {
    let m = simd_double4x4(rows: [
      SIMD4(1, 2, 3, 4), SIMD4(5, 6, 7, 8), SIMD4(2, 6, 4, 8), SIMD4(3, 1, 1, 2),
    ])
    #expect(abs(m.determinant - 72) < 1e-12)
    let n = simd_double4x4(rows: [
      SIMD4(2, 0, 0, 1), SIMD4(0, 3, 0, 0), SIMD4(0, 0, 4, 0), SIMD4(1, 0, 0, 5),
    ])
    #expect(abs(simd_determinant(n) - 108) < 1e-12)
    #expect(a.determinant == 0)  // rows in arithmetic progression: singular
    let k = simd_double3x3(rows: [SIMD3(2, -3, 1), SIMD3(2, 0, -1), SIMD3(1, 4, 5)])
    #expect(abs(k.determinant - 49) < 1e-12)
    #expect(abs(simd_determinant(k.transpose) - 49) < 1e-12)
  }

  @Test func inverseOfRandomRigidAndGeneralMatrices() {
    var rng = SplitMix64(seed: 1)
    for _ in 0..<200 {
      let rigid = rng.rigidTransform().matrix
      #expect(maxDifference(rigid.inverse * rigid, .identity) < 1e-12)
      #expect(maxDifference(simd_inverse(rigid) * rigid, matrix_identity_double4x4) < 1e-12)
      var general = simd_double4x4()
      for c in 0..<4 {
        for r in 0..<4 { general[c, r] = rng.uniform(-1, 1) }
      }
      guard abs(general.determinant) > 0.05 else { continue }
      #expect(maxDifference(general.inverse * general, .identity) < 1e-9)
      #expect(maxDifference(general * general.inverse, .identity) < 1e-9)
      #expect(abs(general.inverse.determinant * general.determinant - 1) < 1e-9)
      let floatGeneral = simd_float4x4(general)
      #expect(maxDifference(floatGeneral.inverse * floatGeneral, matrix_identity_float4x4) < 1e-3)
      var general3 = simd_double3x3()
      for c in 0..<3 {
        for r in 0..<3 { general3[c, r] = rng.uniform(-1, 1) }
      }
      guard abs(general3.determinant) > 0.05 else { continue }
      #expect(maxDifference(simd_inverse(general3) * general3, .identity) < 1e-9)
    }
  }

  @Test func knownInverse() {
    // Translation by (1, 2, 3) then scale by 2: inverse scales by 1/2 and translates by −(1, 2, 3)/2.
    var m = simd_float4x4(diagonal: SIMD4(2, 2, 2, 1))
    m.columns.3 = SIMD4(1, 2, 3, 1)
    var expected = simd_float4x4(diagonal: SIMD4(0.5, 0.5, 0.5, 1))
    expected.columns.3 = SIMD4(-0.5, -1, -1.5, 1)
    #expect(simd_almost_equal_elements(m.inverse, expected, 1e-6))
  }

  @Test func equalityAndTolerance() {
    var c = a
    c[2, 2] += 1e-3
    #expect(simd_equal(a, a))
    #expect(!simd_equal(a, c))
    #expect(simd_almost_equal_elements(a, c, 2e-3))
    #expect(!simd_almost_equal_elements(a, c, 1e-4))
    #expect(simd_almost_equal_elements_relative(a, c, 1e-3))
    #expect(!simd_almost_equal_elements_relative(a, c, 1e-5))
    #expect(Set([a, a, b]).count == 2)
  }

  @Test func descriptionMatchesApple() {
    #expect(
      matrix_identity_float4x4.description
        == "simd_float4x4([[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]])"
    )
    #expect(
      "\(matrix_identity_double3x3)" == "simd_double3x3([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])")
  }

  @Test func codableAsFlatColumnMajorArray() throws {
    var m = matrix_identity_float4x4
    m.columns.3 = SIMD4(1, 2, 3, 1)
    let data = try JSONEncoder().encode(m)
    #expect(String(decoding: data, as: UTF8.self) == "[1,0,0,0,0,1,0,0,0,0,1,0,1,2,3,1]")
    #expect(try JSONDecoder().decode(simd_float4x4.self, from: data) == m)
    let k = simd_double3x3(rows: [SIMD3(2, -3, 1), SIMD3(2, 0, -1), SIMD3(1, 4, 5)])
    #expect(try JSONDecoder().decode(simd_double3x3.self, from: JSONEncoder().encode(k)) == k)
    #expect(throws: DecodingError.self) {
      try JSONDecoder().decode(simd_float4x4.self, from: Data("[1,2,3]".utf8))
    }
  }

  @Test func threeByThreeBasics() {
    let k = simd_float3x3(rows: [SIMD3(1, 2, 3), SIMD3(4, 5, 6), SIMD3(7, 8, 10)])
    #expect(k * SIMD3<Float>(1, 0, -1) == SIMD3(-2, -2, -3))
    #expect(k[1, 2] == 8)
    #expect(simd_transpose(k).columns.0 == SIMD3(1, 2, 3))
    #expect(simd_almost_equal_elements(k * k.inverse, matrix_identity_float3x3, 1e-5))
    #expect(simd_diagonal_matrix(SIMD3<Float>(1, 1, 1)) == matrix_identity_float3x3)
  }
}
