/// Turns a depth image into world points for plane detection.
package enum DepthSampler {
  /// The sampling stride for a depth map `width` pixels wide that gives about `samplesPerRow` samples a
  /// row: `max(4, width / samplesPerRow)` pixels (`samplesPerRow` below 1 counts as 1).
  package static func step(width: Int, samplesPerRow: Int) -> Int {
    max(4, width / max(samplesPerRow, 1))
  }

  /// World points of every `step`-th pixel in each direction of `depth` (starting at `step / 2`),
  /// metres.
  ///
  /// Depth is z-depth along the optical axis in metres; pixel `(u, v)` (origin at the top-left, pixel
  /// centres at integers, as OpenCV) becomes the optical-frame point `intrinsics.backProject` gives
  /// (`((u − cx)/fx, (v − cy)/fy, 1)·z`), then ARKit's camera frame `(x, −y, −z)`, then world through
  /// `worldFromCamera`. Pixels whose depth is NaN, infinite or not positive are skipped. When the
  /// depth image's size differs from the intrinsics' image size (depth at its own resolution), the
  /// intrinsics are scaled to it.
  /// - Parameters:
  ///   - intrinsics: pinhole intrinsics in pixels.
  ///   - worldFromCamera: ARKit's camera frame (x right, y up, −z forward) to world.
  ///   - step: the sampling stride in pixels (values below 1 are treated as 1).
  package static func worldPoints(
    depth: DepthImage, intrinsics: CameraIntrinsics, worldFromCamera: RigidTransform, step: Int
  ) -> [SIMD3<Float>] {
    let stride = max(step, 1)
    guard depth.width > 0, depth.height > 0 else { return [] }
    let k = intrinsics.scaled(toWidth: depth.width, height: depth.height)
    guard k.fx.isFinite, k.fy.isFinite, k.fx != 0, k.fy != 0, k.cx.isFinite, k.cy.isFinite else { return [] }
    // The optical frame to world: world = R · (x, −y, −z) + t, so the optical axes in world are
    // R·ex, −R·ey, −R·ez.
    let rotation = simd_double3x3(worldFromCamera.rotation)
    let axisX = rotation.columns.0
    let axisY = -rotation.columns.1
    let axisZ = -rotation.columns.2
    let origin = worldFromCamera.translation
    // The sampled columns' and the row's ray components, `(u − cx)/fx` and `(v − cy)/fy`: the values
    // ``CameraIntrinsics/backProject(_:depth:)`` scales by the depth, divided once per column and row
    // rather than per pixel.
    let columns = Swift.stride(from: stride / 2, to: depth.width, by: stride).map {
      ($0, k.ray(SIMD2(Double($0), 0)).x)
    }
    let rows = Array(Swift.stride(from: stride / 2, to: depth.height, by: stride))
    // Written into storage of the sample count, each point in place (an append checked the array's
    // capacity and uniqueness for every pixel).
    return [SIMD3<Float>](unsafeUninitializedCapacity: columns.count * rows.count) { points, written in
      written = 0
      depth.metres.withUnsafeBufferPointer { metres in
        for v in rows {
          let row = v * depth.width
          let rayY = k.ray(SIMD2(0, Double(v))).y
          for (u, rayX) in columns {
            let z = metres[row + u]
            if z.isFinite && z > 0 {
              let d = Double(z)
              let optical = SIMD3(rayX, rayY, 1) * d
              let world = origin + axisX * optical.x + axisY * optical.y + axisZ * optical.z
              let point = SIMD3<Float>(world)
              if point.x.isFinite && point.y.isFinite && point.z.isFinite {
                (points.baseAddress! + written).initialize(to: point)
                written += 1
              }
            }
          }
        }
      }
    }
  }
}
