import ARSimMath
import Foundation
import Testing

@Suite struct PolygonTests {
  let unitSquare: [SIMD2<Double>] = [SIMD2(0, 0), SIMD2(1, 0), SIMD2(1, 1), SIMD2(0, 1)]

  @Test func convexHullOfKnownPointSet() {
    // Corners of [0,2]², interior points, points on the edges (collinear) and a duplicate corner.
    let points: [SIMD2<Double>] = [
      SIMD2(1, 1), SIMD2(2, 2), SIMD2(0.5, 1.5), SIMD2(0, 0), SIMD2(1, 0), SIMD2(2, 0), SIMD2(0, 2),
      SIMD2(2, 1), SIMD2(1.5, 0.2), SIMD2(0, 1), SIMD2(2, 2), SIMD2(1, 2),
    ]
    let hull = Polygon2D.convexHull(points)
    #expect(hull == [SIMD2(0, 0), SIMD2(2, 0), SIMD2(2, 2), SIMD2(0, 2)])
    #expect(Polygon2D.convexHull(points.reversed()) == hull)
    #expect(Polygon2D.signedArea(hull) == 4)
    #expect(Polygon2D.convexHull([SIMD2(1, 1), SIMD2(1, 1)]) == [SIMD2(1, 1)])
    #expect(
      Polygon2D.convexHull([SIMD2(0, 0), SIMD2(1, 1), SIMD2(2, 2), SIMD2(3, 3)]) == [
        SIMD2(0, 0), SIMD2(3, 3),
      ])
    #expect(Polygon2D.convexHull([SIMD2(0, 0), SIMD2(.nan, 1), SIMD2(1, 0), SIMD2(0, 1)]).count == 3)
    #expect(Polygon2D.convexHull([]).isEmpty)
  }

  @Test func hullContainsEveryPointOfRandomSets() {
    var rng = SplitMix64(seed: 15)
    for _ in 0..<50 {
      let points = (0..<60).map { _ in SIMD2(rng.gaussian(), rng.gaussian()) }
      let hull = Polygon2D.convexHull(points)
      #expect(Polygon2D.signedArea(hull) > 0)
      for i in hull.indices {
        let a = hull[i]
        let b = hull[(i + 1) % hull.count]
        for p in points {
          let cross = (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x)
          #expect(cross >= -1e-12)
        }
      }
    }
  }

  /// The hull by gift wrapping (Jarvis's march) over every point, the reference for `convexHull`,
  /// which first drops the points inside the octagon of the extremes: counter-clockwise from the point
  /// with the smallest x (then y), each next vertex the one with every point on its left, the farthest
  /// of those in line.
  static func referenceHull(_ points: [SIMD2<Double>]) -> [SIMD2<Double>] {
    guard let start = points.min(by: { $0.x < $1.x || ($0.x == $1.x && $0.y < $1.y) }) else { return [] }
    func cross(_ o: SIMD2<Double>, _ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double {
      (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x)
    }
    var hull = [start]
    var current = start
    while hull.count <= points.count {
      var next = current
      for p in points where p != current {
        let turn = next == current ? -1 : cross(current, next, p)
        if turn < 0 || (turn == 0 && simd_length_squared(p - current) > simd_length_squared(next - current)) {
          next = p
        }
      }
      if next == start || next == current { break }
      hull.append(next)
      current = next
    }
    return hull
  }

  @Test("The hull of thousands of points is the one gift wrapping finds over all of them")
  func hullOfLargeSetsMatchesTheReference() {
    var rng = SplitMix64(seed: 16)
    var sets: [[SIMD2<Double>]] = []
    for _ in 0..<10 {
      // A plane's support: a rotated rectangle filled with points, far from the origin.
      let angle = rng.uniform(0, .pi)
      let (c, s) = (cos(angle), sin(angle))
      sets.append(
        (0..<3000).map { _ in
          let (u, v) = (rng.uniform(-1.5, 1.5), rng.uniform(-0.4, 0.4))
          return SIMD2(40 + c * u - s * v, -7 + s * u + c * v)
        })
      sets.append((0..<2000).map { _ in SIMD2(rng.gaussian(), rng.gaussian()) })
      // On a circle: every point a vertex.
      sets.append((0..<500).map { k in SIMD2(cos(Double(k) * 0.01256637), sin(Double(k) * 0.01256637)) })
    }
    // A grid: collinear points along every edge, and ties in x and y.
    sets.append((0..<40).flatMap { i in (0..<30).map { j in SIMD2(Double(i) * 0.02, Double(j) * 0.02) } })
    // All on one line, and two clusters of duplicates.
    sets.append((0..<200).map { k in SIMD2(Double(k), 2 * Double(k) + 1) })
    sets.append((0..<200).map { k in k % 2 == 0 ? SIMD2(1, 1) : SIMD2(3, -2) })
    for points in sets {
      #expect(Polygon2D.convexHull(points) == Self.referenceHull(points))
    }
  }

  @Test func areaOfKnownPolygons() {
    // An L shape (non-convex), counter-clockwise: 2×2 square minus a 1×1 corner.
    let l: [SIMD2<Double>] = [SIMD2(0, 0), SIMD2(2, 0), SIMD2(2, 1), SIMD2(1, 1), SIMD2(1, 2), SIMD2(0, 2)]
    #expect(Polygon2D.signedArea(l) == 3)
    #expect(Polygon2D.signedArea(l.reversed()) == -3)
    #expect(Polygon2D.area(l.reversed()) == 3)
    #expect(Polygon2D.signedArea([SIMD2(0, 0), SIMD2(1, 0)]) == 0)
    #expect(Polygon2D.contains(SIMD2(0.5, 1.5), in: l))
    #expect(!Polygon2D.contains(SIMD2(1.5, 1.5), in: l))
    #expect(Polygon2D.contains(SIMD2(1.5, 0.5), in: l.reversed()))
    #expect(!Polygon2D.contains(SIMD2(-0.1, 0.5), in: l))
  }

  @Test func intersectionOverUnionOfOffsetSquares() {
    let shifted = unitSquare.map { $0 + SIMD2(0.5, 0) }
    #expect(abs(Polygon2D.convexIntersectionArea(unitSquare, shifted) - 0.5) < 1e-15)
    #expect(abs(Polygon2D.convexIntersectionOverUnion(unitSquare, shifted) - 1.0 / 3) < 1e-15)
    // Orientation of either input does not matter.
    #expect(abs(Polygon2D.convexIntersectionOverUnion(unitSquare.reversed(), shifted) - 1.0 / 3) < 1e-15)
    #expect(abs(Polygon2D.convexIntersectionOverUnion(unitSquare, shifted.reversed()) - 1.0 / 3) < 1e-15)
    #expect(Polygon2D.convexIntersectionOverUnion(unitSquare, unitSquare) == 1)
    let far = unitSquare.map { $0 + SIMD2(3, 0) }
    #expect(Polygon2D.convexIntersection(unitSquare, far).isEmpty)
    #expect(Polygon2D.convexIntersectionOverUnion(unitSquare, far) == 0)
    let touching = unitSquare.map { $0 + SIMD2(1, 0) }
    #expect(Polygon2D.convexIntersectionArea(unitSquare, touching) == 0)
    // A diamond inside a 2×2 square: intersection is the diamond (area 2).
    let square2: [SIMD2<Double>] = [SIMD2(-1, -1), SIMD2(1, -1), SIMD2(1, 1), SIMD2(-1, 1)]
    let diamond: [SIMD2<Double>] = [SIMD2(1, 0), SIMD2(0, 1), SIMD2(-1, 0), SIMD2(0, -1)]
    #expect(abs(Polygon2D.convexIntersectionArea(square2, diamond) - 2) < 1e-15)
    #expect(abs(Polygon2D.convexIntersectionOverUnion(square2, diamond) - 0.5) < 1e-15)
    // A square rotated by 45° about the centre of the unit square: octagon of area 2(√2 − 1).
    let c = SIMD2(0.5, 0.5)
    let rotated = unitSquare.map { p -> SIMD2<Double> in
      let d = p - c
      let s = 0.5.squareRoot()
      return c + SIMD2(s * (d.x - d.y), s * (d.x + d.y))
    }
    #expect(abs(Polygon2D.convexIntersectionArea(unitSquare, rotated) - 2 * (2.0.squareRoot() - 1)) < 1e-12)
  }

  @Test func orientedBoundingRectangleOfRotatedRectangle() throws {
    var rng = SplitMix64(seed: 16)
    let angle = Double.pi / 6
    let u = SIMD2(cos(angle), sin(angle))
    let v = SIMD2(-u.y, u.x)
    let center = SIMD2<Double>(1, 2)
    var points: [SIMD2<Double>] = []
    for a in [-2.0, 2] {
      for b in [-1.0, 1] { points.append(center + a * u + b * v) }
    }
    for _ in 0..<100 { points.append(center + rng.uniform(-2, 2) * u + rng.uniform(-1, 1) * v) }
    let box = try #require(Polygon2D.minimumAreaRectangle(points))
    #expect(abs(box.width - 4) < 1e-12)
    #expect(abs(box.height - 2) < 1e-12)
    #expect(abs(box.angle - angle) < 1e-12)
    #expect(isClose(box.center, center, 1e-12))
    #expect(abs(box.area - 8) < 1e-11)
    #expect(abs(Polygon2D.signedArea(box.corners) - 8) < 1e-11)
    // The same rectangle turned by a quarter turn is reported with the same angle, sides swapped.
    let turned = points.map { p -> SIMD2<Double> in
      let d = p - center
      return center + SIMD2(-d.y, d.x)
    }
    let box2 = try #require(Polygon2D.minimumAreaRectangle(turned))
    #expect(abs(box2.width - 2) < 1e-12)
    #expect(abs(box2.height - 4) < 1e-12)
    #expect(abs(box2.angle - angle) < 1e-12)
  }

  @Test func rectangleDegenerateCases() throws {
    #expect(Polygon2D.minimumAreaRectangle([]) == nil)
    let one = try #require(Polygon2D.minimumAreaRectangle([SIMD2(3, 4)]))
    #expect(one.center == SIMD2(3, 4) && one.width == 0 && one.height == 0)
    let segment = try #require(Polygon2D.minimumAreaRectangle([SIMD2(0, 0), SIMD2(1, 1), SIMD2(2, 2)]))
    #expect(abs(segment.width - 8.0.squareRoot()) < 1e-15)
    #expect(segment.height == 0)
    #expect(abs(segment.angle - .pi / 4) < 1e-15)
    let square = try #require(Polygon2D.minimumAreaRectangle(unitSquare))
    #expect(square == OrientedRectangle(center: SIMD2(0.5, 0.5), width: 1, height: 1, angle: 0))
    let r = OrientedRectangle(center: .zero, width: 3, height: 1, angle: -.pi / 2)
    #expect(r.width == 1 && r.height == 3 && r.angle == 0)
  }

  @Test func rotatingCalipersMatchBruteForce() throws {
    var rng = SplitMix64(seed: 17)
    for _ in 0..<100 {
      let count = Int(rng.uniform(3, 40))
      let points = (0..<count).map { _ in SIMD2(rng.uniform(-3, 3), rng.uniform(-1, 1)) }
      let hull = Polygon2D.convexHull(points)
      guard hull.count >= 3 else { continue }
      var bestArea = Double.infinity
      for i in hull.indices {
        let u = simd_normalize(hull[(i + 1) % hull.count] - hull[i])
        let v = SIMD2(-u.y, u.x)
        let us = hull.map { simd_dot($0, u) }
        let vs = hull.map { simd_dot($0, v) }
        bestArea = min(bestArea, (us.max()! - us.min()!) * (vs.max()! - vs.min()!))
      }
      let box = try #require(Polygon2D.minimumAreaRectangle(points))
      #expect(abs(box.area - bestArea) < 1e-9)
      // Every point lies inside (or on) the rectangle.
      let corners = box.corners
      for p in points {
        for i in 0..<4 {
          let a = corners[i]
          let b = corners[(i + 1) % 4]
          #expect((b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x) >= -1e-9)
        }
      }
    }
  }
}
