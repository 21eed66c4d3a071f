import ARSim
import ARSimTestSupport
import Foundation
import Testing

@Suite("Scene reconstruction on a real capture (ARKitScenes LiDAR depth)")
struct ReconstructionRealCaptureTests {
  static let name = "arkitscenes-40777063"

  @Test(
    "the mesh lies on the last frame's depth, and its floor faces on the floor plane",
    .enabled(if: Datasets.sharedExists(name)))
  func meshAgreesWithDepth() throws {
    let session = ARSession()
    let configuration = ARWorldTrackingConfiguration()
    configuration.planeDetection = [.horizontal, .vertical]
    configuration.sceneReconstruction = .meshWithClassification
    let replay = try ARReplay(session: session, recording: Datasets.shared + "/" + Self.name)
    session.run(configuration)
    // A frame whose depth has been fused and meshed since (a mesh update at least every 0.5 s).
    try replay.step(frames: 50)
    let frame = try #require(session.currentFrame)
    try replay.step(frames: 10)
    #expect(frame.camera.trackingState == .normal)
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
}
