import ARSim
import ARSimTestSupport
import Foundation
import Testing

@Suite("Scene reconstruction on a real capture (ARKitScenes LiDAR depth)")
struct ReconstructionRealCaptureTests {
  static let name = "arkitscenes-40777063"

  /// The capture replayed with scene reconstruction (and `planes`) to frame 50, whose frame is
  /// returned, then ten frames on; frame 50 is tracked normally.
  static func replayedFrame(planes: ARPlaneDetection) throws -> (
    ARSession, ARReplay, ARFrame
  ) {
    let session = ARSession()
    let configuration = ARWorldTrackingConfiguration()
    configuration.planeDetection = planes
    configuration.sceneReconstruction = .meshWithClassification
    let replay = try ARReplay(session: session, recording: Datasets.shared + "/" + name)
    session.run(configuration)
    try replay.step(frames: 50)
    let frame = try #require(session.currentFrame)
    try replay.step(frames: 10)
    #expect(frame.camera.trackingState == .normal)
    return (session, replay, frame)
  }

  @Test(
    "the mesh lies on the last frame's depth, and its floor faces on the floor plane",
    .enabled(if: Datasets.sharedExists(name)))
  func meshAgreesWithDepth() throws {
    // A frame whose depth has been fused and meshed since (a mesh update at least every second).
    let (session, replay, frame) = try Self.replayedFrame(planes: [.horizontal, .vertical])
    let meshes = session.anchors.compactMap { $0 as? ARMeshAnchor }
    #expect(meshes.count >= 10)

    // The mesh in the world, bucketed in 5 cm cells; floor faces' heights.
    let cell: Float = 0.05
    var buckets: [SIMD3<Int32>: [SIMD3<Float>]] = [:]
    var floorHeights: [Float] = []
    for mesh in meshes {
      let g = mesh.geometry
      for i in 0..<g.vertices.count {
        let p = mesh.transform * SIMD4(g.vertices.float3(at: i), 1)
        let world = SIMD3(p.x, p.y, p.z)
        buckets[SIMD3<Int32>((world / cell).rounded(.down)), default: []].append(world)
      }
      let classes = try #require(g.classification)
      for f in 0..<g.faces.count where classes.uchar(at: f) == UInt8(ARMeshClassification.floor.rawValue) {
        let corner = g.vertices.float3(at: Int(g.faces.indices(of: f)[0]))
        floorHeights.append((mesh.transform * SIMD4(corner, 1)).y)
      }
    }
    func nearest(_ p: SIMD3<Float>) -> Float {
      let key = SIMD3<Int32>((p / cell).rounded(.down))
      var best = Float.infinity
      for dz: Int32 in -1...1 {
        for dy: Int32 in -1...1 {
          for dx: Int32 in -1...1 {
            for q in buckets[key &+ SIMD3(dx, dy, dz)] ?? [] { best = min(best, simd_length(q - p)) }
          }
        }
      }
      return best
    }

    // Confident depth pixels of the last frame (a grid of them), in the world through its camera.
    let depth = try #require(frame.sceneDepth)
    let k = (replay.info.depthIntrinsics ?? replay.info.intrinsics).scaled(
      toWidth: depth.depthMap.width, height: depth.depthMap.height)
    var distances: [Float] = []
    for v in stride(from: 8, to: depth.depthMap.height, by: 16) {
      for u in stride(from: 8, to: depth.depthMap.width, by: 16) {
        let index = v * depth.depthMap.width + u
        let z = depth.depthMap.metres[index]
        guard z.isFinite, z > 0.2, z < 3.5, (depth.confidenceMap?.levels[index] ?? 2) >= 1 else { continue }
        let x = Float((Double(u) - k.cx) / k.fx) * z
        let y = Float((Double(v) - k.cy) / k.fy) * z
        let p = frame.camera.transform * SIMD4(x, -y, -z, 1)
        distances.append(nearest(SIMD3(p.x, p.y, p.z)))
      }
    }
    #expect(distances.count > 100)
    let within = distances.filter { $0 <= 0.05 }.count
    #expect(Double(within) >= 0.8 * Double(distances.count), "\(within) of \(distances.count) within 5 cm")

    let floor = session.anchors.compactMap { $0 as? ARPlaneAnchor }.first { $0.classification == .floor }
    #expect(floorHeights.count > 100)
    if let floor {
      let median = floorHeights.sorted()[floorHeights.count / 2]
      #expect(abs(median - floor.transform.columns.3.y) < 0.05)
    }
  }

  @Test(
    "an estimatedPlane raycast at wall pixels hits the wall's mesh within 2 cm of the pixels' depth (median)",
    .enabled(if: Datasets.sharedExists(name)))
  func raycastAtWalls() throws {
    // Every 50th frame over the whole run, its wall pixels cast against the mesh ten frames later
    // (fused from its depth and meshed since: a mesh update at least every second); one frame alone
    // samples one wall at one moment of the tracking.
    let session = ARSession()
    let configuration = ARWorldTrackingConfiguration()
    configuration.sceneReconstruction = .meshWithClassification
    let replay = try ARReplay(session: session, recording: Datasets.shared + "/" + Self.name)
    session.run(configuration)
    var errors: [Double] = []
    var alignments: [ARRaycastQuery.TargetAlignment] = []
    var stepped = 0
    var sampled = 0
    for target in stride(from: 50, to: replay.info.frameCount - 10, by: 50) {
      try replay.step(frames: target - stepped)
      let frame = try #require(session.currentFrame)
      try replay.step(frames: 10)
      stepped = target + 10
      guard frame.camera.trackingState == .normal, let depth = frame.sceneDepth?.depthMap else { continue }
      sampled += 1
      Self.castAtWalls(frame: frame, depth: depth, replay: replay, session: session) {
        errors.append($0)
        if let alignment = $1 { alignments.append(alignment) }
      }
    }
    #expect(sampled >= 10 && errors.count >= 100, "\(errors.count) wall pixels in \(sampled) frames")
    let sorted = errors.sorted()
    let median = sorted[sorted.count / 2]
    #expect(median < 0.02, "median distance from the depth \(median) m over \(errors.count) wall pixels")
    let vertical = alignments.filter { $0 == .vertical }.count
    #expect(Double(vertical) >= 0.7 * Double(errors.count), "\(vertical) of \(errors.count) hits vertical")
  }

  /// Casts an `.estimatedPlane` ray from the frame's camera through each wall pixel of its depth and
  /// reports the distance of the hit from the depth's point along the ray (infinity when nothing is
  /// hit) and the hit's alignment. Wall pixels, by rule: on a 12-pixel grid, those whose 9x9
  /// neighbourhood of depth is one plane (every sampled neighbour within 1 cm of the plane through the
  /// pixel and its four neighbours 4 pixels away) whose normal is within 10 degrees of horizontal.
  static func castAtWalls(
    frame: ARFrame, depth: DepthImage, replay: ARReplay, session: ARSession,
    report: (Double, ARRaycastQuery.TargetAlignment?) -> Void
  ) {
    let k = (replay.info.depthIntrinsics ?? replay.info.intrinsics).scaled(
      toWidth: depth.width, height: depth.height)
    func point(_ u: Int, _ v: Int) -> SIMD3<Double>? {
      guard u >= 0, v >= 0, u < depth.width, v < depth.height else { return nil }
      let z = Double(depth.metres[v * depth.width + u])
      guard z.isFinite, z > 0.3, z < 3.5 else { return nil }
      let camera = SIMD3((Double(u) - k.cx) / k.fx * z, -(Double(v) - k.cy) / k.fy * z, -z)
      return frame.camera.worldFromCamera.apply(to: camera)
    }
    for v in stride(from: 10, to: depth.height - 10, by: 12) {
      for u in stride(from: 10, to: depth.width - 10, by: 12) {
        guard let p = point(u, v), let right = point(u + 4, v), let left = point(u - 4, v),
          let down = point(u, v + 4), let up = point(u, v - 4)
        else { continue }
        let normal = simd_normalize(simd_cross(right - left, down - up))
        guard abs(normal.y) < sin(10 * Double.pi / 180) else { continue }
        var planar = true
        for dv in stride(from: -4, through: 4, by: 2) {
          for du in stride(from: -4, through: 4, by: 2) {
            guard let q = point(u + du, v + dv), abs(simd_dot(q - p, normal)) < 0.01 else {
              planar = false
              continue
            }
          }
        }
        guard planar else { continue }
        let origin = frame.camera.worldFromCamera.translation
        let query = ARRaycastQuery(
          origin: simd_float3(origin), direction: simd_float3(p - origin), allowing: .estimatedPlane,
          alignment: .any)
        guard let hit = session.raycast(query).first else {
          report(.infinity, nil)
          continue
        }
        #expect(hit.target == .estimatedPlane)
        report(abs(Double(hit.distance) - simd_length(p - origin)), hit.targetAlignment)
      }
    }
  }
}
