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
  var shutter: RollingShutter?
  /// The gyroscope's samples of the frame being processed (time, rate in the optical frame).
  var rates: [(time: Double, rate: SIMD3<Double>)] = []
  var map: RGBDMap
  var tracks: FeatureFrontEnd
  /// The tracks' reference patches, which KLT's pixels are aligned to.
  var references: FeatureReferences
  var previousPyramid: KLTPyramid?
  var previousDepth: FrameDepth?
  /// O from the current optical frame.
  var pose = RigidTransform.identity
  var previousPose: RigidTransform?
  var previousTimestamp: Double?
  /// Time between the two previous frames (the interval the velocity was measured over).
  var lastFrameInterval: Double?
  var keyframes: KeyframeStore
  let relocalizer: Relocalizer
  var loops: LoopCloser
  /// Decides the quality that gates map upkeep (loop closure, the bundle window, the IMU's step).
  let policy: TrackingStatePolicy
  /// The time of the frame being processed, seconds.
  var frameTime = 0.0
  var framesWithoutMeasurement = 0
  var frameIndex = 0
  var timings = StageTimings()

  /// Consecutive frames whose pose came without features.
  var framesWithoutFeatures = 0
  /// While drift is suspected: how many of the keyframes predate it (and can correct it).
  var trustedKeyframes: Int?
  var framesSinceDrift = 0
  /// Whether the camera was off (``cameraWasOff()``) and no relocalisation has succeeded since: false
  /// while tracking runs frame to frame.
  var relocalizingAfterGap = false
  /// The IMU's prediction across the gap while relocalising after it (nil without one).
  var gapPrediction: GapPrediction?
  /// The frame before the last, when the last was measured frame to frame from it (nil otherwise),
  /// with the IMU samples between them: the velocity a prediction across a gap starts with.
  var lastMeasuredStep: GapPrediction.Step?
  /// The IMU samples recorded since the last frame.
  var samples: [IMUSample] = []
  /// Whether the recording has given IMU samples so far.
  var hasIMU = false
  /// The session's gravity estimate before this frame (``FrameInput/gravity``), for the IMU's predictions.
  var gravity: GapPrediction.Gravity?
  /// The last frame whose pose was measured, which the IMU predicts from.
  struct InertialAnchor {
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
  var anchor: InertialAnchor?
  /// ``inertial``'s last result and the frame it was made for.
  var inertialCache: (frame: Int, prediction: GapPrediction?)?
  /// The gyroscope's turns from the last keyframe: priors on the bundle window's relative rotations
  /// (``TrackerOptions/RGBD/bundleGyroscopeNoiseDegrees``) and on each frame's rotation
  /// (``TrackerOptions/RGBD/frameGyroscopeNoiseDegrees``); nil while both are off.
  var turns: KeyframeTurns?
  var rgbd: TrackerOptions.RGBD { options.rgbd }
  /// One gyroscope sample interval and 10% more: the rolling shutter's rate averages the samples
  /// within half a readout and one interval of the last, and a sample exactly one interval out stays
  /// in despite rounding in its timestamp.
  static let sampleIntervalMargin = 1.1

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

  func track(gray: GrayImage, pyramid prepared: KLTPyramid?, depth: FrameDepth?, timestamp: Double)
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
  func closeLoop(gray: GrayImage, depth: FrameDepth?) -> WorldDeformation? {
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

  func result(_ evidence: TrackingEvidence, source: PoseSource, inliers: Int) -> OdometryResult {
    let seen = tracks.ids.compactMap { id in map.landmarks[id].map { (identifier: id, position: $0) } }
    return OdometryResult(
      oFromOptical: pose, evidence: evidence, source: source, inliers: inliers, landmarks: seen)
  }

  /// Constant-velocity prediction of O from the current camera, scaled to the time since the
  /// last frame. Across a gap (a pause or dropped frames) the motion is unknown: no extrapolation.
  func prediction(timestamp: Double) -> RigidTransform {
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
  func motion(to pose: RigidTransform) -> TrackingEvidence.Motion {
    isMovingFast(pose) ? .fast : .steady
  }

  /// Whether the motion from the last frame to `predicted` is fast (blur and large image motion likely):
  /// beyond `factor` times the fast-motion thresholds.
  func isMovingFast(_ predicted: RigidTransform, factor: Double = 1) -> Bool {
    let step = pose.inverse * predicted
    return step.angle > factor * rgbd.fastRotationDegrees * .pi / 180
      || simd_length(step.translation) > factor * rgbd.fastTranslation
  }
}
