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

/// Monocular visual odometry: two-view initialisation through the essential matrix,
/// triangulation, PnP against the map, and new landmarks triangulated from each feature's first
/// observation once the parallax is large enough. Before the map exists, a rotation-only model
/// measures the camera's rotation while it has not translated measurably (its position held).
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
  /// Tracks without a 3D point yet: their first pixel and the camera-from-O pose then.
  private var candidates: [UInt64: (pixel: SIMD2<Float>, opticalFromO: RigidTransform)] = [:]
  private var nextID: UInt64 = 1
  private var previousPyramid: KLTPyramid?
  private var firstDepth: DepthImage?
  private var initialized = false
  private var pose = RigidTransform.identity
  /// Before initialisation: O from the camera of the reference frame, where the current candidates
  /// were detected (the first view of the two-view initialisation).
  private var referencePose = RigidTransform.identity
  /// Before initialisation: the number of tracks detected in the reference frame.
  private var referenceTrackCount = 0
  private var previousPose: RigidTransform?
  private var framesWithoutMeasurement = 0
  private var frameIndex = 0
  private(set) var timings = StageTimings()
  /// How the map got its scale, once initialised.
  private(set) var scaleSource: ScaleSource?
  /// Metres per unit of the initial baseline.
  private(set) var scale = 1.0

  /// Median pixel displacement that triggers the two-view initialisation.
  private var initialParallax: Double { max(20, 0.03 * Double(intrinsics.width)) }
  /// A keyframe of the local bundle adjustment window.
  private struct WindowKeyframe {
    var opticalFromO: RigidTransform
    /// Pixel of every track in the keyframe, landmark or candidate: a candidate's observations join
    /// the bundle adjustment once it is triangulated.
    var observations: [UInt64: SIMD2<Double>]
  }

  /// The keyframes of the bundle adjustment: the last ``windowSize`` are refined together with the
  /// landmarks they see (the local map); the older ones that still observe one of those landmarks are
  /// kept, fixed, as in ORB-SLAM's local bundle adjustment. They hold the gauge and the scale over
  /// their longer baselines, whereas two fixed neighbouring keyframes (a few frames and
  /// centimetres apart) let the error of their relative pose set the scale of the whole window.
  private var window: [WindowKeyframe] = []
  /// Keyframes refined in the local window.
  private let windowSize = 8
  /// Most older keyframes held fixed in the local bundle adjustment, bounding its cost (ORB-SLAM keeps
  /// all that observe the local map).
  private let maxFixedKeyframes = 16
  /// Frames between keyframes. Each keyframe runs the local bundle adjustment, whose fixed older
  /// keyframes and ``retired`` landmarks make it about twice as costly as a window alone: every third
  /// frame keeps most frames free of it (and the median frame time within budget), the window then
  /// spanning 24 frames.
  private let keyframeInterval = 3
  private var framesSinceKeyframe = 0

  /// Smallest angle between the two rays of a new landmark.
  private let minTriangulationDegrees = 1.0

  /// Fewest tracks that must agree with a rotation-only pose (as for the two-view initialisation).
  private let minRotationTracks = 50
  /// Tracks farther than this from the first rotation-only fit, in pixels, are left out of the refit.
  private let rotationOutlierPixels = 3.0
  /// Smallest fraction of the tracks within ``rotationOutlierPixels`` of a rotation-only pose. A
  /// still camera loses a few tracks to KLT errors (EuRoC V1_01's still start: under 1%); a
  /// translating one sees the near points' parallax exceed the outlier bound (KITTI's and the
  /// synthetic sessions' first moving frames keep 79-87%).
  private let minRotationInlierFraction = 0.9
  /// Largest median residual of the inliers of a rotation-only pose, pixels. A still camera's KLT
  /// tracks agree with a rotation to 0.01-0.13 px (EuRoC V1_01); turning on the spot leaves up to
  /// ~1 px after tens of degrees (patches deform under the turn and KLT drifts); translation shows as
  /// parallax the rotation cannot absorb.
  private let maxRotationResidual = 1.0
  /// Smallest parallax a rotation cannot explain (median residual of the rotation fit over all
  /// tracks, pixels) for the two-view initialisation: below it the baseline is too short to
  /// triangulate reliably, however far the features moved by turning.
  private let minInitialTranslationParallax = 3.0

  /// The rotation-only model's fit of the tracks from the reference frame to the current one.
  private struct RotationFit {
    /// O from the current camera: the reference frame's position, the fitted rotation.
    var oFromOptical: RigidTransform
    /// Tracks within ``rotationOutlierPixels`` of the fit, of `count`.
    var inliers: Int
    var count: Int
    /// Median residual of the inliers, pixels.
    var inlierResidual: Double
    /// Median residual of all the tracks, pixels: the parallax the rotation does not explain.
    var unexplainedParallax: Double
  }

  init(intrinsics: CameraIntrinsics, options: TrackerOptions) {
    self.intrinsics = intrinsics
    self.options = options
    tracks = FeatureFrontEnd(options: options, intrinsics: intrinsics)
  }

  func process(gray: GrayImage, depth: DepthImage?, timestamp: Double) -> OdometryResult {
    timings = StageTimings()
    let start = ContinuousClock.now
    defer { lap(&timings.track, since: start) }
    let pyramid = tracks.pyramid(gray)
    defer {
      previousPyramid = pyramid
      frameIndex += 1
    }
    guard let previousPyramid, let pyramid else {
      if initialized {
        firstDepth = depth
        addCandidates(gray: gray)
      } else {
        restartInitialization(gray: gray, depth: depth)
      }
      return result(.initializing, frameIndex == 0 ? .origin : .prediction, 0)
    }
    if !initialized {
      tracks.track(from: previousPyramid, to: pyramid) { _ in nil }
      let alive = Set(tracks.ids)
      candidates = candidates.filter { alive.contains($0.key) }
      // While a rotation explains the tracks, the camera has not translated measurably and two views
      // cannot triangulate: the map does not exist yet and the frame stays initialising, with the
      // measured rotation. Once the rotation leaves enough parallax unexplained, the two-view
      // initialisation is tried; until it succeeds, the last pose is held.
      let fit = fitRotation()
      let rotated = fit.flatMap { isRotationOnly($0) ? $0 : nil }
      let translated = fit.map { $0.unexplainedParallax >= minInitialTranslationParallax } ?? true
      if rotated == nil, translated, tryInitialize(gray: gray) {
        return result(.normal, .features, landmarks.count)
      }
      if let rotated { pose = rotated.oFromOptical }
      let turningAway =
        rotated != nil && tracks.count < 2 * minRotationTracks && tracks.count < referenceTrackCount / 2
      if tracks.count < 50 || turningAway {
        // Too few tracks survive (or soon will: most have left as the camera turns): restart the
        // two-view initialisation from this frame, while its rotation is still measured.
        restartInitialization(gray: gray, depth: depth)
      }
      return result(.initializing, rotated == nil ? .prediction : .rotation, rotated?.inliers ?? 0)
    }

    let predicted: RigidTransform = previousPose.map { pose * ($0.inverse * pose) } ?? pose
    let opticalFromO = predicted.inverse
    if framesWithoutMeasurement > 10 {
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
    let lastPose = pose
    let trackedByKLT = Set(tracks.ids)
    guard
      let (solved, inliers) = tracks.solvePose(
        position: { landmarks[$0] }, predicted: opticalFromO, seed: options.seed &+ UInt64(frameIndex))
    else {
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
    if framesSinceKeyframe >= keyframeInterval { addKeyframeAndAdjust() }
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
  private func restartInitialization(gray: GrayImage, depth: DepthImage?) {
    tracks.removeAll()
    candidates.removeAll()
    firstDepth = depth
    referencePose = pose
    addCandidates(gray: gray)
    referenceTrackCount = tracks.count
  }

  /// The rotation-only model: the rotation from the reference frame to this one that best turns the
  /// candidates' bearings there into their bearings here (``rotationAligning(_:to:)``), refitted once
  /// without the tracks it misses by more than ``rotationOutlierPixels``. Nil with fewer than
  /// ``minRotationTracks`` tracks, or when they do not determine a rotation.
  private func fitRotation() -> RotationFit? {
    var reference: [SIMD3<Double>] = []
    var current: [SIMD3<Double>] = []
    var pixels: [SIMD2<Double>] = []
    for (i, id) in tracks.ids.enumerated() {
      guard let candidate = candidates[id] else { continue }
      reference.append(bearing(candidate.pixel))
      current.append(bearing(tracks.pixels[i]))
      pixels.append(SIMD2(Double(tracks.pixels[i].x), Double(tracks.pixels[i].y)))
    }
    // Pixels from rotating reference bearings into the current camera (infinite behind it).
    func residuals(_ currentFromReference: simd_quatd, _ indices: [Int]) -> [Double] {
      indices.map { k in
        let p = currentFromReference.act(reference[k])
        return p.z > 1e-6 ? simd_length(intrinsics.project(p) - pixels[k]) : .infinity
      }
    }
    guard reference.count >= minRotationTracks, let first = rotationAligning(reference, to: current) else {
      return nil
    }
    let all = Array(reference.indices)
    let kept = zip(all, residuals(first, all)).filter { $0.1 < rotationOutlierPixels }.map(\.0)
    let rotation =
      kept.count >= 3
      ? rotationAligning(kept.map { reference[$0] }, to: kept.map { current[$0] }) ?? first : first
    let everyResidual = residuals(rotation, all)
    let inlierResiduals = kept.map { everyResidual[$0] }.sorted()
    let sorted = everyResidual.sorted()
    let referenceFromCurrent = RigidTransform(rotation: rotation.inverse, translation: .zero)
    return RotationFit(
      oFromOptical: referencePose * referenceFromCurrent, inliers: kept.count, count: all.count,
      inlierResidual: inlierResiduals.isEmpty ? .infinity : inlierResiduals[inlierResiduals.count / 2],
      unexplainedParallax: sorted[sorted.count / 2])
  }

  /// Whether a rotation fit says the camera has not translated measurably since the reference frame:
  /// at least ``minRotationTracks`` inliers, making ``minRotationInlierFraction`` of the tracks, with a
  /// median residual below ``maxRotationResidual``.
  private func isRotationOnly(_ fit: RotationFit) -> Bool {
    fit.inliers >= minRotationTracks && Double(fit.inliers) >= minRotationInlierFraction * Double(fit.count)
      && fit.inlierResidual < maxRotationResidual
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

  /// Two-view initialisation against the reference frame, where the candidates were detected: the
  /// relative pose and the landmarks come out in the reference camera's frame, and are moved into O
  /// by the reference frame's pose.
  private func tryInitialize(gray: GrayImage) -> Bool {
    var first: [SIMD2<Double>] = []
    var current: [SIMD2<Double>] = []
    var ids: [UInt64] = []
    var displacements: [Double] = []
    for (i, id) in tracks.ids.enumerated() {
      guard let candidate = candidates[id] else { continue }
      let a = SIMD2(Double(candidate.pixel.x), Double(candidate.pixel.y))
      let b = SIMD2(Double(tracks.pixels[i].x), Double(tracks.pixels[i].y))
      first.append(a)
      current.append(b)
      ids.append(id)
      displacements.append(simd_length(b - a))
    }
    guard ids.count >= 50, displacements.sorted()[displacements.count / 2] >= initialParallax,
      let (currentFromFirst, inliers) = try? PoseSolver.essentialPose(
        pointsA: first, pointsB: current, intrinsics: intrinsics, threshold: 1, confidence: 0.999,
        maxIterations: 1000, seed: options.seed)
    else { return false }
    let keep = inliers.indices.filter { inliers[$0] }
    guard keep.count >= 50,
      let points = try? PoseSolver.triangulate(
        pointsA: keep.map { first[$0] }, pointsB: keep.map { current[$0] }, intrinsics: intrinsics,
        aFromWorld: .identity, bFromWorld: currentFromFirst, minParallaxDegrees: 0.5)
    else { return false }
    var triangulated: [(UInt64, SIMD3<Double>, SIMD2<Double>)] = []
    for (k, index) in keep.enumerated() {
      if let p = points[k] { triangulated.append((ids[index], p, first[index])) }
    }
    guard triangulated.count >= 40 else { return false }
    // Metric scale.
    var ratios: [Double] = []
    if let firstDepth {
      for (_, p, pixel) in triangulated {
        let x = Int(pixel.x.rounded())
        let y = Int(pixel.y.rounded())
        guard x >= 0, y >= 0, x < firstDepth.width, y < firstDepth.height else { continue }
        let d = Double(firstDepth.metres[y * firstDepth.width + x])
        if d.isFinite, d > 0, p.z > 0 { ratios.append(d / p.z) }
      }
    }
    if ratios.count >= 20 {
      scale = ratios.sorted()[ratios.count / 2]
      scaleSource = .firstDepthFrame
    } else if let given = options.monocularScale {
      scale = given
      scaleSource = .givenScale
    } else {
      scale = 1
      scaleSource = .unscaled
    }
    for (id, p, _) in triangulated { landmarks[id] = referencePose.apply(to: p * scale) }
    let currentFromReference = RigidTransform(currentFromFirst)
    pose =
      referencePose
      * RigidTransform(
        rotation: currentFromReference.rotation, translation: currentFromReference.translation * scale
      ).inverse
    previousPose = nil
    let known = Set(triangulated.map(\.0))
    let trackIDs = tracks.ids
    tracks.filter { known.contains(trackIDs[$0]) }
    candidates.removeAll()
    initialized = true
    return true
  }

  /// Makes the current frame a keyframe and refines the last ``windowSize`` keyframes' poses and the
  /// landmarks they see (tracked or ``retired``) by bundle adjustment, with up to
  /// ``maxFixedKeyframes`` older keyframes that observe those landmarks held fixed (the first keyframe
  /// alone while there are no older ones). Older keyframes that see none of them leave the window.
  private func addKeyframeAndAdjust() {
    framesSinceKeyframe = 0
    var observations: [UInt64: SIMD2<Double>] = [:]
    for (i, id) in tracks.ids.enumerated() {
      observations[id] = SIMD2(Double(tracks.pixels[i].x), Double(tracks.pixels[i].y))
    }
    window.append(WindowKeyframe(opticalFromO: pose.inverse, observations: observations))
    func position(_ id: UInt64) -> SIMD3<Double>? { landmarks[id] ?? retired[id] }
    // The local map: the points the refined keyframes observe.
    var firstFree = max(0, window.count - windowSize)
    var local = Set<UInt64>()
    for keyframe in window[firstFree...] {
      for id in keyframe.observations.keys where position(id) != nil { local.insert(id) }
    }
    // Older keyframes stay, fixed, from the first that observes a point of the local map on.
    let earliest =
      (0..<firstFree).first { c in window[c].observations.keys.contains { local.contains($0) } } ?? firstFree
    let start = max(earliest, firstFree - maxFixedKeyframes)
    if start > 0 {
      window.removeFirst(start)
      firstFree -= start
    }
    retired = retired.filter { local.contains($0.key) }
    guard window.count >= 3 else { return }
    var seen: [UInt64: Int] = [:]
    for keyframe in window {
      for id in keyframe.observations.keys where local.contains(id) { seen[id, default: 0] += 1 }
    }
    let pointIDs = seen.filter { $0.value >= 2 }.keys.sorted()
    guard pointIDs.count >= 10 else { return }
    var measurements: [BundleAdjustment.Observation] = []
    for (c, keyframe) in window.enumerated() {
      for (k, id) in pointIDs.enumerated() {
        guard let pixel = keyframe.observations[id] else { continue }
        measurements.append(BundleAdjustment.Observation(camera: c, point: k, pixel: pixel))
      }
    }
    guard
      let adjusted = try? BundleAdjustment.adjust(
        cameras: window.map(\.opticalFromO.poseCW), fixed: window.indices.map { $0 < max(1, firstFree) },
        points: pointIDs.map { position($0)! }, observations: measurements, intrinsics: intrinsics,
        iterations: 5, huberDelta: 2)
    else { return }
    for c in window.indices { window[c].opticalFromO = RigidTransform(adjusted.cameras[c]) }
    for (k, id) in pointIDs.enumerated() {
      if landmarks[id] != nil { landmarks[id] = adjusted.points[k] } else { retired[id] = adjusted.points[k] }
    }
    pose = window[window.count - 1].opticalFromO.inverse
  }

  /// Triangulates candidates whose rays have opened up enough since their first observation.
  private func triangulateCandidates() {
    let opticalFromO = pose.inverse
    var ready: [(id: UInt64, first: SIMD2<Double>, now: SIMD2<Double>, firstPose: RigidTransform)] = []
    let cosine = cos(minTriangulationDegrees * .pi / 180)
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
          intrinsics: intrinsics,
          aFromWorld: key.poseCW, bFromWorld: opticalFromO.poseCW, minParallaxDegrees: minTriangulationDegrees
        )
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
    opticalFromO.inverse.rotate(bearing(pixel))
  }

  /// Unit viewing ray of a pixel in the camera's optical frame.
  private func bearing(_ pixel: SIMD2<Float>) -> SIMD3<Double> {
    simd_normalize(intrinsics.ray(SIMD2(pixel)))
  }
}
