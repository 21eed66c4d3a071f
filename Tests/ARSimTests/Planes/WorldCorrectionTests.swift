import ARSim
import ARSimTestSupport
import Foundation
import Testing

/// A rigid correction of the world (a re-level as gravity is refined, or a map correction) moves the
/// plane detector's map and anchors with the world: the same anchors, now level, keep growing from the
/// points of the corrected world.
@Suite("World correction of the plane map")
struct WorldCorrectionTests {
  static let camera = SIMD3<Double>(0, 1.5, 0.5)

  /// A floor with a table on it and a wall, level and plumb in the true world.
  static let truth: [TestRectangle] = [
    .horizontal(y: 0, x: -1.5...1.5, z: -3...(-0.5)),
    .horizontal(y: 0.75, x: -0.4...0.4, z: -2...(-1.4)),
    .wall(x: 1.8, y: 0...2, z: -3...(-0.5)),
  ]
  static let underTable = (SIMD3<Double>(-0.4, -0.1, -2), SIMD3<Double>(0.4, 0.1, -1.4))

  static func scene(_ worldFromTruth: RigidTransform) -> TestScene {
    let rectangles = truth.map {
      TestRectangle(
        center: worldFromTruth.apply(to: $0.center), halfU: worldFromTruth.rotate($0.halfU),
        halfV: worldFromTruth.rotate($0.halfV))
    }
    // The hole under the table, in the tilted world (its box grows a little to cover the tilt).
    let (low, high) = underTable
    let centre = worldFromTruth.apply(to: (low + high) / 2)
    let half = (high - low) / 2 + SIMD3(0, 0.02, 0)
    return TestScene(rectangles: rectangles, holes: [(centre - half, centre + half)])
  }

  @Test("Planes found in a world tilted by 0.8 degrees are level after the re-level, the same anchors")
  func relevelledPlanes() throws {
    let tilt = RigidTransform(
      rotation: simd_quatd(angle: 0.8 * .pi / 180, axis: simd_normalize(SIMD3(1, 0, 0.5))))
    // The first world is tilted against the truth (gravity was 0.8 degrees off); the correction is
    // the truth from that world.
    let correction = tilt
    let detector = PlaneDetector(options: PlaneDetectionOptions(), seed: 5)
    let early = runFrames(detector, scene: Self.scene(tilt.inverse), frames: 14, camera: Self.camera)
    let before = detector.anchors
    try #require(before.count == 3, "\(before.count) anchors in the tilted world")
    let floorBefore = try #require(before.first { WorldPlaneFacts($0).center.y < 0.3 })
    // Gravity-aligned in the tilted world: 0.8 degrees off the true floor.
    let trueUp = correction.inverse.rotate(SIMD3(0, 1, 0))
    #expect(abs(WorldPlaneFacts(floorBefore).angleDegrees(to: trueUp) - 0.8) < 0.05)
    let voxels = detector.voxelCount
    #expect(early.allSatisfy { $0.removed.isEmpty })

    let moved = detector.applyWorldCorrection(correction)
    #expect(moved.added.isEmpty && moved.removed.isEmpty)
    #expect(Set(moved.updated.map(\.identifier)) == Set(before.map(\.identifier)))
    #expect(moved.updated.map(\.identifier) == before.map(\.identifier), "in the order detected")
    // Voxels whose moved means land in one voxel merge (a few per cent for a tilt of 0.8 degrees).
    let kept = Double(detector.voxelCount) / Double(voxels)
    #expect(kept >= 0.9 && kept <= 1, "\(detector.voxelCount) of \(voxels) voxels kept")

    let late = runFrames(
      detector, scene: Self.scene(.identity), frames: 8, camera: Self.camera, seed: 9, firstFrame: 14)
    #expect(late.allSatisfy { $0.added.isEmpty && $0.removed.isEmpty }, "no new anchor for a moved surface")
    let after = detector.anchors
    #expect(after.map(\.identifier) == before.map(\.identifier))
    for anchor in after {
      let facts = WorldPlaneFacts(anchor)
      // The true surface nearest the anchor's centre among those parallel to it (normals without sign).
      let surface = try #require(
        Self.truth.filter { abs(simd_dot(facts.normal, $0.normal)) > 0.99 }.min {
          abs(simd_dot(facts.center - $0.center, $0.normal))
            < abs(simd_dot(facts.center - $1.center, $1.normal))
        })
      let angle = WorldPlaneFacts.unsignedAngleDegrees(facts.normal, surface.normal)
      #expect(angle < 0.05, "normal \(angle)°")
      #expect(abs(simd_dot(facts.center - surface.center, surface.normal)) < 0.003)
      #expect(facts.intersectionOverUnion(with: surface) > 0.8)
    }
  }

  @Test("A turn about the vertical and a shift move every anchor rigidly, its shape unchanged")
  func rigidMove() throws {
    let detector = PlaneDetector(options: PlaneDetectionOptions(), seed: 5)
    runFrames(detector, scene: Self.scene(.identity), frames: 14, camera: Self.camera)
    let before = detector.anchors
    try #require(before.count == 3)
    let correction = RigidTransform(
      rotation: simd_quatd(angle: 0.3, axis: SIMD3(0, 1, 0)), translation: SIMD3(0.2, -0.05, 0.4))
    let moved = detector.applyWorldCorrection(correction).updated
    try #require(moved.count == 3)
    for (old, new) in zip(before, moved) {
      let expected = correction.matrix * simd_double4x4(old.transform)
      let got = simd_double4x4(new.transform)
      let columns = [
        (got.columns.0, expected.columns.0), (got.columns.1, expected.columns.1),
        (got.columns.2, expected.columns.2), (got.columns.3, expected.columns.3),
      ]
      for (a, b) in columns { #expect(simd_length(a - b) < 1e-5) }
      #expect(simd_length(SIMD3<Double>(new.center - old.center)) < 1e-5)
      #expect(abs(new.planeExtent.width - old.planeExtent.width) < 1e-5)
      #expect(abs(new.planeExtent.height - old.planeExtent.height) < 1e-5)
      #expect(new.classification == old.classification)
    }
  }
}
