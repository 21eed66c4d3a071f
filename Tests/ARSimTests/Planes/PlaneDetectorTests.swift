import ARSim
import ARSimTestSupport
import Foundation
import Testing

@Suite("Plane detection")
struct PlaneDetectorTests {
  static let floor = TestRectangle.horizontal(y: 0, x: -1.5...1.5, z: -3...0)
  static let table = TestRectangle.horizontal(y: 0.75, x: -0.5...0.7, z: -2...(-1.2))
  static let camera = SIMD3<Double>(0, 1.5, 0.5)

  static var floorAndTable: TestScene {
    TestScene(
      rectangles: [floor, table],
      holes: [(SIMD3(-0.5, -0.1, -2), SIMD3(0.7, 0.1, -1.2))])
  }

  private func horizontal(_ anchors: [ARPlaneAnchor], near height: Double) -> ARPlaneAnchor? {
    anchors.first {
      ($0.transform.columns.3.y - Float(height)).magnitude < 0.05 && $0.alignment == .horizontal
    }
  }

  @Test("Floor and table top: two horizontal anchors with accurate planes and boundaries")
  func floorAndTable() throws {
    let detector = PlaneDetector(options: PlaneDetectionOptions(), seed: 1)
    runFrames(detector, scene: Self.floorAndTable, frames: 12, camera: Self.camera)
    let anchors = detector.anchors
    #expect(anchors.count == 2)
    let floor = try #require(horizontal(anchors, near: 0))
    let table = try #require(horizontal(anchors, near: 0.75))
    for (anchor, truth) in [(floor, Self.floor), (table, Self.table)] {
      let facts = WorldPlaneFacts(anchor)
      #expect(facts.angleDegrees(to: truth.normal) < 1)
      #expect((facts.center.y - truth.center.y).magnitude < 0.01)
      for vertex in facts.boundary { #expect((vertex.y - truth.center.y).magnitude < 0.01) }
      #expect(facts.intersectionOverUnion(with: truth) > 0.85)
      #expect(anchor.extent == simd_float3(anchor.planeExtent.width, 0, anchor.planeExtent.height))
      #expect(anchor.planeExtent.rotationOnYAxis.magnitude <= Float.pi / 4 + 1e-6)
    }
    #expect(floor.classification == .floor)
    #expect(table.classification == .table)
  }

  @Test("Depth noise along the viewing rays does not push the boundary beyond the surface's edges")
  func boundaryUnderRayNoise() throws {
    // A depth sensor's error lies along each ray; seen obliquely, the outermost noisy points of a table
    // top lie centimetres beyond its edges. The boundary must stay within a few millimetres of them.
    let table = TestRectangle.horizontal(y: 0.75, x: -0.4...0.4, z: -1.2...(-0.6))
    let detector = PlaneDetector(options: PlaneDetectionOptions(), seed: 3)
    var random = SplitMix64(seed: 30)
    for k in 0..<30 {
      let camera = SIMD3(0.3 * sin(Double(k) / 5), 1.5, 0.4)
      let points = table.points(spacing: 0.015, jitter: 0.007, noise: 0, random: &random).map { exact in
        let p = SIMD3<Double>(exact)
        let ray = simd_normalize(p - camera)
        return SIMD3<Float>(p + 0.008 * random.gaussian() * ray)
      }
      _ = detector.process(
        PlaneDetectionInput(
          timestamp: Double(k) / 30, worldFromCamera: RigidTransform(translation: camera),
          featurePoints: [], depthPoints: points))
    }
    let anchor = try #require(horizontal(detector.anchors, near: 0.75))
    #expect(detector.anchors.count == 1)
    let facts = WorldPlaneFacts(anchor)
    let overshoot =
      facts.boundary.map { v in
        max(-0.4 - v.x, v.x - 0.4, -1.2 - v.z, v.z + 0.6, 0)
      }.max() ?? 1
    #expect(overshoot < 0.004, "the boundary reaches \(overshoot) m beyond the table")
    #expect(facts.intersectionOverUnion(with: table) > 0.95)
  }

  @Test("Two tables at one height are two anchors")
  func twoTables() throws {
    let left = TestRectangle.horizontal(y: 0.75, x: -1.4...(-0.6), z: -2...(-1.4))
    let right = TestRectangle.horizontal(y: 0.75, x: 0.4...1.2, z: -2...(-1.4))
    let scene = TestScene(
      rectangles: [Self.floor, left, right],
      holes: [(SIMD3(-1.4, -0.1, -2), SIMD3(-0.6, 0.1, -1.4)), (SIMD3(0.4, -0.1, -2), SIMD3(1.2, 0.1, -1.4))])
    let detector = PlaneDetector(options: PlaneDetectionOptions(), seed: 2)
    runFrames(detector, scene: scene, frames: 10, camera: Self.camera)
    let tables = detector.anchors.filter { ($0.transform.columns.3.y - 0.75).magnitude < 0.05 }
    try #require(tables.count == 2)
    let ious = tables.map { anchor in
      [left, right].map { WorldPlaneFacts(anchor).intersectionOverUnion(with: $0) }.max()!
    }
    for iou in ious { #expect(iou > 0.8) }
    for anchor in tables { #expect(anchor.classification == .table) }
    #expect(detector.anchors.count == 3)
  }

  @Test("A wall gives a vertical anchor whose normal faces the camera")
  func wall() throws {
    let wall = TestRectangle.wall(x: 2, y: 0...2.4, z: -2...0.5)
    let scene = TestScene(rectangles: [Self.floor, wall])
    let detector = PlaneDetector(options: PlaneDetectionOptions(), seed: 3)
    runFrames(detector, scene: scene, frames: 10, camera: Self.camera)
    let verticals = detector.anchors.filter { $0.alignment == .vertical }
    try #require(verticals.count == 1)
    let anchor = verticals[0]
    let facts = WorldPlaneFacts(anchor)
    #expect(facts.angleDegrees(to: SIMD3(-1, 0, 0)) < 1)
    #expect((facts.center.x - 2).magnitude < 0.01)
    for vertex in facts.boundary { #expect((vertex.x - 2).magnitude < 0.01) }
    #expect(facts.intersectionOverUnion(with: wall) > 0.85)
    // Anchor axes: x horizontal, z pointing down.
    let z = anchor.transform.columns.2
    #expect(z.y < -0.9999)
    #expect(anchor.transform.columns.0.y.magnitude < 1e-6)
    #expect(anchor.classification == .wall)
    #expect(detector.anchors.contains { $0.classification == .floor })
  }

  @Test("A table against a wall does not grow along the wall (horizontal detection only)")
  func tableAgainstWall() throws {
    let table = TestRectangle.horizontal(y: 0.75, x: 1.2...2, z: -2...(-1.2))
    let wall = TestRectangle.wall(x: 2, y: 0...2.4, z: -3...0.5)
    let hole = (SIMD3(1.2, -0.1, -2), SIMD3(2.0, 0.1, -1.2))
    var options = PlaneDetectionOptions()
    options.alignments = .horizontal  // nothing claims the wall's points
    let detector = PlaneDetector(options: options, seed: 16)
    runFrames(
      detector, scene: TestScene(rectangles: [Self.floor, table, wall], holes: [hole]), frames: 12,
      camera: Self.camera)
    let top = try #require(horizontal(detector.anchors, near: 0.75))
    #expect(WorldPlaneFacts(top).intersectionOverUnion(with: table) > 0.8)
    #expect(max(top.planeExtent.width, top.planeExtent.height) < 0.9)
    let bottom = try #require(horizontal(detector.anchors, near: 0))
    #expect(WorldPlaneFacts(bottom).intersectionOverUnion(with: Self.floor) > 0.8)
    #expect(detector.anchors.count == 2)
  }

  @Test("Only the requested alignments are detected")
  func alignmentsHonoured() {
    let wall = TestRectangle.wall(x: 2, y: 0...2.4, z: -2...0.5)
    let scene = TestScene(rectangles: [Self.floor, wall])
    var options = PlaneDetectionOptions()
    options.alignments = .vertical
    let vertical = PlaneDetector(options: options, seed: 3)
    runFrames(vertical, scene: scene, frames: 6, camera: Self.camera)
    #expect(vertical.anchors.count == 1)
    #expect(vertical.anchors.allSatisfy { $0.alignment == .vertical })
    options.alignments = .horizontal
    let horizontal = PlaneDetector(options: options, seed: 3)
    runFrames(horizontal, scene: scene, frames: 6, camera: Self.camera)
    #expect(horizontal.anchors.count == 1)
    #expect(horizontal.anchors.allSatisfy { $0.alignment == .horizontal })
    options.alignments = []
    let none = PlaneDetector(options: options, seed: 3)
    let changes = runFrames(none, scene: scene, frames: 4, camera: Self.camera)
    #expect(none.anchors.isEmpty && changes.allSatisfy(\.isEmpty))
  }

  @Test("Ceiling, floor, table and wall are classified")
  func classification() throws {
    let ceiling = TestRectangle.horizontal(y: 2.6, x: -1.5...1.5, z: -3...0)
    let wall = TestRectangle.wall(x: 1.8, y: 0.05...2.55, z: -3...0)
    let scene = TestScene(
      rectangles: [Self.floor, Self.table, ceiling, wall],
      holes: [(SIMD3(-0.5, -0.1, -2), SIMD3(0.7, 0.1, -1.2))])
    let detector = PlaneDetector(options: PlaneDetectionOptions(), seed: 4)
    runFrames(detector, scene: scene, frames: 12, camera: Self.camera)
    let anchors = detector.anchors
    #expect(anchors.count == 4)
    #expect(horizontal(anchors, near: 0)?.classification == .floor)
    #expect(horizontal(anchors, near: 0.75)?.classification == .table)
    let top = try #require(horizontal(anchors, near: 2.6))
    #expect(top.classification == .ceiling)
    // Horizontal anchors keep +y as their y axis, also for a ceiling.
    #expect(top.transform.columns.1 == SIMD4<Float>(0, 1, 0, 0))
    #expect(anchors.first { $0.alignment == .vertical }?.classification == .wall)
  }

  @Test("A seat between floor and table height is a seat; without a floor, undetermined")
  func seatAndUndetermined() throws {
    let seat = TestRectangle.horizontal(y: 0.45, x: -0.5...0.1, z: -2...(-1.4))
    let scene = TestScene(
      rectangles: [Self.floor, seat], holes: [(SIMD3(-0.5, -0.1, -2), SIMD3(0.1, 0.1, -1.4))])
    let detector = PlaneDetector(options: PlaneDetectionOptions(), seed: 5)
    runFrames(detector, scene: scene, frames: 8, camera: Self.camera)
    #expect(horizontal(detector.anchors, near: 0.45)?.classification == .seat)

    let tableOnly = PlaneDetector(options: PlaneDetectionOptions(), seed: 5)
    runFrames(tableOnly, scene: TestScene(rectangles: [Self.table]), frames: 8, camera: Self.camera)
    let anchor = try #require(tableOnly.anchors.first)
    #expect(anchor.classification == .none(.undetermined))
  }

  @Test("Anchors grow as more of the plane is seen while the transform stays fixed")
  func growth() throws {
    let detector = PlaneDetector(options: PlaneDetectionOptions(), seed: 6)
    var random = SplitMix64(seed: 60)
    var first: ARPlaneAnchor?
    var areas: [Float] = []
    var updates = 0
    for k in 0..<16 {
      let reach = min(-1.0 + 0.25 * Double(k), 1.5)
      let visible = TestRectangle.horizontal(y: 0, x: -1.5...reach, z: -2...0)
      let scene = TestScene(rectangles: [visible], outlierFraction: 0.1)
      let changes = detector.process(
        PlaneDetectionInput(
          timestamp: Double(k) / 30, worldFromCamera: RigidTransform(translation: Self.camera),
          featurePoints: [], depthPoints: scene.frame(random: &random)))
      if let added = changes.added.first {
        #expect(first == nil)
        first = added
      }
      for anchor in changes.updated {
        let original = try #require(first)
        #expect(anchor.identifier == original.identifier)
        #expect(anchor.transform == original.transform)
        updates += 1
      }
      #expect(changes.removed.isEmpty)
      if let current = detector.anchors.first {
        areas.append(current.planeExtent.width * current.planeExtent.height)
      }
    }
    let original = try #require(first)
    let final = try #require(detector.anchors.first)
    #expect(detector.anchors.count == 1)
    #expect(updates >= 5)
    #expect(original.center == .zero)
    #expect(final.center != .zero)
    #expect(final.transform == original.transform)
    #expect(zip(areas, areas.dropFirst()).allSatisfy { $0 <= $1 + 1e-4 })
    #expect(areas.last! > 2 * areas.first!)
    let truth = TestRectangle.horizontal(y: 0, x: -1.5...1.5, z: -2...0)
    #expect(WorldPlaneFacts(final).intersectionOverUnion(with: truth) > 0.85)
  }

  @Test("Two anchors on one surface merge when the gap is seen; the older absorbs the younger")
  func merge() throws {
    // At table height, with no floor in view: pieces of floor would merge across the gap at once.
    let left = TestRectangle.horizontal(y: 0.75, x: -2...(-1), z: -2...0)
    let right = TestRectangle.horizontal(y: 0.75, x: 1...2, z: -2...0)
    let whole = TestRectangle.horizontal(y: 0.75, x: -2...2, z: -2...0)
    let detector = PlaneDetector(options: PlaneDetectionOptions(), seed: 8)
    runFrames(detector, scene: TestScene(rectangles: [left, right]), frames: 6, camera: Self.camera)
    let before = detector.anchors
    try #require(before.count == 2)
    let changes = runFrames(
      detector, scene: TestScene(rectangles: [whole]), frames: 10, camera: Self.camera, seed: 9, firstFrame: 6
    )
    let removals = changes.flatMap(\.removed)
    try #require(removals.count == 1)
    #expect(removals[0].anchor.identifier == before[1].identifier)
    #expect(removals[0].absorbedBy == before[0].identifier)
    let after = detector.anchors
    #expect(after.count == 1)
    #expect(after.first?.identifier == before[0].identifier)
    #expect(after.first?.transform == before[0].transform)
    #expect(WorldPlaneFacts(after[0]).intersectionOverUnion(with: whole) > 0.85)
    // The absorbed anchor is never updated after its removal.
    let removalFrame = try #require(changes.firstIndex { !$0.removed.isEmpty })
    for later in changes[removalFrame...] {
      #expect(!later.updated.contains { $0.identifier == before[1].identifier })
    }
  }

  @Test("Points with NaN or infinite coordinates are ignored")
  func nonFinitePoints() throws {
    let clean = PlaneDetector(options: PlaneDetectionOptions(), seed: 10)
    let dirty = PlaneDetector(options: PlaneDetectionOptions(), seed: 10)
    var random = SplitMix64(seed: 11)
    let bad: [SIMD3<Float>] = [
      SIMD3(.nan, 0, 0), SIMD3(0, .infinity, 0), SIMD3(0, 0, -.infinity), SIMD3(.nan, .nan, .nan),
      SIMD3(1e30, 0, 0),
    ]
    for k in 0..<8 {
      let points = Self.floorAndTable.frame(random: &random)
      var noisy = points
      for (i, b) in bad.enumerated() { noisy.insert(b, at: (i * 97 + k) % noisy.count) }
      let features = bad.enumerated().map {
        FeaturePoint(identifier: UInt64($0.offset), position: SIMD3<Double>($0.element))
      }
      let pose = RigidTransform(translation: Self.camera)
      let a = clean.process(
        PlaneDetectionInput(
          timestamp: 0, worldFromCamera: pose, featurePoints: [], depthPoints: points))
      let b = dirty.process(
        PlaneDetectionInput(
          timestamp: 0, worldFromCamera: pose, featurePoints: features, depthPoints: noisy))
      #expect(a.added.count == b.added.count && a.updated.count == b.updated.count)
    }
    try #require(clean.anchors.count == 2)
    #expect(PlaneAnchorSignature.of(clean.anchors) == PlaneAnchorSignature.of(dirty.anchors))
    for anchor in dirty.anchors {
      #expect(anchor.geometry.boundaryVertices.allSatisfy { $0.x.isFinite && $0.y.isFinite && $0.z.isFinite })
      #expect(anchor.center.x.isFinite && anchor.center.y.isFinite && anchor.center.z.isFinite)
    }
  }

  @Test("The same seed and inputs give identical anchors and identifiers")
  func determinism() throws {
    let wall = TestRectangle.wall(x: 2, y: 0...2.4, z: -2...0.5)
    var scene = Self.floorAndTable
    scene.rectangles.append(wall)
    func run(seed: UInt64) -> (PlaneDetector, [PlaneAnchorChanges]) {
      let detector = PlaneDetector(options: PlaneDetectionOptions(), seed: seed)
      let changes = runFrames(detector, scene: scene, frames: 8, camera: Self.camera)
      return (detector, changes)
    }
    let (a, changesA) = run(seed: 42)
    let (b, changesB) = run(seed: 42)
    try #require(a.anchors.count == 3)
    #expect(PlaneAnchorSignature.of(a.anchors) == PlaneAnchorSignature.of(b.anchors))
    for (x, y) in zip(changesA, changesB) {
      #expect(PlaneAnchorSignature.of(x.added) == PlaneAnchorSignature.of(y.added))
      #expect(PlaneAnchorSignature.of(x.updated) == PlaneAnchorSignature.of(y.updated))
    }
    let (c, _) = run(seed: 43)
    #expect(Set(c.anchors.map(\.identifier)).isDisjoint(with: a.anchors.map(\.identifier)))
  }

  @Test("Feature points alone (sparse landmarks) are enough for a plane")
  func featurePointsOnly() throws {
    let detector = PlaneDetector(options: PlaneDetectionOptions(), seed: 12)
    var random = SplitMix64(seed: 13)
    // 400 fixed landmarks on the table top, re-observed with small noise every frame.
    let landmarks = (0..<400).map { _ in
      SIMD3(random.uniform(-0.5, 0.7), 0.75, random.uniform(-2, -1.2))
    }
    for k in 0..<6 {
      let features = landmarks.enumerated().map { i, p in
        FeaturePoint(
          identifier: UInt64(i),
          position: p + 0.002 * SIMD3(random.gaussian(), random.gaussian(), random.gaussian()))
      }
      _ = detector.process(
        PlaneDetectionInput(
          timestamp: Double(k) / 30, worldFromCamera: RigidTransform(translation: Self.camera),
          featurePoints: features, depthPoints: []))
    }
    let anchor = try #require(detector.anchors.first)
    #expect(detector.anchors.count == 1)
    let facts = WorldPlaneFacts(anchor)
    #expect((facts.center.y - 0.75).magnitude < 0.01)
    #expect(facts.intersectionOverUnion(with: Self.table) > 0.75)
  }

  @Test("A dense stream (about 5000 points a frame over a moving view) stays bounded and correct")
  func denseStream() throws {
    var options = PlaneDetectionOptions()
    options.maximumVoxelCount = 20_000
    let detector = PlaneDetector(options: options, seed: 14)
    var random = SplitMix64(seed: 15)
    for k in 0..<40 {
      // A window sliding along z shows part of the floor and the wall.
      let z0 = -4 + 0.1 * Double(k)
      let floorPart = TestRectangle.horizontal(y: 0, x: -2...2, z: z0...(z0 + 1.2))
      let wallPart = TestRectangle.wall(x: 2, y: 0...2.4, z: z0...(z0 + 1.2))
      let scene = TestScene(rectangles: [floorPart, wallPart], spacing: 0.03)
      let points = scene.frame(random: &random)
      _ = detector.process(
        PlaneDetectionInput(
          timestamp: Double(k) / 30,
          worldFromCamera: RigidTransform(translation: SIMD3(0, 1.5, z0 + 0.6)), featurePoints: [],
          depthPoints: points))
      #expect(detector.voxelCount <= options.maximumVoxelCount)
    }
    let anchors = detector.anchors
    #expect(anchors.count == 2)
    let floor = try #require(anchors.first { $0.alignment == .horizontal })
    let side = try #require(anchors.first { $0.alignment == .vertical })
    #expect((WorldPlaneFacts(floor).center.y).magnitude < 0.01)
    #expect((WorldPlaneFacts(side).center.x - 2).magnitude < 0.01)
    let floorIoU = WorldPlaneFacts(floor).intersectionOverUnion(
      with: TestRectangle.horizontal(y: 0, x: -2...2, z: -4...(-4 + 0.1 * 39 + 1.2)))
    #expect(floorIoU > 0.8)
  }
}
