import ARSimMath
import Testing

@Suite struct VectorTests {
  @Test func geometryOfKnownVectors() {
    let a = SIMD3<Double>(3, 4, 0)
    let b = SIMD3<Double>(0, 0, 2)
    #expect(simd_dot(a, b) == 0)
    #expect(simd_dot(a, a) == 25)
    #expect(simd_length(a) == 5)
    #expect(simd_length_squared(a) == 25)
    #expect(simd_distance(a, b) == 29.0.squareRoot())
    #expect(simd_distance_squared(a, b) == 29)
    #expect(simd_normalize(a) == SIMD3(0.6, 0.8, 0))
    #expect(simd_cross(SIMD3<Float>(1, 0, 0), SIMD3(0, 1, 0)) == SIMD3(0, 0, 1))
    #expect(simd_cross(a, b) == SIMD3(8, -6, 0))
    #expect(simd_length(SIMD2<Float>(3, 4)) == 5)
    #expect(simd_dot(SIMD4<Float>(1, 2, 3, 4), SIMD4(1, 1, 1, 1)) == 10)
  }

  @Test func normalizeOfZeroIsNaNAsApple() {
    let n = simd_normalize(SIMD3<Float>(0, 0, 0))
    #expect(n.x.isNaN && n.y.isNaN && n.z.isNaN)
  }

  @Test func laneWiseHelpers() {
    let x = SIMD3<Float>(-2, 0.5, 3)
    #expect(simd_abs(x) == SIMD3(2, 0.5, 3))
    #expect(simd_clamp(x, SIMD3(repeating: -1), SIMD3(repeating: 1)) == SIMD3(-1, 0.5, 1))
    #expect(simd_clamp(x, -1, 1) == SIMD3(-1, 0.5, 1))
    #expect(simd_clamp(5.0, 0, 1) == 1)
    #expect(simd_min(x, SIMD3(0, 0, 0)) == SIMD3(-2, 0, 0))
    #expect(simd_max(x, SIMD3(0, 0, 0)) == SIMD3(0, 0.5, 3))
    #expect(simd_mix(SIMD2<Double>(0, 10), SIMD2(10, 20), SIMD2(0.5, 0.25)) == SIMD2(5, 12.5))
    #expect(simd_mix(1.0, 3.0, 0.5) == 2)
    #expect(simd_reduce_add(x) == 1.5)
    #expect(simd_make_float3(SIMD4<Float>(1, 2, 3, 4)) == SIMD3(1, 2, 3))
    #expect(simd_make_float3(SIMD2<Float>(1, 2), 3) == SIMD3(1, 2, 3))
    #expect(simd_make_float4(SIMD3<Float>(1, 2, 3), 1) == SIMD4(1, 2, 3, 1))
    #expect(simd_make_double4(simd_make_double3(1, 2, 3), 0) == SIMD4(1, 2, 3, 0))
    let typed: simd_float3 = SIMD3<Float>(1, 2, 3)
    #expect(typed == float3(1, 2, 3))
  }
}
