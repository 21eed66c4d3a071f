import ARSimEval
import ARSimScene
import ARSimTestSupport
import Foundation
import Testing

/// A dynamic box of side `side` metres with a matching collision shape, resting friction, no bounce.
private func parcel(_ name: String, side: Float, at position: SIMD3<Float>) -> ModelEntity {
  let size = SIMD3<Float>(repeating: side)
  let shape = ShapeResource.generateBox(size: size)
  let entity = ModelEntity(
    mesh: .generateBox(size: size), materials: [SimpleMaterial()], collisionShapes: [shape])
  entity.name = name
  entity.position = position
  entity.physicsBody = PhysicsBodyComponent(
    shapes: [shape], mass: 1, material: .generate(friction: 0.8, restitution: 0), mode: .dynamic)
  return entity
}

/// A view whose session reconstructs the scene (run by the test, not the view) over `recording`.
private func meshView(_ recording: String, planes: ARPlaneDetection) throws -> (
  ARView, ARReplay
) {
  let view = ARView(frame: CGRect(x: 0, y: 0, width: 390, height: 844))
  view.automaticallyConfigureSession = false
  view.environment.sceneUnderstanding.options = [.physics, .occlusion]
  let configuration = ARWorldTrackingConfiguration()
  configuration.planeDetection = planes
  configuration.sceneReconstruction = .mesh
  view.session.run(configuration)
  return (view, try ARReplay(session: view.session, recording: recording))
}

@Suite("Physics on the reconstructed mesh (sceneUnderstanding .physics)")
struct PhysicsMeshTests {
  @Test(
    "a box dropped over the tabletop's table rests on the table's mesh, and collides with mesh chunks only",
    .enabled(if: Datasets.exists("tabletop")))
  func restsOnTheTableMesh() throws {
    let (view, replay) = try meshView(Datasets.path("tabletop"), planes: [.horizontal])
    var realWorld: [(SceneUnderstandingComponent.EntityType?, String)] = []
    let token = view.scene.subscribe(to: CollisionEvents.Began.self) { event in
      for case let real as any HasSceneUnderstanding in [event.entityA, event.entityB] {
        realWorld.append((real.sceneUnderstanding.entityType, real.name))
      }
    }
    // The first table-high horizontal plane with room on it marks where to drop (its height is the
    // plane detector's, independent of the mesh); the box is dropped once the mesh exists there.
    var table: ARPlaneAnchor?
    var dropped: ModelEntity?
    var end = 8.0
    while try replay.step() != nil, (view.session.currentFrame?.timestamp ?? 0) < end {
      guard let frame = view.session.currentFrame else { continue }
      if table == nil {
        let planes = frame.anchors.compactMap { $0 as? ARPlaneAnchor }
        table = planes.first { plane in
          let extent = plane.planeExtent
          return plane.classification == .table && extent.width > 0.3 && extent.height > 0.3
        }
      }
      if let table, dropped == nil, frame.anchors.contains(where: { $0 is ARMeshAnchor }) {
        let centre = table.transform * SIMD4(table.center, 1)
        let box = parcel("parcel", side: 0.1, at: SIMD3(centre.x, centre.y + 0.3, centre.z))
        let holder = AnchorEntity(world: .zero)
        holder.addChild(box)
        view.scene.addAnchor(holder)
        dropped = box
        // A fall of 0.25 m takes under a quarter second; four seconds let it settle.
        end = min(end, frame.timestamp + 4)
      }
    }
    let plane = try #require(table)
    let box = try #require(dropped)
    let bottom = box.position(relativeTo: nil).y - 0.05
    let height = (plane.transform * SIMD4(plane.center, 1)).y
    #expect(abs(bottom - height) < 0.015, "the box's bottom at \(bottom) m, the table plane at \(height) m")
    #expect(simd_length(box.physicsMotion?.linearVelocity ?? SIMD3(repeating: 1)) < 0.01)
    #expect(!realWorld.isEmpty)
    #expect(
      realWorld.allSatisfy { $0.0 == .meshChunk && $0.1.hasPrefix("mesh ") },
      "the real world is the mesh, not the plane slabs: \(realWorld.map(\.1))")
    withExtendedLifetime(token) {}
  }

  /// ARKitScenes' annotated boxes (metres, its z-up world) whose level top is a kitchen counter:
  /// cabinets and dishwashers with tops 0.8 to 1.0 m above the annotated floor (the lowest box
  /// bottom), not under a sink or a stove (whose tops are basins and hobs). Each as its top's
  /// top as points on a 5x5 grid over its middle 60%.
  static func counterTops(_ path: String) throws -> [[SIMD3<Double>]] {
    struct Box {
      var label: String
      var centre: SIMD3<Double>
      var lengths: SIMD3<Double>
      var axes: [SIMD3<Double>]
      var vertical: Int { (0..<3).max { abs(axes[$0].z) < abs(axes[$1].z) }! }
      var top: Double { centre.z + lengths[vertical] / 2 }
      var bottom: Double { centre.z - lengths[vertical] / 2 }
      func covers(_ p: SIMD3<Double>) -> Bool {
        (0..<3).allSatisfy { $0 == vertical || abs(simd_dot(p - centre, axes[$0])) <= lengths[$0] / 2 }
      }
    }
    let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
    let data = try #require((json as? [String: Any])?["data"] as? [[String: Any]])
    let boxes = try data.map { item -> Box in
      let obb = try #require((item["segments"] as? [String: Any])?["obbAligned"] as? [String: Any])
      let c = try #require(obb["centroid"] as? [Double])
      let l = try #require(obb["axesLengths"] as? [Double])
      let a = try #require(obb["normalizedAxes"] as? [Double])
      return Box(
        label: try #require(item["label"] as? String), centre: SIMD3(c[0], c[1], c[2]),
        lengths: SIMD3(l[0], l[1], l[2]), axes: (0..<3).map { SIMD3(a[3 * $0], a[3 * $0 + 1], a[3 * $0 + 2]) }
      )
    }
    let floor = try #require(boxes.map(\.bottom).min())
    let covered = boxes.filter { $0.label == "sink" || $0.label == "stove" }
    return boxes.filter { box in
      ["cabinet", "dishwasher"].contains(box.label) && abs(box.axes[box.vertical].z) > 0.99
        && (0.8...1.0).contains(box.top - floor)
        && !covered.contains { $0.covers(SIMD3(box.centre.x, box.centre.y, box.top)) }
    }.map { box in
      let across = (0..<3).filter { $0 != box.vertical }
      let centre = SIMD3(box.centre.x, box.centre.y, box.top)
      let u: SIMD3<Double> = 0.15 * box.lengths[across[0]] * box.axes[across[0]]
      let v: SIMD3<Double> = 0.15 * box.lengths[across[1]] * box.axes[across[1]]
      var grid: [SIMD3<Double>] = []
      for i in -2...2 {
        for j in -2...2 { grid.append(centre + Double(i) * u + Double(j) * v) }
      }
      return grid
    }
  }

  @Test(
    "a box dropped over the ARKitScenes kitchen counter comes to rest on the counter's mesh",
    .enabled(if: Datasets.sharedExists("arkitscenes-40777063")))
  func restsOnTheKitchenCounter() throws {
    let folder = Datasets.shared + "/arkitscenes-40777063"
    let tops = try Self.counterTops(folder + "/40777063_3dod_annotation.json")
    #expect(tops.count >= 3)
    let (view, replay) = try meshView(folder, planes: [])
    // Tracked and reference camera positions, to map the annotation into the session's world.
    var tracked: [SIMD3<Double>] = []
    var reference: [SIMD3<Double>] = []
    // Each frame's depth lifted into the session world: the counter's height measured without the mesh.
    var depthPoints: [SIMD3<Double>] = []
    func step() throws {
      guard try replay.step() != nil, let frame = view.session.currentFrame else { return }
      guard frame.camera.trackingState == ARCamera.TrackingState.normal else { return }
      if let truth = replay.lastFrame?.groundTruth {
        tracked.append(frame.camera.worldFromCamera.translation)
        reference.append(truth.translation)
      }
      guard let depth = frame.sceneDepth?.depthMap else { return }
      let k = (replay.info.depthIntrinsics ?? replay.info.intrinsics).scaled(
        toWidth: depth.width, height: depth.height)
      for v in stride(from: 2, to: depth.height, by: 4) {
        for u in stride(from: 2, to: depth.width, by: 4) {
          let z = Double(depth.metres[v * depth.width + u])
          guard z.isFinite, z > 0.2, z < 3 else { continue }
          let x = (Double(u) - k.cx) / k.fx * z
          let y = (Double(v) - k.cy) / k.fy * z
          depthPoints.append(frame.camera.worldFromCamera.apply(to: SIMD3(x, -y, -z)))
        }
      }
    }
    for _ in 0..<40 { try step() }
    let alignment = try Similarity.umeyama(from: reference, to: tracked, withScale: false)
    // The counter's height from the raw depth: points within 8 cm of a point over a top across and
    // within 15 cm of its annotated height. The drop goes over the flattest such neighbourhood
    // (the least spread between its 10th and 90th percentile heights) of at least 50 points.
    func heights(over top: SIMD3<Double>) -> [Double] {
      let target = alignment.apply(to: top)
      return depthPoints.filter {
        simd_length(SIMD2($0.x - target.x, $0.z - target.z)) < 0.08 && abs($0.y - target.y) < 0.15
      }.map(\.y).sorted()
    }
    func spread(_ heights: [Double]) -> Double {
      heights.count < 50 ? .infinity : heights[heights.count * 9 / 10] - heights[heights.count / 10]
    }
    let top = try #require(tops.joined().min { spread(heights(over: $0)) < spread(heights(over: $1)) })
    let target = alignment.apply(to: top)
    let counterHeights = heights(over: top)
    let residual = zip(reference, tracked).map { simd_length(alignment.apply(to: $0) - $1) }.max() ?? 0
    try #require(
      counterHeights.count >= 50,
      "\(counterHeights.count) depth points over the counter at \(target) (alignment residual \(residual) m)")
    let counter = counterHeights[counterHeights.count / 2]
    let box = parcel("parcel", side: 0.1, at: SIMD3(Float(target.x), Float(counter) + 0.3, Float(target.z)))
    let holder = AnchorEntity(world: .zero)
    holder.addChild(box)
    view.scene.addAnchor(holder)
    for _ in 0..<30 { try step() }
    let bottom = Double(box.position(relativeTo: nil).y) - 0.05
    #expect(
      abs(bottom - counter) < 0.02, "the box's bottom at \(bottom) m, the counter's depth at \(counter) m")
    #expect(simd_length(box.physicsMotion?.linearVelocity ?? SIMD3(repeating: 1)) < 0.01)
    let moved = simd_length(SIMD2(Double(box.position.x) - target.x, Double(box.position.z) - target.z))
    #expect(moved < 0.05, "the box stayed where it fell (\(moved) m across)")
  }
}
