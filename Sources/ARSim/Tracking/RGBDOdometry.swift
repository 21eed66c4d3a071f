import Foundation

/// RGB-D visual odometry: KLT-tracked features with metric depth, each then aligned to the patch where
/// its landmark was made (``FeatureReferences``, so that a track does not drift), pose by PnP RANSAC against
/// the landmarks in O, refined by robust least squares; the landmarks refined over a window of
/// keyframes with their depths as priors (``RGBDMap``); dense depth alignment where features are
/// scarce; a ``Relocalizer`` against the ``KeyframeStore`` after loss and after a stretch of drift.
/// Depth is read at its own resolution, at each feature's ray (``FrameDepth``). With a rolling shutter
/// the features' positions are first moved to where a global-shutter camera would have seen them
/// (``RollingShutter``), with the gyroscope's rate where recorded.
final class RGBDOdometry: Odometry {
  let options: TrackerOptions
  let intrinsics: CameraIntrinsics
  /// The rolling shutter to undo (nil: a global shutter), its motion set per frame.
  private var shutter: RollingShutter?
  /// The gyroscope's samples of the frame being processed (time, rate in the optical frame).
  private var rates: [(time: Double, rate: SIMD3<Double>)] = []
  private var map: RGBDMap
  private var tracks: FeatureFrontEnd
  /// The tracks' reference patches, which KLT's pixels are aligned to.
  private var references: FeatureReferences
  private var previousPyramid: KLTPyramid?
  private var previousDepth: FrameDepth?
  /// O from the current optical frame.
  private var pose = RigidTransform.identity
  private var previousPose: RigidTransform?
  private var previousTimestamp: Double?
  /// Time between the two previous frames (the interval the velocity was measured over).
  private var lastFrameInterval: Double?
  private var keyframes: KeyframeStore
  private let relocalizer: Relocalizer
  private var loops: LoopCloser
  /// Decides the quality that gates map upkeep (loop closure, the bundle window, the IMU's step).
  private let policy: TrackingStatePolicy
  /// The time of the frame being processed, seconds.
  private var frameTime = 0.0
  private var framesWithoutMeasurement = 0
  private var frameIndex = 0
  private(set) var timings = StageTimings()

  /// Consecutive frames whose pose came without features.
  private var framesWithoutFeatures = 0
  /// While drift is suspected: how many of the keyframes predate it (and can correct it).
  private var trustedKeyframes: Int?
  private var framesSinceDrift = 0
  /// Whether the camera was off (``cameraWasOff()``) and no relocalisation has succeeded since: false
  /// while tracking runs frame to frame.
  private var relocalizingAfterGap = false
  /// The IMU's prediction across the gap while relocalising after it (nil without one).
  private var gapPrediction: GapPrediction?
  /// The frame before the last, when the last was measured frame to frame from it (nil otherwise),
  /// with the IMU samples between them: the velocity a prediction across a gap starts with.
  private var lastMeasuredStep: GapPrediction.Step?
  /// The IMU samples recorded since the last frame.
  private var samples: [IMUSample] = []
  /// Whether the recording has given IMU samples so far.
  private var hasIMU = false
  /// The session's gravity estimate before this frame (``FrameInput/gravity``), for the IMU's predictions.
  private var gravity: GapPrediction.Gravity?
  /// The last frame whose pose was measured, which the IMU predicts from.
  private struct InertialAnchor {
    var time: Double
    var oFromOptical: RigidTransform
    /// The step before it that its velocity comes from (nil: unknown).
    var previous: GapPrediction.Step?
    /// Whether that step was verified: a measured step (``lastMeasuredStep``), not a relocalised
    /// pose that no prediction has checked yet.
    var isVerified: Bool
    /// The IMU samples since.
    var samples: [IMUSample] = []
  }
  /// Nil before a measured frame, after a gap, and after ``TrackerOptions/RGBD/maxPredictedFrames``
  /// frames without a measured pose.
  private var anchor: InertialAnchor?
  /// ``inertial``'s last result and the frame it was made for.
  private var inertialCache: (frame: Int, prediction: GapPrediction?)?
  /// The gyroscope's turns from the last keyframe: priors on the bundle window's relative rotations
  /// (``TrackerOptions/RGBD/bundleGyroscopeNoiseDegrees``) and on each frame's rotation
  /// (``TrackerOptions/RGBD/frameGyroscopeNoiseDegrees``); nil while both are off.
  private var turns: KeyframeTurns?
  private var rgbd: TrackerOptions.RGBD { options.rgbd }
  /// One gyroscope sample interval and 10% more: the rolling shutter's rate averages the samples
  /// within half a readout and one interval of the last, and a sample exactly one interval out stays
  /// in despite rounding in its timestamp.
  private static let sampleIntervalMargin = 1.1

  /// An odometry for images with `intrinsics`; `readoutTime` is the rolling shutter's (seconds, nil or 0:
  /// a global shutter).
  init(intrinsics: CameraIntrinsics, options: TrackerOptions, readoutTime: Double? = nil) {
    self.intrinsics = intrinsics
    self.options = options
    if let readoutTime, readoutTime > 0 {
      shutter = RollingShutter(readout: readoutTime, intrinsics: intrinsics)
    }
    tracks = FeatureFrontEnd(options: options, intrinsics: intrinsics)
    references = FeatureReferences(intrinsics: intrinsics)
    map = RGBDMap(options: options, intrinsics: intrinsics)
    let usesTurns =
      options.rgbd.bundleGyroscopeNoiseDegrees > 0 || options.rgbd.frameGyroscopeNoiseDegrees > 0
    turns = usesTurns ? KeyframeTurns() : nil
    keyframes = KeyframeStore(options: options.relocalization, intrinsics: intrinsics)
    relocalizer = Relocalizer(options: options.relocalization, intrinsics: intrinsics)
    loops = LoopCloser(options: options.loopClosure, spacing: options.relocalization)
    policy = TrackingStatePolicy(options: options)
  }

  func process(_ frame: FrameInput) -> OdometryResult {
    add(frame.imu)
    gravity = frame.gravity
    return track(gray: frame.gray, pyramid: frame.pyramid, depth: frame.depth, timestamp: frame.timestamp)
  }

  private func track(gray: GrayImage, pyramid prepared: KLTPyramid?, depth: FrameDepth?, timestamp: Double)
    -> OdometryResult
  {
    timings = StageTimings()
    frameTime = timestamp
    var clock = ContinuousClock.now
    let pyramid = tracks.pyramid(gray, prepared: prepared)
    clock = lap(&timings.track, since: clock)
    turns?.frame(at: timestamp)
    defer {
      previousPyramid = pyramid
      previousDepth = depth
      lastFrameInterval = previousTimestamp.map { timestamp - $0 }
      previousTimestamp = timestamp
      frameIndex += 1
    }
    guard let previousPyramid, let pyramid else {
      turns?.breakChain()
      replenish(gray: gray, depth: depth)
      addKeyframe(gray: gray, depth: depth)
      previousPose = nil
      lastMeasuredStep = nil
      return result(.tracked(.detected(features: tracks.count)), source: .origin, inliers: tracks.count)
    }

    if relocalizingAfterGap, let lost = recoverAfterGap(gray: gray, depth: depth) {
      turns?.breakChain()
      return lost
    }
    let predicted = prediction(timestamp: timestamp)
    var measured: (pose: RigidTransform, source: PoseSource, inliers: Int)?

    if framesWithoutMeasurement <= rgbd.maxPredictedFrames {
      trackFeatures(from: previousPyramid, to: pyramid, gray: gray, predicted: predicted)
      undoRollingShutter(predicted: predicted)
      clock = lap(&timings.track, since: clock)
      measured = featurePose(predicted: predicted, depth: depth)
      if measured == nil, let depth, let previousDepth {
        measured = alignDepth(
          reference: previousDepth, current: depth, referencePose: pose, predicted: predicted)
      }
    }
    if measured == nil, framesWithoutMeasurement >= rgbd.maxPredictedFrames / 2 {
      measured = relocalize(
        gray: gray, depth: depth, keyframes: keyframes.keyframes[...], accepts: agreesWithInertial)
    }
    // After a stretch without features (depth or prediction only) the pose has drifted: once
    // features are back, recover against the keyframes made before the stretch.
    if let measured, measured.source == .features || measured.source == .relocalization {
      framesWithoutFeatures = 0
    } else {
      framesWithoutFeatures += 1
      if framesWithoutFeatures == rgbd.driftFrames {
        trustedKeyframes = trustedKeyframes ?? keyframes.keyframes.count
      }
    }
    if let trusted = trustedKeyframes, measured?.source == .features {
      framesSinceDrift += 1
      if let recovered = relocalize(gray: gray, depth: depth, keyframes: keyframes.keyframes.prefix(trusted))
      {
        measured = recovered
        trustedKeyframes = nil
        framesSinceDrift = 0
      } else if framesSinceDrift > 2 * rgbd.driftFrames {
        trustedKeyframes = nil
        framesSinceDrift = 0
      }
    }

    // Motion too large for frame-to-frame tracking (the pose jumped from the prediction): the
    // keyframes decide when they recognise the place.
    var continuesMotion = false
    var verified = false
    let wasMeasured = framesWithoutMeasurement == 0
    if let found = measured, found.source != .relocalization,
      options.isJump(from: pose, predicted: predicted, measured: found.pose),
      let recovered = relocalize(
        gray: gray, depth: depth, keyframes: keyframes.keyframes[...], accepts: agreesWithInertial)
    {
      measured = recovered
      if wasMeasured, trustedKeyframes == nil {
        (verified, continuesMotion) = continuity(of: recovered.pose)
      }
    }
    // Nothing measured, or a motion too wide to track that no place recognised where the IMU puts the
    // camera explains: where the IMU's prediction from the last measured frame has the position, it is
    // the pose, and the tracks restart from it with the frame's depth. The map goes on, shifted by the
    // prediction's error (millimetres to centimetres over a frame or two), not from a pose that jumped
    // or was held.
    let jumped = measured.map {
      $0.source != .relocalization && options.isJump(from: pose, predicted: predicted, measured: $0.pose)
    }
    var bridge: RigidTransform?
    if depth != nil, framesWithoutMeasurement < rgbd.maxPredictedFrames, anchor?.isVerified == true,
      jumped ?? true, let (inertialPose, sigma) = inertial()?.prediction(at: frameTime), sigma != nil,
      measured.map({ !agreesWithInertial($0.pose) }) ?? true
    {
      bridge = inertialPose
      measured = nil
    } else if !hasIMU, depth != nil, framesWithoutMeasurement == 0, jumped == true, let found = measured {
      // Without an IMU, a leap that turned no further than the prediction has no witness but the
      // motion so far, and a handheld camera does not leap between two frames: the depth the map was
      // made from disagrees with this frame's (a phone's first depth maps, still converging, can read
      // the whole room nearer), and the PnP pulled towards both is bent in rotation as well as
      // position. The tracks' bearings give the turn with no depth in it; the PnP on the tracks alone
      // (no depth prior: the landmarks' depth then scales only the step) gives the pose where it
      // agrees with that turn, else the turn and the constant-velocity prediction's position do. The
      // tracks restart there with this frame's depth.
      let map = map
      let rotation =
        tracks.orientationFromBearings(position: { map.landmarks[$0] }, previous: pose) ?? found.pose.rotation
      var turned = RigidTransform(rotation: rotation, translation: predicted.translation)
      if let (solved, _) = tracks.solvePose(
        position: { map.landmarks[$0] }, predicted: turned.inverse, seed: options.seed &+ UInt64(frameIndex)),
        !options.isJump(from: pose, predicted: turned, measured: solved.inverse)
      {
        turned = solved.inverse
      }
      if (predicted.inverse * turned).angle <= options.maxRotationJumpDegrees * .pi / 180 {
        bridge = turned
        measured = nil
      }
    }

    let evidence: TrackingEvidence
    let source: PoseSource
    var inliers = 0
    let lastPose = pose
    if let measured {
      pose = measured.pose
      source = measured.source
      inliers = measured.inliers
      framesWithoutMeasurement = 0
      let byFeatures = source == .features || source == .relocalization
      evidence = .tracked(
        byFeatures ? .features(inliers: inliers) : .noFeatures,
        motion: jumped == true ? .jumped : byFeatures ? .steady : motion(to: predicted))
    } else {
      framesWithoutMeasurement += 1
      if let bridge {
        evidence = .tracked(.noFeatures, motion: motion(to: bridge))
        pose = bridge
      } else if framesWithoutMeasurement <= rgbd.maxPredictedFrames {
        pose = predicted
        evidence = .tracked(.noFeatures, motion: motion(to: predicted))
      } else {
        evidence = .lost()
        // Lost for longer: the prediction is too wide to tell places apart (and its samples pile up).
        anchor = nil
      }
      source = .prediction
      tracks.removeAll()
    }
    // The map's upkeep follows the policy's verdict on the frame.
    let quality = policy.quality(evidence)
    // After relocalisation the motion since the last pose is unknown: restart from rest.
    previousPose = source == .relocalization ? pose : lastPose
    let step = previousTimestamp.map {
      GapPrediction.Step(time: $0, oFromOptical: lastPose, samples: samples)
    }
    lastMeasuredStep =
      ([.features, .depth].contains(source) && quality != .excessiveMotion) || verified || continuesMotion
      ? step : nil

    let deformation =
      source == .features && quality == .normal ? closeLoop(gray: gray, depth: depth) : nil
    clock = lap(&timings.pose, since: clock)
    map.keep(tracked: tracks.ids)
    // A pose not measured frame to frame (or one that jumped to a relocalised place) breaks the
    // gyroscope's chain of turns from the last keyframe.
    if ![.features, .depth].contains(source) { turns?.breakChain() }
    if source != .prediction || bridge != nil { replenish(gray: gray, depth: depth) }
    if source != .prediction {
      let made = map.keyframesMade
      if source == .features, quality != .excessiveMotion, let depth {
        let adjusted = map.frameTracked(
          oFromOptical: pose, ids: tracks.ids, pixels: tracks.points, time: frameTime,
          turn: allowedTurn(noiseDegrees: rgbd.bundleGyroscopeNoiseDegrees),
          depthAt: { sample($0, in: depth) })
        if let adjusted { pose = adjusted }
        if map.keyframesMade > made { turns?.keyframeMade(adjusted: map.lastKeyframeTurn) }
      }
      if keyframes.needsKeyframe(at: pose) { addKeyframe(gray: gray, depth: depth) }
    }
    lap(&timings.map, since: clock)
    if source != .prediction {
      // The IMU predicts from this frame next, with the velocity from the last frame's pose (unless a
      // loop closure moved this one): a measured step's, or, for a pose relocalised right after a
      // measured frame, its own, which the next frame's relocalisation verifies.
      let relocalizedStep = source == .relocalization && wasMeasured ? step : nil
      anchor = InertialAnchor(
        time: timestamp, oFromOptical: pose,
        previous: deformation == nil ? lastMeasuredStep ?? relocalizedStep : nil,
        isVerified: deformation == nil && lastMeasuredStep != nil)
    }
    var tracked = result(evidence, source: source, inliers: inliers)
    tracked.deformation = deformation
    tracked.continuesMotion = continuesMotion
    return tracked
  }

  /// Checks the frame for a loop (``LoopCloser``); when one closes, the keyframes since move, and the
  /// pose, the last pose and the landmarks (the frame's own, made since) move with the frame's
  /// correction. Returns the deformation of the map (in O), or nil.
  private func closeLoop(gray: GrayImage, depth: FrameDepth?) -> WorldDeformation? {
    let start = ContinuousClock.now
    defer { lap(&timings.recognition, since: start) }
    guard
      let (loop, correction) = loops.check(
        pose: pose, time: frameTime, gray: gray, keyframes: keyframes.keyframes[keyframes.adopted...],
        relocalizer: relocalizer,
        seed: options.seed &+ UInt64(frameIndex),
        depthAt: { pixel in depth.flatMap { depthAt(pixel, in: $0) } }, view: { depth.flatMap(thumbnail) })
    else { return nil }
    let (corrected, deformation) = loops.close(
      loop: loop, correction: correction, pose: pose, time: frameTime, store: &keyframes)
    let moved = corrected * pose.inverse
    pose = corrected
    previousPose = previousPose.map { moved * $0 }
    map.move(by: moved)
    return deformation
  }

  private func result(_ evidence: TrackingEvidence, source: PoseSource, inliers: Int) -> OdometryResult {
    let seen = tracks.ids.compactMap { id in map.landmarks[id].map { (identifier: id, position: $0) } }
    return OdometryResult(
      oFromOptical: pose, evidence: evidence, source: source, inliers: inliers, landmarks: seen)
  }

  /// Constant-velocity prediction of O from the current camera, scaled to the time since the
  /// last frame. Across a gap (a pause or dropped frames) the motion is unknown: no extrapolation.
  private func prediction(timestamp: Double) -> RigidTransform {
    guard let previousPose, let previousTimestamp, let lastStep = lastFrameInterval, lastStep > 0 else {
      return pose
    }
    let interval = timestamp - previousTimestamp
    guard interval <= max(0.5, 3 * lastStep) else { return pose }
    let step = (previousPose.inverse * pose).log
    let ratio = interval / lastStep
    return pose * RigidTransform.exp(Twist(angular: step.angular * ratio, linear: step.linear * ratio))
  }

  /// The motion from the last frame to `pose` for the tracking state: fast or steady
  /// (``isMovingFast(_:factor:)``).
  private func motion(to pose: RigidTransform) -> TrackingEvidence.Motion {
    isMovingFast(pose) ? .fast : .steady
  }

  /// Whether the motion from the last frame to `predicted` is fast (blur and large image motion likely):
  /// beyond `factor` times the fast-motion thresholds.
  private func isMovingFast(_ predicted: RigidTransform, factor: Double = 1) -> Bool {
    let step = pose.inverse * predicted
    return step.angle > factor * rgbd.fastRotationDegrees * .pi / 180
      || simd_length(step.translation) > factor * rgbd.fastTranslation
  }

  // MARK: Features

  /// Tracks the features into the current frame, starting from their predicted pixels.
  private func trackFeatures(
    from previous: KLTPyramid, to current: KLTPyramid, gray: GrayImage, predicted: RigidTransform
  ) {
    let opticalFromO = predicted.inverse
    let projector = tracks
    let landmarks = map.landmarks
    tracks.track(from: previous, to: current) { id in
      landmarks[id].flatMap { projector.project($0, opticalFromO) }
    }
    // Not through wide motion (twice the fast-motion thresholds), where the warp from the
    // constant-velocity prediction is too far off and alignment would turn a measured frame into a
    // jump (`WideMotionTests.roomAtTwoFramesPerSecond`). Not the thresholds themselves: a hand's
    // ordinary turns reach them, and those frames would lose the alignment (Tools/seed-figures.sh).
    if options.alignsFeatures, !isMovingFast(predicted, factor: 2) {
      references.align(&tracks, in: gray, opticalFromO: opticalFromO, landmarks: landmarks)
    }
  }

  /// The pose from the tracked features, refined with the frame's depths as priors on its landmarks'
  /// depths, or nil when too few agree.
  private func featurePose(predicted: RigidTransform, depth: FrameDepth?) -> (
    pose: RigidTransform, source: PoseSource, inliers: Int
  )? {
    let map = map
    guard tracks.count >= options.minInliers,
      let (solved, inliers) = tracks.solvePose(
        position: { map.landmarks[$0] }, predicted: predicted.inverse,
        seed: options.seed &+ UInt64(frameIndex),
        depthPrior: depth.map { depth in { map.depthPrior(self.sample($0, in: depth)) } },
        // The tracks as they are now: `tracks` itself is being solved.
        rollingShutter: shutter == nil
          ? nil
          : { [ids = tracks.ids, pixels = tracks.pixels] in
            self.rollingShutterPoints(opticalFromO: $0, ids: ids, pixels: pixels)
          },
        rotationPrior: gyroscopeRotation())
    else { return nil }
    return (solved.inverse, .features, inliers)
  }

  /// The rotation (optical from O) the gyroscope's turn from the last keyframe gives the frame, with its
  /// standard deviation (radians per axis), as a prior on the frame's pose; nil without a turn.
  private func gyroscopeRotation() -> (opticalFromO: simd_quatd, sigma: Double)? {
    guard let turn = allowedTurn(noiseDegrees: rgbd.frameGyroscopeNoiseDegrees),
      let keyframe = map.lastKeyframePose
    else { return nil }
    return ((keyframe.rotation * turn.previousFromThis).conjugate.normalized, turn.sigma)
  }

  /// The gyroscope's turn from the last keyframe for an angle random walk of `noiseDegrees` (degrees
  /// per √s), its standard deviation widened by ``TrackerOptions/RGBD/gyroscopeAllowanceDegrees`` (in
  /// quadrature); nil without a turn, or when `noiseDegrees` is not positive (that prior is off).
  private func allowedTurn(noiseDegrees: Double) -> LocalBundleWindow.Turn? {
    guard noiseDegrees > 0, var turn = turns?.turn(noise: noiseDegrees * .pi / 180) else { return nil }
    let allowance = max(rgbd.gyroscopeAllowanceDegrees, 0) * .pi / 180
    turn.sigma = (turn.sigma * turn.sigma + allowance * allowance).squareRoot()
    return turn
  }

  /// The depth seen at an image pixel when it is valid and on one surface, fitted over the depth pixels
  /// around it (``FrameDepth/fittedSample(atImagePixel:edgeBase:edgeSlope:radius:spanFactor:)``), within
  /// the depth range.
  private func sample(_ pixel: SIMD2<Float>, in depth: FrameDepth) -> FrameDepth.Sample? {
    guard
      let found = depth.fittedSample(
        atImagePixel: pixel, edgeBase: rgbd.depthEdgeBase, edgeSlope: rgbd.depthEdgeSlope,
        radius: rgbd.depthFitRadius, spanFactor: rgbd.depthFitSpanFactor),
      found.depth >= options.minDepth, found.depth <= options.maxDepth
    else { return nil }
    return found
  }

  /// The z-depth at an image pixel (``sample(_:in:)``), metres.
  private func depthAt(_ pixel: SIMD2<Float>, in depth: FrameDepth) -> Double? {
    sample(pixel, in: depth)?.depth
  }

  /// Detects new features away from the tracked ones and makes landmarks of those with depth.
  private func replenish(gray: GrayImage, depth: FrameDepth?) {
    guard let depth, tracks.count < options.targetFeatures * 8 / 10 else { return }
    let needed = options.targetFeatures - tracks.count
    var added = 0
    for corner in tracks.newCorners(in: gray, count: needed * 2) where added < needed {
      guard let seen = sample(corner, in: depth) else { continue }
      // Depth was captured at the frame's time: read it where the global-shutter camera sees the corner.
      let point = shutter?.globalPixel(corner, depth: seen.depth) ?? corner
      guard let found = point == corner ? seen : sample(point, in: depth) else { continue }
      let id = map.add(pose.apply(to: intrinsics.backProject(SIMD2(point), depth: found.depth)))
      tracks.append(id, corner, point: point)
      references.add(
        id, pixel: corner, gray: gray, oFromOptical: pose,
        slope: found.inverseDepthSlope.map { (point, found.depth, $0) })
      added += 1
    }
  }

  // MARK: Rolling shutter

  /// Takes the IMU samples recorded since the last frame (their gyroscope rates time the rolling
  /// shutter's correction).
  private func add(_ samples: [IMUSample]) {
    if !samples.isEmpty { hasIMU = true }
    turns?.add(samples)
    gapPrediction?.add(samples)
    anchor?.samples += samples
    self.samples = samples
    rates = samples.compactMap { sample in sample.rotationRate.map { (sample.timestamp, $0) } }
  }

  /// Moves the tracks' points to where a global-shutter camera at the frame's time sees them, for the
  /// motion from the previous frame's pose to `predicted` (``rollingShutterPoints(opticalFromO:ids:pixels:)``).
  private func undoRollingShutter(predicted: RigidTransform) {
    guard shutter != nil else { return }
    tracks.points = rollingShutterPoints(
      opticalFromO: predicted.inverse, ids: tracks.ids, pixels: tracks.pixels)
  }

  /// The global-shutter points of tracks `ids` seen at `pixels` in the frame at `opticalFromO`: the camera's rate from the
  /// gyroscope (its samples within half a readout and one sample interval of the frame, else the
  /// last) or, without one, from the step since the previous frame's pose, and its velocity from that
  /// step; each track's depth from its landmark in `opticalFromO`.
  private func rollingShutterPoints(opticalFromO: RigidTransform, ids: [UInt64], pixels: [SIMD2<Float>])
    -> [SIMD2<Float>]
  {
    guard var shutter else { return pixels }
    shutter.angularVelocity = .zero
    shutter.velocity = .zero
    if let previousTimestamp, frameTime > previousTimestamp {
      let step = pose.inverse * opticalFromO.inverse
      shutter.angularVelocity = step.log.angular / (frameTime - previousTimestamp)
      shutter.velocity = step.rotation.inverse.act(step.translation) / (frameTime - previousTimestamp)
    }
    if let first = rates.first, let last = rates.last {
      // The gyroscope's sample interval, from the samples themselves (the recording's IMU rate).
      let interval = rates.count > 1 ? (last.time - first.time) / Double(rates.count - 1) : 0
      let recent = rates.filter {
        $0.time >= last.time - shutter.readout / 2 - Self.sampleIntervalMargin * interval
      }
      shutter.angularVelocity = recent.reduce(SIMD3<Double>.zero) { $0 + $1.rate } / Double(recent.count)
    }
    self.shutter = shutter
    let landmarks = map.landmarks
    return zip(ids, pixels).map { id, pixel in
      let depth = landmarks[id].map { opticalFromO.apply(to: $0).z }
      return shutter.globalPixel(pixel, depth: depth.flatMap { $0 > 0 ? $0 : nil })
    }
  }

  // MARK: Depth alignment

  private func alignDepth(
    reference: FrameDepth, current: FrameDepth, referencePose: RigidTransform, predicted: RigidTransform
  )
    -> (pose: RigidTransform, source: PoseSource, inliers: Int)?
  {
    // Start from rest, not from the constant-velocity prediction: along directions the geometry
    // constrains weakly (a camera sliding along a wall) ICP stays near its start, and starting from
    // the prediction would carry the last velocity on for ever. Well-constrained motion converges
    // from rest thanks to the pyramid.
    _ = predicted
    guard
      let aligned = try? DepthAlignment.align(
        reference: reference.map, current: current.map, intrinsics: current.depthIntrinsics, initial: nil,
        parameters: .init()),
      aligned.inlierFraction > rgbd.minAlignmentInlierFraction,
      !aligned.isDegenerate(threshold: rgbd.alignmentDegeneracy)
    else { return nil }
    let currentFromReference = RigidTransform(aligned.currentFromReference)
    return (referencePose * currentFromReference.inverse, .depth, 0)
  }

  // MARK: Keyframes and relocalisation

  /// The camera was off: the motion since the last frame is unknown, so frame-to-frame tracking
  /// (KLT from the last image, depth alignment from rest) would measure a wrong pose. The next
  /// frames relocalise against the keyframes instead.
  func cameraWasOff() { cameraWasOff(gravity: nil) }

  /// The IMU's prediction from ``anchor`` to this frame, with the session's gravity as it is now: where
  /// a relocalised pose must be when tracking frame to frame fails (a wide motion, a loss), so that a
  /// place one texture period away is not taken for it. Made on first use in a frame (frames tracked
  /// frame to frame never need it).
  private func inertial() -> GapPrediction? {
    if let cache = inertialCache, cache.frame == frameIndex { return cache.prediction }
    let prediction = anchor.map { anchor in
      var prediction = GapPrediction(
        time: anchor.time, oFromOptical: anchor.oFromOptical, previous: anchor.previous, gravity: gravity,
        options: options.relocalization)
      prediction.add(anchor.samples)
      return prediction
    }
    inertialCache = (frameIndex, prediction)
    return prediction
  }

  /// Whether a relocalised pose (`oFromOptical`) agrees with the IMU's prediction from the last
  /// measured frame (``inertial()``; always without one).
  private func agreesWithInertial(_ oFromOptical: RigidTransform) -> Bool {
    inertial()?.agrees(with: oFromOptical, at: frameTime) ?? true
  }

  /// How a pose relocalised after a wide motion (`oFromOptical`, which agrees with the IMU's
  /// prediction from the last frame, ``inertial()``: the relocalisation accepted no other) relates to
  /// the motion tracked to that frame: `verified` when the prediction has the position (gravity and
  /// the last velocity known; the velocity to the pose is then one a later prediction can start
  /// from); `continues` (the gravity estimator's chain goes on through it) when, besides, it lies
  /// within ``TrackerOptions/Relocalization/continuityTolerance`` of the predicted position, or, before
  /// gravity is estimated (no position predicted), on the agreeing rotation alone.
  private func continuity(of oFromOptical: RigidTransform) -> (verified: Bool, continues: Bool) {
    guard let (predicted, sigma) = inertial()?.prediction(at: frameTime) else { return (false, false) }
    guard sigma != nil else { return (false, gravity == nil) }
    let off = simd_length(predicted.translation - oFromOptical.translation)
    return (true, off <= options.relocalization.continuityTolerance)
  }

  /// ``cameraWasOff()`` with gravity known (nil: not estimated): the relocalised pose after the gap
  /// must then agree with the IMU's prediction across it (``GapPrediction``), where its samples span
  /// the gap.
  func cameraWasOff(gravity: GapPrediction.Gravity?) {
    turns?.reset()
    relocalizingAfterGap = true
    anchor = nil
    tracks.removeAll()
    gapPrediction = previousTimestamp.map { time in
      GapPrediction(
        time: time, oFromOptical: pose, previous: lastMeasuredStep, gravity: gravity,
        options: options.relocalization)
    }
  }

  /// After the camera was off: the frame relocalised against every keyframe (place recognition),
  /// which resumes tracking from the found pose (nil: the caller carries on with it). Where the IMU's
  /// samples span the gap (``GapPrediction``), a found pose must agree with their prediction (a place
  /// recognised one texture period away is rejected), and when none does tracking resumes from the
  /// predicted pose itself, on the first frame (the prediction only worsens with time; the frame is
  /// `relocalizing`, those after it tracked frame to frame). Without a prediction, a `relocalizing`
  /// result with the last pose held, for as long as no keyframe is recognised: as in ARKit, the
  /// session stays `limited(.relocalizing)` until the camera is back in a mapped place or the app
  /// resets tracking (the frames after the gap may show a place never mapped: tracking on from the
  /// held pose would continue the map in a world shifted by the unknown motion across the gap).
  private func recoverAfterGap(gray: GrayImage, depth: FrameDepth?) -> OdometryResult? {
    guard relocalizingAfterGap else { return nil }
    var clock = ContinuousClock.now
    let time = frameTime
    let predicted = gapPrediction?.prediction(at: time)
    let found = relocalize(
      gray: gray, depth: depth, keyframes: keyframes.keyframes[...],
      accepts: { [gapPrediction] in gapPrediction?.agrees(with: $0, at: time) ?? true })
    lap(&timings.pose, since: clock)
    let resumed: (pose: RigidTransform, evidence: TrackingEvidence, source: PoseSource, inliers: Int)
    if let found {
      resumed = (found.pose, .tracked(.features(inliers: found.inliers)), .relocalization, found.inliers)
    } else if let predicted, predicted.translationSigma != nil {
      resumed = (predicted.oFromOptical, .lost(), .prediction, 0)
    } else {
      previousPose = pose
      return result(.lost(), source: .prediction, inliers: 0)
    }
    relocalizingAfterGap = false
    gapPrediction = nil
    lastMeasuredStep = nil
    pose = resumed.pose
    previousPose = resumed.pose
    framesWithoutMeasurement = 0
    framesWithoutFeatures = 0
    trustedKeyframes = nil
    tracks.removeAll()
    clock = ContinuousClock.now
    replenish(gray: gray, depth: depth)
    if keyframes.needsKeyframe(at: pose) { addKeyframe(gray: gray, depth: depth) }
    lap(&timings.map, since: clock)
    return result(resumed.evidence, source: resumed.source, inliers: resumed.inliers)
  }

  var mapKeyframes: [Keyframe] { keyframes.keyframes }

  func locate(gray: GrayImage, depth: FrameDepth?, in map: [Keyframe]) -> (
    mapFromOptical: RigidTransform, inliers: Int
  )? {
    relocalizer.relocalize(
      gray: gray, against: map[...], seed: options.seed &+ UInt64(frameIndex),
      depthAt: { pixel in depth.flatMap { depthAt(pixel, in: $0) } }
    ).map { ($0.oFromOptical, $0.inliers) }
  }

  func adopt(_ map: [Keyframe]) { keyframes.adopt(map) }

  func isMapped(_ oFromOptical: RigidTransform) -> Bool? { keyframes.covers(oFromOptical) }

  private func addKeyframe(gray: GrayImage, depth: FrameDepth?) {
    guard let depth else { return }
    keyframes.add(gray: gray, oFromOptical: pose, time: frameTime, depth: thumbnail(depth)) {
      depthAt($0, in: depth)
    }
  }

  /// A frame's depth at low resolution (``DepthThumbnail``), within the depth range; nil while the
  /// view check cannot reject (``TrackerOptions/Relocalization/maxViewInFront`` of 1 or more: the
  /// check turned off), so that keyframes do not pay for thumbnails no check reads.
  private func thumbnail(_ depth: FrameDepth) -> DepthThumbnail? {
    let reloc = options.relocalization
    guard reloc.maxViewInFront < 1 else { return nil }
    return DepthThumbnail(
      depth, maxWidth: reloc.thumbnailWidth, span: reloc.thumbnailSpan,
      range: options.minDepth...options.maxDepth)
  }

  /// Relocalises against `keyframes` (most recent first); on success the tracks restart.
  private func relocalize(
    gray: GrayImage, depth: FrameDepth?, keyframes: ArraySlice<Keyframe>,
    accepts: (RigidTransform) -> Bool = { _ in true }
  )
    -> (pose: RigidTransform, source: PoseSource, inliers: Int)?
  {
    let start = ContinuousClock.now
    defer { lap(&timings.recognition, since: start) }
    guard
      let (found, inliers) = relocalizer.relocalize(
        gray: gray, against: keyframes, seed: options.seed &+ UInt64(frameIndex),
        depthAt: { pixel in depth.flatMap { depthAt(pixel, in: $0) } }, view: { depth.flatMap(thumbnail) },
        accepts: accepts)
    else { return nil }
    tracks.removeAll()
    return (found, .relocalization, inliers)
  }
}
