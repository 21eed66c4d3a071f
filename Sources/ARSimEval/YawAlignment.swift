import ARSimMath
import Foundation

extension Similarity {
  /// The rigid transform that best maps `source` points onto the corresponding `target` points,
  /// `min Σ |target_i − (R source_i + t)|²`, among those that take the direction `sourceUp` onto
  /// `targetUp` (unit vectors, each world's up): a turn about the vertical and a translation, four
  /// degrees of freedom, as Zhang and Scaramuzza (2018, "A tutorial on quantitative trajectory
  /// evaluation for visual(-inertial) odometry") align visual-inertial estimates, whose gravity is
  /// observable. Both worlds' up directions are kept, so what is measured after this alignment includes
  /// the estimate's gravity error and not a tilt that a free fit of a few millimetres of position error
  /// would add. Closed form: the yaw angle from the horizontal cross-covariance. For coincident or
  /// vertically stacked points the yaw is not determined by the data; zero yaw is returned.
  ///
  /// - Throws: `EvaluationError` `.mismatchedTrajectories` when the counts differ, `.tooFewPoses` when
  ///   there are no points, `.degenerateGeometry` when an up direction is zero or not finite.
  public static func yawAligned(
    from source: [SIMD3<Double>], to target: [SIMD3<Double>], sourceUp: SIMD3<Double>,
    targetUp: SIMD3<Double>
  ) throws -> Similarity {
    guard source.count == target.count else {
      throw EvaluationError(
        .mismatchedTrajectories,
        "alignment needs corresponding points: \(source.count) source, \(target.count) target points")
    }
    guard !source.isEmpty else {
      throw EvaluationError(.tooFewPoses, "alignment needs at least one point pair")
    }
    let (a, b) = (simd_length(sourceUp), simd_length(targetUp))
    guard a > 0, b > 0, a.isFinite, b.isFinite else {
      throw EvaluationError(
        .degenerateGeometry, "alignment needs a non-zero finite up direction in both worlds")
    }
    let up = targetUp / b
    let tilt = simd_quatd(from: sourceUp / a, to: up)
    let moved = source.map { tilt.act($0) }
    let n = Double(source.count)
    let meanSource = moved.reduce(.zero, +) / n
    let meanTarget = target.reduce(.zero, +) / n
    // Σ over the centred pairs of sin θ and cos θ terms of the turn about `up` that takes x to y.
    var (sine, cosine) = (0.0, 0.0)
    for k in moved.indices {
      var x = moved[k] - meanSource
      var y = target[k] - meanTarget
      x -= simd_dot(x, up) * up
      y -= simd_dot(y, up) * up
      sine += simd_dot(simd_cross(x, y), up)
      cosine += simd_dot(x, y)
    }
    let yaw = sine == 0 && cosine == 0 ? 0 : atan2(sine, cosine)
    let rotation = (simd_quatd(angle: yaw, axis: up) * tilt).normalized
    return Similarity(rotation: rotation, translation: meanTarget - rotation.act(source.reduce(.zero, +) / n))
  }
}
