import Foundation

/// The plane anchors a session restored from its initial world map, continued by the plane detector:
/// a detected plane of the same surface (same alignment, normals within
/// ``maximumNormalDegrees``, within ``maximumOffset`` of the restored plane, overlapping it) becomes
/// the restored anchor's source (an alias): its changes are reported as updates of the restored
/// anchor, re-expressed in its anchor space (its transform stays fixed, as every plane anchor's). A
/// detected plane the app has heard of already is removed as absorbed by the restored one. The session
/// rewrites each frame's ``PlaneAnchorChanges`` through ``rewrite(_:detected:)`` before its anchor book
/// sees them, and shows ``visible(_:)`` as the detected planes. Not thread-safe: the session calls it
/// under its lock.
struct RestoredPlanes {
  static let maximumNormalDegrees: Float = 10
  static let maximumOffset: Float = 0.05
  /// The restored planes, current versions, in restoring order.
  private(set) var planes: [ARPlaneAnchor] = []
  /// Detected plane identifier to the restored plane it continues.
  private var aliases: [UUID: UUID] = [:]

  /// The restored planes, then the detected ones that continue none.
  func visible(_ detected: [ARPlaneAnchor]) -> [ARPlaneAnchor] {
    planes + detected.filter { aliases[$0.identifier] == nil }
  }

  /// One frame's plane changes as the app sees them: the restored planes first moved by the frame's
  /// world `correction` (`newWorldFromOld`, as the detector's planes were), then `restoring` (the planes
  /// the frame restored from the map) added, then the detector's `changes` rewritten (`detected`: its
  /// planes after them). Restored planes that the correction moved are reported updated.
  mutating func rewrite(
    _ changes: PlaneAnchorChanges, detected: [ARPlaneAnchor], correction: RigidTransform?,
    restoring: [ARPlaneAnchor]
  ) -> PlaneAnchorChanges {
    var moved: Set<UUID> = []
    if let correction {
      for i in planes.indices {
        planes[i] = planes[i].moved(by: correction) as? ARPlaneAnchor ?? planes[i]
        moved.insert(planes[i].identifier)
      }
    }
    planes += restoring
    guard !planes.isEmpty else { return changes }
    var out = rewrite(changes, detected: detected)
    // Restored planes are new to the app in their latest version; moved ones are updated once.
    let new = Set(restoring.map(\.identifier))
    out.updated.removeAll { new.contains($0.identifier) }
    let reported = Set(out.updated.map(\.identifier))
    out.added = planes.filter { new.contains($0.identifier) } + out.added
    out.updated += planes.filter { moved.contains($0.identifier) && !reported.contains($0.identifier) }
    return out
  }

  /// The detector's changes rewritten: aliases reported as their restored planes.
  private mutating func rewrite(_ changes: PlaneAnchorChanges, detected: [ARPlaneAnchor])
    -> PlaneAnchorChanges
  {
    var out = PlaneAnchorChanges()
    let addedNow = Set(changes.added.map(\.identifier))
    for removal in changes.removed {
      let id = removal.anchor.identifier
      if let restored = aliases.removeValue(forKey: id) {
        // The detector merged the alias into another plane: that plane now continues the restored one.
        guard let absorber = removal.absorbedBy, aliases[absorber] == nil,
          let plane = detected.first(where: { $0.identifier == absorber })
        else { continue }
        aliases[absorber] = restored
        if !addedNow.contains(absorber) {
          out.removed.append(RemovedPlaneAnchor(anchor: plane, absorbedBy: restored))
        }
      } else if let absorber = removal.absorbedBy, let restored = aliases[absorber] {
        out.removed.append(RemovedPlaneAnchor(anchor: removal.anchor, absorbedBy: restored))
      } else {
        out.removed.append(removal)
      }
    }
    for plane in changes.added {
      if let index = continued(by: plane) ?? adopt(plane) {
        out.updated.append(planes[index])
      } else {
        out.added.append(plane)
      }
    }
    for plane in changes.updated {
      if let index = continued(by: plane) {
        out.updated.append(planes[index])
      } else if let index = adopt(plane) {
        out.removed.append(RemovedPlaneAnchor(anchor: plane, absorbedBy: planes[index].identifier))
        out.updated.append(planes[index])
      } else {
        out.updated.append(plane)
      }
    }
    return out
  }

  /// When `plane` continues a restored plane: that plane updated from it, and its index.
  private mutating func continued(by plane: ARPlaneAnchor) -> Int? {
    guard let restored = aliases[plane.identifier],
      let index = planes.firstIndex(where: { $0.identifier == restored })
    else { return nil }
    planes[index] = Self.reexpressed(plane, in: planes[index])
    return index
  }

  /// Makes `plane` the source of the restored plane of its surface that has none; that plane's index.
  private mutating func adopt(_ plane: ARPlaneAnchor) -> Int? {
    let taken = Set(aliases.values)
    guard
      let index = planes.firstIndex(where: { !taken.contains($0.identifier) && Self.isSameSurface($0, plane) }
      )
    else { return nil }
    aliases[plane.identifier] = planes[index].identifier
    planes[index] = Self.reexpressed(plane, in: planes[index])
    return index
  }

  /// Whether two plane anchors lie on one surface and overlap.
  static func isSameSurface(_ a: ARPlaneAnchor, _ b: ARPlaneAnchor) -> Bool {
    guard a.alignment == b.alignment else { return false }
    let normal = { (p: ARPlaneAnchor) in simd_float3(p.transform[1].x, p.transform[1].y, p.transform[1].z) }
    let origin = { (p: ARPlaneAnchor) in simd_float3(p.transform[3].x, p.transform[3].y, p.transform[3].z) }
    guard simd_dot(normal(a), normal(b)) >= cos(maximumNormalDegrees * .pi / 180),
      abs(simd_dot(normal(a), origin(b) - origin(a))) <= maximumOffset
    else { return false }
    // Both outlines in a's anchor space, on its x-z plane.
    let bInA = a.transform.inverse * b.transform
    let outlineA = a.geometry.boundaryVertices.map { SIMD2(Double($0.x), Double($0.z)) }
    let outlineB = b.geometry.boundaryVertices.map { v in
      let p = bInA * SIMD4(v.x, v.y, v.z, 1)
      return SIMD2(Double(p.x), Double(p.z))
    }
    return Polygon2D.convexIntersectionArea(outlineA, outlineB) > 0
  }

  /// `plane`'s centre, extent and geometry in `restored`'s anchor space (its transform kept), with
  /// `plane`'s classification; values rounded to the micrometre as the detector's.
  static func reexpressed(_ plane: ARPlaneAnchor, in restored: ARPlaneAnchor) -> ARPlaneAnchor {
    let m = restored.transform.inverse * plane.transform
    let round = { (v: Float) in (v * 1e6).rounded() / 1e6 }
    let move = { (v: simd_float3) -> simd_float3 in
      let p = m * SIMD4(v.x, v.y, v.z, 1)
      return simd_float3(round(p.x), round(p.y), round(p.z))
    }
    // The rectangle turns with the anchor frames' rotation about their common y axis; brought back
    // into (−π/4, π/4] by quarter turns, which swap width and height.
    var angle = plane.planeExtent.rotationOnYAxis + atan2(-m[0].z, m[0].x)
    var (width, height) = (plane.planeExtent.width, plane.planeExtent.height)
    while angle > .pi / 4 {
      angle -= .pi / 2
      swap(&width, &height)
    }
    while angle <= -.pi / 4 {
      angle += .pi / 2
      swap(&width, &height)
    }
    return ARPlaneAnchor(
      identifier: restored.identifier, transform: restored.transform, alignment: restored.alignment,
      center: move(plane.center),
      planeExtent: ARPlaneExtent(width: width, height: height, rotationOnYAxis: angle),
      geometry: ARPlaneGeometry(boundary: plane.geometry.boundaryVertices.map(move)),
      classification: plane.classification, sessionIdentifier: restored.sessionIdentifier)
  }
}
