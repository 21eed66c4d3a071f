import ARSimMath

/// Integrates a gyroscope's angular rates (optical axes, rad/s) into the rotation of the camera
/// between two frames: each sample's rate holds over the interval that ends at its timestamp
/// (the interval from the last frame for the first sample after it), and the last rate carries on
/// to the frame's time. Bias is not estimated: over the short spans between frames a calibrated
/// phone gyroscope is far more exact than a depth alignment's rotation, not over minutes.
struct GyroIntegrator: Sendable {
  /// The time up to which `sinceFrame` is integrated (nil before the first sample).
  private var integratedTime: Double?
  private var lastRate: SIMD3<Double>?
  /// Rotation from the current optical frame to the last frame's (body increments multiplied on
  /// the right), since `integratedTime` was last a frame's time.
  private var sinceFrame = simd_quatd(ix: 0, iy: 0, iz: 0, r: 1)

  /// Adds the samples recorded since the last call (those without a rate are skipped; samples
  /// not after the integrated time are ignored).
  mutating func add(_ samples: [IMUSample]) {
    for sample in samples {
      guard let rate = sample.rotationRate, rate.x.isFinite, rate.y.isFinite, rate.z.isFinite else {
        continue
      }
      if let integratedTime {
        guard sample.timestamp > integratedTime else { continue }
        sinceFrame = sinceFrame * RigidTransform.expRotation(rate * (sample.timestamp - integratedTime))
      }
      integratedTime = sample.timestamp
      lastRate = rate
    }
  }

  /// The rotation from the frame at `timestamp` (seconds) to the previous frame's optical frame
  /// (the previous call's), or nil without a rate within `maxGap` seconds before `timestamp` (no
  /// gyroscope, or its samples stopped); starts the next interval at `timestamp`.
  mutating func rotation(at timestamp: Double, maxGap: Double = 0.1) -> simd_quatd? {
    defer { sinceFrame = simd_quatd(ix: 0, iy: 0, iz: 0, r: 1) }
    guard let integratedTime, let lastRate, timestamp - integratedTime <= maxGap else { return nil }
    if timestamp > integratedTime {
      sinceFrame = sinceFrame * RigidTransform.expRotation(lastRate * (timestamp - integratedTime))
      self.integratedTime = timestamp
    }
    return sinceFrame.normalized
  }

  /// Forgets the motion since the last frame (the camera was off).
  mutating func reset() {
    integratedTime = nil
    lastRate = nil
    sinceFrame = simd_quatd(ix: 0, iy: 0, iz: 0, r: 1)
  }
}
