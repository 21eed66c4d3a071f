/// The feature map's local bundle adjustment (ORB-SLAM's local BA, stella_vslam's `local_map_updater`
/// and `local_bundle_adjuster`), monocular and RGB-D (where the depth measured at each observation is
/// a prior on the point, weighted by the sensor's noise): the last `windowSize` keyframes are refined together with the
/// landmarks they see (the local map); the older ones that still observe one of those landmarks are
/// kept, fixed. They hold the gauge and the scale over their longer baselines, whereas two fixed
/// neighbouring keyframes (a few frames and centimetres apart) let the error of their relative pose set
/// the scale of the whole window.
struct LocalBundleWindow {
  /// A keyframe of the window.
  struct Keyframe {
    var opticalFromO: RigidTransform
    /// Pixel of every track in the keyframe, landmark or candidate: a candidate's observations join
    /// the bundle adjustment once it is triangulated.
    var observations: [UInt64: SIMD2<Double>]
    /// The depth measured at an observation's pixel, when there was one (RGB-D).
    var depths: [UInt64: BundleAdjustment.DepthPrior]
    /// The gyroscope's turn from the keyframe added before this one, when measured: a prior on
    /// their relative rotation while both are in the window.
    var turn: Turn? = nil
  }

  /// A measured rotation between two consecutive keyframes and its noise.
  struct Turn {
    /// The rotation from this keyframe's optical frame to the previous keyframe's.
    var previousFromThis: simd_quatd
    /// Standard deviation per axis, radians, > 0.
    var sigma: Double
  }

  let options: TrackerOptions.LocalBundle
  let intrinsics: CameraIntrinsics
  /// The keyframes, oldest first.
  private(set) var keyframes: [Keyframe] = []

  init(options: TrackerOptions.LocalBundle, intrinsics: CameraIntrinsics) {
    self.options = options
    self.intrinsics = intrinsics
  }

  /// Moves the keyframes rigidly: O becomes `newFromOld` O.
  mutating func move(by newFromOld: RigidTransform) {
    for k in keyframes.indices { keyframes[k].opticalFromO = keyframes[k].opticalFromO * newFromOld.inverse }
  }

  /// Adds a keyframe at `opticalFromO` observing `observations` (with the depths measured at some of
  /// them, `depths`: priors on those points; and the gyroscope's `turn` from the keyframe added before
  /// it, a prior on their relative rotation while both are in the window), and refines the last `windowSize`
  /// keyframes' poses and the landmarks they see (in `landmarks`, tracked, or `retired`: lost by KLT
  /// but still observed) by bundle adjustment, with up to `maxFixedKeyframes` older keyframes that
  /// observe those landmarks held fixed (the first keyframe alone while there are no older ones). Older
  /// keyframes that see none of them leave the window, and retired landmarks no refined keyframe sees
  /// are forgotten. Returns O from the new keyframe's optical frame, refined, or nil when no adjustment
  /// ran (too few keyframes or shared points, or the solver failed).
  mutating func addAndAdjust(
    opticalFromO: RigidTransform, observations: [UInt64: SIMD2<Double>],
    depths: [UInt64: BundleAdjustment.DepthPrior] = [:], turn: Turn? = nil,
    landmarks: inout [UInt64: SIMD3<Double>], retired: inout [UInt64: SIMD3<Double>]
  ) -> RigidTransform? {
    keyframes.append(
      Keyframe(opticalFromO: opticalFromO, observations: observations, depths: depths, turn: turn))
    let (tracked, lost) = (landmarks, retired)
    func position(_ id: UInt64) -> SIMD3<Double>? { tracked[id] ?? lost[id] }
    // The local map: the points the refined keyframes observe.
    var firstFree = max(0, keyframes.count - options.windowSize)
    var local = Set<UInt64>()
    for keyframe in keyframes[firstFree...] {
      for id in keyframe.observations.keys where position(id) != nil { local.insert(id) }
    }
    // Older keyframes stay, fixed, from the first that observes a point of the local map on.
    let earliest =
      (0..<firstFree).first { c in keyframes[c].observations.keys.contains { local.contains($0) } }
      ?? firstFree
    let start = max(earliest, firstFree - options.maxFixedKeyframes)
    if start > 0 {
      keyframes.removeFirst(start)
      firstFree -= start
    }
    retired = retired.filter { local.contains($0.key) }
    guard keyframes.count >= 3 else { return nil }
    var seen: [UInt64: Int] = [:]
    for keyframe in keyframes {
      for id in keyframe.observations.keys where local.contains(id) { seen[id, default: 0] += 1 }
    }
    let pointIDs = seen.filter { $0.value >= 2 }.keys.sorted()
    guard pointIDs.count >= 10 else { return nil }
    var measurements: [BundleAdjustment.Observation] = []
    for (c, keyframe) in keyframes.enumerated() {
      for (k, id) in pointIDs.enumerated() {
        guard let pixel = keyframe.observations[id] else { continue }
        measurements.append(
          BundleAdjustment.Observation(camera: c, point: k, pixel: pixel, depth: keyframe.depths[id]))
      }
    }
    guard
      let adjusted = try? BundleAdjustment.adjust(
        cameras: keyframes.map(\.opticalFromO.poseCW),
        fixed: keyframes.indices.map { $0 < max(1, firstFree) },
        points: pointIDs.map { position($0)! }, observations: measurements, intrinsics: intrinsics,
        iterations: options.iterations, huberDelta: options.huberPixels,
        rotationPriors: keyframes.indices.dropFirst().compactMap { c in
          keyframes[c].turn.map {
            BundleAdjustment.RotationPrior(
              first: c - 1, second: c, firstFromSecond: $0.previousFromThis, sigma: $0.sigma)
          }
        })
    else { return nil }
    for c in keyframes.indices { keyframes[c].opticalFromO = RigidTransform(adjusted.cameras[c]) }
    for (k, id) in pointIDs.enumerated() {
      if landmarks[id] != nil { landmarks[id] = adjusted.points[k] } else { retired[id] = adjusted.points[k] }
    }
    return keyframes[keyframes.count - 1].opticalFromO.inverse
  }
}
