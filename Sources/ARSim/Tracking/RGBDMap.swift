/// The RGB-D odometry's landmark map: points in O made from a feature's depth, then refined over the
/// keyframes of a ``LocalBundleWindow`` by their reprojections in every keyframe that saw them, with
/// the depth measured at each of those observations as a prior weighted by the sensor's noise. The
/// frame-to-map pose (PnP) reads the refined positions.
struct RGBDMap {
  let options: TrackerOptions
  /// Tracked landmarks, O, metres.
  private(set) var landmarks: [UInt64: SIMD3<Double>] = [:]
  /// Landmarks no longer tracked that a keyframe of the window still observes: they keep tying the
  /// window to its older, fixed keyframes until those leave it.
  private var retired: [UInt64: SIMD3<Double>] = [:]
  private var window: LocalBundleWindow
  private var framesSinceKeyframe = 0
  private var nextID: UInt64 = 1

  init(options: TrackerOptions, intrinsics: CameraIntrinsics) {
    self.options = options
    window = LocalBundleWindow(options: options.localBundle, intrinsics: intrinsics)
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

  /// Depth noise: standard deviation in metres at depth `d` (growing with d², as structured-light and
  /// time-of-flight sensors do), scaled up by ``TrackerOptions/RGBD/mediumConfidenceNoiseFactor`` for
  /// medium-confidence pixels (ARKit's level 1), by its square for low ones (when not masked).
  func depthSigma(_ d: Double, confidence: UInt8) -> Double {
    let rgbd = options.rgbd
    let sigma = rgbd.depthNoiseBase + rgbd.depthNoiseQuadratic * d * d
    let factor = rgbd.mediumConfidenceNoiseFactor
    return confidence >= 2 ? sigma : confidence == 1 ? sigma * factor : sigma * factor * factor
  }

  /// Counts a tracked frame; every ``TrackerOptions/RGBD/bundleInterval`` frames it becomes a
  /// keyframe of the window, observing the tracks at `pixels` with the depths `depthAt` gives, and the
  /// window is adjusted. Returns O from the frame's optical frame, refined, or nil (not a keyframe,
  /// or no adjustment ran).
  mutating func frameTracked(
    oFromOptical: RigidTransform, ids: [UInt64], pixels: [SIMD2<Float>],
    depthAt: (SIMD2<Float>) -> FrameDepth.Sample?
  ) -> RigidTransform? {
    framesSinceKeyframe += 1
    guard framesSinceKeyframe >= options.rgbd.bundleInterval else { return nil }
    framesSinceKeyframe = 0
    var observations: [UInt64: SIMD2<Double>] = [:]
    var depths: [UInt64: BundleAdjustment.DepthPrior] = [:]
    for (id, pixel) in zip(ids, pixels) where landmarks[id] != nil {
      observations[id] = SIMD2(Double(pixel.x), Double(pixel.y))
      if let sample = depthAt(pixel) {
        depths[id] = .init(
          depth: sample.depth, sigma: depthSigma(sample.depth, confidence: sample.confidence))
      }
    }
    return window.addAndAdjust(
      opticalFromO: oFromOptical.inverse, observations: observations, depths: depths, landmarks: &landmarks,
      retired: &retired)
  }
}
