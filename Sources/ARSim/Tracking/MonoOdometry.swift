import Foundation

/// Where a monocular map's metric scale came from.
public enum ScaleSource: String, Sendable, Codable {
  /// The first frame's depth image: median ratio of measured to triangulated depth.
  case firstDepthFrame
  /// The `--scale` option: the initial two-view baseline is taken to be that many metres.
  case givenScale
  /// No scale information: the initial two-view baseline is one unit (not metres).
  case unscaled
}

/// Monocular visual odometry: a ``MonoInitializer`` until the map exists (rotation-only poses, then
/// the two-view initialisation), then PnP against the map, new landmarks triangulated from each
/// feature's first observation once the parallax is large enough, and a ``LocalBundleWindow``
/// refining the recent keyframes. Times are booked by stage: `track` (pyramid and KLT), `pose` (the
/// rotation fit, the two-view initialisation, PnP), `map` (triangulation, bundle adjustment, new
/// features).
final class MonoOdometry: Odometry {
  let options: TrackerOptions
  let intrinsics: CameraIntrinsics
  private var tracks: FeatureFrontEnd
  private var landmarks: [UInt64: SIMD3<Double>] = [:]
  /// Landmarks whose tracks KLT lost but that a refined keyframe of the window still observes. They
  /// are no longer tracked, but keep tying the window's keyframes to the older, fixed ones (and so
  /// keep the scale) in the bundle adjustment until the last refined keyframe that saw them leaves
  /// the window: through a stretch where few features survive, the scale would otherwise rest on the
  /// few landmarks still tracked and the newly triangulated ones.
  private var retired: [UInt64: SIMD3<Double>] = [:]
  /// Tracks without a 3D point yet.
  private var candidates: [UInt64: MonoCandidate] = [:]
  private var nextID: UInt64 = 1
  private var previousPyramid: KLTPyramid?
  private var initializer: MonoInitializer
  private var initialized = false
  /// O from the current optical frame.
  private var pose = RigidTransform.identity
  private var previousPose: RigidTransform?
  private var framesWithoutMeasurement = 0
  private var frameIndex = 0
  private(set) var timings = StageTimings()
  /// How the map got its scale, once initialised.
  private(set) var scaleSource: ScaleSource?
  /// Metres per unit of the initial baseline.
  private(set) var scale = 1.0
  private var window: LocalBundleWindow
  private var framesSinceKeyframe = 0

  init(intrinsics: CameraIntrinsics, options: TrackerOptions) {
    self.intrinsics = intrinsics
    self.options = options
    tracks = FeatureFrontEnd(options: options, intrinsics: intrinsics)
    initializer = MonoInitializer(options: options.monoInitialization, intrinsics: intrinsics)
    window = LocalBundleWindow(options: options.localBundle, intrinsics: intrinsics)
  }

  func process(gray: GrayImage, depth: FrameDepth?, timestamp: Double) -> OdometryResult {
    timings = StageTimings()
    var clock = ContinuousClock.now
    let pyramid = tracks.pyramid(gray)
    defer {
      previousPyramid = pyramid
      frameIndex += 1
    }
    guard let previousPyramid, let pyramid else {
      if initialized {
        addCandidates(gray: gray)
      } else {
        restartInitialization(gray: gray, depth: depth)
      }
      lap(&timings.track, since: clock)
      return result(.initializing, frameIndex == 0 ? .origin : .prediction, 0)
    }
    if !initialized {
      tracks.track(from: previousPyramid, to: pyramid) { _ in nil }
      let alive = Set(tracks.ids)
      candidates = candidates.filter { alive.contains($0.key) }
      clock = lap(&timings.track, since: clock)
      defer { lap(&timings.map, since: clock) }
      // While a rotation explains the tracks, the camera has not translated measurably and two views
      // cannot triangulate: the map does not exist yet and the frame stays initialising, with the
      // measured rotation. Once the rotation leaves enough parallax unexplained, the two-view
      // initialisation is tried; until it succeeds, the last pose is held.
      let fit = initializer.fitRotation(tracks, candidates: candidates)
      let rotated = fit.flatMap { initializer.isRotationOnly($0) ? $0 : nil }
      let initializedNow = rotated == nil && initializer.hasTranslated(fit) && tryInitialize()
      clock = lap(&timings.pose, since: clock)
      if initializedNow { return result(.normal, .features, landmarks.count) }
      if let rotated { pose = rotated.oFromOptical }
      let minTracks = options.monoInitialization.minTracks
      let turningAway =
        rotated != nil && tracks.count < 2 * minTracks && tracks.count < initializer.referenceTrackCount / 2
      if tracks.count < minTracks || turningAway {
        // Too few tracks survive (or soon will: most have left as the camera turns): restart the
        // two-view initialisation from this frame, while its rotation is still measured.
        restartInitialization(gray: gray, depth: depth)
      }
      return result(.initializing, rotated == nil ? .prediction : .rotation, rotated?.inliers ?? 0)
    }

    let predicted: RigidTransform = previousPose.map { pose * ($0.inverse * pose) } ?? pose
    let opticalFromO = predicted.inverse
    if framesWithoutMeasurement > options.localBundle.maxPredictedFrames {
      lap(&timings.track, since: clock)
      return result(.relocalizing, .prediction, 0)
    }
    let projector = tracks
    // Candidates have no depth yet: predict them at the median depth of the map.
    let lastOpticalFromO = pose.inverse
    let depths = landmarks.values.map { lastOpticalFromO.apply(to: $0).z }.filter { $0 > 0 }.sorted()
    let typicalDepth = depths.isEmpty ? 10 * scale : depths[depths.count / 2]
    var pixelOf: [UInt64: SIMD2<Float>] = [:]
    for (i, id) in tracks.ids.enumerated() where candidates[id] != nil { pixelOf[id] = tracks.pixels[i] }
    tracks.track(from: previousPyramid, to: pyramid) { id in
      if let landmark = landmarks[id] { return projector.project(landmark, opticalFromO) }
      guard let pixel = pixelOf[id] else { return nil }
      return projector.project(
        pose.apply(to: intrinsics.backProject(SIMD2(pixel), depth: typicalDepth)), opticalFromO)
    }
    clock = lap(&timings.track, since: clock)
    let lastPose = pose
    let trackedByKLT = Set(tracks.ids)
    let solution = tracks.solvePose(
      position: { landmarks[$0] }, predicted: opticalFromO, seed: options.seed &+ UInt64(frameIndex))
    clock = lap(&timings.pose, since: clock)
    defer { lap(&timings.map, since: clock) }
    guard let (solved, inliers) = solution else {
      framesWithoutMeasurement += 1
      previousPose = pose
      pose = predicted
      return result(.insufficientFeatures, .prediction, 0)
    }
    framesWithoutMeasurement = 0
    pose = solved.inverse
    previousPose = lastPose
    let jumped = options.isJump(from: lastPose, predicted: predicted, measured: pose)
    let alive = Set(tracks.ids)
    candidates = candidates.filter { alive.contains($0.key) }
    // Landmarks KLT lost stay in the bundle adjustment; PnP outliers leave the map.
    for (id, p) in landmarks where !trackedByKLT.contains(id) { retired[id] = p }
    landmarks = landmarks.filter { alive.contains($0.key) }
    triangulateCandidates()
    framesSinceKeyframe += 1
    if framesSinceKeyframe >= options.localBundle.keyframeInterval { addKeyframeAndAdjust() }
    if tracks.count < options.targetFeatures * 8 / 10 || landmarks.count < options.targetFeatures / 2 {
      addCandidates(gray: gray)
    }
    let quality: TrackingQuality =
      jumped ? .excessiveMotion : inliers >= options.normalInliers ? .normal : .insufficientFeatures
    return result(quality, .features, inliers)
  }

  private func result(_ quality: TrackingQuality, _ source: PoseSource, _ inliers: Int) -> OdometryResult {
    let seen = tracks.ids.compactMap { id in landmarks[id].map { (identifier: id, position: $0) } }
    return OdometryResult(
      oFromOptical: pose, quality: quality, source: source, inliers: inliers, landmarks: seen)
  }

  /// Makes this frame the reference of the two-view initialisation: drops the tracks and detects new
  /// candidates at the current pose.
  private func restartInitialization(gray: GrayImage, depth: FrameDepth?) {
    tracks.removeAll()
    candidates.removeAll()
    initializer.referenceDepth = depth
    initializer.referencePose = pose
    addCandidates(gray: gray)
    initializer.referenceTrackCount = tracks.count
  }

  private func addCandidates(gray: GrayImage) {
    let opticalFromO = pose.inverse
    let wanted = max(options.targetFeatures - tracks.count, options.targetFeatures / 4)
    for corner in tracks.newCorners(in: gray, count: wanted) {
      let id = nextID
      nextID += 1
      tracks.append(id, corner)
      candidates[id] = (corner, opticalFromO)
    }
  }

  /// The two-view initialisation (``MonoInitializer/initialize(_:candidates:monocularScale:seed:)``);
  /// on success the map is made of its landmarks and the tracks without a point are dropped.
  private func tryInitialize() -> Bool {
    guard
      let map = initializer.initialize(
        tracks, candidates: candidates, monocularScale: options.monocularScale, seed: options.seed)
    else { return false }
    scale = map.scale
    scaleSource = map.scaleSource
    for (id, p) in map.landmarks { landmarks[id] = p }
    pose = map.oFromOptical
    previousPose = nil
    let known = Set(map.landmarks.map(\.identifier))
    let trackIDs = tracks.ids
    tracks.filter { known.contains(trackIDs[$0]) }
    candidates.removeAll()
    initialized = true
    return true
  }

  /// Makes the current frame a keyframe of the local bundle window and takes its refined pose.
  private func addKeyframeAndAdjust() {
    framesSinceKeyframe = 0
    var observations: [UInt64: SIMD2<Double>] = [:]
    for (i, id) in tracks.ids.enumerated() {
      observations[id] = SIMD2(Double(tracks.pixels[i].x), Double(tracks.pixels[i].y))
    }
    if let refined = window.addAndAdjust(
      opticalFromO: pose.inverse, observations: observations, landmarks: &landmarks, retired: &retired)
    {
      pose = refined
    }
  }

  /// Triangulates candidates whose rays have opened up enough since their first observation.
  private func triangulateCandidates() {
    let opticalFromO = pose.inverse
    let minDegrees = options.localBundle.minTriangulationDegrees
    var ready: [(id: UInt64, first: SIMD2<Double>, now: SIMD2<Double>, firstPose: RigidTransform)] = []
    let cosine = cos(minDegrees * .pi / 180)
    for (i, id) in tracks.ids.enumerated() {
      guard let candidate = candidates[id] else { continue }
      let a = ray(candidate.pixel, candidate.opticalFromO)
      let b = ray(tracks.pixels[i], opticalFromO)
      guard simd_dot(a, b) < cosine else { continue }
      ready.append(
        (
          id, SIMD2(Double(candidate.pixel.x), Double(candidate.pixel.y)),
          SIMD2(Double(tracks.pixels[i].x), Double(tracks.pixels[i].y)), candidate.opticalFromO
        ))
    }
    // Triangulate in groups sharing the first pose (candidates are born in batches).
    var groups: [RigidTransform: [Int]] = [:]
    for (k, item) in ready.enumerated() { groups[item.firstPose, default: []].append(k) }
    for key in groups.keys.sorted(by: { ready[groups[$0]![0]].id < ready[groups[$1]![0]].id }) {
      let members = groups[key]!
      guard
        let points = try? PoseSolver.triangulate(
          pointsA: members.map { ready[$0].first }, pointsB: members.map { ready[$0].now },
          intrinsics: intrinsics, aFromWorld: key.poseCW, bFromWorld: opticalFromO.poseCW,
          minParallaxDegrees: minDegrees)
      else { continue }
      for (k, member) in members.enumerated() {
        guard let p = points[k] else { continue }
        let item = ready[member]
        guard let u = tracks.project(p, opticalFromO), simd_length(u - item.now) < 4,
          let v = tracks.project(p, key), simd_length(v - item.first) < 4
        else { continue }
        landmarks[item.id] = p
        candidates[item.id] = nil
      }
    }
  }

  /// Unit viewing ray of a pixel in O.
  private func ray(_ pixel: SIMD2<Float>, _ opticalFromO: RigidTransform) -> SIMD3<Double> {
    opticalFromO.inverse.rotate(intrinsics.bearing(SIMD2(pixel)))
  }
}
