import ARSimMath
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite struct QuaternionTests {
  @Test func ninetyDegreesAboutYMapsXToMinusZ() {
    let q = simd_quatf(angle: .pi / 2, axis: SIMD3<Float>(0, 1, 0))
    #expect(isClose(q.act(SIMD3<Float>(1, 0, 0)), SIMD3(0, 0, -1), 1e-6))
    #expect(isClose(q.act(SIMD3<Float>(0, 0, 1)), SIMD3(1, 0, 0), 1e-6))
    #expect(isClose(q.act(SIMD3<Float>(0, 1, 0)), SIMD3(0, 1, 0), 1e-6))
    let z = simd_quatd(angle: .pi / 2, axis: SIMD3<Double>(0, 0, 1))
    #expect(isClose(simd_act(z, SIMD3<Double>(1, 0, 0)), SIMD3(0, 1, 0), 1e-15))
    #expect(abs(q.angle - .pi / 2) < 1e-6)
    #expect(isClose(q.axis, SIMD3(0, 1, 0), 1e-6))
    #expect(abs(q.real - Float(0.5).squareRoot()) < 1e-6)
  }

  @Test func actMatchesRotationMatrixAndComposition() {
    var rng = SplitMix64(seed: 2)
    for _ in 0..<200 {
      let p = rng.rotation()
      let q = rng.rotation()
      let v = rng.vector3(-3, 3)
      #expect(isClose(p.act(v), simd_double3x3(p) * v, 1e-12))
      #expect(isClose((p * q).act(v), p.act(q.act(v)), 1e-12))
      #expect(isClose(p.inverse.act(p.act(v)), v, 1e-12))
      #expect(isClose(p.conjugate.act(p.act(v)), v, 1e-12))
      // A non-unit quaternion rotates by its normalised rotation.
      #expect(isClose((3 * p).act(v), p.act(v), 1e-12))
      let m4 = simd_double4x4(p)
      #expect(isClose(m4 * SIMD4(v, 1), SIMD4(p.act(v), 1), 1e-12))
      #expect(isClose((p / q).vector, (p * q.inverse).vector, 1e-15))
    }
  }

  @Test func matrixRoundTripOverRandomRotations() {
    var rng = SplitMix64(seed: 3)
    var rotations: [simd_quatd] = (0..<1000).map { _ in rng.rotation() }
    // Angles at and near 180°, and near 0°, about random axes: the hard cases for trace-based formulas.
    for angle in [Double.pi, .pi - 1e-7, .pi - 1e-4, .pi - 0.01, 1e-9, 1e-5] {
      for _ in 0..<20 { rotations.append(simd_quatd(angle: angle, axis: rng.unitVector())) }
    }
    rotations.append(simd_quatd(angle: .pi, axis: SIMD3(1, 0, 0)))
    rotations.append(simd_quatd(angle: .pi, axis: SIMD3(0, 1, 0)))
    rotations.append(simd_quatd(angle: .pi, axis: SIMD3(0, 0, 1)))
    for q in rotations {
      let m = simd_double3x3(q)
      let back = simd_quatd(m)
      #expect(isSameRotation(back, q, 1e-12))
      #expect(abs(back.length - 1) < 1e-14)
      #expect(back.real >= 0)
      #expect(maxDifference(simd_double3x3(back), m) < 1e-12)
      #expect(isSameRotation(simd_quatd(simd_double4x4(q)), q, 1e-12))
      let qf = simd_quatf(vector: SIMD4<Float>(q.vector))
      #expect(isSameRotation(simd_quatf(simd_float3x3(qf)), qf, 1e-6))
      #expect(isSameRotation(simd_quaternion(simd_float4x4(qf)), qf, 1e-6))
    }
  }

  @Test func matrixOfQuaternionIsARotation() {
    var rng = SplitMix64(seed: 4)
    for _ in 0..<100 {
      let m = simd_double3x3(rng.rotation())
      #expect(maxDifference(m.transpose * m, .identity) < 1e-14)
      #expect(abs(m.determinant - 1) < 1e-14)
    }
    #expect(simd_double3x3(simd_quatd()) == .identity)
  }

  @Test func slerpMidpointAndShortestArc() {
    let q0 = simd_quatd(ix: 0, iy: 0, iz: 0, r: 1)
    let q1 = simd_quatd(angle: .pi / 2, axis: SIMD3(0, 0, 1))
    let mid = simd_slerp(q0, q1, 0.5)
    #expect(isClose(mid.vector, simd_quatd(angle: .pi / 4, axis: SIMD3(0, 0, 1)).vector, 1e-15))
    #expect(isClose(simd_slerp(q0, q1, 0).vector, q0.vector, 1e-15))
    #expect(isClose(simd_slerp(q0, q1, 1).vector, q1.vector, 1e-15))
    // −q1 is the same rotation: slerp still takes the 45° path.
    #expect(isSameRotation(simd_slerp(q0, -q1, 0.5), mid, 1e-15))
    let quarter = simd_slerp(q0, q1, 0.25)
    #expect(abs(quarter.angle - .pi / 8) < 1e-14)
    // Longest arc goes the other way round: 135° about −z at the midpoint.
    let longest = simd_slerp_longest(q0, q1, 0.5)
    #expect(isClose(longest.act(SIMD3(1, 0, 0)), SIMD3(cos(-3 * .pi / 4), sin(-3 * .pi / 4), 0), 1e-14))
    #expect(isClose(simd_slerp(q1, q1, 0.3).vector, q1.vector, 1e-15))
  }

  @Test func rotationFromVectorToVector() {
    var rng = SplitMix64(seed: 5)
    for _ in 0..<200 {
      let from = rng.unitVector()
      var to = rng.unitVector()
      let q = simd_quatd(from: from, to: to)
      #expect(isClose(q.act(from), to, 1e-12))
      #expect(abs(q.angle - acos(simd_clamp(simd_dot(from, to), -1, 1))) < 1e-7)
      to = -from
      let flip = simd_quatd(from: 2 * from, to: to)
      #expect(isClose(flip.act(from), to, 1e-12))
      #expect(abs(flip.angle - .pi) < 1e-12)
    }
    let up = simd_quatf(from: SIMD3(0, 1, 0), to: SIMD3(0, 1, 0))
    #expect(up.vector == SIMD4(0, 0, 0, 1))
  }

  @Test func accessorsAndArithmetic() {
    var q = simd_quatd(ix: 1, iy: 2, iz: 3, r: 4)
    #expect(q.imag == SIMD3(1, 2, 3))
    #expect(q.real == 4)
    #expect(q.conjugate.vector == SIMD4(-1, -2, -3, 4))
    #expect(abs(q.length - 30.0.squareRoot()) < 1e-15)
    #expect(isClose((q * q.inverse).vector, SIMD4(0, 0, 0, 1), 1e-15))
    #expect(abs(simd_length(q.normalized) - 1) < 1e-15)
    #expect(simd_normalize(simd_quatd()).vector == SIMD4(0, 0, 0, 1))
    #expect((q + q).vector == (2 * q).vector)
    #expect((q - q).vector == .zero)
    #expect(simd_dot(q, q) == 30)
    q.imag = SIMD3(0, 0, 0)
    #expect(q.vector == SIMD4(0, 0, 0, 4))
    #expect(simd_quatd(real: 1, imag: SIMD3(2, 3, 4)).vector == SIMD4(2, 3, 4, 1))
    #expect(simd_quatf(ix: 0, iy: 0, iz: 0, r: 1).axis.x.isNaN)  // as Apple: no axis for the identity
    // i·j = k
    let i = simd_quatd(ix: 1, iy: 0, iz: 0, r: 0)
    let j = simd_quatd(ix: 0, iy: 1, iz: 0, r: 0)
    #expect((i * j).vector == SIMD4(0, 0, 1, 0))
    #expect(simd_mul(j, i).vector == SIMD4(0, 0, -1, 0))
  }

  @Test func descriptionMatchesApple() {
    #expect(
      simd_quatf(ix: 0, iy: 0, iz: 0, r: 1).description
        == "simd_quatf(real: 1.0, imag: SIMD3<Float>(0.0, 0.0, 0.0))")
  }
}
