import ARSimMath
import Foundation
import Testing

@Suite struct RigidTransformTests {
  @Test func compositionFollowsFrameNames() {
    // The camera is 1.5 m up, turned 90° left (about +y); the anchor is 2 m in front of the camera.
    let worldFromCamera = RigidTransform(
      rotation: simd_quatd(angle: .pi / 2, axis: SIMD3(0, 1, 0)), translation: SIMD3(0, 1.5, 0))
    let cameraFromAnchor = RigidTransform(translation: SIMD3(0, 0, -2))
    let worldFromAnchor = worldFromCamera * cameraFromAnchor
    // Camera forward (−z) turned 90° left is world −x.
    #expect(isClose(worldFromAnchor.translation, SIMD3(-2, 1.5, 0), 1e-15))
    #expect(isClose(worldFromAnchor.apply(to: .zero), SIMD3(-2, 1.5, 0), 1e-15))
    #expect(isClose(worldFromCamera.rotate(SIMD3(0, 0, -1)), SIMD3(-1, 0, 0), 1e-15))
    #expect(maxDifference(worldFromAnchor.matrix, worldFromCamera.matrix * cameraFromAnchor.matrix) < 1e-15)
  }

  @Test func compositionAndInverseOfRandomTransforms() {
    var rng = SplitMix64(seed: 6)
    for _ in 0..<200 {
      let aFromB = rng.rigidTransform()
      let bFromC = rng.rigidTransform()
      let p = rng.vector3(-10, 10)
      #expect(isClose((aFromB * bFromC).apply(to: p), aFromB.apply(to: bFromC.apply(to: p)), 1e-12))
      #expect(maxDifference((aFromB * bFromC).matrix, aFromB.matrix * bFromC.matrix) < 1e-12)
      #expect(isClose(aFromB * aFromB.inverse, .identity, 1e-12))
      #expect(isClose(aFromB.inverse * aFromB, .identity, 1e-12))
      #expect(isClose(aFromB.inverse.apply(to: aFromB.apply(to: p)), p, 1e-12))
      #expect(maxDifference(aFromB.inverse.matrix, aFromB.matrix.inverse) < 1e-12)
    }
  }

  @Test func matrixRoundTripAndOrthonormalisation() {
    var rng = SplitMix64(seed: 7)
    for _ in 0..<200 {
      let t = rng.rigidTransform()
      let back = RigidTransform(matrix: t.matrix)
      #expect(isClose(back, t, 1e-12))
      // A noisy, scaled copy gives back (nearly) the same rotation and an orthonormal one.
      var noisy = t.matrix
      for c in 0..<3 {
        for r in 0..<3 { noisy[c, r] = 2 * noisy[c, r] + 1e-4 * rng.uniform(-1, 1) }
      }
      let cleaned = RigidTransform(matrix: noisy)
      #expect(isSameRotation(cleaned.rotation, t.rotation, 1e-3))
      let r = simd_double3x3(cleaned.rotation)
      #expect(maxDifference(r.transpose * r, .identity) < 1e-14)
      #expect(abs(r.determinant - 1) < 1e-14)
      #expect(cleaned.translation == t.translation)
    }
    // The rotation by 180° about x, given as a Float matrix.
    let flip = simd_float4x4(rows: [
      SIMD4(1, 0, 0, 1), SIMD4(0, -1, 0, 2), SIMD4(0, 0, -1, 3), SIMD4(0, 0, 0, 1),
    ])
    let t = RigidTransform(matrix: flip)
    #expect(isSameRotation(t.rotation, simd_quatd(ix: 1, iy: 0, iz: 0, r: 0), 1e-15))
    #expect(t.translation == SIMD3(1, 2, 3))
    #expect(t.floatMatrix == flip)
  }

  @Test func expOfKnownTwist() {
    // Unit forward speed along x while turning 90° about z: the end point of the quarter circle of
    // radius 2/π, at (2/π, 2/π, 0).
    let t = RigidTransform.exp(Twist(angular: SIMD3(0, 0, .pi / 2), linear: SIMD3(1, 0, 0)))
    #expect(isClose(t.translation, SIMD3(2 / .pi, 2 / .pi, 0), 1e-15))
    #expect(isSameRotation(t.rotation, simd_quatd(angle: .pi / 2, axis: SIMD3(0, 0, 1)), 1e-15))
    // No rotation: the translation is the linear part.
    let pure = RigidTransform.exp(Twist(angular: .zero, linear: SIMD3(1, 2, 3)))
    #expect(pure.translation == SIMD3(1, 2, 3))
    #expect(pure.rotation.vector == SIMD4(0, 0, 0, 1))
  }

  @Test func expOfLogIsIdentityMap() {
    var rng = SplitMix64(seed: 8)
    var transforms = (0..<300).map { _ in rng.rigidTransform() }
    for angle in [0, 1e-12, 1e-6, 1e-3 * 0.999, 1e-3 * 1.001, 0.5, .pi - 1e-6, .pi] {
      transforms.append(
        RigidTransform(
          rotation: simd_quatd(angle: angle, axis: rng.unitVector()), translation: rng.vector3(-2, 2)))
    }
    for t in transforms {
      let twist = t.log
      #expect(simd_length(twist.angular) <= .pi + 1e-12)
      #expect(isClose(RigidTransform.exp(twist), t, 1e-10))
    }
    for _ in 0..<300 {
      // Rotation angle below π so the logarithm is unique.
      let twist = Twist(angular: rng.unitVector() * rng.uniform(0, 3.1), linear: rng.vector3(-3, 3))
      let back = RigidTransform.exp(twist).log
      #expect(isClose(back.angular, twist.angular, 1e-10))
      #expect(isClose(back.linear, twist.linear, 1e-10))
    }
  }

  @Test func so3MapsRoundTrip() {
    var rng = SplitMix64(seed: 9)
    for _ in 0..<200 {
      let q = rng.rotation()
      let v = RigidTransform.logRotation(q)
      #expect(isSameRotation(RigidTransform.expRotation(v), q, 1e-12))
    }
    #expect(
      isClose(
        RigidTransform.logRotation(simd_quatd(angle: 0.3, axis: SIMD3(0, 1, 0))), SIMD3(0, 0.3, 0), 1e-15))
  }

  @Test func tumRoundTrip() throws {
    // 90° about z, at (1, 2, 3).
    let h = 0.5.squareRoot()
    let values = [1, 2, 3, 0, 0, h, h]
    let t = try #require(RigidTransform(tumValues: values))
    #expect(isClose(t.apply(to: SIMD3(1, 0, 0)), SIMD3(1, 3, 3), 1e-15))
    let back = t.tumValues
    #expect(back.count == 7)
    for (a, b) in zip(back, values) { #expect(abs(a - b) < 1e-15) }
    var rng = SplitMix64(seed: 10)
    for _ in 0..<100 {
      let random = rng.rigidTransform()
      let u = try #require(RigidTransform(tumValues: random.tumValues))
      #expect(isClose(u, random, 1e-15))
    }
    // Non-unit quaternions are normalised; bad input is rejected.
    let scaled = try #require(RigidTransform(tumValues: [0, 0, 0, 0, 0, 2, 2]))
    #expect(isSameRotation(scaled.rotation, t.rotation, 1e-15))
    #expect(RigidTransform(tumValues: [0, 0, 0, 0, 0, 0]) == nil)
    #expect(RigidTransform(tumValues: [0, 0, 0, 0, 0, 0, 0]) == nil)
    #expect(RigidTransform(tumValues: [0, 0, .nan, 0, 0, 0, 1]) == nil)
  }

  @Test func codableRoundTrip() throws {
    let t = RigidTransform(rotation: simd_quatd(angle: 1, axis: SIMD3(0, 0, 1)), translation: SIMD3(1, 2, 3))
    let decoded = try JSONDecoder().decode(RigidTransform.self, from: JSONEncoder().encode(t))
    #expect(decoded == t)
  }
}
