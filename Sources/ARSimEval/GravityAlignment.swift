import Foundation

extension Trajectory {
  /// The rigid transform that maps this trajectory (the estimate, in a world whose up is +y) onto
  /// `reference` (a world whose up is `up`) keeping up on up: the rotation taking +y to `up`, then the
  /// turn about `up` and the translation that fit the corresponding positions best in the least squares
  /// sense (4 degrees of freedom: the alignment of visual-inertial trajectories, whose gravity is
  /// observable, as Zhang and Scaramuzza's evaluation toolbox does it). Unlike SE(3), it cannot tilt the
  /// estimate's world: a gravity error stays an error, and a trajectory along nearly one line still
  /// fixes the alignment.
  ///
  /// - Throws: `EvaluationError` when the counts differ, there is no pose, or `up` is not a direction.
  public func gravityAlignment(to reference: Trajectory, up: SIMD3<Double>) throws -> Similarity {
    try checkCorresponds(to: reference)
    let length = simd_length(up)
    guard length > 0, length.isFinite else {
      throw EvaluationError(.invalidOption, "the reference's up direction must be a non-zero vector")
    }
    let u = up / length
    let tilt = simd_quatd(from: SIMD3(0, 1, 0), to: u)
    let source = positions.map { tilt.act($0) }
    let target = reference.positions
    let count = Double(source.count)
    let sourceMean = source.reduce(.zero, +) / count
    let targetMean = target.reduce(.zero, +) / count
    // The turn θ about u maximising Σ b·R(θ)a over the centred pairs: tan θ = Σ u·(a×b) / Σ a⊥·b⊥.
    var along = 0.0
    var across = 0.0
    for (p, q) in zip(source, target) {
      let a = p - sourceMean
      let b = q - targetMean
      across += simd_dot(u, simd_cross(a, b))
      along += simd_dot(a - simd_dot(a, u) * u, b - simd_dot(b, u) * u)
    }
    let turn = simd_quatd(angle: atan2(across, along), axis: u)
    let rotation = turn * tilt
    return Similarity(rotation: rotation, translation: targetMean - turn.act(sourceMean), scale: 1)
  }
}
