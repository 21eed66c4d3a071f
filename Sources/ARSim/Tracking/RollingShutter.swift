import ARSimMath

/// A rolling shutter's effect on where a moving camera sees things, undone to first order: row `y` of
/// a frame at time `t` was exposed at `t + readout · ((y + 0.5)/height − 0.5)`, so a feature seen at
/// a pixel of that row is where a global-shutter camera at the row's time saw it. Given the camera's
/// motion at the frame (angular and linear velocity in the optical frame), ``globalPixel(_:depth:)``
/// gives where a global-shutter camera at `t` (the frame's pose) would see the same point; poses,
/// landmarks and depth lookups then read those pixels. Value type; deterministic.
struct RollingShutter {
  /// Seconds from the first row's exposure to the last's.
  let readout: Double
  let intrinsics: CameraIntrinsics
  /// Angular velocity of the camera, rad/s, in its optical frame (the body rate a gyroscope reads).
  var angularVelocity = SIMD3<Double>.zero
  /// Velocity of the camera, m/s, in its optical frame.
  var velocity = SIMD3<Double>.zero

  /// Seconds from the frame's time to the exposure of image row `y` (pixels, centres at integers).
  func offset(row y: Double) -> Double {
    readout * ((y + 0.5) / Double(intrinsics.height) - 0.5)
  }

  /// Where a global-shutter camera at the frame's time sees the point seen at `pixel` (at z-depth
  /// `depth` metres in the camera of the pixel's row; nil: the rotation alone is undone, which holds
  /// for distant points). Behind the camera after the correction (not for any real motion) the pixel is
  /// returned as it is.
  func globalPixel(_ pixel: SIMD2<Float>, depth: Double?) -> SIMD2<Float> {
    let tau = offset(row: Double(pixel.y))
    guard tau != 0 else { return pixel }
    // The camera at the row's time from the camera at the frame's time: turned by ω·τ, moved by v·τ.
    let turn = RigidTransform.expRotation(angularVelocity * tau)
    let uv = SIMD2(Double(pixel.x), Double(pixel.y))
    var point = turn.act(intrinsics.backProject(uv, depth: depth ?? 1))
    if let depth, depth > 0 { point += velocity * tau }
    guard point.z > 1e-6 else { return pixel }
    let projected = intrinsics.project(point)
    return SIMD2(Float(projected.x), Float(projected.y))
  }
}
