import ARSimMath
import Testing

/// Stand-ins for the ARKit types the snippet touches; only their `transform` matters here.
private struct FakeCamera {
  var transform: simd_float4x4
}

private struct FakeAnchor {
  var transform: simd_float4x4
}

@Suite struct ARKitSnippetTests {
  /// ARKit sample code, unchanged, compiles against ARSimMath and computes the expected values.
  @Test func sampleCodeCompilesAndComputes() {
    var cameraTransform = matrix_identity_float4x4
    cameraTransform.columns.3 = SIMD4<Float>(1, 2, 3, 1)
    let camera = FakeCamera(transform: cameraTransform)
    let worldTransform = FakeAnchor(transform: cameraTransform).transform
    let a = SIMD3<Float>(1, 0, 0)
    let b = SIMD3<Float>(0, 1, 0)
    let m2 = simd_float4x4(simd_quatf(angle: .pi, axis: SIMD3<Float>(0, 0, 1)))

    // --- the snippet ---
    let column = worldTransform.columns.3
    let translation = SIMD3<Float>(column.x, column.y, column.z)
    var m = matrix_identity_float4x4
    m.columns.3 = SIMD4<Float>(0, 0, -0.2, 1)
    let t = simd_mul(camera.transform, m)
    let q = simd_quatf(angle: .pi / 2, axis: SIMD3<Float>(0, 1, 0))
    let v = q.act(SIMD3<Float>(1, 0, 0))
    let n = simd_normalize(simd_cross(a, b))
    let d = simd_dot(a, b)
    let l = simd_length(a)
    let inv = m.inverse
    let inv2 = simd_inverse(m)
    let mm = m * m2
    let v4 = m * SIMD4<Float>(1, 2, 3, 1)
    let tr = m.transpose
    let fromQuaternion = simd_float4x4(q)
    let backToQuaternion = simd_quatf(m)
    let rotation3 = simd_float3x3(q)
    // --- end of the snippet ---

    #expect(translation == SIMD3(1, 2, 3))
    #expect(t.columns.3 == SIMD4(1, 2, 2.8, 1))
    #expect(isClose(v, SIMD3(0, 0, -1), 1e-6))
    #expect(n == SIMD3(0, 0, 1))
    #expect(d == 0)
    #expect(l == 1)
    #expect(inv.columns.3 == SIMD4(0, 0, 0.2, 1))
    #expect(inv2 == inv)
    #expect(simd_almost_equal_elements(mm.inverse * mm, matrix_identity_float4x4, 1e-6))
    #expect(v4 == SIMD4(1, 2, 2.8, 1))
    #expect(tr.columns.2 == SIMD4(0, 0, 1, -0.2))
    #expect(isClose(fromQuaternion * SIMD4<Float>(1, 0, 0, 0), SIMD4(0, 0, -1, 0), 1e-6))
    #expect(backToQuaternion.vector == SIMD4(0, 0, 0, 1))
    #expect(isClose(rotation3 * SIMD3<Float>(1, 0, 0), SIMD3(0, 0, -1), 1e-6))
  }

  /// Other common ARKit idioms: the `float4x4` spelling, extensions on it, and unprefixed helpers.
  @Test func commonIdioms() {
    var transform = float4x4(diagonal: SIMD4(1, 1, 1, 1))
    transform.columns.3 = SIMD4(0.5, 0, -1, 1)
    #expect(transform.position == SIMD3(0.5, 0, -1))
    let p = simd_make_float3(transform.columns.3)
    let h = simd_make_float4(p, 1)
    #expect(h == transform.columns.3)
    #expect(distance(p, .zero) == length(p))
    #expect(abs(length(normalize(p)) - 1) < 1e-6)
    #expect(dot(cross(SIMD3<Float>(1, 0, 0), SIMD3(0, 1, 0)), SIMD3(0, 0, 1)) == 1)
    let world = SIMD4<Float>(0, 0, 0, 1)
    #expect(transform * world == SIMD4(0.5, 0, -1, 1))
  }
}

extension float4x4 {
  /// The translation, as ARKit sample code commonly defines it.
  fileprivate var position: SIMD3<Float> { SIMD3(columns.3.x, columns.3.y, columns.3.z) }
}
