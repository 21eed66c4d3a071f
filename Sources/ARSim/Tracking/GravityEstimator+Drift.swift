import ARSimMath
import Foundation

/// The gravity estimator's drift: gravity in O follows the odometry's slow orientation drift, as a
/// random walk (``GravityEstimator/driftDegrees``) and as the gyroscope measures it against the tracked
/// rotation (``GravityEstimator/gyroNoiseDegrees``).
extension GravityEstimator {
  /// The drift of gravity in O across a segment that the gyroscope measures (with the bias fitted so
  /// far), and the segment's turn added to the fit after (``measuredDrift(between:)``).
  mutating func measuredDrift(from start: Node, to end: Node) -> (
    vector: SIMD3<Double>, variance: Double
  )? {
    guard driftDegrees != nil, end.time > start.time else { return nil }
    let measured = measuredDrift(between: start, and: end)
    let span = end.time - start.time
    let tracked = start.rotation.inverse * end.rotation
    let e = RigidTransform.logRotation((start.gyro.inverse * end.gyro).inverse * tracked)
    gyroSum += e
    gyroSquares += simd_length_squared(e) / span
    gyroSpan += span
    gyroSegments += 1
    return measured
  }

  /// The drift of gravity in O from `start` to `end` that the gyroscope measures with the bias fitted
  /// so far: the tracked rotation against the gyroscope's, as a rotation vector in O (radians), and
  /// the variance of each of its components (the gyroscope's noise and the bias fit's); nil while the
  /// fit has fewer than two segments, or when a frame between them had no gyroscope rate.
  func measuredDrift(between start: Node, and end: Node) -> (
    vector: SIMD3<Double>, variance: Double
  )? {
    let span = end.time - start.time
    guard gyroSegments >= 2, span > 0, end.framesWithoutRate == start.framesWithoutRate else { return nil }
    let bias = -gyroSum / gyroSpan
    // The odometry's variance per second of each component of e about −b·span.
    let residual = gyroSquares + 2 * simd_dot(bias, gyroSum) + simd_length_squared(bias) * gyroSpan
    let perSecond = max(0, residual) / (3 * Double(gyroSegments - 1))
    let corrected = start.gyro.inverse * end.gyro * RigidTransform.expRotation(-bias * span)
    let tracked = start.rotation.inverse * end.rotation
    let vector = start.rotation.act(RigidTransform.logRotation(tracked * corrected.inverse))
    let noise = gyroNoiseDegrees * .pi / 180
    // The bias fit's error turns every segment the same way: over the estimate's memory
    // (``gyroBiasHorizon``) it adds up, not as a random walk.
    return (vector, noise * noise * span + perSecond / gyroSpan * span * gyroBiasHorizon)
  }

  /// The variance of gravity's direction random walk (``driftDegrees``) over `span` seconds, rad².
  func walk(over span: Double) -> Double {
    let degrees = driftDegrees ?? 0
    return degrees * .pi / 180 * degrees * .pi / 180 * span
  }

  /// The weight of a measured drift against gravity's random walk over `span` seconds.
  func driftWeight(span: Double, variance: Double) -> Double {
    let walk = walk(over: span)
    return walk / (walk + variance)
  }

  /// Widens the estimate's covariance by the drift over `span` seconds (gravity's direction, the
  /// scale), keeping the estimate: the information is the widened covariance's inverse. With the
  /// gyroscope's `measured` drift, gravity is first turned by it, weighed against the random walk
  /// (from the previous segment's middle to this one's: half of each one's).
  mutating func drift(
    span: Double, inverse: [Double], x: [Double], variance: Double,
    measured: (vector: SIMD3<Double>, variance: Double)?
  ) {
    let n = Self.unknowns
    var covariance = inverse
    var x = x
    if driftDegrees != nil {
      let g = simd_length(SIMD3(x[0], x[1], x[2]))
      let walk = walk(over: span)
      var turn = SIMD3<Double>.zero
      if let measured {
        let weight = driftWeight(span: span, variance: measured.variance)
        turn = weight * measured.vector / 2
        if let previous = previousDrift { turn += previous / 2 }
        previousDrift = weight * measured.vector
      } else {
        previousDrift = nil
      }
      if turn != .zero {
        Self.rotateGravity(
          by: simd_double3x3(RigidTransform.expRotation(turn)), covariance: &covariance, x: &x)
      }
      // The whole walk still widens it: forgetting also covers what the model leaves out (the bias's
      // split from gravity before the camera turns), which the measured drift does not.
      for k in 0..<3 { covariance[(n + 1) * k] += g * g * walk / variance }
    }
    if scalePriorSigma > 0 { covariance[(n + 1) * 6] += scaleDrift * scaleDrift * span / variance }
    guard let widened = DenseMatrix.inverse(covariance, dimension: n) else { return }
    let (diagonal, priorRight) = prior(variance: variance)
    normal = widened
    for k in 0..<n { normal[(n + 1) * k] -= diagonal[k] }
    for i in 0..<n {
      var sum = 0.0
      for j in 0..<n { sum += widened[n * i + j] * x[j] }
      right[i] = sum - priorRight[i]
    }
  }

  /// Turns gravity's part of the estimate `x` and of its `covariance` (row-major, ``unknowns``²) by
  /// `rotation`.
  static func rotateGravity(
    by rotation: simd_double3x3, covariance: inout [Double], x: inout [Double]
  ) {
    let n = unknowns
    let g = rotation * SIMD3(x[0], x[1], x[2])
    for k in 0..<3 { x[k] = g[k] }
    // C' = T C Tᵀ with T = diag(rotation, I): rows of gravity, then columns.
    var turned = covariance
    for i in 0..<3 {
      for j in 0..<n {
        var sum = 0.0
        for k in 0..<3 { sum += rotation[k][i] * covariance[n * k + j] }
        turned[n * i + j] = sum
      }
    }
    covariance = turned
    for i in 0..<n {
      for j in 0..<3 {
        var sum = 0.0
        for k in 0..<3 { sum += turned[n * i + k] * rotation[k][j] }
        covariance[n * i + j] = sum
      }
    }
  }

  /// Gravity's drift in O from the last closed segment's middle (where the estimate stands) to the
  /// chain's last frame, as the gyroscope measures it and weighed as each segment's: the rest of the
  /// last segment's, and the open segment's so far. Nil without a measured drift.
  var driftSinceLastSegment: SIMD3<Double>? {
    guard let previousDrift, let start = chain.first, let end = chain.last, end.time > start.time,
      let measured = measuredDrift(between: start, and: end)
    else { return nil }
    let weight = driftWeight(span: end.time - start.time, variance: measured.variance)
    return previousDrift / 2 + weight * measured.vector
  }
}
