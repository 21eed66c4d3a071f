import Foundation

/// Where a monocular map's metric scale came from.
public enum ScaleSource: String, Sendable, Codable {
  /// The first frame's depth image: median ratio of measured to triangulated depth.
  case firstDepthFrame
  /// The `--scale` option: the initial two-view baseline is taken to be that many metres.
  case givenScale
  /// No scale information: the initial two-view baseline is one unit (not metres).
  case unscaled
  /// An initial world map: the map was started from its keyframes' points, in the map's units.
  case worldMap
}

/// Monocular visual odometry: a ``MonoInitializer`` until the map exists (rotation-only poses, then
/// the two-view initialisation), then PnP against the map, new landmarks triangulated from each
/// feature's first observation once the parallax is large enough, and a ``LocalBundleWindow``
/// refining the recent keyframes. Keyframes for relocalisation (``KeyframeStore``) take ORB features
/// at the tracked landmarks; after the camera was off or tracking was lost, a ``Relocalizer`` against
/// them finds the pose and its PnP inliers restart the tracks and the map. Times are booked by stage: `track` (pyramid and KLT), `pose` (the
/// rotation fit, the two-view initialisation, PnP), `map` (triangulation, bundle adjustment, new
/// features).
final class MonoOdometry: Odometry {
  let options: TrackerOptions
  let intrinsics: CameraIntrinsics
  var tracks: FeatureFrontEnd
  var landmarks: [UInt64: SIMD3<Double>] = [:]
  /// Landmarks whose tracks KLT lost but that a refined keyframe of the window still observes. They
  /// are no longer tracked, but keep tying the window's keyframes to the older, fixed ones (and so
  /// keep the scale) in the bundle adjustment until the last refined keyframe that saw them leaves
  /// the window: through a stretch where few features survive, the scale would otherwise rest on the
  /// few landmarks still tracked and the newly triangulated ones.
  var retired: [UInt64: SIMD3<Double>] = [:]
  /// Tracks without a 3D point yet.
  var candidates: [UInt64: MonoCandidate] = [:]
  var nextID: UInt64 = 1
  var previousPyramid: KLTPyramid?
  var initializer: MonoInitializer
  var initialized = false
  /// The gyroscope's turn between frames, where recorded: before the map exists, the rotation of the
  /// frames the rotation-only model cannot fit (the camera translates).
  var gyroscope = GyroIntegrator()
  /// O from the current optical frame.
  var pose = RigidTransform.identity
  var previousPose: RigidTransform?
  var framesWithoutMeasurement = 0
  var frameIndex = 0
  var timings = StageTimings()
  /// How the map got its scale, once initialised.
  var scaleSource: ScaleSource?
  /// Metres per unit of the initial baseline.
  var scale = 1.0
  var window: LocalBundleWindow
  var framesSinceKeyframe = 0
  /// Keyframes for relocalisation (and world maps): ORB features whose points are the map's.
  var keyframes: KeyframeStore
  let relocalizer: Relocalizer
  /// Decides the quality that gates map upkeep (only normally tracked frames confirm a location,
  /// follow the world map or make keyframes).
  let policy: TrackingStatePolicy
  /// Frames since the camera was off or tracking was lost while no relocalisation succeeded; nil while
  /// tracking runs frame to frame.
  var framesSinceLoss: Int?
  /// The time of the frame being processed, seconds.
  var frameTime = 0.0
  /// Whether an initial world map waits for its first location (``awaitMap(_:)``).
  var awaitingMap = false
  /// After a relocalisation (in the world map or after a loss), until it is confirmed: how many
  /// consecutive locations agreed with the tracked pose (``confirmLocation(gray:)``); nil otherwise.
  var agreements: Int?
  /// Whether the frames have been located in the initial world map (``awaitMap(_:)``) and agreed
  /// ``TrackerOptions/Relocalization/mapAgreementFrames`` times: O is the map's world from the start.
  var isLocatedInMap = false
  /// ``Odometry/isLocatedInOwnMap``: this front end locates itself in its world map.
  var isLocatedInOwnMap: Bool? { isLocatedInMap }
  /// The time the frames were last located in the world map after ``isLocatedInMap``, seconds.
  var lastMapCheck = -Double.infinity

  /// How far, pixels, an ORB feature of a keyframe may be from a tracked landmark's pixel to take
  /// that landmark's depth (ORB detects only that near the landmarks). ORB's FAST corners and the
  /// tracks' Shi-Tomasi corners land on the same texture corners to within a pixel or two; 4 px
  /// keeps the features that land a little further off too, and more features with depth relocalise a
  /// second session sooner and closer to the first (`WorldMapTests`); further off, a feature would sit
  /// on another surface at a depth edge.
  static let keyframeAssociationPixels: Float = 4

  init(intrinsics: CameraIntrinsics, options: TrackerOptions) {
    self.intrinsics = intrinsics
    self.options = options
    tracks = FeatureFrontEnd(options: options, intrinsics: intrinsics)
    initializer = MonoInitializer(options: options.monoInitialization, intrinsics: intrinsics)
    window = LocalBundleWindow(options: options.localBundle, intrinsics: intrinsics)
    keyframes = KeyframeStore(options: options.relocalization, intrinsics: intrinsics)
    relocalizer = Relocalizer(options: options.relocalization, intrinsics: intrinsics)
    policy = TrackingStatePolicy(options: options)
  }

  func process(_ frame: FrameInput) -> OdometryResult {
    gyroscope.add(frame.imu)
    return track(gray: frame.gray, pyramid: frame.pyramid, depth: frame.depth, timestamp: frame.timestamp)
  }

  func track(gray: GrayImage, pyramid prepared: KLTPyramid?, depth: FrameDepth?, timestamp: Double)
    -> OdometryResult
  {
    timings = StageTimings()
    frameTime = timestamp
    let turn = gyroscope.rotation(at: timestamp)
    var clock = ContinuousClock.now
    let pyramid = tracks.pyramid(gray, prepared: prepared)
    defer {
      previousPyramid = pyramid
      frameIndex += 1
    }
    if awaitingMap {
      lap(&timings.track, since: clock)
      return locateInMap(gray: gray)
    }
    guard let previousPyramid, let pyramid else {
      if initialized {
        addCandidates(gray: gray)
      } else {
        restartInitialization(gray: gray, depth: depth)
      }
      lap(&timings.track, since: clock)
      return result(.mapless, frameIndex == 0 ? .origin : .prediction, 0)
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
      // initialisation is tried; until it succeeds, the position is held and the rotation follows the
      // gyroscope (without one the last pose is held).
      let fit = initializer.fitRotation(tracks, candidates: candidates)
      let rotated = fit.flatMap { initializer.isRotationOnly($0) ? $0 : nil }
      let initializedNow = rotated == nil && initializer.hasTranslated(fit) && tryInitialize()
      clock = lap(&timings.pose, since: clock)
      if initializedNow { return result(.tracked(.newMap), .features, landmarks.count) }
      let source: PoseSource
      if let rotated {
        pose = rotated.oFromOptical
        source = .rotation
      } else if let turn {
        pose = RigidTransform(rotation: (pose.rotation * turn).normalized, translation: pose.translation)
        source = .gyroscope
      } else {
        source = .prediction
      }
      let minTracks = options.monoInitialization.minTracks
      let turningAway =
        rotated != nil && tracks.count < 2 * minTracks && tracks.count < initializer.referenceTrackCount / 2
      if tracks.count < minTracks || turningAway {
        // Too few tracks survive (or soon will: most have left as the camera turns): restart the
        // two-view initialisation from this frame, while its rotation is still measured.
        restartInitialization(gray: gray, depth: depth)
      }
      return result(.mapless, source, rotated?.inliers ?? 0)
    }

    let predicted: RigidTransform = previousPose.map { pose * ($0.inverse * pose) } ?? pose
    let opticalFromO = predicted.inverse
    if framesWithoutMeasurement > options.localBundle.maxPredictedFrames {
      framesSinceLoss = framesSinceLoss ?? 0
    }
    if framesSinceLoss != nil {
      lap(&timings.track, since: clock)
      return recover(gray: gray)
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
      // While a relocalisation awaits confirmation, a frame without a pose is still relocalising.
      return result(agreements == nil ? .tracked(.tooFewFeatures) : .lost(), .prediction, 0)
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
    let evidence = TrackingEvidence.tracked(.features(inliers: inliers), motion: jumped ? .jumped : .steady)
    let quality = policy.quality(evidence)
    if agreements != nil {
      // Only a frame tracked normally confirms (after a wrong location the tracks' landmarks, the
      // keyframe's points, keep agreeing with it, but PnP on them keeps few inliers).
      if quality == .normal { confirmLocation(gray: gray) }
      // Unconfirmed, the pose may come from a wrong match: not reported as tracked.
      if agreements != nil { return result(.lost(.features(inliers: inliers)), .relocalization, inliers) }
    } else if quality == .normal, isLocatedInMap {
      followMap(gray: gray)
    }
    if quality == .normal, keyframes.needsKeyframe(at: pose) { addKeyframe(gray: gray) }
    return result(evidence, .features, inliers)
  }

  func result(_ evidence: TrackingEvidence, _ source: PoseSource, _ inliers: Int) -> OdometryResult {
    let seen = tracks.ids.compactMap { id in landmarks[id].map { (identifier: id, position: $0) } }
    return OdometryResult(
      oFromOptical: pose, evidence: evidence, source: source, inliers: inliers, landmarks: seen)
  }

  /// Makes this frame the reference of the two-view initialisation: drops the tracks and detects new
  /// candidates at the current pose.
  func restartInitialization(gray: GrayImage, depth: FrameDepth?) {
    tracks.removeAll()
    candidates.removeAll()
    initializer.referenceDepth = depth
    initializer.referencePose = pose
    addCandidates(gray: gray)
    initializer.referenceTrackCount = tracks.count
  }

  func addCandidates(gray: GrayImage) {
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
  func tryInitialize() -> Bool {
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
  func addKeyframeAndAdjust() {
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
  func triangulateCandidates() {
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
  func ray(_ pixel: SIMD2<Float>, _ opticalFromO: RigidTransform) -> SIMD3<Double> {
    opticalFromO.inverse.rotate(intrinsics.bearing(SIMD2(pixel)))
  }
}
