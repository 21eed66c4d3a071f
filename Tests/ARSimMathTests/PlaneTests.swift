import ARSimMath
import Foundation
import Testing

@Suite struct PlaneTests {
  @Test func fitOfNoisyPointsOnAKnownPlane() throws {
    var rng = SplitMix64(seed: 11)
    for _ in 0..<20 {
      let normal = rng.unitVector()
      let truth = Plane(point: rng.vector3(-3, 3), normal: normal)
      // Two in-plane directions, a 2 m × 2 m patch, 1 mm Gaussian noise along the normal.
      let u = simd_normalize(simd_cross(normal, abs(normal.x) < 0.9 ? SIMD3(1, 0, 0) : SIMD3(0, 1, 0)))
      let v = simd_cross(normal, u)
      let origin = truth.pointClosestToOrigin
      let points = (0..<500).map { _ in
        origin + rng.uniform(-1, 1) * u + rng.uniform(-1, 1) * v + 0.001 * rng.gaussian() * normal
      }
      let fitted = try #require(Plane(fitting: points))
      let angle = min(fitted.angle(to: truth), fitted.angle(to: truth.flipped))
      #expect(angle < 0.1 * .pi / 180)
      #expect(abs(fitted.signedDistance(to: origin)) < 5e-4)
      #expect(abs(simd_length(fitted.normal) - 1) < 1e-14)
      // Deterministic orientation: the largest-magnitude component is positive.
      let largest = fitted.normal.indices.max { abs(fitted.normal[$0]) < abs(fitted.normal[$1]) }!
      #expect(fitted.normal[largest] > 0)
      let moments = PlaneMoments(points: points)
      let mse = try #require(moments.meanSquaredDistance)
      #expect(mse > 0.5e-6 && mse < 1.5e-6)  // σ² = 1e-6 m²
    }
  }

  @Test func exactFitAndDegenerateInput() throws {
    // Points on y = 2 (a floor 2 m up): normal +y, offset −2.
    let points: [SIMD3<Double>] = [SIMD3(0, 2, 0), SIMD3(1, 2, 0), SIMD3(0, 2, 1), SIMD3(3, 2, -4)]
    let plane = try #require(Plane(fitting: points))
    #expect(isClose(plane.normal, SIMD3(0, 1, 0), 1e-15))
    #expect(abs(plane.offset + 2) < 1e-14)
    #expect(Plane(fitting: [SIMD3<Double>(0, 0, 0), SIMD3(1, 1, 1)]) == nil)
    #expect(Plane(fitting: (0..<10).map { SIMD3<Double>(Double($0), 2 * Double($0), 1) }) == nil)
    #expect(Plane(fitting: Array(repeating: SIMD3<Double>(1, 2, 3), count: 5)) == nil)
    #expect(PlaneMoments().plane == nil)
    #expect(PlaneMoments().mean == nil)
  }

  @Test func distanceProjectionAndNormalisation() {
    let plane = Plane(normal: SIMD3(0, 0, 2), offset: -4)  // z = 2
    #expect(plane.normal == SIMD3(0, 0, 1))
    #expect(plane.offset == -2)
    #expect(plane.signedDistance(to: SIMD3(5, 5, 5)) == 3)
    #expect(plane.signedDistance(to: SIMD3(5, 5, 0)) == -2)
    #expect(plane.project(SIMD3(1, 2, 7)) == SIMD3(1, 2, 2))
    #expect(plane.pointClosestToOrigin == SIMD3(0, 0, 2))
    #expect(plane.flipped.signedDistance(to: SIMD3(5, 5, 5)) == -3)
    let through = Plane(point: SIMD3(1, 1, 1), normal: SIMD3(1, 1, 1))
    #expect(abs(through.offset + 3.0.squareRoot()) < 1e-15)
  }

  @Test func rayIntersection() throws {
    let floor = Plane(normal: SIMD3(0, 1, 0), offset: 0)
    let s = try #require(floor.intersection(rayOrigin: SIMD3(0, 2, 0), direction: SIMD3(1, -1, 0)))
    #expect(abs(s - 2) < 1e-15)  // hits (2, 0, 0)
    let unit = try #require(floor.intersection(rayOrigin: SIMD3(0, 1.5, 0), direction: SIMD3(0, -1, 0)))
    #expect(unit == 1.5)
    #expect(floor.intersection(rayOrigin: SIMD3(0, 2, 0), direction: SIMD3(1, 0, 0)) == nil)  // parallel
    #expect(floor.intersection(rayOrigin: SIMD3(0, 2, 0), direction: SIMD3(0, 1, 0)) == nil)  // behind
    #expect(floor.intersection(rayOrigin: SIMD3(0, -1, 0), direction: SIMD3(0, 1, 0)) == 1)  // from below
    #expect(floor.intersection(rayOrigin: .zero, direction: SIMD3(0, -1, 0)) == 0)  // origin on plane
  }

  @Test func angleBetweenNormals() {
    let floor = Plane(normal: SIMD3(0, 1, 0), offset: 0)
    let wall = Plane(normal: SIMD3(1, 0, 0), offset: 3)
    #expect(abs(floor.angle(to: wall) - .pi / 2) < 1e-15)
    #expect(abs(floor.angle(to: floor.flipped) - .pi) < 1e-15)
    let tilted = Plane(normal: SIMD3(sin(1e-8), cos(1e-8), 0), offset: 0)
    #expect(abs(floor.angle(to: tilted) - 1e-8) < 1e-20)
  }

  @Test func transformedPlaneContainsTransformedPoints() {
    var rng = SplitMix64(seed: 12)
    for _ in 0..<50 {
      let plane = Plane(point: rng.vector3(-2, 2), normal: rng.unitVector())
      let aFromB = rng.rigidTransform()
      let moved = plane.transformed(by: aFromB)
      for _ in 0..<5 {
        let p = plane.project(rng.vector3(-5, 5))
        #expect(abs(moved.signedDistance(to: aFromB.apply(to: p))) < 1e-12)
        let off = p + 0.25 * plane.normal
        #expect(abs(moved.signedDistance(to: aFromB.apply(to: off)) - 0.25) < 1e-12)
      }
    }
  }

  @Test func momentsMergeByAddition() {
    // Dyadic coordinates: every sum is exact, so the merge is exactly equal.
    let a = (0..<40).map { SIMD3<Double>(Double($0 % 7) * 0.5, Double($0 % 5) * 0.25, Double($0) * 0.125) }
    let b = (0..<25).map { SIMD3<Double>(-Double($0) * 0.5, 1.5, Double($0 % 3) * 2) }
    let merged = PlaneMoments(points: a) + PlaneMoments(points: b)
    #expect(merged == PlaneMoments(points: a + b))
    #expect(merged.count == 65)
    var accumulated = PlaneMoments(points: a)
    accumulated += PlaneMoments(points: b)
    #expect(accumulated == merged)
    // Random points: equal up to rounding, and the same fitted plane.
    var rng = SplitMix64(seed: 13)
    let c = (0..<300).map { _ in SIMD3(rng.uniform(-2, 2), 0.01 * rng.gaussian(), rng.uniform(-2, 2)) }
    let d = (0..<200).map { _ in SIMD3(rng.uniform(-2, 2), 0.01 * rng.gaussian(), rng.uniform(-2, 2)) }
    let m1 = PlaneMoments(points: c) + PlaneMoments(points: d)
    let m2 = PlaneMoments(points: c + d)
    #expect(m1.count == m2.count)
    #expect(isClose(m1.sum, m2.sum, 1e-10))
    #expect(maxDifference(m1.sumOfOuterProducts, m2.sumOfOuterProducts) < 1e-10)
    #expect(isClose(m1.plane!.normal, m2.plane!.normal, 1e-12))
  }

  @Test func centredCovarianceOfKnownPoints() throws {
    // Four corners of a 2 × 4 rectangle at height 10: variances 1 and 4, none along y.
    let points: [SIMD3<Double>] = [SIMD3(-1, 10, -2), SIMD3(1, 10, -2), SIMD3(1, 10, 2), SIMD3(-1, 10, 2)]
    let moments = PlaneMoments(points: points)
    #expect(moments.mean == SIMD3(0, 10, 0))
    let covariance = try #require(moments.covariance)
    #expect(maxDifference(covariance, simd_double3x3(diagonal: SIMD3(1, 0, 4))) < 1e-12)
    // Points at ±0.5 m from y = 0: mean squared distance 0.25 m².
    let slab = points.enumerated().map { i, p in SIMD3(p.x, i % 2 == 0 ? 0.5 : -0.5, p.z) }
    let mse = try #require(
      PlaneMoments(points: slab + slab.map { SIMD3($0.x, -$0.y, $0.z) }).meanSquaredDistance)
    #expect(abs(mse - 0.25) < 1e-12)
  }

  @Test func symmetricEigenOfKnownMatrix() {
    var rng = SplitMix64(seed: 14)
    for _ in 0..<50 {
      let r = simd_double3x3(rng.rotation())
      let m = r * simd_double3x3(diagonal: SIMD3(3, -1, 2)) * r.transpose
      let (values, vectors) = symmetricEigenDecomposition(m)
      #expect(isClose(values, SIMD3(-1, 2, 3), 1e-12))
      for i in 0..<3 {
        #expect(isClose(m * vectors[i], values[i] * vectors[i], 1e-12))
        #expect(abs(simd_length(vectors[i]) - 1) < 1e-14)
      }
      #expect(maxDifference(vectors.transpose * vectors, .identity) < 1e-12)
    }
    let (values, _) = symmetricEigenDecomposition(simd_double3x3(diagonal: SIMD3(5, 5, 1)))
    #expect(values == SIMD3(1, 5, 5))
  }

  @Test("The closed-form smallest eigenpair agrees with the Jacobi solver on plane-like covariances")
  func smallestEigenpairOfPlaneCovariances() throws {
    var rng = SplitMix64(seed: 11)
    for trial in 0..<500 {
      // A cell's spread: centimetres across the plane, millimetres off it (and an exact plane).
      let across = SIMD2(rng.uniform(1e-4, 1e-3), rng.uniform(1e-4, 1e-3))
      let off = trial % 50 == 0 ? 0 : rng.uniform(0, 1e-5)
      let r = simd_double3x3(rng.rotation())
      let m = r * simd_double3x3(diagonal: SIMD3(across.x, off, across.y)) * r.transpose
      let (values, vector) = smallestSymmetricEigenpair(m)
      let (expected, vectors) = symmetricEigenDecomposition(m)
      #expect(isClose(values, expected, 1e-15))
      let normal = try #require(vector)
      #expect(abs(simd_length(normal) - 1) < 1e-12)
      #expect(abs(abs(simd_dot(normal, vectors.columns.0)) - 1) < 1e-9)
    }
    // A repeated smallest eigenvalue: no single normal.
    let (values, vector) = smallestSymmetricEigenpair(simd_double3x3(diagonal: SIMD3(2, 2, 2)))
    #expect(values == SIMD3(repeating: 2))
    #expect(vector == nil)
  }

  @Test("Moments moved by a rigid transform are the moments of the moved points")
  func momentsTransformed() throws {
    var random = SplitMix64(seed: 3)
    let points = (0..<200).map { _ in
      SIMD3(random.uniform(-2, 2), random.uniform(0, 0.01), random.uniform(-3, 0))
    }
    let transform = RigidTransform(
      rotation: simd_quatd(angle: 0.7, axis: simd_normalize(SIMD3(1, 2, -0.5))),
      translation: SIMD3(0.3, -1, 2))
    let moved = PlaneMoments(points: points).transformed(by: transform)
    let direct = PlaneMoments(points: points.map { transform.apply(to: $0) })
    #expect(moved.count == direct.count)
    #expect(simd_length(moved.sum - direct.sum) < 1e-9)
    let (a, b) = (try #require(moved.covariance), try #require(direct.covariance))
    for (x, y) in [(a.columns.0, b.columns.0), (a.columns.1, b.columns.1), (a.columns.2, b.columns.2)] {
      #expect(simd_length(x - y) < 1e-9)
    }
    let (p, q) = (try #require(moved.plane), try #require(direct.plane))
    #expect(p.angle(to: q) < 1e-9 || abs(p.angle(to: q) - .pi) < 1e-9)
  }
}
