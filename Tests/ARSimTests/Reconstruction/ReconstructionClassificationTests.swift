import ARSim
import ARSimTestSupport
import Foundation
import Testing

@Suite("Scene reconstruction: per-face classification from geometry")
struct ReconstructionClassificationTests {
  @Test("the known scene's floor, table top and wall faces are classified floor, table and wall")
  func classification() throws {
    let scene = KnownScene()
    var options = SceneReconstructionOptions()
    options.maxDepth = 5
    let reconstructor = try SceneReconstructor(
      options: options, classifies: true, planeOptions: PlaneDetectionOptions(), sessionIdentifier: nil,
      seed: 1)
    for (i, pose) in scene.poses(8).enumerated() {
      #expect(reconstructor.isDue(at: Double(i) * 0.1))
      try reconstructor.integrate(
        depth: scene.depth(from: pose), confidence: nil, intrinsics: scene.intrinsics, worldFromCamera: pose,
        at: Double(i) * 0.1)
      #expect(!reconstructor.isDue(at: Double(i) * 0.1 + 0.05), "within the integration interval")
    }
    let changes = reconstructor.update(at: 0)
    #expect(!changes.added.isEmpty && changes.updated.isEmpty && changes.removed.isEmpty)
    #expect(changes.added.map(\.identifier) == reconstructor.anchors.map(\.identifier))
    var counts: [String: (right: Int, all: Int)] = [:]
    for anchor in changes.added {
      let g = anchor.geometry
      let classes = try #require(g.classification)
      for f in 0..<g.faces.count {
        let corners = g.faces.indices(of: f).map { i -> SIMD3<Float> in
          let p = anchor.transform * SIMD4(g.vertices.float3(at: Int(i)), 1)
          return SIMD3(p.x, p.y, p.z)
        }
        let centre = (corners[0] + corners[1] + corners[2]) / 3
        let label = ARMeshClassification(rawValue: Int(classes.uchar(at: f)))
        let expected: (String, ARMeshClassification)?
        if centre.y < 0.01, abs(centre.x) > 0.5 || centre.z > -0.7 {
          expected = ("floor", .floor)
        } else if abs(centre.y - 0.75) < 0.01, abs(centre.x) < 0.3, centre.z > -1.5, centre.z < -0.9 {
          expected = ("table", .table)
        } else if centre.z < -2.99, centre.y > 0.2 {
          expected = ("wall", .wall)
        } else {
          expected = nil
        }
        guard let (name, wanted) = expected else { continue }
        counts[name, default: (0, 0)].all += 1
        if label == wanted { counts[name, default: (0, 0)].right += 1 }
      }
    }
    for name in ["floor", "table", "wall"] {
      let (right, all) = counts[name] ?? (0, 0)
      #expect(all > 50, "\(name): \(all) faces")
      #expect(Double(right) >= 0.95 * Double(all), "\(name): \(right) of \(all) faces")
    }
    // Nothing new: no changes; a world correction moves every anchor.
    #expect(reconstructor.update(at: 1).isEmpty)
    let shift = RigidTransform(translation: SIMD3(0, 0.5, 0))
    let moved = reconstructor.applyWorldCorrection(shift)
    #expect(moved.count == changes.added.count)
    #expect(abs(moved[0].transform.columns.3.y - changes.added[0].transform.columns.3.y - 0.5) < 1e-5)
    #expect(reconstructor.reset().count == changes.added.count && reconstructor.anchors.isEmpty)
  }

  @Test(
    "a loop closure's deformation fuses the kept depth maps again where the correction of their time puts them"
  )
  func deformation() throws {
    let scene = KnownScene()
    var options = SceneReconstructionOptions()
    options.maxDepth = 5
    let reconstructor = try SceneReconstructor(
      options: options, classifies: true, planeOptions: PlaneDetectionOptions(), sessionIdentifier: nil,
      seed: 1)
    for (i, pose) in scene.poses(6).enumerated() {
      try reconstructor.integrate(
        depth: scene.depth(from: pose), confidence: nil, intrinsics: scene.intrinsics, worldFromCamera: pose,
        at: Double(i))
    }
    let before = reconstructor.update(at: 6).added
    #expect(reconstructor.keyframeCount >= 1 && reconstructor.keyframeCount <= 6)
    // Everything mapped from time 0 on moves up 0.3 m.
    let lift = RigidTransform(translation: SIMD3(0, 0.3, 0))
    reconstructor.applyWorldDeformation(
      WorldDeformation(since: 0, corrections: [(time: 0, newFromOld: lift)]))
    let after = reconstructor.update(at: 6.1, force: true)
    #expect(!after.updated.isEmpty)
    #expect(Set(after.updated.map(\.identifier)).isSubset(of: Set(before.map(\.identifier))))
    // The floor's faces are now at 0.3 m.
    var floor: [Float] = []
    for anchor in reconstructor.anchors {
      let g = anchor.geometry
      let classes = try #require(g.classification)
      for f in 0..<g.faces.count where classes.uchar(at: f) == UInt8(ARMeshClassification.floor.rawValue) {
        floor.append((anchor.transform * SIMD4(g.vertices.float3(at: Int(g.faces.indices(of: f)[0])), 1)).y)
      }
    }
    #expect(floor.count > 100)
    #expect(abs(floor.sorted()[floor.count / 2] - 0.3) < 0.005)
  }
}
