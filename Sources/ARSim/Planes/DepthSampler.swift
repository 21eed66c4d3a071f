/// Turns a depth image into world points for plane detection.
package enum DepthSampler {
  /// World points of every `step`-th pixel in each direction of `depth` (starting at `step / 2`),
  /// metres.
  ///
  /// Depth is z-depth along the optical axis in metres; pixel `(u, v)` (origin at the top-left, pixel
  /// centres at integers, as OpenCV) becomes the optical-frame point `((u − cx)/fx, (v − cy)/fy, 1)·z`,
  /// then ARKit's camera frame `(x, −y, −z)`, then world through `worldFromCamera`. Pixels whose depth
  /// is NaN, infinite or not positive are skipped. When the depth image's size differs from the
  /// intrinsics' image size, the intrinsics are scaled to it.
  /// - Parameters:
  ///   - intrinsics: pinhole intrinsics in pixels.
  ///   - worldFromCamera: ARKit's camera frame (x right, y up, −z forward) to world.
  ///   - step: the sampling stride in pixels (values below 1 are treated as 1).
  package static func worldPoints(
    depth: DepthImage, intrinsics: CameraIntrinsics, worldFromCamera: RigidTransform, step: Int
  ) -> [SIMD3<Float>] {
    let stride = max(step, 1)
    guard depth.width > 0, depth.height > 0 else { return [] }
    let scaleX = intrinsics.width > 0 ? Double(depth.width) / Double(intrinsics.width) : 1
    let scaleY = intrinsics.height > 0 ? Double(depth.height) / Double(intrinsics.height) : 1
    let fx = intrinsics.fx * scaleX
    let fy = intrinsics.fy * scaleY
    let cx = intrinsics.cx * scaleX
    let cy = intrinsics.cy * scaleY
    guard fx.isFinite, fy.isFinite, fx != 0, fy != 0, cx.isFinite, cy.isFinite else { return [] }
    // The optical frame to world: world = R · (x, −y, −z) + t, so the optical axes in world are
    // R·ex, −R·ey, −R·ez.
    let rotation = simd_double3x3(worldFromCamera.rotation)
    let axisX = rotation.columns.0
    let axisY = -rotation.columns.1
    let axisZ = -rotation.columns.2
    let origin = worldFromCamera.translation
    var points: [SIMD3<Float>] = []
    points.reserveCapacity((depth.width / stride + 1) * (depth.height / stride + 1))
    depth.metres.withUnsafeBufferPointer { metres in
      var v = stride / 2
      while v < depth.height {
        let ry = (Double(v) - cy) / fy
        let row = v * depth.width
        var u = stride / 2
        while u < depth.width {
          let z = metres[row + u]
          if z.isFinite && z > 0 {
            let zd = Double(z)
            let rx = (Double(u) - cx) / fx
            let world = origin + axisX * (rx * zd) + axisY * (ry * zd) + axisZ * zd
            let point = SIMD3<Float>(world)
            if point.x.isFinite && point.y.isFinite && point.z.isFinite { points.append(point) }
          }
          u += stride
        }
        v += stride
      }
    }
    return points
  }
}
