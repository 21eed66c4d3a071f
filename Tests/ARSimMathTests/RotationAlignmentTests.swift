import ARSimMath
import Testing

@Suite struct RotationAlignmentTests {
  @Test func recoversExactRotationsOfBearings() throws {
    var rng = SplitMix64(seed: 11)
    for _ in 0..<100 {
      let rotation = rng.rotation()
      let source = (0..<20).map { _ in rng.unitVector() }
      let target = source.map { rotation.act($0) }
      let fitted = try #require(rotationAligning(source, to: target))
      #expect(isSameRotation(fitted, rotation, 1e-10))
      #expect(fitted.real >= 0)
      #expect(abs(fitted.length - 1) < 1e-12)
    }
  }

  @Test func twoPairsAndTheIdentityAreEnough() throws {
    let source = [SIMD3<Double>(1, 0, 0), SIMD3(0, 1, 0)]
    let quarterTurn = simd_quatd(angle: .pi / 2, axis: SIMD3<Double>(0, 0, 1))
    let fitted = try #require(rotationAligning(source, to: source.map { quarterTurn.act($0) }))
    #expect(isSameRotation(fitted, quarterTurn, 1e-12))
    let identity = try #require(rotationAligning(source, to: source))
    #expect(isClose(identity.vector, SIMD4(0, 0, 0, 1), 1e-12))
    // A half turn (the largest angle) is found too.
    let halfTurn = simd_quatd(angle: .pi, axis: SIMD3<Double>(0, 1, 0))
    let flipped = try #require(rotationAligning(source, to: source.map { halfTurn.act($0) }))
    #expect(isSameRotation(flipped, halfTurn, 1e-12))
  }

  @Test func noisyBearingsGiveTheLeastSquaresRotation() throws {
    // Small symmetric perturbations average out: the fit stays close to the true rotation, and no
    // nearby rotation has a smaller sum of squared distances.
    var rng = SplitMix64(seed: 3)
    let rotation = simd_quatd(angle: 0.2, axis: simd_normalize(SIMD3<Double>(1, 2, 3)))
    let source = (0..<200).map { _ in rng.unitVector() }
    let target = source.map { simd_normalize(rotation.act($0) + 0.001 * rng.vector3(-1, 1)) }
    let fitted = try #require(rotationAligning(source, to: target))
    #expect(angleBetween(fitted, rotation) < 1e-3)
    func cost(_ q: simd_quatd) -> Double {
      zip(source, target).reduce(0) { $0 + simd_length_squared($1.1 - q.act($1.0)) }
    }
    let best = cost(fitted)
    for axis in [SIMD3<Double>(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1)] {
      for step in [-1e-4, 1e-4] {
        #expect(cost(simd_quatd(angle: step, axis: axis) * fitted) >= best)
      }
    }
  }

  @Test func outliersPullTheFitButDoNotBreakIt() throws {
    // One wild pair among many: the fit moves a little, as least squares does, but keeps its sense.
    var rng = SplitMix64(seed: 8)
    let rotation = simd_quatd(angle: 0.05, axis: SIMD3<Double>(0, 1, 0))
    var source = (0..<100).map { _ in rng.unitVector() }
    var target = source.map { rotation.act($0) }
    source.append(SIMD3(1, 0, 0))
    target.append(SIMD3(-1, 0, 0))
    let fitted = try #require(rotationAligning(source, to: target))
    #expect(angleBetween(fitted, rotation) < 0.05)
  }

  @Test func undeterminedInputsGiveNil() {
    let a = SIMD3<Double>(1, 0, 0)
    let b = SIMD3<Double>(0, 1, 0)
    #expect(rotationAligning([], to: []) == nil)
    #expect(rotationAligning([a, b], to: [a]) == nil)
    // One pair, or parallel pairs, leave the rotation about that direction free.
    #expect(rotationAligning([a], to: [b]) == nil)
    #expect(rotationAligning([a, 2 * a, -a], to: [a, 2 * a, -a]) == nil)
    #expect(rotationAligning([.zero, .zero], to: [a, b]) == nil)
    #expect(rotationAligning([a, SIMD3(.nan, 0, 0)], to: [a, b]) == nil)
    #expect(rotationAligning([a, SIMD3(.infinity, 0, 0)], to: [a, b]) == nil)
  }
}

/// The angle of the rotation between two rotations, radians in `[0, π]`.
private func angleBetween(_ p: simd_quatd, _ q: simd_quatd) -> Double {
  let angle = (p * q.inverse).normalized.angle
  return min(angle, 2 * .pi - angle)
}
