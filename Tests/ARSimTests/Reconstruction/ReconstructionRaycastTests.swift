import ARSim
import ARSimTestSupport
import Foundation
import Testing

@Suite("Raycasts against the reconstructed mesh (estimatedPlane with scene reconstruction)")
struct ReconstructionRaycastTests {
  let scene = KnownScene()

  /// The mesh anchors of `KnownScene` fused from eight poses of exact depth.
  func meshAnchors() throws -> [ARMeshAnchor] {
    let reconstructor = try SceneReconstructor(
      options: SceneReconstructionOptions(), classifies: true, planeOptions: PlaneDetectionOptions(),
      sessionIdentifier: nil, seed: 1)
    for (i, pose) in scene.poses(8).enumerated() {
      try reconstructor.integrate(
        depth: scene.depth(from: pose), confidence: nil, intrinsics: scene.intrinsics, worldFromCamera: pose,
        at: Double(i))
    }
    _ = reconstructor.update(at: 8, force: true)
    return reconstructor.anchors
  }

  /// The unit normal of the known surface at `p` (on the floor, the wall or the box).
  func trueNormal(_ p: SIMD3<Double>) -> SIMD3<Double> {
    if abs(p.y) < 1e-6 { return SIMD3(0, 1, 0) }
    if abs(p.z - scene.wallZ) < 1e-6 { return SIMD3(0, 0, 1) }
    var normal = SIMD3<Double>.zero
    var nearest = Double.infinity
    for axis in 0..<3 {
      for (bound, sign) in [(scene.boxLow[axis], -1.0), (scene.boxHigh[axis], 1.0)]
      where abs(p[axis] - bound) < nearest {
        nearest = abs(p[axis] - bound)
        normal = .zero
        normal[axis] = sign
      }
    }
    return normal
  }

  /// Whether `p` lies within `margin` of an edge of the known scene (where two surfaces meet, which
  /// fusion rounds off).
  func nearEdge(_ p: SIMD3<Double>, margin: Double = 0.06) -> Bool {
    if p.y < margin && p.z < scene.wallZ + margin { return true }
    var close = 0
    for axis in 0..<3
    where min(abs(p[axis] - scene.boxLow[axis]), abs(p[axis] - scene.boxHigh[axis])) < margin {
      close += 1
    }
    let inBox = (0..<3).allSatisfy {
      p[$0] >= scene.boxLow[$0] - margin && p[$0] <= scene.boxHigh[$0] + margin
    }
    return inBox && close >= 2
  }

  @Test("rays through a camera's pixels hit the mesh within a few mm of the true surface, normal right")
  func hitsTheKnownSurface() throws {
    let anchors = try meshAnchors()
    #expect(anchors.count >= 4)
    let pose = scene.poses(5)[2]
    var errors: [Double] = []
    var angles: [Double] = []
    var rays = 0
    for v in stride(from: 4, to: scene.intrinsics.height, by: 6) {
      for u in stride(from: 4, to: scene.intrinsics.width, by: 6) {
        let x = (Double(u) - scene.intrinsics.cx) / scene.intrinsics.fx
        let y = (Double(v) - scene.intrinsics.cy) / scene.intrinsics.fy
        let direction = simd_normalize(pose.rotate(SIMD3(x, -y, -1)))
        guard let t = scene.hit(origin: pose.translation, direction: direction) else { continue }
        let truth = pose.translation + t * direction
        guard !nearEdge(truth) else { continue }
        rays += 1
        guard
          let hit = MeshRaycast.nearestHit(in: anchors, origin: pose.translation, direction: direction)
        else { continue }
        errors.append(abs(hit.distance - t))
        #expect(simd_length(hit.position - (pose.translation + hit.distance * direction)) < 1e-9)
        let cosine = min(1, simd_dot(hit.normal, trueNormal(truth)))
        angles.append(acos(cosine) * 180 / .pi)
      }
    }
    #expect(rays > 200)
    #expect(Double(errors.count) >= 0.98 * Double(rays), "\(errors.count) of \(rays) rays hit")
    let sortedErrors = errors.sorted()
    let sortedAngles = angles.sorted()
    #expect(sortedErrors[sortedErrors.count / 2] < 0.003, "median \(sortedErrors[sortedErrors.count / 2]) m")
    #expect(sortedErrors[sortedErrors.count * 95 / 100] < 0.01)
    #expect(
      sortedAngles[sortedAngles.count / 2] < 3, "median normal error \(sortedAngles[sortedAngles.count / 2])°"
    )
    #expect(sortedAngles[sortedAngles.count * 95 / 100] < 15)
  }

  @Test("a ray that passes beside the mesh or points away from it hits nothing; the nearest surface wins")
  func missesAndOrder() throws {
    let anchors = try meshAnchors()
    let eye = SIMD3<Double>(0, 1.4, 0.6)
    #expect(MeshRaycast.nearestHit(in: anchors, origin: eye, direction: SIMD3(0, 1, 0)) == nil)
    #expect(MeshRaycast.nearestHit(in: anchors, origin: eye, direction: SIMD3(0, 0, 1)) == nil)
    // Straight down onto the box's top, not the floor beneath it.
    let down = try #require(
      MeshRaycast.nearestHit(in: anchors, origin: SIMD3(0, 1.4, -1.2), direction: SIMD3(0, -1, 0)))
    #expect(abs(down.position.y - scene.boxHigh.y) < 0.005)
    #expect(down.normal.y > 0.99)
    // A limit short of the surface: no hit.
    #expect(
      MeshRaycast.nearestHit(
        in: anchors, origin: SIMD3(0, 1.4, -1.2), direction: SIMD3(0, -1, 0), maxDistance: 0.5)
        == nil)
  }

  @Test("an estimatedPlane raycast with .any hits the mesh in a frame that has one, oriented as ARKit's")
  func sessionRaycast() throws {
    let anchors = try meshAnchors()
    let pose = scene.poses(5)[2]
    let camera = ARCamera(worldFromCamera: pose, intrinsics: scene.intrinsics, trackingState: .normal)
    let frame = ARFrame(
      timestamp: 0, camera: camera, anchors: anchors, rawFeaturePoints: nil,
      capturedImage: .gray(GrayImage(width: 1, height: 1)), sceneDepth: nil, frameIndex: 0)
    let session = ARSession()
    // A ray at the wall above the box.
    let target = SIMD3<Double>(0.3, 0.6, scene.wallZ)
    let direction = simd_normalize(target - pose.translation)
    let query = ARRaycastQuery(
      origin: simd_float3(pose.translation), direction: simd_float3(direction), allowing: .estimatedPlane,
      alignment: .any)
    let result = try #require(session.raycast(query, in: frame).first)
    #expect(result.target == .estimatedPlane)
    #expect(result.targetAlignment == .vertical)
    #expect(result.anchor == nil, "no plane anchor there")
    let p = result.worldTransform.columns.3
    #expect(abs(Double(p.z) - scene.wallZ) < 0.005)
    #expect(abs(Double(result.distance) - simd_length(target - pose.translation)) < 0.01)
    // y along the wall's normal (towards the camera), z towards the ray's origin in the wall.
    let y = result.worldTransform.columns.1
    #expect(y.z > 0.98)
    let z = result.worldTransform.columns.2
    #expect(simd_dot(SIMD3<Double>(Double(z.x), Double(z.y), Double(z.z)), -direction) > 0)
    // The box's top is horizontal; a frame without a mesh estimates no plane without points or depth.
    let top = simd_normalize(SIMD3<Double>(0.1, 0.75, -1.2) - pose.translation)
    let down = ARRaycastQuery(
      origin: simd_float3(pose.translation), direction: simd_float3(top), allowing: .estimatedPlane,
      alignment: .any)
    let onTop = try #require(session.raycast(down, in: frame).first)
    #expect(onTop.targetAlignment == .horizontal)
    #expect(abs(onTop.worldTransform.columns.3.y - 0.75) < 0.005)
    let empty = ARFrame(
      timestamp: 0, camera: camera, anchors: [], rawFeaturePoints: nil,
      capturedImage: .gray(GrayImage(width: 1, height: 1)), sceneDepth: nil, frameIndex: 0)
    #expect(session.raycast(down, in: empty).isEmpty)
  }
}
