import Foundation

/// Where a ray meets the reconstructed mesh: the nearest triangle of any mesh anchor along it.
package struct MeshRayHit {
  /// The mesh anchor whose triangle was hit.
  package var anchor: ARMeshAnchor
  /// The face hit (an index into the anchor's `geometry.faces`).
  package var face: Int
  /// Distance from the ray's origin along its unit direction, metres.
  package var distance: Double
  /// The hit point, world, metres.
  package var position: SIMD3<Double>
  /// The surface's unit normal at the hit (the vertex normals interpolated over the face), world,
  /// on the side the ray came from.
  package var normal: SIMD3<Double>
}

/// Rays against the mesh anchors' triangles. Each anchor's bounding box (``ARMeshGeometry/bounds``)
/// is tested first and the anchors the ray enters are searched nearest first, so a ray costs the
/// triangles of the chunks it passes through before its hit, not those of the whole mesh.
package enum MeshRaycast {
  /// The nearest hit of the ray from `origin` along the unit `direction` (world) on the triangles of
  /// the mesh anchors among `anchors` (others are ignored), within `maxDistance` metres; either side
  /// of a triangle counts. Nil when nothing is hit.
  package static func nearestHit(
    in anchors: [ARAnchor], origin: SIMD3<Double>, direction: SIMD3<Double>,
    maxDistance: Double = .infinity
  ) -> MeshRayHit? {
    // The mesh anchors whose box the ray enters, with where it enters (in anchor space).
    var candidates:
      [(
        enter: Double, index: Int, mesh: ARMeshAnchor, origin: SIMD3<Double>,
        direction: SIMD3<Double>, rotation: simd_double3x3
      )] = []
    for (index, anchor) in anchors.enumerated() {
      guard let mesh = anchor as? ARMeshAnchor, let bounds = mesh.geometry.bounds else { continue }
      let m = simd_double4x4(mesh.transform)
      let rotation = simd_double3x3(
        SIMD3(m.columns.0.x, m.columns.0.y, m.columns.0.z),
        SIMD3(m.columns.1.x, m.columns.1.y, m.columns.1.z),
        SIMD3(m.columns.2.x, m.columns.2.y, m.columns.2.z))
      let translation = SIMD3(m.columns.3.x, m.columns.3.y, m.columns.3.z)
      let o = rotation.transpose * (origin - translation)
      let d = rotation.transpose * direction
      // A margin keeps hits on the box's faces against rounding; the triangles decide.
      guard
        let enter = slab(
          origin: o, direction: d, low: SIMD3<Double>(bounds.low) - 1e-4,
          high: SIMD3<Double>(bounds.high) + 1e-4,
          maxDistance: maxDistance)
      else { continue }
      candidates.append((enter, index, mesh, o, d, rotation))
    }
    candidates.sort { $0.enter < $1.enter || ($0.enter == $1.enter && $0.index < $1.index) }
    var best: (t: Double, face: Int, u: Double, v: Double, candidate: Int)?
    for (c, candidate) in candidates.enumerated() {
      // Boxes entered beyond the nearest hit so far hold nothing nearer.
      if let best, candidate.enter > best.t { break }
      let limit = best?.t ?? maxDistance
      if let hit = nearestTriangle(
        of: candidate.mesh.geometry, origin: candidate.origin, direction: candidate.direction, limit: limit)
      {
        best = (hit.t, hit.face, hit.u, hit.v, c)
      }
    }
    guard let best else { return nil }
    let candidate = candidates[best.candidate]
    let geometry = candidate.mesh.geometry
    let corners = geometry.faces.indices(of: best.face).map(Int.init)
    let a = SIMD3<Double>(geometry.vertices.float3(at: corners[0]))
    let b = SIMD3<Double>(geometry.vertices.float3(at: corners[1]))
    let c = SIMD3<Double>(geometry.vertices.float3(at: corners[2]))
    var normal = SIMD3<Double>.zero
    if geometry.normals.format == .float3, corners.allSatisfy({ $0 < geometry.normals.count }) {
      normal =
        (1 - best.u - best.v) * SIMD3<Double>(geometry.normals.float3(at: corners[0])) + best.u
        * SIMD3<Double>(geometry.normals.float3(at: corners[1])) + best.v
        * SIMD3<Double>(geometry.normals.float3(at: corners[2]))
    }
    if !(simd_length(normal) > 1e-6) { normal = simd_cross(b - a, c - a) }
    normal = candidate.rotation * simd_normalize(normal)
    if simd_dot(normal, direction) > 0 { normal = -normal }
    return MeshRayHit(
      anchor: candidate.mesh, face: best.face, distance: best.t, position: origin + best.t * direction,
      normal: normal)
  }

  /// Where the ray enters the box `low...high` (0 when it starts inside), or nil when it misses it
  /// or enters beyond `maxDistance`.
  static func slab(
    origin: SIMD3<Double>, direction: SIMD3<Double>, low: SIMD3<Double>, high: SIMD3<Double>,
    maxDistance: Double
  ) -> Double? {
    var enter = 0.0
    var exit = maxDistance
    for axis in 0..<3 {
      if direction[axis] == 0 {
        guard origin[axis] >= low[axis] && origin[axis] <= high[axis] else { return nil }
        continue
      }
      let a = (low[axis] - origin[axis]) / direction[axis]
      let b = (high[axis] - origin[axis]) / direction[axis]
      enter = max(enter, min(a, b))
      exit = min(exit, max(a, b))
      guard enter <= exit else { return nil }
    }
    return enter
  }

  /// The nearest triangle of `geometry` the ray (anchor space) meets at a distance in `(0, limit)`,
  /// with the hit's barycentric coordinates (Möller and Trumbore's test).
  static func nearestTriangle(
    of geometry: ARMeshGeometry, origin: SIMD3<Double>, direction: SIMD3<Double>, limit: Double
  ) -> (t: Double, face: Int, u: Double, v: Double)? {
    let vertices = geometry.vertices
    let faces = geometry.faces
    guard vertices.format == .float3, faces.bytesPerIndex == 4, faces.indexCountPerPrimitive == 3 else {
      return nil
    }
    let base = UnsafeRawPointer(vertices.buffer.contents()).advanced(by: vertices.offset)
    let indices = UnsafeRawPointer(faces.buffer.contents())
    let count = vertices.count
    func vertex(_ i: Int) -> SIMD3<Double> {
      let p = base.advanced(by: vertices.stride * i)
      return SIMD3(
        Double(p.loadUnaligned(as: Float.self)), Double(p.loadUnaligned(fromByteOffset: 4, as: Float.self)),
        Double(p.loadUnaligned(fromByteOffset: 8, as: Float.self)))
    }
    var best: (t: Double, face: Int, u: Double, v: Double)?
    var nearest = limit
    // Hits on a shared edge count for both triangles, so a ray through an edge does not slip between them.
    let edge = -1e-9
    for f in 0..<faces.count {
      let ia = Int(indices.loadUnaligned(fromByteOffset: 12 * f, as: UInt32.self))
      let ib = Int(indices.loadUnaligned(fromByteOffset: 12 * f + 4, as: UInt32.self))
      let ic = Int(indices.loadUnaligned(fromByteOffset: 12 * f + 8, as: UInt32.self))
      guard ia < count, ib < count, ic < count else { continue }
      let a = vertex(ia)
      let e1 = vertex(ib) - a
      let e2 = vertex(ic) - a
      let p = simd_cross(direction, e2)
      let determinant = simd_dot(e1, p)
      guard abs(determinant) > 1e-14 else { continue }
      let inverse = 1 / determinant
      let s = origin - a
      let u = simd_dot(s, p) * inverse
      guard u >= edge, u <= 1 - edge else { continue }
      let q = simd_cross(s, e1)
      let v = simd_dot(direction, q) * inverse
      guard v >= edge, u + v <= 1 - edge else { continue }
      let t = simd_dot(e2, q) * inverse
      guard t > 1e-9, t < nearest else { continue }
      nearest = t
      best = (t, f, u, v)
    }
    return best
  }
}

extension ARSession {
  /// An `.estimatedPlane` hit on the scene mesh, as ARKit's on a device that reconstructs the scene
  /// (its documentation: such raycasts with `.any` alignment intersect the mesh): the nearest triangle
  /// of `frame`'s mesh anchors along the ray, oriented as estimated-plane results are (y along the
  /// surface normal on the ray's side), aligned by that normal. The anchor is a plane anchor when the
  /// hit lies on one (ARKit's estimated-plane results name an anchor only then), nil otherwise. Nil
  /// when the frame has no mesh or the ray misses it.
  func meshHit(frame: ARFrame, origin: SIMD3<Double>, direction: SIMD3<Double>) -> ARRaycastResult? {
    guard let hit = MeshRaycast.nearestHit(in: frame.anchors, origin: origin, direction: direction) else {
      return nil
    }
    let plane = raycastCache.planes(of: frame).compactMap { plane -> (ARPlaneAnchor, Double)? in
      let normal = plane.worldFromAnchorRotation.columns.1
      guard abs(simd_dot(normal, hit.normal)) >= Self.planeNormalCosine,
        let planeHit = plane.hit(origin: origin, direction: direction, bounded: true),
        abs(planeHit.distance - hit.distance) <= Self.planeDistanceTolerance
      else { return nil }
      return (plane.plane, abs(planeHit.distance - hit.distance))
    }.min { $0.1 < $1.1 }?.0
    return ARRaycastResult(
      worldTransform: Self.estimatedTransform(at: hit.position, normal: hit.normal, direction: direction),
      target: .estimatedPlane, targetAlignment: Self.estimatedAlignment(of: hit.normal), anchor: plane,
      distance: Float(hit.distance))
  }

  /// A mesh hit lies on a plane anchor when the ray meets the plane within its boundary this close
  /// (metres, along the ray) ...
  static let planeDistanceTolerance = 0.03
  /// ... and the normals agree within this cosine (25 degrees).
  static let planeNormalCosine = cos(25 * Double.pi / 180)

  /// The alignment of an estimated surface with unit normal `normal`: horizontal within 10 degrees
  /// of gravity, vertical within 10 degrees of perpendicular to it, `.any` between.
  static func estimatedAlignment(of normal: SIMD3<Double>) -> ARRaycastQuery.TargetAlignment {
    let cosine = abs(normal.y)
    if cosine > cos(10 * Double.pi / 180) { return .horizontal }
    if cosine < sin(10 * Double.pi / 180) { return .vertical }
    return .any
  }

  /// An estimated-plane result's transform: at `position`, y along the unit `normal`, z along the
  /// reverse of the ray's `direction` in the surface (a fixed world axis when the ray is along the
  /// normal), x completing a right-handed frame.
  static func estimatedTransform(
    at position: SIMD3<Double>, normal y: SIMD3<Double>, direction: SIMD3<Double>
  ) -> simd_float4x4 {
    var forward = -direction - simd_dot(-direction, y) * y
    if simd_length(forward) < 1e-6 { forward = SIMD3(0, 0, 1) - simd_dot(SIMD3(0, 0, 1), y) * y }
    if simd_length(forward) < 1e-6 { forward = SIMD3(1, 0, 0) - simd_dot(SIMD3(1, 0, 0), y) * y }
    let z = simd_normalize(forward)
    let x = simd_cross(y, z)
    return simd_float4x4(
      SIMD4(Float(x.x), Float(x.y), Float(x.z), 0), SIMD4(Float(y.x), Float(y.y), Float(y.z), 0),
      SIMD4(Float(z.x), Float(z.y), Float(z.z), 0),
      SIMD4(Float(position.x), Float(position.y), Float(position.z), 1))
  }
}
