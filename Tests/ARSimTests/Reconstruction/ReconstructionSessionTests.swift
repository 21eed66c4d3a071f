import ARSim
import ARSimTestSupport
import Foundation
import Testing

/// Collects the mesh anchors a session reports, and its errors.
private final class MeshRecorder: ARSessionDelegate, @unchecked Sendable {
  var added: [ARMeshAnchor] = []
  var updated: [ARMeshAnchor] = []
  var removed: [ARMeshAnchor] = []
  var errors: [String] = []
  /// Each mesh callback as text with the anchor's identifier and a digest of its geometry's bytes.
  var log: [String] = []
  /// Whether the session's device could reconstruct, asked from inside a callback.
  var supportedInCallback: Bool?

  func session(_ session: ARSession, didAdd anchors: [ARAnchor]) { note("add", anchors, into: &added) }
  func session(_ session: ARSession, didUpdate anchors: [ARAnchor]) {
    note("update", anchors, into: &updated)
  }
  func session(_ session: ARSession, didRemove anchors: [ARAnchor]) {
    note("remove", anchors, into: &removed)
  }
  func session(_ session: ARSession, didFailWithError error: any Error) { errors.append("\(error)") }
  func session(_ session: ARSession, didUpdate frame: ARFrame) {
    supportedInCallback = ARWorldTrackingConfiguration.supportsSceneReconstruction(.meshWithClassification)
  }

  private func note(_ kind: String, _ anchors: [ARAnchor], into list: inout [ARMeshAnchor]) {
    let meshes = anchors.compactMap { $0 as? ARMeshAnchor }
    list += meshes
    for mesh in meshes {
      let vertices = mesh.geometry.vertices
      let bytes = UnsafeRawBufferPointer(start: vertices.buffer.contents(), count: vertices.buffer.length)
      var hash: UInt64 = 14_695_981_039_346_656_037
      for byte in bytes { hash = (hash ^ UInt64(byte)) &* 1_099_511_628_211 }
      log.append("\(kind) \(mesh.identifier) \(mesh.transform.columns.3) \(vertices.count) \(hash)")
    }
  }
}

@Suite("Scene reconstruction in a session: ARMeshAnchor, classification, reset")
struct ReconstructionSessionTests {
  static let present = Datasets.exists("tabletop")

  private func replay(frames: Int, options: SceneReconstructionOptions = SceneReconstructionOptions()) throws
    -> (
      ARSession, ARReplay, ARWorldTrackingConfiguration, MeshRecorder
    )
  {
    let session = ARSession()
    let configuration = ARWorldTrackingConfiguration()
    configuration.planeDetection = [.horizontal, .vertical]
    configuration.sceneReconstruction = .meshWithClassification
    configuration.sceneReconstructionOptions = options
    let replay = try ARReplay(session: session, recording: Datasets.path("tabletop"))
    let recorder = MeshRecorder()
    session.delegate = recorder
    session.run(configuration)
    try replay.step(frames: frames)
    return (session, replay, configuration, recorder)
  }

  @Test(
    "mesh anchors with ARKit's layout are added and updated as the camera sees more; floor faces lie on the floor plane",
    .enabled(if: present))
  func meshAnchors() throws {
    let (session, replay, configuration, recorder) = try replay(frames: 90)
    #expect(recorder.errors.isEmpty)
    #expect(recorder.added.count >= 4)
    #expect(!recorder.updated.isEmpty)
    #expect(recorder.supportedInCallback == true, "the replay's recording stands in for the device")
    let meshes = session.anchors.compactMap { $0 as? ARMeshAnchor }
    #expect(meshes.count == Set(recorder.added.map(\.identifier)).count)
    #expect(session.currentFrame?.anchors.filter { $0 is ARMeshAnchor }.count == meshes.count)
    var floorHeights: [Double] = []
    for mesh in meshes {
      let g = mesh.geometry
      #expect(g.vertices.format == .float3 && g.vertices.stride == 12 && g.vertices.componentsPerVector == 3)
      #expect(g.vertices.offset == 0 && g.vertices.buffer.length == 12 * g.vertices.count)
      #expect(g.normals.format == .float3 && g.normals.count == g.vertices.count)
      #expect(
        g.faces.bytesPerIndex == 4 && g.faces.indexCountPerPrimitive == 3
          && g.faces.primitiveType == .triangle)
      #expect(g.faces.count > 0 && g.faces.buffer.length == 12 * g.faces.count)
      let classification = try #require(g.classification)
      #expect(classification.format == .uchar && classification.count == g.faces.count)
      #expect(classification.stride == 1 && classification.componentsPerVector == 1)
      // Anchors of bounded size: every vertex within the chunk (0.96 m) of the anchor's origin.
      for i in 0..<g.vertices.count {
        let p = g.vertices.float3(at: i)
        #expect(p.min() >= -0.001 && p.max() <= 0.97)
        let n = g.normals.float3(at: i)
        #expect(abs(simd_length(n) - 1) < 1e-3)
      }
      for f in 0..<g.faces.count {
        #expect(g.faces.indices(of: f).allSatisfy { Int($0) < g.vertices.count })
        if classification.uchar(at: f) == UInt8(ARMeshClassification.floor.rawValue) {
          let corner = g.vertices.float3(at: Int(g.faces.indices(of: f)[0]))
          floorHeights.append(Double((mesh.transform * SIMD4(corner, 1)).y))
        }
      }
    }
    // Classification agrees with the planes: floor faces at the floor plane's height.
    let floorPlane = session.anchors.compactMap { $0 as? ARPlaneAnchor }.first { $0.classification == .floor }
    #expect(floorHeights.count > 100)
    if let floorPlane {
      let median = floorHeights.sorted()[floorHeights.count / 2]
      #expect(abs(median - Double(floorPlane.transform.columns.3.y)) < 0.03)
    }

    // resetSceneReconstruction: every mesh anchor is removed with the next frame.
    let before = Set(meshes.map(\.identifier))
    session.run(configuration, options: .resetSceneReconstruction)
    try replay.step()
    #expect(Set(recorder.removed.map(\.identifier)) == before)
    #expect(session.anchors.contains { $0 is ARPlaneAnchor }, "planes stay")
  }

  @Test("two replays give the same mesh callbacks, bit for bit", .enabled(if: present))
  func deterministic() throws {
    let first = try replay(frames: 45).3
    let second = try replay(frames: 45).3
    #expect(!first.log.isEmpty)
    #expect(first.log == second.log)
  }

  @Test("options out of range fail the session with one line naming the option", .enabled(if: present))
  func badOptions() throws {
    var options = SceneReconstructionOptions()
    options.voxelSize = -1
    let recorder = try replay(frames: 3, options: options).3
    #expect(recorder.errors.count == 1)
    #expect(
      recorder.errors.first?.contains("voxel size") == true && recorder.errors.first?.contains("\n") == false)
    #expect(recorder.added.isEmpty)
  }

  @Test(
    "supportsSceneReconstruction: true exactly when the recording standing in for the device has depth",
    .enabled(if: present && Datasets.exists("tabletop-mono")))
  func supports() throws {
    let depth = try Recording.open(folder: Datasets.path("tabletop")).info
    let noDepth = try Recording.open(folder: Datasets.path("tabletop-mono")).info
    #expect(depth.hasDepth && !noDepth.hasDepth)
    #expect(ARWorldTrackingConfiguration.supportsSceneReconstruction(.mesh, for: depth))
    #expect(ARWorldTrackingConfiguration.supportsSceneReconstruction(.meshWithClassification, for: depth))
    #expect(
      !ARWorldTrackingConfiguration.supportsSceneReconstruction(.mesh), "no recording declared: no LiDAR")
    #expect(
      RecordedDevice.simulating(depth) { ARWorldTrackingConfiguration.supportsSceneReconstruction(.mesh) })
    #expect(!ARWorldTrackingConfiguration.supportsSceneReconstruction(.mesh, for: noDepth))
    #expect(ARWorldTrackingConfiguration.supportsSceneReconstruction([], for: noDepth))
    #expect(
      !RecordedDevice.simulating(noDepth) { ARWorldTrackingConfiguration.supportsSceneReconstruction(.mesh) })
  }
}
