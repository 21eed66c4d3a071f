import ARSim
import Foundation

/// One mesh anchor's surface as a static collision shape: its triangles in world space, each with its
/// unit normal towards free space (ARKit's winding: counter-clockwise seen from that side) and its
/// bounding box, and the box around them all (the broad phase: a shape away from the chunk's box
/// meets none of its triangles, and one near it is tested only against the triangles whose boxes it
/// overlaps). Built once per mesh anchor the session hands out (anchors are immutable).
final class CollisionMesh {
  struct Triangle {
    var a: SIMD3<Float>
    var b: SIMD3<Float>
    var c: SIMD3<Float>
    var normal: SIMD3<Float>
    var low: SIMD3<Float>
    var high: SIMD3<Float>
  }

  let triangles: [Triangle]
  let low: SIMD3<Float>
  let high: SIMD3<Float>

  /// The triangles of `anchor` placed in the world; nil when it has none (or none with an area).
  init?(_ anchor: ARMeshAnchor) {
    let geometry = anchor.geometry
    guard geometry.vertices.format == .float3, geometry.faces.indexCountPerPrimitive == 3 else { return nil }
    let transform = anchor.transform
    let count = geometry.vertices.count
    let world = (0..<count).map { i -> SIMD3<Float> in
      let p = transform * SIMD4(geometry.vertices.float3(at: i), 1)
      return SIMD3(p.x, p.y, p.z)
    }
    var triangles: [Triangle] = []
    triangles.reserveCapacity(geometry.faces.count)
    var low = SIMD3<Float>(repeating: .infinity)
    var high = SIMD3<Float>(repeating: -.infinity)
    for f in 0..<geometry.faces.count {
      let corners = geometry.faces.indices(of: f).map(Int.init)
      guard corners.allSatisfy({ $0 < count }) else { continue }
      let (a, b, c) = (world[corners[0]], world[corners[1]], world[corners[2]])
      let cross = simd_cross(b - a, c - a)
      let length = simd_length(cross)
      guard length > 1e-12 else { continue }
      let triangle = Triangle(
        a: a, b: b, c: c, normal: cross / length, low: simd_min(a, simd_min(b, c)),
        high: simd_max(a, simd_max(b, c)))
      low = simd_min(low, triangle.low)
      high = simd_max(high, triangle.high)
      triangles.append(triangle)
    }
    guard !triangles.isEmpty else { return nil }
    self.triangles = triangles
    self.low = low
    self.high = high
  }

  /// Whether the boxes `low...high` and `otherLow...otherHigh` overlap.
  static func overlap(
    _ low: SIMD3<Float>, _ high: SIMD3<Float>, _ otherLow: SIMD3<Float>, _ otherHigh: SIMD3<Float>
  ) -> Bool {
    low.x <= otherHigh.x && low.y <= otherHigh.y && low.z <= otherHigh.z && otherLow.x <= high.x
      && otherLow.y <= high.y && otherLow.z <= high.z
  }
}

extension Collide {
  /// The deepest contact of a box with the mesh's triangles, the normal from the mesh towards the
  /// box (the triangle's normal). Surfaces are one-sided: a triangle counts only while the box's
  /// centre is on its free side, so the box is pushed out of the surface the way it came, never
  /// through it. A triangle touches the box when no separating axis (the box's three axes, the
  /// triangle's normal, their edges' nine crossings) parts them.
  static func meshBox(_ mesh: CollisionMesh, _ c: SIMD3<Float>, _ axes: simd_float3x3, _ half: SIMD3<Float>)
    -> ShapeContact?
  {
    let extent =
      simd_abs(axes.columns.0) * half.x + simd_abs(axes.columns.1) * half.y + simd_abs(axes.columns.2)
      * half.z
    let low = c - extent
    let high = c + extent
    guard CollisionMesh.overlap(low, high, mesh.low, mesh.high) else { return nil }
    func radius(_ n: SIMD3<Float>) -> Float {
      half.x * abs(simd_dot(axes.columns.0, n)) + half.y * abs(simd_dot(axes.columns.1, n)) + half.z
        * abs(simd_dot(axes.columns.2, n))
    }
    let boxAxes = [axes.columns.0, axes.columns.1, axes.columns.2]
    var best: (depth: Float, normal: SIMD3<Float>)?
    for triangle in mesh.triangles where CollisionMesh.overlap(low, high, triangle.low, triangle.high) {
      let n = triangle.normal
      let above = simd_dot(c - triangle.a, n)
      guard above > 0 else { continue }
      let depth = radius(n) - above
      guard depth > 0, depth > (best?.depth ?? 0) else { continue }
      // The triangle relative to the box's centre.
      let v = [triangle.a - c, triangle.b - c, triangle.c - c]
      func separates(_ axis: SIMD3<Float>, _ r: Float) -> Bool {
        let p0 = simd_dot(v[0], axis)
        let p1 = simd_dot(v[1], axis)
        let p2 = simd_dot(v[2], axis)
        return Swift.min(p0, p1, p2) > r || Swift.max(p0, p1, p2) < -r
      }
      var apart = false
      for k in 0..<3 where separates(boxAxes[k], half[k]) {
        apart = true
        break
      }
      if !apart {
        let edges = [v[1] - v[0], v[2] - v[1], v[0] - v[2]]
        search: for axis in boxAxes {
          for edge in edges {
            let l = simd_cross(axis, edge)
            guard simd_length_squared(l) > 1e-12 else { continue }
            if separates(l, radius(l)) {
              apart = true
              break search
            }
          }
        }
      }
      guard !apart else { continue }
      best = (depth, n)
    }
    guard let best else { return nil }
    // The contact point: the middle of the box's corners deepest along the normal, half the overlap up.
    let corners = WorldShape.corners(c, axes, half)
    let lowest = corners.map { simd_dot($0, best.normal) }.min() ?? 0
    let deepest = corners.filter { simd_dot($0, best.normal) <= lowest + 1e-3 }
    let mid = deepest.reduce(SIMD3<Float>.zero, +) / Float(Swift.max(deepest.count, 1))
    return ShapeContact(normal: best.normal, depth: best.depth, point: mid + best.normal * (best.depth / 2))
  }

  /// The deepest contact of a sphere with the mesh's triangles, the normal from the mesh towards the
  /// sphere (from the nearest point of the triangle to the centre). One-sided as ``meshBox``.
  static func meshSphere(_ mesh: CollisionMesh, _ center: SIMD3<Float>, _ radius: Float) -> ShapeContact? {
    let low = center - radius
    let high = center + radius
    guard CollisionMesh.overlap(low, high, mesh.low, mesh.high) else { return nil }
    var best: ShapeContact?
    for triangle in mesh.triangles where CollisionMesh.overlap(low, high, triangle.low, triangle.high) {
      guard simd_dot(center - triangle.a, triangle.normal) > 0 else { continue }
      let q = closestPoint(to: center, triangle.a, triangle.b, triangle.c)
      let d = center - q
      let distance = simd_length(d)
      guard distance < radius, radius - distance > (best?.depth ?? 0) else { continue }
      let normal = distance > 1e-6 ? d / distance : triangle.normal
      best = ShapeContact(normal: normal, depth: radius - distance, point: q)
    }
    return best
  }

  /// The point of triangle `abc` nearest `p` (Ericson, Real-Time Collision Detection, 5.1.5).
  static func closestPoint(
    to p: SIMD3<Float>, _ a: SIMD3<Float>, _ b: SIMD3<Float>, _ c: SIMD3<Float>
  ) -> SIMD3<Float> {
    let ab = b - a
    let ac = c - a
    let ap = p - a
    let d1 = simd_dot(ab, ap)
    let d2 = simd_dot(ac, ap)
    if d1 <= 0 && d2 <= 0 { return a }
    let bp = p - b
    let d3 = simd_dot(ab, bp)
    let d4 = simd_dot(ac, bp)
    if d3 >= 0 && d4 <= d3 { return b }
    let vc = d1 * d4 - d3 * d2
    if vc <= 0 && d1 >= 0 && d3 <= 0 { return a + d1 / (d1 - d3) * ab }
    let cp = p - c
    let d5 = simd_dot(ab, cp)
    let d6 = simd_dot(ac, cp)
    if d6 >= 0 && d5 <= d6 { return c }
    let vb = d5 * d2 - d1 * d6
    if vb <= 0 && d2 >= 0 && d6 <= 0 { return a + d2 / (d2 - d6) * ac }
    let va = d3 * d6 - d5 * d4
    if va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0 { return b + (d4 - d3) / ((d4 - d3) + (d5 - d6)) * (c - b) }
    let denominator = 1 / (va + vb + vc)
    return a + ab * (vb * denominator) + ac * (vc * denominator)
  }
}

extension ARView {
  /// The mesh anchors physics bodies collide with: the current frame's when
  /// ``Environment/SceneUnderstanding/Options/physics`` or `.collision` is on and the session
  /// reconstructs the scene, none otherwise.
  var physicsMeshes: [ARMeshAnchor] {
    let options = environment.sceneUnderstanding.options
    guard !options.isDisjoint(with: [.physics, .collision]), let frame = session.currentFrame else {
      return []
    }
    return frame.anchors.compactMap { $0 as? ARMeshAnchor }
  }
}
