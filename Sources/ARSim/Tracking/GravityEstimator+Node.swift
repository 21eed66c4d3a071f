import ARSimMath
import Foundation

extension GravityEstimator {
  /// One tracked frame with the integrals of the rotated samples since the chain began: `∫R f`, `∫R`
  /// and `∫∫R f` up to the last sample, and the same held to the frame's time (the last sample's
  /// force and orientation carried over the rest of the interval), so that every frame's integrals
  /// end exactly at its time.
  struct Node {
    var time: Double
    var position: SIMD3<Double>
    var rotation: simd_quatd
    var forceIntegral = SIMD3<Double>.zero
    var rotationIntegral = simd_double3x3()
    var doubleIntegral = SIMD3<Double>.zero
    var seconds = 0.0
    var lastSampleTime: Double
    var lastForce = SIMD3<Double>.zero
    var lastRotation = simd_double3x3()
    /// `∫R f`, `∫R`, `∫∫R f` and the seconds covered, up to the frame's time.
    var heldForce = SIMD3<Double>.zero
    var heldRotation = simd_double3x3()
    var heldDouble = SIMD3<Double>.zero
    var heldSeconds = 0.0
    /// The gyroscope's rotation from the chain's first frame to this one (body increments on the
    /// right; ``integrateRates(_:to:from:)``).
    var gyro = simd_quatd(ix: 0, iy: 0, iz: 0, r: 1)
    var lastRate: SIMD3<Double>?
    /// Frames of the chain so far that had no gyroscope rate (a segment across one has no gyro turn).
    var framesWithoutRate = 0

    init(time: Double, position: SIMD3<Double>, rotation: simd_quatd) {
      self.time = time
      self.position = position
      self.rotation = rotation
      lastSampleTime = time
    }

    /// Integrates one sample standing for the interval since the previous one, at `rotation`.
    mutating func integrate(_ force: SIMD3<Double>, at timestamp: Double, rotation: simd_quatd) {
      let dt = timestamp - lastSampleTime
      lastForce = rotation.act(force)
      lastRotation = simd_double3x3(rotation)
      doubleIntegral += forceIntegral * dt + lastForce * (dt * dt / 2)
      forceIntegral += lastForce * dt
      rotationIntegral += lastRotation * dt
      seconds += dt
      lastSampleTime = timestamp
    }

    /// Integrates the gyroscope's rates of the samples in (`previous`, `time`] into ``gyro``, up to
    /// `time`: between two samples the mean of their rates (the trapezoid rule: a rate held over the
    /// interval before its sample puts the integral half a sample ahead, 0.14° at 0.5 rad/s and
    /// 100 Hz), the first one's before it and the last one's after it.
    mutating func integrateRates(_ samples: [IMUSample], to time: Double, from previous: Double) {
      var integrated = previous
      var rated = false
      for sample in samples {
        guard let rate = sample.rotationRate, sample.timestamp > integrated, sample.timestamp <= time + 1e-9,
          rate.x.isFinite, rate.y.isFinite, rate.z.isFinite
        else { continue }
        let mean = lastRate.map { ($0 + rate) / 2 } ?? rate
        gyro = gyro * RigidTransform.expRotation(mean * (sample.timestamp - integrated))
        integrated = sample.timestamp
        lastRate = rate
        rated = true
      }
      guard rated, let lastRate else {
        framesWithoutRate += 1
        return
      }
      if time > integrated { gyro = gyro * RigidTransform.expRotation(lastRate * (time - integrated)) }
      gyro = gyro.normalized
    }

    /// Holds the last sample over the rest of the interval up to the frame's time.
    mutating func hold() {
      let gap = time - lastSampleTime
      heldForce = forceIntegral + lastForce * gap
      heldRotation = rotationIntegral + lastRotation * gap
      heldDouble = doubleIntegral + forceIntegral * gap + lastForce * (gap * gap / 2)
      heldSeconds = seconds + gap
    }
  }
}
