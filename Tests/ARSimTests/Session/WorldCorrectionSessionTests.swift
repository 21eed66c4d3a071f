import ARSim
import ARSimTestSupport
import Foundation
import Testing

/// An app's anchor with its own data, as apps subclass `ARAnchor`.
private final class Marker: ARAnchor, @unchecked Sendable {
  let label: String

  init(label: String, transform: simd_float4x4) {
    self.label = label
    super.init(identifier: UUID(), name: label, transform: transform, sessionIdentifier: nil)
  }

  required init(anchor: ARAnchor) {
    label = (anchor as? Marker)?.label ?? ""
    super.init(anchor: anchor)
  }
}

/// Every anchor reported updated, in order.
private final class UpdateLog: ARSessionDelegate, @unchecked Sendable {
  var updated: [ARAnchor] = []
  func session(_ session: ARSession, didUpdate anchors: [ARAnchor]) { updated += anchors }
}

@Suite("Anchors follow the world as gravity is refined")
struct WorldCorrectionSessionTests {
  @Test(
    "An app's anchor placed on a plane stays on it through the session's re-levels, reported in didUpdate",
    .enabled(if: Datasets.exists("room-phone")))
  func appAnchorStaysOnItsPlane() throws {
    let session = ARSession()
    let log = UpdateLog()
    session.delegate = log
    let configuration = ARWorldTrackingConfiguration()
    configuration.planeDetection = [.horizontal, .vertical]
    session.run(configuration)
    let replay = try ARReplay(session: session, recording: Datasets.path("room-phone"))
    var placed: (marker: Marker, plane: ARPlaneAnchor)?
    // The first frame with a plane under the image centre.
    while placed == nil, try replay.step() != nil {
      guard let frame = session.currentFrame, frame.camera.trackingState == .normal else { continue }
      let query = frame.raycastQuery(
        from: CGPoint(x: 0.5, y: 0.5), allowing: .existingPlaneGeometry, alignment: .any)
      guard let hit = session.raycast(query).first, let plane = hit.anchor as? ARPlaneAnchor else { continue }
      let marker = Marker(label: "cup", transform: hit.worldTransform)
      session.add(anchor: marker)
      placed = (marker, plane)
    }
    let (marker, plane) = try #require(placed)
    try replay.runToEnd()

    let updates = log.updated.filter { $0.identifier == marker.identifier }
    #expect(!updates.isEmpty, "the world was re-levelled after the anchor was placed")
    #expect(updates.allSatisfy { ($0 as? Marker)?.label == "cup" }, "copies keep the subclass and its data")
    let final = try #require(session.anchors.first { $0.identifier == marker.identifier })
    #expect(final === updates.last)
    // The plane, or the one that absorbed it when two turned out to be one surface.
    var planeID = plane.identifier
    while let absorber = session.absorbingAnchorIdentifier(
      of: ARAnchor(
        identifier: planeID, name: nil, transform: matrix_identity_float4x4, sessionIdentifier: nil))
    {
      planeID = absorber
    }
    let finalPlane = try #require(session.anchors.first { $0.identifier == planeID } as? ARPlaneAnchor)
    let moved = distance(final.transform.columns.3, marker.transform.columns.3)
    #expect(moved > 1e-4, "moved \(moved) m with the world")
    // Still on its plane: the distance from the plane anchor's surface (its y = center.y plane).
    let m = simd_double4x4(finalPlane.transform)
    let normal = simd_normalize(SIMD3(m.columns.1.x, m.columns.1.y, m.columns.1.z))
    let c = m * SIMD4(SIMD3<Double>(finalPlane.center), 1)
    let p = final.transform.columns.3
    let offset = simd_dot(SIMD3(Double(p.x), Double(p.y), Double(p.z)) - SIMD3(c.x, c.y, c.z), normal)
    let q = marker.transform.columns.3
    let unfollowed = simd_dot(SIMD3(Double(q.x), Double(q.y), Double(q.z)) - SIMD3(c.x, c.y, c.z), normal)
    // The plane's own refinement moves it by a few millimetres; the re-levels moved the anchor by
    // centimetres, and an anchor left behind would be off its plane by more (15 mm here, 5 mm followed).
    #expect(
      abs(offset) < 0.01 && abs(offset) < 0.5 * abs(unfollowed),
      "\(offset) m off its plane, \(unfollowed) m if left behind")
  }

  private func distance(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> Double {
    Double(simd_length(SIMD3(a.x - b.x, a.y - b.y, a.z - b.z)))
  }
}
