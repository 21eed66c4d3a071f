import Foundation
import Testing

@testable import ARSim

/// The shortcuts a world correction takes through the plane detector's map and anchor cells give what
/// the plain computations give, to the bit.
@Suite("World correction shortcuts")
struct WorldCorrectionMoveTests {
  /// A random rotation: a random axis and an angle up to `maximumAngle` radians.
  static func rotation(_ random: inout SplitMix64, maximumAngle: Double) -> simd_quatd {
    let axis = SIMD3(
      random.uniform(-1, 1), random.uniform(-1, 1), random.uniform(-1, 1) + 1e-3)
    return simd_quatd(angle: (random.uniform(-1, 1)) * maximumAngle, axis: simd_normalize(axis))
  }

  static func point(_ random: inout SplitMix64, size: Double) -> SIMD3<Double> {
    SIMD3(random.uniform(-1, 1), random.uniform(-1, 1), random.uniform(-1, 1)) * size
  }

  @Test("A prepared correction moves and rotates points as the rigid transform does, bit for bit")
  func preparedCorrectionMatchesTheTransform() {
    var random = SplitMix64(seed: 41)
    for _ in 0..<200 {
      var correction = RigidTransform(
        rotation: Self.rotation(&random, maximumAngle: .pi), translation: Self.point(&random, size: 5))
      // A quaternion a little off unit length too (the rotation normalises by its squared length).
      if random.next() % 4 == 0 { correction.rotation = correction.rotation * (1 + random.uniform() * 1e-6) }
      let prepared = PreparedCorrection(correction)
      for _ in 0..<50 {
        let p = Self.point(&random, size: 20)
        #expect(prepared.apply(to: p) == correction.apply(to: p))
        #expect(prepared.rotate(p) == correction.rotate(p))
      }
    }
  }

  @Test("The affine cell move gives the exact move's cells, also for points that land on cell edges")
  func anchorMoveMatchesTheExactMove() {
    var random = SplitMix64(seed: 43)
    var checked = 0
    for _ in 0..<100 {
      // Two anchor frames (a horizontal one tilted a little, and one turned anywhere) and a
      // correction of up to a few degrees, as a re-level or a loop closure makes.
      let oldRotation = simd_double3x3(Self.rotation(&random, maximumAngle: .pi))
      let oldOrigin = Self.point(&random, size: 10)
      let correction = RigidTransform(
        rotation: Self.rotation(&random, maximumAngle: 0.05), translation: Self.point(&random, size: 0.3))
      let newRotation = simd_double3x3(Self.rotation(&random, maximumAngle: .pi))
      let newInverse = newRotation.transpose
      let newOrigin = correction.apply(to: oldOrigin)
      // PlaneTrack's exact move: world(anchor2D:) of the old frame, corrected, anchor2D of the new.
      let exact = { (p: SIMD2<Double>) -> SIMD2<Double> in
        let world = correction.apply(to: oldOrigin + oldRotation * SIMD3(p.x, 0, -p.y))
        let q = newInverse * (world - newOrigin)
        return SIMD2(q.x, -q.z)
      }
      let move = AnchorMove(
        exact: exact, oldRotation: oldRotation, oldOrigin: oldOrigin, newInverseRotation: newInverse,
        newOrigin: newOrigin, correction: PreparedCorrection(correction))
      let cellSize = random.next() % 2 == 0 ? 0.1 : PlaneTrack.extentCellSize
      // The move's linear part, to aim points at cell edges.
      let shift = exact(.zero)
      let a = exact(SIMD2(1, 0)) - shift
      let b = exact(SIMD2(0, 1)) - shift
      let determinant = a.x * b.y - a.y * b.x
      for k in 0..<200 {
        var p = SIMD2(random.uniform(-4, 4), random.uniform(-4, 4))
        if k % 2 == 1 {
          // A target on (or within a hair of) a cell edge in x, y or both, pulled back by the
          // inverse of the linear part.
          var target = exact(p)
          let hair = [0, 1e-15, -1e-15, 1e-12, -1e-12, 1e-9][Int(random.next() % 6)]
          if k % 4 == 1 || k % 8 == 3 { target.x = (target.x / cellSize).rounded() * cellSize + hair }
          if k % 4 == 3 { target.y = (target.y / cellSize).rounded() * cellSize + hair }
          let d = target - shift
          p = SIMD2((d.x * b.y - d.y * b.x) / determinant, (a.x * d.y - a.y * d.x) / determinant)
        }
        let moved = exact(p)
        let (cx, cy) = move.cell(of: p, cellSize: cellSize)
        #expect(cx == PlaneCells.floor(moved.x / cellSize) && cy == PlaneCells.floor(moved.y / cellSize))
        checked += 1
      }
    }
    #expect(checked == 20_000)
  }

  @Test("A count line made from its keys at once is the one counting them one by one makes")
  func countLineFromKeys() {
    var random = SplitMix64(seed: 47)
    #expect(PlaneCountLine(counting: []).isEmpty && PlaneCountLine(counting: []).total == 0)
    for _ in 0..<300 {
      let base = Int64(random.next() % 1000) - 500
      let keys = (0..<Int(random.next() % 200)).map { _ in base + Int64(random.next() % 120) }
      var added = PlaneCountLine()
      for key in keys { added.add(at: key) }
      let counted = PlaneCountLine(counting: keys)
      #expect(
        counted.lowest == added.lowest && counted.counts == added.counts && counted.total == added.total)
      #expect(counted.highest == added.highest)
    }
  }
}
