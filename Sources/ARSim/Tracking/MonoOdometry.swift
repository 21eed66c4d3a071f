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
  /// The gyroscope's turn between frames, where recorded: before the map exists, the rotation of the
  /// frames the rotation-only model cannot fit (the camera translates).
  private var gyroscope = GyroIntegrator()
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
  /// Keyframes for relocalisation (and world maps): ORB features whose points are the map's.
  private var keyframes: KeyframeStore
  private let relocalizer: Relocalizer
  /// Decides the quality that gates map upkeep (only normally tracked frames confirm a location,
  /// follow the world map or make keyframes).
  private let policy: TrackingStatePolicy
  /// Frames since the camera was off or tracking was lost while no relocalisation succeeded; nil while
  /// tracking runs frame to frame.
  private var framesSinceLoss: Int?
  /// The time of the frame being processed, seconds.
  private var frameTime = 0.0
  /// Whether an initial world map waits for its first location (``awaitMap(_:)``).
  private var awaitingMap = false
  /// After a relocalisation (in the world map or after a loss), until it is confirmed: how many
  /// consecutive locations agreed with the tracked pose (``confirmLocation(gray:)``); nil otherwise.
  private var agreements: Int?
  /// Whether the frames have been located in the initial world map (``awaitMap(_:)``) and agreed
  /// ``TrackerOptions/Relocalization/mapAgreementFrames`` times: O is the map's world from the start.
  private(set) var isLocatedInMap = false
  /// The time the frames were last located in the world map after ``isLocatedInMap``, seconds.
  private var lastMapCheck = -Double.infinity

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

  private func track(gray: GrayImage, pyramid prepared: KLTPyramid?, depth: FrameDepth?, timestamp: Double)
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

  // MARK: Initial world map

  /// Once located in the world map: where its keyframes cover the view, at most every
  /// ``TrackerOptions/LoopClosure/checkInterval``, the frame is located in them again and, with
  /// ``TrackerOptions/normalInliers`` PnP inliers, the tracks and landmarks restart from the map's
  /// points (``restart(from:gray:)``). Monocular tracking drifts in scale; the map's points hold it to
  /// the map's.
  private func followMap(gray: GrayImage) {
    guard frameTime - lastMapCheck >= options.loopClosure.checkInterval, keyframes.covers(pose) else {
      return
    }
    lastMapCheck = frameTime
    guard let found = located(gray, mapOnly: true), found.inliers >= options.normalInliers else { return }
    restart(from: found, gray: gray)
    agreements = nil  // a location in the map the frames are tracked in already: nothing to confirm
  }

  /// Starts from a world map (its keyframes in its world): O is the map's world, the keyframes are
  /// adopted, and instead of the two-view initialisation each frame is located in the map until one
  /// is; the map is then started from that location's PnP inliers (in the map's units:
  /// ``ScaleSource/worldMap``), and the tracked frames that follow are located again until
  /// ``TrackerOptions/Relocalization/mapAgreementFrames`` in a row agree with their tracked pose
  /// (``isLocatedInMap``). A monocular session has no metric scale of its own to align a map with
  /// afterwards, so the map must start it.
  func awaitMap(_ map: [Keyframe]) {
    keyframes.adopt(map)
    awaitingMap = true
  }

  /// Before the map exists, with a world map waiting: the frame located in it starts the map there
  /// (``restart(from:gray:)``).
  private func locateInMap(gray: GrayImage) -> OdometryResult {
    guard let found = located(gray, asPose: true) else { return result(.lost(), .prediction, 0) }
    restart(from: found, gray: gray)
    initialized = true
    awaitingMap = false
    scaleSource = .worldMap
    return result(.lost(.features(inliers: found.inliers)), .relocalization, found.inliers)
  }

  /// A tracked frame while a relocalisation awaits confirmation (one location alone may be a wrong
  /// match: monocular relocalisation has no depth to check it against): located again (in the world
  /// map's keyframes while it waits, else in all), it agrees when within
  /// ``TrackerOptions/Relocalization/mapAgreementTranslation`` and
  /// ``TrackerOptions/Relocalization/mapAgreementDegrees`` of its tracked pose, and
  /// ``TrackerOptions/Relocalization/mapAgreementFrames`` agreeing in a row confirm it (and the map's
  /// location, ``isLocatedInMap``); a location elsewhere restarts from it.
  private func confirmLocation(gray: GrayImage) {
    let waitingMap = keyframes.adopted > 0 && !isLocatedInMap
    guard let agreed = agreements, let found = located(gray, mapOnly: waitingMap) else { return }
    let limits = options.relocalization
    let step = pose.inverse * found.oFromOptical
    guard
      simd_length(step.translation) <= limits.mapAgreementTranslation
        && step.angle <= limits.mapAgreementDegrees * .pi / 180
    else {
      restart(from: found, gray: gray)
      return
    }
    if agreed + 1 >= limits.mapAgreementFrames {
      agreements = nil
      if waitingMap { isLocatedInMap = true }
    } else {
      agreements = agreed + 1
    }
  }

  // MARK: Keyframes and relocalisation

  /// The frame located against the keyframes (only the world map's with `mapOnly`) and extended by
  /// projection to the points of the keyframes sharing its view
  /// (``Relocalizer/locate(gray:against:seed:depthAt:extendingByProjection:accepts:)``: more of the map's points to restart the
  /// tracks from, the pose refined on them), its time booked as recognition, and as the frame's pose
  /// with `asPose` (when locating is what measures the pose).
  private func located(_ gray: GrayImage, mapOnly: Bool = false, asPose: Bool = false) -> Relocalizer
    .Location?
  {
    let start = ContinuousClock.now
    defer {
      lap(&timings.recognition, since: start)
      if asPose { lap(&timings.pose, since: start) }
    }
    let candidates = mapOnly ? keyframes.keyframes[..<keyframes.adopted] : keyframes.keyframes[...]
    return relocalizer.locate(
      gray: gray, against: candidates, seed: options.seed &+ UInt64(frameIndex), extendingByProjection: true)
  }

  /// The camera was off: the motion since the last frame is unknown. Once the map exists the next
  /// frames relocalise against the keyframes; before, the two-view initialisation restarts.
  func cameraWasOff() {
    gyroscope.reset()
    if initialized {
      framesSinceLoss = 0
    } else {
      previousPyramid = nil
    }
  }

  /// After the camera was off or tracking was lost: the frame located against every keyframe; on
  /// success the tracks and the map restart from its PnP inliers (``restart(from:gray:)``), else the
  /// frame is `relocalizing` with the last pose held. Without depth there is no map to carry on from
  /// without a location, so, unlike RGB-D, it keeps trying.
  private func recover(gray: GrayImage) -> OdometryResult {
    guard let found = located(gray, asPose: true) else {
      framesSinceLoss = (framesSinceLoss ?? 0) + 1
      previousPose = pose
      return result(.lost(), .prediction, 0)
    }
    restart(from: found, gray: gray)
    return result(.lost(.features(inliers: found.inliers)), .relocalization, found.inliers)
  }

  /// Resumes tracking at a location, to be confirmed (``confirmLocation(gray:)``): the pose from rest,
  /// the old tracks and landmarks dropped, new tracks at the PnP inliers' pixels with their keyframe
  /// points as landmarks, and new candidates around them. The bundle window starts again with this
  /// frame as its first, fixed keyframe: the new tracks share no point with the window's older
  /// keyframes, so those would tie nothing, and the new keyframes would form a part of the window with
  /// no fixed keyframe, which only the damping holds, and the first adjustment after a restart would
  /// move that part off the map's world.
  private func restart(from location: Relocalizer.Location, gray: GrayImage) {
    framesSinceLoss = nil
    agreements = 1
    framesWithoutMeasurement = 0
    pose = location.oFromOptical
    previousPose = nil
    landmarks.removeAll()
    retired.removeAll()
    candidates.removeAll()
    tracks.removeAll()
    window = LocalBundleWindow(options: options.localBundle, intrinsics: intrinsics)
    for match in location.matches {
      tracks.append(nextID, match.pixel)
      landmarks[nextID] = match.point
      nextID += 1
    }
    addKeyframeAndAdjust()
    addCandidates(gray: gray)
  }

  /// Makes a keyframe of the frame: its ORB features, detected only around the tracked landmarks'
  /// pixels, that lie on one (``keyframeAssociationPixels``) take that landmark's depth.
  private func addKeyframe(gray: GrayImage) {
    let start = ContinuousClock.now
    defer { lap(&timings.recognition, since: start) }
    let opticalFromO = pose.inverse
    var seen: [(pixel: SIMD2<Float>, depth: Double)] = []
    let radius = Self.keyframeAssociationPixels
    let reach = Int(radius.rounded(.up))
    var mask = [UInt8](repeating: 0, count: gray.width * gray.height)
    for (i, id) in tracks.ids.enumerated() {
      guard let p = landmarks[id], case let z = opticalFromO.apply(to: p).z, z > 0 else { continue }
      let pixel = tracks.pixels[i]
      seen.append((pixel, z))
      let x = Int(pixel.x.rounded())
      let y = Int(pixel.y.rounded())
      guard x >= 0, y >= 0, x < gray.width, y < gray.height else { continue }
      for row in max(0, y - reach)...min(gray.height - 1, y + reach) {
        for column in max(0, x - reach)...min(gray.width - 1, x + reach) {
          mask[row * gray.width + column] = 255
        }
      }
    }
    keyframes.add(gray: gray, oFromOptical: pose, time: frameTime, mask: mask) { pixel in
      var best: (distance: Float, depth: Double)?
      for landmark in seen {
        let distance = simd_length(landmark.pixel - pixel)
        if distance <= radius, distance < best?.distance ?? .infinity { best = (distance, landmark.depth) }
      }
      return best?.depth
    }
  }

  var mapKeyframes: [Keyframe] { keyframes.keyframes }

  func locate(gray: GrayImage, depth _: FrameDepth?, in map: [Keyframe]) -> (
    mapFromOptical: RigidTransform, inliers: Int
  )? {
    relocalizer.relocalize(gray: gray, against: map[...], seed: options.seed &+ UInt64(frameIndex))
      .map { ($0.oFromOptical, $0.inliers) }
  }

  func adopt(_ map: [Keyframe]) { keyframes.adopt(map) }

  func isMapped(_ oFromOptical: RigidTransform) -> Bool? { keyframes.covers(oFromOptical) }

  private func result(_ evidence: TrackingEvidence, _ source: PoseSource, _ inliers: Int) -> OdometryResult {
    let seen = tracks.ids.compactMap { id in landmarks[id].map { (identifier: id, position: $0) } }
    return OdometryResult(
      oFromOptical: pose, evidence: evidence, source: source, inliers: inliers, landmarks: seen)
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
