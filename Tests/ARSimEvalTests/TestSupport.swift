import ARSimEval

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Test inputs drawn from ARSimMath's seeded generator.
extension SplitMix64 {
  /// A vector with components uniform in `[lower, upper)`.
  mutating func vector(_ lower: Double, _ upper: Double) -> SIMD3<Double> {
    SIMD3(uniform(lower, upper), uniform(lower, upper), uniform(lower, upper))
  }

  /// A rotation uniform over SO(3): a quaternion uniform in the unit 4-ball (by rejection), normalised.
  mutating func rotation() -> simd_quatd {
    while true {
      let q = SIMD4(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1), uniform(-1, 1))
      let n = simd_length(q)
      if n > 0.1 && n <= 1 { return simd_quatd(vector: q / n) }
    }
  }

  /// A rigid transform with a uniform rotation and a translation in `[-extent, extent)³` metres.
  mutating func rigidTransform(extent: Double) -> RigidTransform {
    RigidTransform(rotation: rotation(), translation: vector(-extent, extent))
  }
}

/// A wandering trajectory of `count` poses, 30 Hz timestamps from `start`: smooth loops a few metres
/// wide with a turning camera, so positions span all three axes.
func wanderingTrajectory(count: Int, start: Double = 100) -> Trajectory {
  var poses: [RigidTransform] = []
  var stamps: [Double] = []
  for k in 0..<count {
    let s = Double(k) / 30
    let position = SIMD3(2 * cos(0.7 * s), 1.5 * sin(0.9 * s), 0.5 * sin(0.4 * s) + 0.1 * s)
    let rotation = RigidTransform.expRotation(SIMD3(0.2 * sin(s), 0.3 * cos(0.5 * s), 0.8 * s))
    poses.append(RigidTransform(rotation: rotation, translation: position))
    stamps.append(start + s)
  }
  return Trajectory(timestamps: stamps, poses: poses)
}

/// The largest distance between corresponding positions of two trajectories of equal length, metres.
func maxPositionDifference(_ a: Trajectory, _ b: Trajectory) -> Double {
  zip(a.positions, b.positions).map { simd_distance($0, $1) }.max() ?? 0
}
