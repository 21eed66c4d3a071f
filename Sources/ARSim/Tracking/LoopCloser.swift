extension TrackerOptions {
  /// Loop closure (RGB-D): a revisit of keyframes outside the local window recognised and verified,
  /// then a pose graph over the keyframes made since.
  public struct LoopClosure: Codable, Sendable, Equatable {
    /// Whether loops are closed. Default true.
    public var enabled = true
    /// Seconds a keyframe must be older than the frame to close a loop with it: younger keyframes are
    /// the local window, which the odometry tracks against anyway. Default 5.
    public var minKeyframeAge = 5.0
    /// Keyframes whose tracked pose lies within this distance of the frame's, metres, are the
    /// candidates of place recognition (the revisit is sought where the drifted pose says it may be;
    /// drift beyond this is not recognised). Default 0.5.
    public var searchRadius = 0.5
    /// ... and within this many degrees. Default 30.
    public var searchDegrees = 30.0
    /// Nearest candidates matched (brute-force Hamming, then PnP RANSAC). Default 3.
    public var candidates = 3
    /// Fewest PnP inliers of a loop. Default 40.
    public var minInliers = 40
    /// Seconds between loop checks, at least (each also needs the camera to have moved a keyframe
    /// spacing): a check costs an ORB detection, matching and PnP, so this bounds the cost per
    /// frame. Default 1.
    public var checkInterval = 1.0
    /// Consecutive checks (so views at least ``checkInterval`` and a keyframe spacing apart) whose
    /// loop corrections must agree before the loop closes (one located view alone may be a wrong
    /// match); the correction is their mean. Default 2.
    public var agreementChecks = 2
    /// How far those corrections may be from the first of them, metres... Default 0.02.
    public var agreementTranslation = 0.02
    /// ... and this many degrees. Default 1.
    public var agreementDegrees = 1.0
    /// Loop corrections smaller than this, metres, and ``minCorrectionDegrees`` are within PnP's noise
    /// and left alone. Default 0.01.
    public var minCorrection = 0.01
    /// See ``minCorrection``. Default 0.5.
    public var minCorrectionDegrees = 0.5
    /// The odometry's drift per metre travelled (the standard deviation of a pose-graph odometry
    /// edge's translation is 2 mm plus this times its length; its rotation's 0.2° plus this times its
    /// angle). Default 0.02.
    public var driftPerMetre = 0.02
    /// Standard deviation of a loop edge's translation, metres (its rotation's is this in degrees
    /// times 50). Default 0.005.
    public var loopSigma = 0.005

    /// The defaults.
    public init() {}
  }
}

/// Loop closure for the RGB-D odometry (ORB-SLAM's loop closing, with place recognition by proximity
/// instead of a bag of words): every keyframe spacing of motion, the frame's ORB features are matched
/// against the keyframes near its tracked pose that are older than the local window (at most every
/// ``TrackerOptions/LoopClosure/checkInterval``); a PnP RANSAC pose with enough inliers, agreeing over
/// ``TrackerOptions/LoopClosure/agreementChecks`` consecutive checks, gives the loop correction. A pose graph (``PoseGraph``) over the keyframes made
/// since the later of the loop keyframe and the last closure (odometry edges between them in the
/// order they were made, the loop edge from the loop keyframe to the frame; older keyframes held)
/// spreads it. Deterministic: RANSAC takes the given seed, ties go to the older keyframe.
struct LoopCloser {
  let options: TrackerOptions.LoopClosure
  let spacing: TrackerOptions.Relocalization
  /// The pose and time of the last check.
  private var lastCheck: (pose: RigidTransform, time: Double)?
  /// The loop corrections of the last consecutive located checks (loop keyframe index, correction).
  private var agreeing: [(keyframe: Int, correction: RigidTransform)] = []
  /// The time of the last closure: the keyframes made since are the next closure's free nodes.
  private var lastClosure = -Double.infinity

  init(options: TrackerOptions.LoopClosure, spacing: TrackerOptions.Relocalization) {
    self.options = options
    self.spacing = spacing
  }

  /// The candidates for a loop at `pose` and `time`: keyframes older than the local window within the
  /// search radius and angle, nearest first (distance plus angle at 1 m per radian).
  private func candidates(_ keyframes: ArraySlice<Keyframe>, pose: RigidTransform, time: Double) -> [Int] {
    var near: [(index: Int, score: Double)] = []
    for index in keyframes.indices where keyframes[index].time <= time - options.minKeyframeAge {
      let keyframe = keyframes[index]
      let step = keyframe.oFromOptical.inverse * pose
      let distance = simd_length(step.translation)
      guard distance <= options.searchRadius, step.angle <= options.searchDegrees * .pi / 180 else {
        continue
      }
      near.append((index, distance + step.angle))
    }
    near.sort { $0.score != $1.score ? $0.score < $1.score : $0.index < $1.index }
    return near.prefix(options.candidates).map(\.index)
  }

  /// Checks the frame (tracked at `pose` in O at `time`) for a loop against `keyframes` (the session's
  /// own: a world map's are for relocalisation, and closing loops against them carries the first
  /// session's drift into the second); returns
  /// the loop keyframe's index and the correction of the frame (`newFromOld`, O) once a loop is
  /// confirmed, else nil.
  mutating func check(
    pose: RigidTransform, time: Double, gray: GrayImage, keyframes: ArraySlice<Keyframe>,
    relocalizer: Relocalizer,
    seed: UInt64, depthAt: (SIMD2<Float>) -> Double?, view: () -> DepthThumbnail? = { nil }
  ) -> (keyframe: Int, correction: RigidTransform)? {
    guard options.enabled else { return nil }
    if let lastCheck {
      let step = lastCheck.pose.inverse * pose
      guard time - lastCheck.time >= options.checkInterval,
        simd_length(step.translation) >= spacing.keyframeTranslation
          || step.angle >= spacing.keyframeRotationDegrees * .pi / 180
      else { return nil }
    }
    lastCheck = (pose, time)
    let candidates = candidates(keyframes, pose: pose, time: time)
    guard !candidates.isEmpty, let (keypoints, descriptors) = relocalizer.features(in: gray),
      let located = relocalizer.locate(
        keypoints: keypoints, descriptors: descriptors, against: keyframes, candidates: candidates,
        seed: seed, depthAt: depthAt, view: view),
      located.inliers >= options.minInliers
    else {
      agreeing.removeAll()
      return nil
    }
    let correction = located.oFromOptical * pose.inverse
    if let first = agreeing.first?.correction, case let step = first.inverse * correction,
      simd_length(step.translation) > options.agreementTranslation
        || step.angle > options.agreementDegrees * .pi / 180
    {
      agreeing.removeAll()
    }
    agreeing.append((located.keyframe, correction))
    guard agreeing.count >= options.agreementChecks else { return nil }
    let mean = CameraTracker.mean(agreeing.map(\.correction))
    agreeing.removeAll()
    guard
      simd_length(mean.translation) >= options.minCorrection
        || mean.angle >= options.minCorrectionDegrees * .pi / 180
    else { return nil }
    return (located.keyframe, mean)
  }

  /// Closes the loop from keyframe `loop` to the frame at `pose` and `time`, whose corrected pose is
  /// `correction · pose`: solves the pose graph, moves the free keyframes (and their points) in
  /// `store`, and returns the frame's new pose and the deformation (in O) of everything mapped since
  /// the graph's held part.
  mutating func close(
    loop: Int, correction: RigidTransform, pose: RigidTransform, time: Double, store: inout KeyframeStore
  ) -> (pose: RigidTransform, deformation: WorldDeformation) {
    let keyframes = store.keyframes
    let since = max(keyframes[loop].time, lastClosure)
    lastClosure = time
    // Held: the loop keyframe, and the last keyframe made by the previous closure (which holds what
    // it corrected). Free: the keyframes made since, in the order they were made, then the frame.
    var held = [loop]
    if let anchor = keyframes.indices.last(where: { keyframes[$0].time <= since }), anchor != loop {
      held.append(anchor)
    }
    let free = keyframes.indices.filter { keyframes[$0].time > since && !held.contains($0) }
    let chain = [held.last!] + free
    var graph = PoseGraph(poses: held.map { keyframes[$0].oFromOptical }, fixed: held.count)
    graph.poses += free.map { keyframes[$0].oFromOptical } + [pose]
    let node = { (position: Int) in position == 0 ? held.count - 1 : held.count + position - 1 }
    for position in 0..<chain.count {
      let a = graph.poses[node(position)]
      let b = graph.poses[node(position + 1)]
      let step = a.inverse * b
      graph.edges.append(
        PoseGraph.Edge(
          a: node(position), b: node(position + 1), aFromB: step,
          translationWeight: 1 / (0.002 + options.driftPerMetre * simd_length(step.translation)),
          rotationWeight: 1 / (0.2 * .pi / 180 + options.driftPerMetre * step.angle)))
    }
    let loopSigmaRadians = options.loopSigma * 50 * .pi / 180
    graph.edges.append(
      PoseGraph.Edge(
        a: 0, b: graph.poses.count - 1, aFromB: keyframes[loop].oFromOptical.inverse * correction * pose,
        translationWeight: 1 / options.loopSigma, rotationWeight: 1 / loopSigmaRadians))
    graph.optimize()
    var corrections: [(time: Double, newFromOld: RigidTransform)] = [(since, .identity)]
    for (position, index) in free.enumerated() {
      let moved = graph.poses[held.count + position] * keyframes[index].oFromOptical.inverse
      store.correct(index, by: moved)
      corrections.append((keyframes[index].time, moved))
    }
    let newPose = graph.poses[graph.poses.count - 1]
    corrections.append((time, newPose * pose.inverse))
    return (newPose, WorldDeformation(since: since, corrections: corrections))
  }
}
