import ARSimScene
import Foundation
import Testing

/// Whether two vectors agree within `tolerance` in every component.
func close(_ a: SIMD3<Float>, _ b: SIMD3<Float>, _ tolerance: Float = 1e-5) -> Bool {
  simd_length(a - b) <= tolerance
}

/// Whether two unit quaternions are the same rotation (q and −q agree) within `tolerance`.
func sameRotation(_ a: simd_quatf, _ b: simd_quatf, _ tolerance: Float = 1e-5) -> Bool {
  min(simd_length(a.vector - b.vector), simd_length(a.vector + b.vector)) <= tolerance
}

/// Whether two matrices agree within `tolerance` in every element.
func close(_ a: simd_float4x4, _ b: simd_float4x4, _ tolerance: Float = 1e-5) -> Bool {
  (0..<4).allSatisfy { simd_length(a[$0] - b[$0]) <= tolerance }
}

/// A rotation by `degrees` about `axis`.
func rotation(_ degrees: Float, _ axis: SIMD3<Float>) -> simd_quatf {
  simd_quatf(angle: degrees * .pi / 180, axis: axis)
}

@Suite struct TransformTests {
  @Test func identityIsTheIdentityMatrix() {
    #expect(Transform.identity.matrix == .identity)
    #expect(Transform().scale == SIMD3(1, 1, 1))
    #expect(Transform().translation == .zero)
  }

  @Test func matrixIsTranslationTimesRotationTimesScale() {
    // Rz(90°) takes x to y and y to −x; scaled by 2, translated by (1, 2, 3).
    let t = Transform(
      scale: SIMD3(2, 2, 2), rotation: rotation(90, SIMD3(0, 0, 1)), translation: SIMD3(1, 2, 3))
    let expected = simd_float4x4(
      SIMD4(0, 2, 0, 0), SIMD4(-2, 0, 0, 0), SIMD4(0, 0, 2, 0), SIMD4(1, 2, 3, 1))
    #expect(close(t.matrix, expected))
  }

  @Test func matrixInitializerRecoversTheParts() {
    let t = Transform(
      scale: SIMD3(0.5, 2, 3), rotation: rotation(30, simd_normalize(SIMD3(1, 2, 3))),
      translation: SIMD3(-1, 4, 0.25))
    let back = Transform(matrix: t.matrix)
    #expect(close(back.scale, t.scale))
    #expect(sameRotation(back.rotation, t.rotation))
    #expect(close(back.translation, t.translation))
  }

  @Test func mirroringMatrixGivesANegativeXScale() {
    let mirror = simd_float4x4(diagonal: SIMD4(-1, 1, 1, 1))
    let t = Transform(matrix: mirror)
    #expect(close(t.scale, SIMD3(-1, 1, 1)))
    #expect(sameRotation(t.rotation, simd_quatf(ix: 0, iy: 0, iz: 0, r: 1)))
    #expect(close(t.matrix, mirror))
  }

  @Test func settingTheMatrixReplacesTheParts() {
    var t = Transform.identity
    t.matrix = simd_float4x4(SIMD4(1, 0, 0, 0), SIMD4(0, 1, 0, 0), SIMD4(0, 0, 1, 0), SIMD4(7, 8, 9, 1))
    #expect(t.translation == SIMD3(7, 8, 9))
    #expect(close(t.scale, SIMD3(1, 1, 1)))
  }
}
