/// Which part of a pose error is measured (evo's `--pose_relation`).
public enum PoseRelation: String, Sendable, Hashable, Codable, CaseIterable {
  /// The length of the translation of the error pose, metres (evo's `trans_part`).
  case translation
  /// The rotation angle of the error pose, degrees in `[0, 180]` (evo's `angle_deg`).
  case rotationAngleDegrees
}

/// What a distance between the two poses of a relative-error pair is measured in (evo's `--delta_unit`).
public enum DeltaUnit: String, Sendable, Hashable, Codable, CaseIterable {
  /// Pose indices: pairs `(i, i + delta)` (evo's `f`).
  case frames
  /// Metres travelled along the path between the two poses (evo's `m`).
  case metres
}

/// The settings of `absoluteTrajectoryError` (evo's `evo_ape` options). Decoding accepts any subset of
/// the keys; missing ones take the defaults of `init()`.
public struct AbsoluteErrorOptions: Sendable, Hashable, Codable {
  /// How the estimate is aligned before measuring; default `.se3` (this project's ATE: SE(3) Umeyama;
  /// use `.sim3` for monocular estimates). Note that `evo_ape` itself does not align unless asked to.
  public var alignment: TrajectoryAlignment
  /// Fit the Umeyama alignment on the first `alignmentPoseCount` pose pairs only (evo's
  /// `--n_to_align`); default `nil`, all pairs.
  public var alignmentPoseCount: Int?
  /// The measured part of each pose error; default `.translation`.
  public var relation: PoseRelation

  /// Options with the given values; the defaults are those documented on each property.
  public init(
    alignment: TrajectoryAlignment = .se3, alignmentPoseCount: Int? = nil,
    relation: PoseRelation = .translation
  ) {
    self.alignment = alignment
    self.alignmentPoseCount = alignmentPoseCount
    self.relation = relation
  }

  private enum CodingKeys: String, CodingKey {
    case alignment, alignmentPoseCount, relation
  }

  /// Decodes the keys present; absent keys keep the defaults.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    var options = AbsoluteErrorOptions()
    if let value = try container.decodeIfPresent(TrajectoryAlignment.self, forKey: .alignment) {
      options.alignment = value
    }
    options.alignmentPoseCount = try container.decodeIfPresent(Int.self, forKey: .alignmentPoseCount)
    if let value = try container.decodeIfPresent(PoseRelation.self, forKey: .relation) {
      options.relation = value
    }
    self = options
  }
}

/// The settings of `relativePoseError` (evo's `evo_rpe` options, same defaults). Decoding accepts any
/// subset of the keys; missing ones take the defaults of `init()`.
public struct RelativeErrorOptions: Sendable, Hashable, Codable {
  /// The distance between the two poses of a pair, in `deltaUnit`; default 1. A whole number of at
  /// least 1 for `.frames`, positive for `.metres`.
  public var delta: Double
  /// The unit of `delta`; default `.frames`.
  public var deltaUnit: DeltaUnit
  /// Use every pose as the start of a pair (`true`), or only consecutive, non-overlapping pairs, each
  /// starting where the previous one ends (`false`, the default).
  public var allPairs: Bool
  /// With `.metres` and `allPairs`, accept a pair whose path length differs from `delta` by at most
  /// `relativeDeltaTolerance * delta`; default 0.1 (evo's `rel_delta_tol`).
  public var relativeDeltaTolerance: Double
  /// Measure the path (for `.metres`) on the reference instead of the (aligned) estimate; default
  /// `false`, as evo.
  public var pairsFromReference: Bool
  /// With `.metres` and consecutive pairs, whether the first pair starts at pose 0 (`true`, the default,
  /// as current evo). `false` reproduces older evo versions (the one that made evo's stored KITTI 00
  /// results in 2018), whose first pair starts at the first pose where the travelled path reaches
  /// `delta`.
  public var pathPairsStartAtFirstPose: Bool
  /// How the estimate is aligned before measuring; default `.none` (evo's RPE default). Rigid alignments
  /// do not change relative poses; `.sim3` changes their translations by the scale.
  public var alignment: TrajectoryAlignment
  /// Fit the Umeyama alignment on the first `alignmentPoseCount` poses only; default `nil`, all.
  public var alignmentPoseCount: Int?
  /// The measured part of each relative pose error; default `.translation`.
  public var relation: PoseRelation

  /// Options with the given values; the defaults are those documented on each property.
  public init(
    delta: Double = 1, deltaUnit: DeltaUnit = .frames, allPairs: Bool = false,
    relativeDeltaTolerance: Double = 0.1, pairsFromReference: Bool = false,
    pathPairsStartAtFirstPose: Bool = true, alignment: TrajectoryAlignment = .none,
    alignmentPoseCount: Int? = nil, relation: PoseRelation = .translation
  ) {
    self.delta = delta
    self.deltaUnit = deltaUnit
    self.allPairs = allPairs
    self.relativeDeltaTolerance = relativeDeltaTolerance
    self.pairsFromReference = pairsFromReference
    self.pathPairsStartAtFirstPose = pathPairsStartAtFirstPose
    self.alignment = alignment
    self.alignmentPoseCount = alignmentPoseCount
    self.relation = relation
  }

  private enum CodingKeys: String, CodingKey {
    case delta, deltaUnit, allPairs, relativeDeltaTolerance, pairsFromReference
    case pathPairsStartAtFirstPose, alignment, alignmentPoseCount, relation
  }

  /// Decodes the keys present; absent keys keep the defaults.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    var o = RelativeErrorOptions()
    if let value = try c.decodeIfPresent(Double.self, forKey: .delta) { o.delta = value }
    if let value = try c.decodeIfPresent(DeltaUnit.self, forKey: .deltaUnit) { o.deltaUnit = value }
    if let value = try c.decodeIfPresent(Bool.self, forKey: .allPairs) { o.allPairs = value }
    if let value = try c.decodeIfPresent(Double.self, forKey: .relativeDeltaTolerance) {
      o.relativeDeltaTolerance = value
    }
    if let value = try c.decodeIfPresent(Bool.self, forKey: .pairsFromReference) {
      o.pairsFromReference = value
    }
    if let value = try c.decodeIfPresent(Bool.self, forKey: .pathPairsStartAtFirstPose) {
      o.pathPairsStartAtFirstPose = value
    }
    if let value = try c.decodeIfPresent(TrajectoryAlignment.self, forKey: .alignment) {
      o.alignment = value
    }
    o.alignmentPoseCount = try c.decodeIfPresent(Int.self, forKey: .alignmentPoseCount)
    if let value = try c.decodeIfPresent(PoseRelation.self, forKey: .relation) { o.relation = value }
    self = o
  }
}

/// The absolute trajectory error of an estimate against a reference (evo's APE).
public struct AbsoluteTrajectoryError: Sendable, Hashable {
  /// The similarity applied to the estimate before measuring (identity without alignment).
  public var alignment: Similarity
  /// What each error measures.
  public var relation: PoseRelation
  /// One error per pose pair, in pose order: metres for `.translation` (the distance between the aligned
  /// estimated position and the reference position), degrees for `.rotationAngleDegrees`.
  public var errors: [Double]
  /// The statistics of `errors`.
  public var statistics: ErrorStatistics
}

/// The relative pose error of an estimate against a reference (evo's RPE).
public struct RelativePoseError: Sendable, Hashable {
  /// The similarity applied to the estimate before measuring (identity without alignment).
  public var alignment: Similarity
  /// What each error measures.
  public var relation: PoseRelation
  /// The pose pairs `(i, j)`, indices into the associated trajectories.
  public var pairs: [IndexPair]
  /// One error per pair: metres for `.translation`, degrees for `.rotationAngleDegrees`.
  public var errors: [Double]
  /// The statistics of `errors`.
  public var statistics: ErrorStatistics
}

/// The absolute trajectory error (evo's APE) of `estimate` against `reference`: the estimate is aligned
/// as `options.alignment` says, then each aligned pose `P_k` is compared with `Q_k` through the error
/// pose `E_k = Q_k⁻¹ P_k`. With `.translation` the error is `|trans(E_k)|`, the distance between the two
/// positions in metres (the ATE of Sturm et al. when aligned by SE(3)); with `.rotationAngleDegrees`
/// the rotation angle of `E_k`.
///
/// - Parameters:
///   - reference: ground-truth poses `worldFromSensor`, associated with `estimate` (pose `k` with pose
///     `k`; see `associate`).
///   - estimate: estimated poses `worldFromSensor`.
/// - Throws: `EvaluationError` when the counts differ or are zero, or the alignment fails.
public func absoluteTrajectoryError(
  reference: Trajectory, estimate: Trajectory, options: AbsoluteErrorOptions = AbsoluteErrorOptions()
) throws -> AbsoluteTrajectoryError {
  try estimate.checkCorresponds(to: reference)
  let alignment = try estimate.alignment(
    to: reference, using: options.alignment, poseCount: options.alignmentPoseCount)
  let aligned = estimate.transformed(by: alignment)
  var errors: [Double] = []
  errors.reserveCapacity(aligned.count)
  for k in aligned.poses.indices {
    switch options.relation {
    case .translation:
      errors.append(simd_distance(aligned.poses[k].translation, reference.poses[k].translation))
    case .rotationAngleDegrees:
      errors.append(rotationAngleDegrees(reference.poses[k].rotation.conjugate * aligned.poses[k].rotation))
    }
  }
  return AbsoluteTrajectoryError(
    alignment: alignment, relation: options.relation, errors: errors, statistics: ErrorStatistics(errors)!)
}

/// `absoluteTrajectoryError(reference:estimate:options:)` on associated trajectories.
public func absoluteTrajectoryError(
  _ associated: AssociatedTrajectories, options: AbsoluteErrorOptions = AbsoluteErrorOptions()
) throws -> AbsoluteTrajectoryError {
  try absoluteTrajectoryError(
    reference: associated.reference, estimate: associated.estimate, options: options)
}

/// The relative pose error (evo's RPE) of `estimate` against `reference`.
///
/// The estimate is aligned as `options.alignment` says; pose pairs `(i, j)` are chosen by
/// `posePairs(in:options:)` on the aligned estimate (or on the reference with
/// `options.pairsFromReference`); for each pair the error pose is
/// `E = (Q_i⁻¹ Q_j)⁻¹ (P_i⁻¹ P_j)`, with `Q` the reference and `P` the aligned estimate, and the error is
/// `|trans(E)|` in metres (`.translation`) or the rotation angle of `E` in degrees.
///
/// - Parameters:
///   - reference: ground-truth poses `worldFromSensor`, associated with `estimate`.
///   - estimate: estimated poses `worldFromSensor`.
/// - Throws: `EvaluationError` when the counts differ or are zero, an option is out of range, the
///   alignment fails, or no pair fits `delta`.
public func relativePoseError(
  reference: Trajectory, estimate: Trajectory, options: RelativeErrorOptions = RelativeErrorOptions()
) throws -> RelativePoseError {
  try estimate.checkCorresponds(to: reference)
  let alignment = try estimate.alignment(
    to: reference, using: options.alignment, poseCount: options.alignmentPoseCount)
  let aligned = estimate.transformed(by: alignment)
  let pairs = try posePairs(in: options.pairsFromReference ? reference : aligned, options: options)
  guard !pairs.isEmpty else {
    throw EvaluationError(
      .tooFewPoses,
      "no pose pair \(options.delta) \(options.deltaUnit.rawValue) apart in \(aligned.count) poses")
  }
  var errors: [Double] = []
  errors.reserveCapacity(pairs.count)
  for pair in pairs {
    let referenceMotion = reference.poses[pair.first].inverse * reference.poses[pair.second]
    let estimatedMotion = aligned.poses[pair.first].inverse * aligned.poses[pair.second]
    let error = referenceMotion.inverse * estimatedMotion
    switch options.relation {
    case .translation: errors.append(simd_length(error.translation))
    case .rotationAngleDegrees: errors.append(rotationAngleDegrees(error.rotation))
    }
  }
  return RelativePoseError(
    alignment: alignment, relation: options.relation, pairs: pairs, errors: errors,
    statistics: ErrorStatistics(errors)!)
}

/// `relativePoseError(reference:estimate:options:)` on associated trajectories.
public func relativePoseError(
  _ associated: AssociatedTrajectories, options: RelativeErrorOptions = RelativeErrorOptions()
) throws -> RelativePoseError {
  try relativePoseError(reference: associated.reference, estimate: associated.estimate, options: options)
}

/// The pose pairs `(i, j)`, `i < j`, of `trajectory` that `options.delta`, `deltaUnit`, `allPairs`,
/// `relativeDeltaTolerance` and `pathPairsStartAtFirstPose` select, as evo's `id_pairs_from_delta`:
///
/// - `.frames`, consecutive: `(0, Δ), (Δ, 2Δ), ...`; all pairs: `(i, i + Δ)` for every `i`.
/// - `.metres`, consecutive: walking the path, a pair ends (and the next one starts) at each pose where
///   the path travelled since the previous pair end reaches `delta`; the first pair starts at pose 0
///   (or, with `pathPairsStartAtFirstPose == false`, at the first such pose).
/// - `.metres`, all pairs: for each `i`, the `j > i` whose path length from `i` is nearest to `delta`
///   (the first such `j` on ties), kept when it is within `relativeDeltaTolerance * delta`.
///
/// - Throws: `EvaluationError.invalidOption` when `delta` is not a whole number ≥ 1 for `.frames` or
///   not positive and finite for `.metres`, or the tolerance is negative.
public func posePairs(in trajectory: Trajectory, options: RelativeErrorOptions) throws -> [IndexPair] {
  let n = trajectory.count
  switch options.deltaUnit {
  case .frames:
    guard options.delta >= 1, options.delta.rounded() == options.delta, options.delta < Double(Int.max)
    else {
      throw EvaluationError(
        .invalidOption, "delta in frames must be a whole number ≥ 1, not \(options.delta)")
    }
    let step = Int(options.delta)
    if options.allPairs {
      return n > step ? (0..<(n - step)).map { IndexPair($0, $0 + step) } : []
    }
    let starts = Array(stride(from: 0, to: n, by: step))
    return zip(starts, starts.dropFirst()).map { IndexPair($0, $1) }
  case .metres:
    guard options.delta > 0, options.delta.isFinite else {
      throw EvaluationError(.invalidOption, "delta in metres must be positive, not \(options.delta)")
    }
    guard options.relativeDeltaTolerance >= 0 else {
      throw EvaluationError(
        .invalidOption, "the relative delta tolerance must be ≥ 0, not \(options.relativeDeltaTolerance)")
    }
    guard n > 1 else { return [] }
    if options.allPairs {
      return allPathPairs(
        trajectory.distancesFromStart, delta: options.delta,
        tolerance: options.delta * options.relativeDeltaTolerance)
    }
    var ends: [Int] = options.pathPairsStartAtFirstPose ? [0] : []
    var travelled = 0.0
    for k in 1..<n {
      travelled += simd_distance(trajectory.poses[k].translation, trajectory.poses[k - 1].translation)
      if travelled >= options.delta {
        ends.append(k)
        travelled = 0
      }
    }
    return zip(ends, ends.dropFirst()).map { IndexPair($0, $1) }
  }
}

/// For each start `i`, the end `j > i` whose path length `distances[j] − distances[i]` is nearest to
/// `delta` (the lowest such `j` on ties), when within `tolerance`. `distances` is non-decreasing.
private func allPathPairs(_ distances: [Double], delta: Double, tolerance: Double) -> [IndexPair] {
  let n = distances.count
  var pairs: [IndexPair] = []
  // The first index in `lower..<n` whose path length from `i` is at least `length` (n when none); the
  // path lengths from `i` are non-decreasing in the index.
  func firstIndex(from lower: Int, start i: Int, reaching length: Double) -> Int {
    var low = lower
    var high = n
    while low < high {
      let mid = (low + high) / 2
      if distances[mid] - distances[i] >= length { high = mid } else { low = mid + 1 }
    }
    return low
  }
  for i in 0..<(n - 1) {
    let above = firstIndex(from: i + 1, start: i, reaching: delta)
    var best: Int?
    var bestDifference = Double.infinity
    if above > i + 1 {
      // The nearest below is the last index before `above`; on a plateau its first occurrence.
      let below = firstIndex(from: i + 1, start: i, reaching: distances[above - 1] - distances[i])
      best = below
      bestDifference = abs(distances[below] - distances[i] - delta)
    }
    if above < n, abs(distances[above] - distances[i] - delta) < bestDifference {
      best = above
      bestDifference = abs(distances[above] - distances[i] - delta)
    }
    if let best, bestDifference <= tolerance { pairs.append(IndexPair(i, best)) }
  }
  return pairs
}

/// The rotation angle of a unit quaternion in degrees, in `[0, 180]`.
private func rotationAngleDegrees(_ rotation: simd_quatd) -> Double {
  simd_length(RigidTransform.logRotation(rotation)) * 180 / Double.pi
}
