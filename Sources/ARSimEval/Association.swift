/// A pair of indices into two sequences: `first` into the first, `second` into the second.
public struct IndexPair: Sendable, Hashable, Codable {
  /// The index into the first sequence (the reference, or the earlier pose of a pose pair).
  public var first: Int
  /// The index into the second sequence (the estimate, or the later pose of a pose pair).
  public var second: Int

  /// A pair of indices.
  public init(_ first: Int, _ second: Int) {
    self.first = first
    self.second = second
  }
}

/// Two trajectories with the same number of poses, pose `k` of one taken at (about) the time of pose `k`
/// of the other: the input of the metrics.
public struct AssociatedTrajectories: Sendable, Hashable {
  /// The matched reference poses, with their own timestamps, in the order of the shorter trajectory.
  public var reference: Trajectory
  /// The matched estimated poses, with their own timestamps (the offset is not applied).
  public var estimate: Trajectory
  /// For each match, the index in the original reference (`first`) and in the original estimate
  /// (`second`).
  public var matches: [IndexPair]
}

/// The poses of `reference` and `estimate` taken at matching times, as evo's `associate_trajectories`
/// (nearest-time method).
///
/// The trajectory with fewer poses (the estimate when both have as many) is walked in order; each of its
/// timestamps is matched to the nearest timestamp of the other trajectory, ties going to the earlier
/// one, and the match is kept when the difference is at most `maxDifference` seconds. The estimate's
/// timestamps are compared after adding `offset`: `|(t_estimate + offset) − t_reference| ≤
/// maxDifference`.
///
/// Like evo, a pose of the longer trajectory is not removed once matched: two poses of the shorter one
/// that are both nearest to it and within `maxDifference` both match it. With `maxDifference` below
/// half the longer trajectory's sampling interval (the usual case: 0.01 s against 30 Hz or more
/// reference data), every pose is used at most once.
///
/// - Parameters:
///   - reference: the ground truth (timestamps in seconds).
///   - estimate: the estimated trajectory (timestamps in seconds, on the reference's clock up to
///     `offset`).
///   - maxDifference: the largest accepted time difference, seconds (evo's `--t_max_diff`, default
///     0.01).
///   - offset: seconds added to the estimate's timestamps before matching (evo's `--t_offset`).
/// - Throws: `EvaluationError.mismatchedTrajectories` when no pose matches.
public func associate(
  reference: Trajectory, estimate: Trajectory, maxDifference: Double = 0.01, offset: Double = 0
) throws -> AssociatedTrajectories {
  let estimateIsShorter = estimate.count <= reference.count
  let shortStamps = estimateIsShorter ? estimate.timestamps.map { $0 + offset } : reference.timestamps
  let longStamps = estimateIsShorter ? reference.timestamps : estimate.timestamps.map { $0 + offset }
  let pairs = nearestTimeMatches(shortStamps, longStamps, maxDifference: maxDifference)
  guard !pairs.isEmpty else {
    throw EvaluationError(
      .mismatchedTrajectories,
      "no matching timestamps between the reference (\(reference.count) poses) and the estimate"
        + " (\(estimate.count) poses) with max. difference \(maxDifference) s and offset \(offset) s")
  }
  let matches = pairs.map { estimateIsShorter ? IndexPair($0.second, $0.first) : $0 }
  return AssociatedTrajectories(
    reference: reference.reduced(to: matches.map(\.first)),
    estimate: estimate.reduced(to: matches.map(\.second)),
    matches: matches)
}

/// For each timestamp of `query` in order, the index of the nearest timestamp of `candidates` (ties to
/// the lower index) when it is within `maxDifference`: pairs `(query index, candidate index)`.
///
/// Sorted candidates are searched by bisection; unsorted ones linearly (same result).
func nearestTimeMatches(
  _ query: [Double], _ candidates: [Double], maxDifference: Double
) -> [IndexPair] {
  guard !candidates.isEmpty else { return [] }
  var sorted = true
  for k in candidates.indices.dropFirst() where candidates[k] < candidates[k - 1] {
    sorted = false
    break
  }
  var result: [IndexPair] = []
  for (index, stamp) in query.enumerated() {
    var best: Int
    if sorted {
      // The first candidate strictly after the stamp; the nearest is it or the one before.
      var low = 0
      var high = candidates.count
      while low < high {
        let mid = (low + high) / 2
        if candidates[mid] <= stamp { low = mid + 1 } else { high = mid }
      }
      if low == candidates.count {
        best = candidates.count - 1
      } else if low == 0 {
        best = 0
      } else {
        best = (candidates[low] - stamp) < (stamp - candidates[low - 1]) ? low : low - 1
      }
    } else {
      best = 0
      for k in candidates.indices where abs(candidates[k] - stamp) < abs(candidates[best] - stamp) {
        best = k
      }
    }
    if abs(candidates[best] - stamp) <= maxDifference { result.append(IndexPair(index, best)) }
  }
  return result
}
