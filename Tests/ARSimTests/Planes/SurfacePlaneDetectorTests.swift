import ARSim
import ARSimTestSupport
import Foundation
import Testing

/// The surface detector of sessions with depth: planar surfaces of each depth map, one anchor per
/// surface, on it, that a moving object does not leave behind.
@Suite("Plane detection from depth surfaces")
struct SurfacePlaneDetectorTests {
  /// A room corner: the floor at y = 0 and a wall at z = −3, a table top at 0.75 m.
  static let room = DepthScene(rectangles: [
    .init(axis: 1, value: 0, low: SIMD2(-3, -3), high: SIMD2(3, 1)),
    .init(axis: 2, value: -3, low: SIMD2(-3, 0), high: SIMD2(3, 2.5)),
    .init(axis: 1, value: 0.75, low: SIMD2(-0.4, -1.8), high: SIMD2(0.6, -1.0)),
  ])

  /// Runs the detector over `frames` poses sweeping across the room; returns it and every frame's
  /// changes.
  static func run(
    _ scene: DepthScene, frames: Int = 24, noise: Double = 0.002,
    moving: ((Int) -> DepthScene.Rectangle?)? = nil
  ) -> (SurfacePlaneDetector, [PlaneAnchorChanges]) {
    let detector = SurfacePlaneDetector(options: PlaneDetectionOptions(), seed: 9)
    var random = SplitMix64(seed: 4)
    var changes: [PlaneAnchorChanges] = []
    for f in 0..<frames {
      let x = -0.6 + 1.2 * Double(f) / Double(max(frames - 1, 1))
      let pose = DepthScene.pose(at: SIMD3(x, 1.5, 0.5), lookingAt: SIMD3(x * 0.5, 0.4, -2))
      var frameScene = scene
      if let extra = moving?(f) { frameScene.rectangles.append(extra) }
      let depth = frameScene.depth(from: pose, noise: noise, random: &random)
      changes.append(
        detector.process(
          timestamp: Double(f) / 10, depth: depth, worldFromCamera: pose, intrinsics: DepthScene.intrinsics))
    }
    return (detector, changes)
  }

  @Test("one frame's depth gives the floor, the wall and the table top as surfaces on their planes")
  func frameSurfacesLieOnTheirPlanes() {
    let extractor = FrameSurfaceExtractor(
      options: PlaneDetectionOptions.DepthSurfaces(), alignments: [.horizontal, .vertical])
    var random = SplitMix64(seed: 1)
    let pose = DepthScene.pose(at: SIMD3(0, 1.5, 0.5), lookingAt: SIMD3(0, 0.4, -2))
    let depth = Self.room.depth(from: pose, random: &random)
    let surfaces = extractor.surfaces(depth: depth, intrinsics: DepthScene.intrinsics, worldFromCamera: pose)
    let floors = surfaces.filter { $0.alignment == .horizontal && ($0.plane.offset).magnitude < 0.01 }
    let tables = surfaces.filter { $0.alignment == .horizontal && (-$0.plane.offset - 0.75).magnitude < 0.01 }
    let walls = surfaces.filter { $0.alignment == .vertical }
    #expect(floors.count == 1)
    #expect(tables.count == 1)
    #expect(walls.count == 1)
    if let wall = walls.first {
      #expect(simd_dot(wall.plane.normal, SIMD3(0, 0, 1)) > 0.9999)
      #expect(wall.plane.signedDistance(to: SIMD3(0, 1, -3)).magnitude < 0.002)
    }
    // The footprint lies on the plane, inside the rectangle it came from.
    for table in tables {
      for p in table.points {
        #expect((p.y - 0.75).magnitude < 1e-6)
        #expect(p.x > -0.41 && p.x < 0.61 && p.z > -1.81 && p.z < -0.99)
      }
    }
    // No surface between the table and the floor, or across the table's edge.
    #expect(surfaces.count == 3)
  }

  @Test("a sweep over a room corner gives one anchor per surface, classified, its outline on the surface")
  func oneAnchorPerSurface() throws {
    let (detector, _) = Self.run(Self.room)
    let anchors = detector.anchors
    #expect(anchors.count == 3)
    let floor = try #require(anchors.first { $0.classification == .floor })
    let wall = try #require(anchors.first { $0.classification == .wall })
    let table = try #require(anchors.first { $0.classification == .table })
    for (anchor, rectangle) in [
      (floor, Self.room.rectangles[0]), (wall, Self.room.rectangles[1]), (table, Self.room.rectangles[2]),
    ] {
      let m = RigidTransform(matrix: anchor.transform)
      for v in anchor.geometry.boundaryVertices {
        let p = m.apply(to: SIMD3<Double>(v))
        #expect((p[rectangle.axis] - rectangle.value).magnitude < 0.005)
        let others = [0, 1, 2].filter { $0 != rectangle.axis }
        #expect(p[others[0]] >= rectangle.low.x - 0.03 && p[others[0]] <= rectangle.high.x + 0.03)
        #expect(
          p[others[1]] >= rectangle.low.y - 0.03 && p[others[1]] <= rectangle.high.y + 0.03,
          "\(anchor.classification) vertex \(p)")
      }
    }
    // The table top's outline covers most of it (1 m × 0.8 m; its cells are inset by a quarter of
    // theirs, and its far edge is seen at a grazing angle).
    let area = Polygon2D.area(table.geometry.boundaryVertices.map { SIMD2(Double($0.x), Double($0.z)) })
    #expect(area > 0.5 && area <= 0.8 + 0.05, "table outline \(area) m²")
  }

  @Test("a box that crosses the view leaves no anchor: later frames see through where it was")
  func movingObjectLeavesNoAnchor() {
    // A 0.5 m × 1.2 m board facing the camera at z = −1.5 for the first third of the sweep, gone after.
    let (detector, changes) = Self.run(Self.room, frames: 36) { f in
      f < 12 ? .init(axis: 2, value: -1.5, low: SIMD2(-0.25, 0.3), high: SIMD2(0.25, 1.5)) : nil
    }
    let added = changes.flatMap(\.added).filter { $0.alignment == .vertical }
    let board = added.filter { RigidTransform(matrix: $0.transform).translation.z > -2 }
    #expect(!board.isEmpty, "the board is seen long enough to be an anchor while it stands")
    #expect(
      detector.anchors.allSatisfy {
        RigidTransform(matrix: $0.transform).translation.z < -2 || $0.alignment == .horizontal
      })
    let removed = Set(changes.flatMap(\.removed).map(\.anchor.identifier))
    #expect(board.allSatisfy { removed.contains($0.identifier) })
  }

  @Test("the same depth and poses give the same anchors, bit for bit")
  func deterministic() {
    let (a, _) = Self.run(Self.room, frames: 10)
    let (b, _) = Self.run(Self.room, frames: 10)
    #expect(a.anchors.map(\.identifier) == b.anchors.map(\.identifier))
    #expect(a.anchors.map(\.transform) == b.anchors.map(\.transform))
    #expect(a.anchors.map(\.geometry.boundaryVertices) == b.anchors.map(\.geometry.boundaryVertices))
  }

  @Test("two pieces of one floor seen apart merge into the older when a frame shows them joined")
  func piecesMerge() {
    let detector = SurfacePlaneDetector(options: PlaneDetectionOptions(), seed: 2)
    var random = SplitMix64(seed: 3)
    let floor = DepthScene(rectangles: [.init(axis: 1, value: 0, low: SIMD2(-6, -6), high: SIMD2(6, 6))])
    var all = PlaneAnchorChanges()
    // Left piece, right piece, then the whole between them, each from above.
    let targets: [Double] =
      Array(repeating: -1.2, count: 6) + Array(repeating: 1.2, count: 6) + Array(repeating: 0, count: 6)
    for (f, x) in targets.enumerated() {
      let pose = DepthScene.pose(at: SIMD3(x, 1.2, 0.01), lookingAt: SIMD3(x, 0, 0))
      let depth = floor.depth(from: pose, noise: 0.002, random: &random)
      all.append(
        detector.process(
          timestamp: Double(f) / 5, depth: depth, worldFromCamera: pose, intrinsics: DepthScene.intrinsics))
    }
    #expect(all.added.count == 2)
    #expect(detector.anchors.count == 1)
    #expect(all.removed.count == 1)
    #expect(all.removed.first?.absorbedBy == detector.anchors.first?.identifier)
  }
}
