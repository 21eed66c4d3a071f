/// The RGB-D odometry's landmark map: points in O made from a feature's depth, then refined over the
/// keyframes of a ``LocalBundleWindow`` by their reprojections in every keyframe that saw them, with
/// the depth measured at each of those observations as a prior weighted by the sensor's noise. A frame
/// joins the window only when the keyframe policy asks (``TrackerOptions/RGBD/keyframeTrackedFraction``
/// and the settings after it), which bounds the adjustment's cost. The frame-to-map pose (PnP, refined
/// with the frame's own depths as priors: ``depthPrior(_:)``) reads the refined positions.
struct RGBDMap {
  let options: TrackerOptions
  /// Tracked landmarks, O, metres.
  private(set) var landmarks: [UInt64: SIMD3<Double>] = [:]
  /// Landmarks no longer tracked that a keyframe of the window still observes: they keep tying the
  /// window to its older, fixed keyframes until those leave it.
  private var retired: [UInt64: SIMD3<Double>] = [:]
  private var window: LocalBundleWindow
  private var framesSinceKeyframe = 0
  /// The last keyframe of the window: O from its optical frame and the landmarks it observed.
  private var lastKeyframe: (oFromOptical: RigidTransform, landmarks: Set<UInt64>, time: Double)?
  /// O from the last keyframe's optical frame, as the window adjusted it (nil before the first).
  var lastKeyframePose: RigidTransform? { lastKeyframe?.oFromOptical }
  /// Keyframes the window was given so far (each ran its adjustment when it had enough views).
  private(set) var keyframesMade = 0
  /// The rotation from the last keyframe's optical frame to the one before it, as the window adjusted
  /// them when it made the last one (nil: it did not adjust).
  private(set) var lastKeyframeTurn: simd_quatd?
  private var nextID: UInt64 = 1

  init(options: TrackerOptions, intrinsics: CameraIntrinsics) {
    self.options = options
    var bundle = options.localBundle
    bundle.windowSize = options.rgbd.bundleWindow
    bundle.maxFixedKeyframes = options.rgbd.bundleFixedKeyframes
    bundle.iterations = options.rgbd.bundleIterations
    window = LocalBundleWindow(options: bundle, intrinsics: intrinsics)
  }

  /// A new landmark at `position` (O); returns its identifier.
  mutating func add(_ position: SIMD3<Double>) -> UInt64 {
    let id = nextID
    nextID += 1
    landmarks[id] = position
    return id
  }

  /// Keeps the landmarks still tracked (`ids`); the others retire (held for the window's adjustment).
  mutating func keep(tracked ids: [UInt64]) {
    let alive = Set(ids)
    for (id, p) in landmarks where !alive.contains(id) { retired[id] = p }
    landmarks = landmarks.filter { alive.contains($0.key) }
  }

  /// Moves the map rigidly by `newFromOld` (a loop closure's correction of the current frame): the
  /// landmarks, tracked and retired, and the window's keyframes.
  mutating func move(by newFromOld: RigidTransform) {
    for id in landmarks.keys { landmarks[id] = newFromOld.apply(to: landmarks[id]!) }
    for id in retired.keys { retired[id] = newFromOld.apply(to: retired[id]!) }
    window.move(by: newFromOld)
    if let last = lastKeyframe { lastKeyframe = (newFromOld * last.oFromOptical, last.landmarks, last.time) }
  }

  /// Depth noise: standard deviation in metres at depth `d` (growing with d², as structured-light and
  /// time-of-flight sensors do), scaled up by ``TrackerOptions/RGBD/mediumConfidenceNoiseFactor`` for
  /// medium-confidence pixels (ARKit's level 1), by its square for low ones (when not masked).
  func depthSigma(_ d: Double, confidence: UInt8) -> Double {
    let rgbd = options.rgbd
    let sigma = rgbd.depthNoiseBase + rgbd.depthNoiseQuadratic * d * d
    let factor = rgbd.mediumConfidenceNoiseFactor
    return confidence >= 2 ? sigma : confidence == 1 ? sigma * factor : sigma * factor * factor
  }

  /// The prior on a landmark's depth from the depth measured at its pixel (nil: none), with
  /// ``depthSigma(_:confidence:)``.
  func depthPrior(_ sample: FrameDepth.Sample?) -> BundleAdjustment.DepthPrior? {
    sample.map { .init(depth: $0.depth, sigma: depthSigma($0.depth, confidence: $0.confidence)) }
  }

  /// A tracked frame at `oFromOptical` (its pose already refined with its depths): when it is a
  /// keyframe (``isKeyframe(at:ids:depths:)``) it joins the window, observing the tracks at `pixels` with
  /// the depths measured there (and `turn`, the gyroscope's rotation from the last keyframe when
  /// measured: a prior on their relative rotation), and the window is adjusted. Returns O from the frame's optical frame as
  /// adjusted, or nil when the frame is no keyframe or the window did not adjust.
  mutating func frameTracked(
    oFromOptical: RigidTransform, ids: [UInt64], pixels: [SIMD2<Float>], time: Double,
    turn: LocalBundleWindow.Turn? = nil, depthAt: (SIMD2<Float>) -> FrameDepth.Sample?
  ) -> RigidTransform? {
    framesSinceKeyframe += 1
    var observations: [UInt64: SIMD2<Double>] = [:]
    var depths: [UInt64: BundleAdjustment.DepthPrior] = [:]
    for (id, pixel) in zip(ids, pixels) where landmarks[id] != nil {
      observations[id] = SIMD2(Double(pixel.x), Double(pixel.y))
      depths[id] = depthPrior(depthAt(pixel))
    }
    guard isKeyframe(at: oFromOptical, ids: ids, depths: depths, time: time) else { return nil }
    framesSinceKeyframe = 0
    keyframesMade += 1
    lastKeyframe = (oFromOptical, Set(observations.keys), time)
    let adjusted = window.addAndAdjust(
      opticalFromO: oFromOptical.inverse, observations: observations, depths: depths, turn: turn,
      landmarks: &landmarks, retired: &retired)
    if let adjusted { lastKeyframe?.oFromOptical = adjusted }
    let kept = window.keyframes
    lastKeyframeTurn =
      adjusted != nil && kept.count >= 2
      ? (kept[kept.count - 2].opticalFromO * kept[kept.count - 1].opticalFromO.inverse).rotation : nil
    return adjusted
  }

  /// Whether the frame at `oFromOptical` tracking `ids` (with the measured `depths`) makes a new
  /// keyframe (ORB-SLAM's policy): the first; fewer than ``TrackerOptions/RGBD/keyframeTrackedFraction``
  /// of the last keyframe's landmarks still tracked; moved ``TrackerOptions/RGBD/keyframeBaseline`` of
  /// the median depth or turned ``TrackerOptions/RGBD/keyframeRotationDegrees`` from it; or
  /// ``TrackerOptions/RGBD/keyframeMaxFrames`` frames since it.
  private func isKeyframe(
    at oFromOptical: RigidTransform, ids: [UInt64], depths: [UInt64: BundleAdjustment.DepthPrior],
    time: Double
  ) -> Bool {
    let rgbd = options.rgbd
    guard let last = lastKeyframe, framesSinceKeyframe < rgbd.keyframeMaxFrames else { return true }
    let still = ids.reduce(0) { $0 + (last.landmarks.contains($1) ? 1 : 0) }
    if Double(still) < rgbd.keyframeLostFraction * Double(last.landmarks.count) { return true }
    if time - last.time < rgbd.keyframeMinInterval { return false }
    if Double(still) < rgbd.keyframeTrackedFraction * Double(last.landmarks.count) { return true }
    let step = last.oFromOptical.inverse * oFromOptical
    if step.angle > rgbd.keyframeRotationDegrees * .pi / 180 { return true }
    let sorted = depths.values.map(\.depth).sorted()
    guard !sorted.isEmpty else { return false }
    return simd_length(step.translation) > rgbd.keyframeBaseline * sorted[sorted.count / 2]
  }
}
