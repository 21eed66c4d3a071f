import ARSim
import Foundation
import Testing

@Suite("AnchorBook: one owner of the anchor lifecycle")
struct AnchorBookTests {
  private func plane() -> ARPlaneAnchor {
    ARPlaneAnchor(
      identifier: UUID(), transform: matrix_identity_float4x4, alignment: .horizontal, center: .zero,
      planeExtent: ARPlaneExtent(width: 1, height: 1, rotationOnYAxis: 0),
      geometry: ARPlaneGeometry(boundary: [SIMD3(0, 0, 0), SIMD3(1, 0, 0), SIMD3(1, 0, 1)]),
      classification: .floor, sessionIdentifier: nil)
  }

  private func ids(_ anchors: [ARAnchor]) -> [UUID] { anchors.map(\.identifier) }

  @Test("Plane changes and the app's pending anchors come out together, once")
  func applyJoinsPlaneChangesAndPendingAnchors() {
    var book = AnchorBook()
    let (a, b) = (plane(), plane())
    let cup = ARAnchor(name: "cup", transform: matrix_identity_float4x4)
    book.add(cup)
    book.add(cup)  // once only
    var changes = PlaneAnchorChanges()
    changes.added = [a, b]
    let first = book.apply(changes)
    #expect(ids(first.added) == [a.identifier, b.identifier, cup.identifier])
    #expect(first.updated.isEmpty && first.removed.isEmpty)
    // Pending anchors are delivered once.
    #expect(book.apply(PlaneAnchorChanges()).added.isEmpty)
    #expect(ids(book.anchors(planes: [a, b])) == [a.identifier, b.identifier, cup.identifier])
  }

  @Test("A plane the app removed stays out of frames and callbacks; merges name their absorber")
  func removedPlanesAndAbsorbers() {
    var book = AnchorBook()
    let (a, b, c) = (plane(), plane(), plane())
    book.remove(a, planes: [a, b, c])
    book.remove(plane(), planes: [a, b, c])  // not the detector's: ignored
    var changes = PlaneAnchorChanges()
    changes.updated = [a, b]
    changes.removed = [RemovedPlaneAnchor(anchor: c, absorbedBy: b.identifier)]
    let applied = book.apply(changes)
    #expect(ids(applied.updated) == [b.identifier])
    #expect(ids(applied.removed) == [c.identifier, a.identifier])
    #expect(book.absorber(of: c.identifier) == b.identifier)
    #expect(book.absorber(of: a.identifier) == nil)
    #expect(ids(book.anchors(planes: [a, b])) == [b.identifier])
    // Removing it again, or the detector later removing it, reports nothing more.
    book.remove(a, planes: [a, b])
    var later = PlaneAnchorChanges()
    later.removed = [RemovedPlaneAnchor(anchor: a, absorbedBy: b.identifier)]
    #expect(book.apply(later).removed.isEmpty)
  }

  @Test("An app anchor added and removed between frames is never reported")
  func addThenRemoveBeforeDelivery() {
    var book = AnchorBook()
    let cup = ARAnchor(name: "cup", transform: matrix_identity_float4x4)
    let pen = ARAnchor(name: "pen", transform: matrix_identity_float4x4)
    book.add(cup)
    book.add(pen)
    _ = book.apply(PlaneAnchorChanges())
    let never = ARAnchor(name: "never", transform: matrix_identity_float4x4)
    book.add(never)
    book.remove(never, planes: [])
    book.remove(pen, planes: [])
    let applied = book.apply(PlaneAnchorChanges())
    #expect(applied.added.isEmpty)
    #expect(ids(applied.removed) == [pen.identifier])
    #expect(ids(book.userAnchors) == [cup.identifier])
  }

  @Test("removeAll and restartPlanes report their removals with the next frame")
  func resets() {
    var book = AnchorBook()
    let (a, b) = (plane(), plane())
    let cup = ARAnchor(name: "cup", transform: matrix_identity_float4x4)
    book.add(cup)
    book.remove(a, planes: [a, b])
    _ = book.apply(PlaneAnchorChanges())
    // The app's anchors stay when detection restarts; the removed plane is not reported twice. The
    // removals come with the next frame.
    book.restartPlanes([a, b])
    #expect(ids(book.userAnchors) == [cup.identifier])
    #expect(ids(book.apply(PlaneAnchorChanges()).removed) == [b.identifier])
    // Removing everything: the planes, then the app's anchors the delegate has heard of (not one
    // added since the last frame).
    let fresh = ARAnchor(name: "fresh", transform: matrix_identity_float4x4)
    book.add(fresh)
    book.removeAll(planes: [a])
    #expect(book.userAnchors.isEmpty && book.anchors(planes: []).isEmpty)
    let applied = book.apply(PlaneAnchorChanges())
    #expect(ids(applied.removed) == [a.identifier, cup.identifier])
    #expect(applied.added.isEmpty)
  }

  @Test("A world correction moves the app's anchors: updated once, or still added when not yet announced")
  func worldCorrectionMovesAppAnchors() throws {
    var book = AnchorBook()
    var start = matrix_identity_float4x4
    start.columns.3 = SIMD4(1, 0, -2, 1)
    let cup = ARAnchor(name: "cup", transform: start)
    book.add(cup)
    _ = book.apply(PlaneAnchorChanges())
    let correction = RigidTransform(
      rotation: simd_quatd(angle: .pi / 2, axis: SIMD3(0, 1, 0)), translation: SIMD3(0, 0.5, 0))
    book.applyWorldCorrection(correction)
    book.applyWorldCorrection(correction)
    let plate = ARAnchor(name: "plate", transform: start)
    book.add(plate)
    book.applyWorldCorrection(correction)
    let applied = book.apply(PlaneAnchorChanges())
    #expect(ids(applied.updated) == [cup.identifier], "once, as last moved")
    #expect(ids(applied.added) == [plate.identifier])
    let moved = try #require(applied.updated.first)
    #expect(moved.name == "cup")
    // Three quarter turns about y, each with a lift of 0.5 m.
    let p = moved.transform.columns.3
    let expected = (correction * correction * correction).apply(to: SIMD3(1, 0, -2))
    #expect(simd_length(SIMD3<Double>(Double(p.x), Double(p.y), Double(p.z)) - expected) < 1e-5)
    #expect(book.userAnchors.map(\.transform) == [moved.transform, applied.added[0].transform])
    #expect(book.apply(PlaneAnchorChanges()).updated.isEmpty)
    // Removed after a correction: reported removed, not updated.
    book.applyWorldCorrection(correction)
    book.remove(moved, planes: [])
    let removal = book.apply(PlaneAnchorChanges())
    #expect(ids(removal.removed) == [cup.identifier])
    #expect(ids(removal.updated) == [plate.identifier])
  }
}
