import ARSim
import ARSimTestSupport
import Foundation
import Testing

/// A loop closure's non-rigid correction of the world (``WorldDeformation``): what was mapped after its
/// held part moves by the correction of its time, the rest stays, and a drifted duplicate of a
/// surface lands on the original and merges into it.
@Suite("World deformation of the plane map and anchors")
struct WorldDeformationTests {
  static let camera = SIMD3<Double>(0, 1.5, 0.5)

  @Test("A table top mapped 15 cm high while drifting moves down onto its first half and merges into it")
  func driftedDuplicateMerges() throws {
    let detector = PlaneDetector(options: PlaneDetectionOptions(), seed: 5)
    // Frames 0-13 (to 0.43 s) map one half of a table top; frames 14-43 (0.47-1.43 s: detection
    // runs at intervals once a plane exists) the other half, seen from a drifted pose: 15 cm too high (a smaller step
    // is taken for one rough surface).
    let first = TestScene(rectangles: [.horizontal(y: 0.75, x: -0.6...0, z: -2...(-1.4))])
    let drifted = TestScene(rectangles: [.horizontal(y: 0.9, x: 0...0.6, z: -2...(-1.4))])
    _ = runFrames(detector, scene: first, frames: 14, camera: Self.camera)
    _ = runFrames(detector, scene: drifted, frames: 30, camera: Self.camera, seed: 8, firstFrame: 14)
    let before = detector.anchors
    try #require(before.count == 2, "\(before.map { WorldPlaneFacts($0).center })")
    let original = before[0]
    let duplicate = before[1]
    #expect(abs(WorldPlaneFacts(duplicate).center.y - 0.9) < 0.01)

    // The loop closed at 2 s: everything mapped since 0.47 s was 15 cm high (the keyframe made
    // then is corrected by the whole step, the one before it not at all).
    let down = RigidTransform(
      rotation: simd_quatd(ix: 0, iy: 0, iz: 0, r: 1), translation: SIMD3(0, -0.15, 0))
    let deformation = WorldDeformation(
      since: 0.45, corrections: [(0.45, RigidTransform.identity), (0.47, down), (2.0, down)])
    let moved = detector.applyWorldDeformation(deformation)
    #expect(moved.updated.map(\.identifier) == [duplicate.identifier], "only the duplicate moves")
    let facts = WorldPlaneFacts(try #require(moved.updated.first as ARPlaneAnchor?))
    #expect(abs(facts.center.y - 0.75) < 0.01, "moved to \(facts.center.y)")

    // The next frames see the whole table where it is: the original absorbs the duplicate.
    let whole = TestScene(rectangles: [.horizontal(y: 0.75, x: -0.6...0.6, z: -2...(-1.4))])
    let changes = runFrames(detector, scene: whole, frames: 20, camera: Self.camera, seed: 9, firstFrame: 44)
    let removed = changes.flatMap(\.removed)
    #expect(removed.map(\.anchor.identifier) == [duplicate.identifier])
    #expect(removed.first?.absorbedBy == original.identifier)
    #expect(detector.anchors.map(\.identifier) == [original.identifier])
  }

  @Test("App anchors move by the correction of the time they were added; older ones stay")
  func appAnchorsFollowTheirTime() throws {
    var book = AnchorBook()
    let early = ARAnchor(transform: matrix_identity_float4x4)
    let late = ARAnchor(transform: matrix_identity_float4x4)
    let unknown = ARAnchor(transform: matrix_identity_float4x4)
    book.add(early, at: 5)
    book.add(late, at: 12)
    book.add(unknown)
    _ = book.apply(PlaneAnchorChanges())
    let shift = RigidTransform(
      rotation: simd_quatd(ix: 0, iy: 0, iz: 0, r: 1), translation: SIMD3(0.02, 0, 0))
    book.applyWorldDeformation(WorldDeformation(since: 10, corrections: [(10, .identity), (14, shift)]))
    let changes = book.apply(PlaneAnchorChanges())
    #expect(changes.updated.map(\.identifier) == [late.identifier])
    // Added halfway between the held time and the closing frame's: half the frame's correction.
    let now = try #require(book.userAnchors.first { $0.identifier == late.identifier })
    #expect(abs(now.transform.columns.3.x - 0.01) < 1e-6)
    #expect(
      book.userAnchors.first { $0.identifier == early.identifier }?.transform == matrix_identity_float4x4)
  }
}
