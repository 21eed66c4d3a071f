import ARSim
import Foundation

// The physics simulation's narrow phase (``PhysicsWorld`` is the rest): collision shapes placed in
// world space for one step, and the contact between two of them (normal, depth, point).

/// A collision shape placed in world space for one step.
struct WorldShape {
  enum Kind {
    /// An oriented box: its centre, its axes (columns, unit) and half its size along each, metres.
    case box(center: SIMD3<Float>, axes: simd_float3x3, half: SIMD3<Float>)
    /// A sphere: its centre and radius, metres.
    case sphere(center: SIMD3<Float>, radius: Float)
    /// A mesh anchor's triangles (static only).
    case mesh(CollisionMesh)
  }
  var kind: Kind

  var center: SIMD3<Float> {
    switch kind {
    case .box(let c, _, _), .sphere(let c, _): c
    case .mesh(let mesh): (mesh.low + mesh.high) / 2
    }
  }

  /// The radius of a sphere around ``center`` holding the shape.
  var boundingRadius: Float {
    switch kind {
    case .box(_, _, let half): simd_length(half)
    case .sphere(_, let radius): radius
    case .mesh(let mesh): simd_length(mesh.high - mesh.low) / 2
    }
  }

  /// The box's eight corners.
  static func corners(_ c: SIMD3<Float>, _ axes: simd_float3x3, _ half: SIMD3<Float>) -> [SIMD3<Float>] {
    (0..<8).map { i in
      let s = SIMD3<Float>(i & 1 == 0 ? -1 : 1, i & 2 == 0 ? -1 : 1, i & 4 == 0 ? -1 : 1)
      return c + axes * (s * half)
    }
  }
}

/// Where two shapes touch: the unit normal from the first towards the second, how deep they overlap
/// and a world point of the contact.
struct ShapeContact {
  var normal: SIMD3<Float>
  var depth: Float
  var point: SIMD3<Float>
}

enum Collide {
  /// The contact of `a` and `b`, or nil when they do not overlap.
  static func contact(_ a: WorldShape, _ b: WorldShape) -> ShapeContact? {
    // Shapes whose bounding spheres are apart cannot touch.
    let reach = a.boundingRadius + b.boundingRadius
    guard simd_length_squared(b.center - a.center) <= reach * reach else { return nil }
    switch (a.kind, b.kind) {
    case (.sphere(let ca, let ra), .sphere(let cb, let rb)):
      let d = cb - ca
      let distance = simd_length(d)
      guard distance < ra + rb else { return nil }
      let n = distance > 1e-9 ? d / distance : SIMD3<Float>(0, 1, 0)
      let depth = ra + rb - distance
      return ShapeContact(normal: n, depth: depth, point: ca + n * (ra - depth / 2))
    case (.box(let c, let axes, let half), .sphere(let center, let radius)):
      return boxSphere(c, axes, half, center, radius)
    case (.sphere(let center, let radius), .box(let c, let axes, let half)):
      guard var hit = boxSphere(c, axes, half, center, radius) else { return nil }
      hit.normal = -hit.normal
      return hit
    case (.box(let ca, let aa, let ha), .box(let cb, let ab, let hb)):
      return boxBox(ca, aa, ha, cb, ab, hb)
    case (.mesh(let mesh), .box(let c, let axes, let half)):
      return meshBox(mesh, c, axes, half)
    case (.box(let c, let axes, let half), .mesh(let mesh)):
      guard var hit = meshBox(mesh, c, axes, half) else { return nil }
      hit.normal = -hit.normal
      return hit
    case (.mesh(let mesh), .sphere(let center, let radius)):
      return meshSphere(mesh, center, radius)
    case (.sphere(let center, let radius), .mesh(let mesh)):
      guard var hit = meshSphere(mesh, center, radius) else { return nil }
      hit.normal = -hit.normal
      return hit
    case (.mesh, .mesh):
      // Both are static: they never need a contact.
      return nil
    }
  }

  /// A box against a sphere; the normal points from the box to the sphere.
  static func boxSphere(
    _ c: SIMD3<Float>, _ axes: simd_float3x3, _ half: SIMD3<Float>, _ center: SIMD3<Float>, _ radius: Float
  ) -> ShapeContact? {
    let local = axes.transpose * (center - c)
    let closest = simd_clamp(local, -half, half)
    let diff = local - closest
    let distanceSquared = simd_length_squared(diff)
    if distanceSquared > 1e-12 {
      let distance = distanceSquared.squareRoot()
      guard distance < radius else { return nil }
      return ShapeContact(
        normal: axes * (diff / distance), depth: radius - distance, point: c + axes * closest)
    }
    // The centre is inside: out through the nearest face.
    let room = half - simd_abs(local)
    var axis = 0
    if room.y < room[axis] { axis = 1 }
    if room.z < room[axis] { axis = 2 }
    var n = SIMD3<Float>.zero
    n[axis] = local[axis] < 0 ? -1 : 1
    var surface = local
    surface[axis] = n[axis] * half[axis]
    return ShapeContact(normal: axes * n, depth: radius + room[axis], point: c + axes * surface)
  }

  /// Two boxes by the separating-axis test: the axis of least overlap (face axes preferred over edge
  /// axes of nearly the same overlap), the normal from A towards B.
  static func boxBox(
    _ ca: SIMD3<Float>, _ aa: simd_float3x3, _ ha: SIMD3<Float>, _ cb: SIMD3<Float>, _ ab: simd_float3x3,
    _ hb: SIMD3<Float>
  ) -> ShapeContact? {
    let d = cb - ca
    func radius(_ axes: simd_float3x3, _ half: SIMD3<Float>, _ n: SIMD3<Float>) -> Float {
      half.x * abs(simd_dot(axes.columns.0, n)) + half.y * abs(simd_dot(axes.columns.1, n)) + half.z
        * abs(simd_dot(axes.columns.2, n))
    }
    var best: (overlap: Float, normal: SIMD3<Float>)?
    func test(_ axis: SIMD3<Float>, isEdge: Bool) -> Bool {
      let length = simd_length(axis)
      guard length > 1e-5 else { return true }
      let n = axis / length
      let overlap = radius(aa, ha, n) + radius(ab, hb, n) - abs(simd_dot(d, n))
      guard overlap > 0 else { return false }
      let biased = isEdge ? overlap * 1.05 + 1e-4 : overlap
      if best == nil || biased < best!.overlap {
        best = (overlap, simd_dot(d, n) < 0 ? -n : n)
      }
      return true
    }
    let a = [aa.columns.0, aa.columns.1, aa.columns.2]
    let b = [ab.columns.0, ab.columns.1, ab.columns.2]
    for axis in a + b where !test(axis, isEdge: false) { return nil }
    for i in 0..<3 {
      for j in 0..<3 where !test(simd_cross(a[i], b[j]), isEdge: true) { return nil }
    }
    guard let best else { return nil }
    // The contact point: the middle of B's corners deepest along −n, moved half the overlap back.
    let cornersB = WorldShape.corners(cb, ab, hb)
    let lowest = cornersB.map { simd_dot($0, best.normal) }.min() ?? 0
    let deepest = cornersB.filter { simd_dot($0, best.normal) <= lowest + 1e-3 }
    let mid = deepest.reduce(SIMD3<Float>.zero, +) / Float(Swift.max(deepest.count, 1))
    return ShapeContact(
      normal: best.normal, depth: best.overlap, point: mid + best.normal * (best.overlap / 2))
  }
}
