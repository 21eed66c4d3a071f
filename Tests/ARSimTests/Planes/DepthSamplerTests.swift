import ARSim
import Foundation
import Testing

@Suite("Depth sampling")
struct DepthSamplerTests {
  /// A synthetic z-depth image of `plane` seen from `worldFromCamera` (ARKit camera frame), with NaN
  /// where the ray misses the plane and in every `holeEvery`-th pixel.
  private func render(
    plane: Plane, worldFromCamera: RigidTransform, intrinsics: CameraIntrinsics, holeEvery: Int
  ) -> DepthImage {
    var metres = [Float](repeating: .nan, count: intrinsics.width * intrinsics.height)
    for v in 0..<intrinsics.height {
      for u in 0..<intrinsics.width {
        if (v * intrinsics.width + u) % holeEvery == 0 { continue }
        // Optical ray (x, y, 1), in ARKit's camera frame (x, −y, −1), then world.
        let ray = SIMD3(
          (Double(u) - intrinsics.cx) / intrinsics.fx, (Double(v) - intrinsics.cy) / intrinsics.fy, 1)
        let direction = worldFromCamera.rotate(SIMD3(ray.x, -ray.y, -ray.z))
        if let s = plane.intersection(rayOrigin: worldFromCamera.translation, direction: direction) {
          metres[v * intrinsics.width + u] = Float(s)  // z-depth: the ray's z component is 1
        }
      }
    }
    return DepthImage(width: intrinsics.width, height: intrinsics.height, metres: metres)
  }

  @Test("Back-projected depth of a known plane lies on that plane")
  func pointsOnPlane() throws {
    let intrinsics = CameraIntrinsics(fx: 200, fy: 210, cx: 79.5, cy: 61, width: 160, height: 120)
    // A camera 1.4 m up, pitched down by 40° and turned by 25° about the vertical.
    let pitch = simd_quatd(angle: -40 * .pi / 180, axis: SIMD3(1, 0, 0))
    let yaw = simd_quatd(angle: 25 * .pi / 180, axis: SIMD3(0, 1, 0))
    let pose = RigidTransform(rotation: yaw * pitch, translation: SIMD3(0.3, 1.4, -0.2))
    let floor = Plane(normal: SIMD3(0, 1, 0), offset: 0)
    let depth = render(plane: floor, worldFromCamera: pose, intrinsics: intrinsics, holeEvery: 7)
    let points = DepthSampler.worldPoints(
      depth: depth, intrinsics: intrinsics, worldFromCamera: pose, step: 4)
    try #require(points.count > 500)
    var expected = 0
    for v in stride(from: 2, to: 120, by: 4) {
      for u in stride(from: 2, to: 160, by: 4) where depth.metres[v * 160 + u].isFinite { expected += 1 }
    }
    #expect(points.count == expected)
    for p in points {
      #expect(p.x.isFinite && p.y.isFinite && p.z.isFinite)
      #expect(p.y.magnitude < 1e-4)
      // In front of the camera.
      let local = pose.inverse.apply(to: SIMD3<Double>(p))
      #expect(local.z < 0)
    }
    // The principal point's pixel lies on the optical axis, at its depth in front of the camera.
    let single = DepthSampler.worldPoints(
      depth: DepthImage(width: 1, height: 1, metres: [2]),
      intrinsics: CameraIntrinsics(fx: 100, fy: 100, cx: 0, cy: 0, width: 1, height: 1),
      worldFromCamera: pose, step: 1)
    let ahead = SIMD3<Float>(pose.apply(to: SIMD3(0, 0, -2)))
    #expect(single.count == 1)
    #expect(single.first.map { ($0 - ahead).magnitudeSquared() < 1e-10 } == true)
  }

  @Test("A tilted wall and a half-resolution depth image with scaled intrinsics")
  func wallAndScaledIntrinsics() throws {
    let full = CameraIntrinsics(fx: 300, fy: 300, cx: 159.5, cy: 119.5, width: 320, height: 240)
    let half = CameraIntrinsics(fx: 150, fy: 150, cx: 79.75, cy: 59.75, width: 160, height: 120)
    let pose = RigidTransform(
      rotation: simd_quatd(angle: -70 * .pi / 180, axis: SIMD3(0, 1, 0)), translation: SIMD3(0, 1.5, 0))
    let wall = Plane(normal: SIMD3(-1, 0, 0), offset: 2)  // x = 2, facing the camera
    let depth = render(plane: wall, worldFromCamera: pose, intrinsics: half, holeEvery: 1_000_000)
    // Sampling the half-resolution image with the full-resolution intrinsics scales them.
    let points = DepthSampler.worldPoints(depth: depth, intrinsics: full, worldFromCamera: pose, step: 3)
    try #require(points.count > 1000)
    for p in points { #expect((p.x - 2).magnitude < 2e-3) }
  }

  @Test("NaN, infinite and non-positive depths are skipped")
  func invalidDepths() {
    let intrinsics = CameraIntrinsics(fx: 10, fy: 10, cx: 1.5, cy: 0.5, width: 4, height: 2)
    let depth = DepthImage(width: 4, height: 2, metres: [.nan, .infinity, -1, 0, 2, -.infinity, 1, .nan])
    let points = DepthSampler.worldPoints(
      depth: depth, intrinsics: intrinsics, worldFromCamera: .identity, step: 1)
    #expect(points.count == 2)
    // Pixel (0, 1) at 2 m: optical (−0.3, 0.1, 2) → ARKit camera (−0.3, −0.1, −2).
    let first = points[0]
    #expect((first - SIMD3<Float>(-0.3, -0.1, -2)).magnitudeSquared() < 1e-10)
  }
}

extension SIMD3 where Scalar == Float {
  fileprivate func magnitudeSquared() -> Float { (self * self).sum() }
}
