/// How an estimated trajectory is brought into the reference's world frame before errors are measured
/// (evo's `-a`, `-as` and `--align_origin` options).
public enum TrajectoryAlignment: String, Sendable, Hashable, Codable, CaseIterable {
  /// No alignment: the estimate is compared as it is.
  case none
  /// The estimate's first pose is moved onto the reference's first pose (a rigid transform; evo's
  /// `--align_origin`).
  case origin
  /// Rotation and translation by Umeyama's least squares fit of the positions (SE(3); evo's `-a`).
  case se3
  /// Rotation, translation and scale by Umeyama's fit (Sim(3); evo's `-as`), for monocular estimates
  /// whose unit of length is arbitrary.
  case sim3
}

extension Trajectory {
  /// The similarity that maps this trajectory (the estimate) onto `reference` by Umeyama's least
  /// squares fit of corresponding positions (pose `k` to pose `k`); see `Similarity.umeyama`.
  ///
  /// - Parameters:
  ///   - reference: the reference trajectory, already associated (same count, corresponding poses).
  ///   - withScale: also estimate a scale (Sim(3)); otherwise the scale is 1 (SE(3)).
  ///   - poseCount: fit only the first `poseCount` pose pairs (evo's `--n_to_align`); all when `nil`.
  /// - Throws: `EvaluationError` when the counts differ, there is no pose, `poseCount` is not in
  ///   `1...count`, or a scale is requested for coincident positions.
  public func alignment(
    to reference: Trajectory, withScale: Bool, poseCount: Int? = nil
  ) throws -> Similarity {
    try checkCorresponds(to: reference)
    var source = positions
    var target = reference.positions
    if let poseCount {
      guard poseCount >= 1 && poseCount <= count else {
        throw EvaluationError(
          .invalidOption, "cannot align with the first \(poseCount) of \(count) poses")
      }
      source = Array(source.prefix(poseCount))
      target = Array(target.prefix(poseCount))
    }
    return try Similarity.umeyama(from: source, to: target, withScale: withScale)
  }

  /// This trajectory (the estimate) aligned to `reference` by Umeyama's method: a new trajectory, the
  /// input unchanged. See `alignment(to:withScale:poseCount:)`.
  public func aligned(to reference: Trajectory, withScale: Bool) throws -> Trajectory {
    transformed(by: try alignment(to: reference, withScale: withScale))
  }

  /// The rigid transform (as a similarity of scale 1) that moves this trajectory's first pose onto
  /// `reference`'s first pose: `referenceFirst * estimateFirst⁻¹`.
  ///
  /// - Throws: `EvaluationError.tooFewPoses` when either trajectory is empty.
  public func originAlignment(to reference: Trajectory) throws -> Similarity {
    guard let first = poses.first, let referenceFirst = reference.poses.first else {
      throw EvaluationError(.tooFewPoses, "origin alignment needs a pose in both trajectories")
    }
    return Similarity(referenceFirst * first.inverse)
  }

  /// This trajectory with its first pose moved onto `reference`'s first pose, every pose moved by the
  /// same rigid transform: a new trajectory. See `originAlignment(to:)`.
  public func originAligned(to reference: Trajectory) throws -> Trajectory {
    transformed(by: try originAlignment(to: reference))
  }

  /// The similarity that `alignment` selects for this trajectory (the estimate) against `reference`
  /// (identity for `.none`), fitted on the first `poseCount` pairs for `.se3` and `.sim3` when given.
  public func alignment(
    to reference: Trajectory, using alignment: TrajectoryAlignment, poseCount: Int? = nil
  ) throws -> Similarity {
    switch alignment {
    case .none: return .identity
    case .origin: return try originAlignment(to: reference)
    case .se3: return try self.alignment(to: reference, withScale: false, poseCount: poseCount)
    case .sim3: return try self.alignment(to: reference, withScale: true, poseCount: poseCount)
    }
  }

  /// Throws unless `other` has as many poses as this trajectory, at least one.
  func checkCorresponds(to other: Trajectory) throws {
    guard count == other.count else {
      throw EvaluationError(
        .mismatchedTrajectories,
        "the trajectories must be associated first: \(count) estimated poses, \(other.count) reference"
          + " poses")
    }
    guard !isEmpty else {
      throw EvaluationError(.tooFewPoses, "the trajectories have no pose")
    }
  }
}
