/// A trajectory: timestamped poses of one sensor.
///
/// Each pose is `worldFromSensor` (it maps sensor coordinates to world coordinates, so its translation is
/// the sensor's position in the world, in metres). Timestamps are in seconds on whatever clock the
/// source used; for trajectories without time (KITTI poses without a times file) they are the pose
/// indices `0, 1, 2, ...`. Timestamps are usually increasing but this is not required.
///
/// A value type: alignment and association return new trajectories and never modify their input
/// (evo's core keeps the same rule for its metrics).
public struct Trajectory: Sendable, Hashable {
  /// The time of each pose in seconds, `timestamps.count == poses.count`.
  public private(set) var timestamps: [Double]
  /// The poses, `worldFromSensor`, translations in metres.
  public private(set) var poses: [RigidTransform]

  /// A trajectory from timestamps (seconds) and `worldFromSensor` poses of the same count.
  ///
  /// - Precondition: `timestamps.count == poses.count`.
  public init(timestamps: [Double], poses: [RigidTransform]) {
    precondition(
      timestamps.count == poses.count,
      "a trajectory needs one timestamp per pose (\(timestamps.count) timestamps, \(poses.count) poses)")
    self.timestamps = timestamps
    self.poses = poses
  }

  /// A trajectory without time: the timestamp of pose `k` is `Double(k)`.
  public init(poses: [RigidTransform]) {
    self.init(timestamps: poses.indices.map(Double.init), poses: poses)
  }

  /// The empty trajectory.
  public init() {
    self.init(timestamps: [], poses: [])
  }

  /// The number of poses.
  public var count: Int { poses.count }

  /// True when the trajectory has no pose.
  public var isEmpty: Bool { poses.isEmpty }

  /// The sensor positions in world coordinates (metres): the poses' translations.
  public var positions: [SIMD3<Double>] { poses.map(\.translation) }

  /// The length of the path in metres: the sum of the distances between consecutive positions (0 for
  /// fewer than two poses). As evo's `path_length`.
  public var pathLength: Double {
    guard poses.count > 1 else { return 0 }
    var length = 0.0
    for k in 1..<poses.count {
      length += simd_distance(poses[k].translation, poses[k - 1].translation)
    }
    return length
  }

  /// The distance travelled from the first pose to each pose, metres (`0` for the first pose).
  public var distancesFromStart: [Double] {
    var result: [Double] = []
    result.reserveCapacity(poses.count)
    var length = 0.0
    for k in poses.indices {
      if k > 0 { length += simd_distance(poses[k].translation, poses[k - 1].translation) }
      result.append(length)
    }
    return result
  }

  /// The trajectory of the poses at `indices`, in the order given (indices may repeat).
  ///
  /// - Precondition: every index is in `0..<count`.
  public func reduced(to indices: some Sequence<Int>) -> Trajectory {
    var stamps: [Double] = []
    var kept: [RigidTransform] = []
    for index in indices {
      stamps.append(timestamps[index])
      kept.append(poses[index])
    }
    return Trajectory(timestamps: stamps, poses: kept)
  }

  /// The trajectory with every pose mapped by `similarity` (applied on the world side,
  /// `similarity * pose`; see `Similarity.apply(to:)`), timestamps unchanged.
  public func transformed(by similarity: Similarity) -> Trajectory {
    Trajectory(timestamps: timestamps, poses: poses.map { similarity.apply(to: $0) })
  }

  /// The trajectory with every timestamp shifted by `offset` seconds.
  public func shiftedInTime(by offset: Double) -> Trajectory {
    Trajectory(timestamps: timestamps.map { $0 + offset }, poses: poses)
  }
}
