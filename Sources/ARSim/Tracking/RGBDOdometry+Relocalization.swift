import Foundation

/// RGB-D odometry's recovery: keyframes, relocalisation against them, and the IMU's prediction that
/// checks a relocalised pose and carries the camera across a gap.
extension RGBDOdometry {
  // MARK: Keyframes and relocalisation

  /// The camera was off: the motion since the last frame is unknown, so frame-to-frame tracking
  /// (KLT from the last image, depth alignment from rest) would measure a wrong pose. The next
  /// frames relocalise against the keyframes instead.
  func cameraWasOff() { cameraWasOff(gravity: nil) }

  /// The IMU's prediction from ``anchor`` to this frame, with the session's gravity as it is now: where
  /// a relocalised pose must be when tracking frame to frame fails (a wide motion, a loss), so that a
  /// place one texture period away is not taken for it. Made on first use in a frame (frames tracked
  /// frame to frame never need it).
  func inertial() -> GapPrediction? {
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
  func agreesWithInertial(_ oFromOptical: RigidTransform) -> Bool {
    inertial()?.agrees(with: oFromOptical, at: frameTime) ?? true
  }

  /// How a pose relocalised after a wide motion (`oFromOptical`, which agrees with the IMU's
  /// prediction from the last frame, ``inertial()``: the relocalisation accepted no other) relates to
  /// the motion tracked to that frame: `verified` when the prediction has the position (gravity and
  /// the last velocity known; the velocity to the pose is then one a later prediction can start
  /// from); `continues` (the gravity estimator's chain goes on through it) when, besides, it lies
  /// within ``TrackerOptions/Relocalization/continuityTolerance`` of the predicted position, or, before
  /// gravity is estimated (no position predicted), on the agreeing rotation alone.
  func continuity(of oFromOptical: RigidTransform) -> (verified: Bool, continues: Bool) {
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
  func recoverAfterGap(gray: GrayImage, depth: FrameDepth?) -> OdometryResult? {
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

  func addKeyframe(gray: GrayImage, depth: FrameDepth?) {
    guard let depth else { return }
    keyframes.add(gray: gray, oFromOptical: pose, time: frameTime, depth: thumbnail(depth)) {
      depthAt($0, in: depth)
    }
  }

  /// A frame's depth at low resolution (``DepthThumbnail``), within the depth range; nil while the
  /// view check cannot reject (``TrackerOptions/Relocalization/maxViewInFront`` of 1 or more: the
  /// check turned off), so that keyframes do not pay for thumbnails no check reads.
  func thumbnail(_ depth: FrameDepth) -> DepthThumbnail? {
    let reloc = options.relocalization
    guard reloc.maxViewInFront < 1 else { return nil }
    return DepthThumbnail(
      depth, maxWidth: reloc.thumbnailWidth, span: reloc.thumbnailSpan,
      range: options.minDepth...options.maxDepth)
  }

  /// Relocalises against `keyframes` (most recent first); on success the tracks restart.
  func relocalize(
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
