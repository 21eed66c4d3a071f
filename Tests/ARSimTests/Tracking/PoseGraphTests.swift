import ARSimMath
import Foundation
import Testing

@testable import ARSim

/// The keyframe pose graph and the world deformation a loop closure hands the session.
@Suite struct PoseGraphTests {
  /// A circle of `count` poses (radius 1 m, each facing along the circle) and its true steps.
  static func circle(_ count: Int) -> [RigidTransform] {
    (0..<count).map { i in
      let angle = 2 * Double.pi * Double(i) / Double(count)
      return RigidTransform(
        rotation: simd_quatd(angle: angle, axis: SIMD3(0, 1, 0)),
        translation: SIMD3(cos(angle), 0, -sin(angle)))
    }
  }

  static func distance(_ a: RigidTransform, _ b: RigidTransform) -> (metres: Double, degrees: Double) {
    let step = a.inverse * b
    return (simd_length(step.translation), step.angle * 180 / .pi)
  }

  @Test func choleskySolvesASymmetricPositiveDefiniteSystem() throws {
    // h = Aᵀ A + I for a fixed A; x known, g = h x.
    let n = 5
    let a = (0..<(n * n)).map { Double(($0 * 7) % 11) - 5 }
    var h = [Double](repeating: 0, count: n * n)
    for i in 0..<n {
      for j in 0..<n {
        h[i * n + j] = (0..<n).reduce(i == j ? 1 : 0) { $0 + a[$1 * n + i] * a[$1 * n + j] }
      }
    }
    let x = [1.0, -2, 0.5, 3, -1]
    let g = (0..<n).map { i in (0..<n).reduce(0) { $0 + h[i * n + $1] * x[$1] } }
    let solved = try #require(PoseGraph.solve(h, g, n: n))
    for (found, truth) in zip(solved, x) { #expect(abs(found - truth) < 1e-9) }
    // Not positive definite: no answer.
    #expect(PoseGraph.solve([1, 2, 2, 1], [1, 1], n: 2) == nil)
  }

  /// A drifted loop: odometry steps measured with a small constant yaw and scale error, the loop edge
  /// from the first pose to the last measured exactly. The graph closes it and spreads the error.
  @Test func loopEdgeSpreadsTheDriftOverTheChain() throws {
    let truth = Self.circle(24)
    let bias = RigidTransform(
      rotation: simd_quatd(angle: 0.004, axis: SIMD3(0, 1, 0)), translation: SIMD3(0.003, 0, 0))
    var drifted = [truth[0]]
    for i in 1..<truth.count { drifted.append(drifted[i - 1] * (truth[i - 1].inverse * truth[i]) * bias) }
    let before = Self.distance(drifted.last!, truth.last!)
    #expect(before.metres > 0.05, "the chain drifted \(before.metres) m")

    var graph = PoseGraph(poses: drifted, fixed: 1)
    for i in 0..<(truth.count - 1) {
      graph.edges.append(
        PoseGraph.Edge(
          a: i, b: i + 1, aFromB: drifted[i].inverse * drifted[i + 1], translationWeight: 100,
          rotationWeight: 100))
    }
    graph.edges.append(
      PoseGraph.Edge(
        a: 0, b: truth.count - 1, aFromB: truth[0].inverse * truth.last!, translationWeight: 1000,
        rotationWeight: 1000))
    let initial = graph.cost
    let final = graph.optimize()
    #expect(final < 1e-3 * initial, "cost \(initial) -> \(final)")
    #expect(graph.poses[0] == drifted[0], "the held node stays")
    let after = Self.distance(graph.poses.last!, truth.last!)
    #expect(
      after.metres < 0.1 * before.metres && after.degrees < 0.1 * before.degrees, "\(before) -> \(after)")
    // Spread, not dumped on the last node: every pose is closer to the truth than it was, by a share.
    let middle = truth.count / 2
    let middleBefore = Self.distance(drifted[middle], truth[middle]).metres
    let middleAfter = Self.distance(graph.poses[middle], truth[middle]).metres
    #expect(middleAfter < 0.7 * middleBefore, "middle \(middleBefore) -> \(middleAfter)")
  }

  @Test func deformationInterpolatesBetweenTimesAndHoldsWhatCameBefore() throws {
    let a = RigidTransform(rotation: simd_quatd(ix: 0, iy: 0, iz: 0, r: 1), translation: SIMD3(0.01, 0, 0))
    let b = RigidTransform(
      rotation: simd_quatd(angle: 0.02, axis: SIMD3(0, 1, 0)), translation: SIMD3(0.03, 0, 0))
    let deformation = WorldDeformation(since: 10, corrections: [(10, .identity), (12, a), (14, b)])
    #expect(deformation.correction(at: 9.9) == nil)
    #expect(deformation.correction(at: 10) == .identity)
    #expect(deformation.correction(at: 12) == a)
    #expect(deformation.correction(at: 20) == b)
    func distance(_ x: RigidTransform?, _ y: RigidTransform) -> Double {
      guard let x else { return .infinity }
      return simd_length(x.translation - y.translation) + (x.inverse * y).angle
    }
    // Along the way: a share of each step, no jump where the next keyframe's correction is nearer.
    let quarter = RigidTransform(rotation: a.rotation, translation: SIMD3(0.0025, 0, 0))
    #expect(distance(deformation.correction(at: 10.5), quarter) < 1e-12)
    let halfway = try #require(deformation.correction(at: 13))
    #expect(abs((a.inverse * halfway).angle - 0.01) < 1e-9)
    #expect(abs((halfway.inverse * b).angle - 0.01) < 1e-9)
    let justBefore = try #require(deformation.correction(at: 12.999))
    #expect(distance(justBefore, halfway) < 1e-4)
    // Expressed in another frame: conjugated, so a point moves the same physical way.
    let worldFromO = RigidTransform(
      rotation: simd_quatd(angle: 0.5, axis: SIMD3(0, 1, 0)), translation: SIMD3(1, 2, 3))
    let world = deformation.expressed(in: worldFromO)
    let point = SIMD3<Double>(0.3, -0.2, 1)
    let moved = try #require(world.correction(at: 14)).apply(to: worldFromO.apply(to: point))
    #expect(simd_length(moved - worldFromO.apply(to: b.apply(to: point))) < 1e-12)
  }
}
