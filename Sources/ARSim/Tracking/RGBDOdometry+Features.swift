import Foundation

/// RGB-D odometry's front end: KLT tracks and their pose, the depth read at a feature, new
/// features, the rolling shutter undone, and the dense depth alignment where features are scarce.
extension RGBDOdometry {
  // MARK: Features

  /// Tracks the features into the current frame, starting from their predicted pixels.
  func trackFeatures(
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
  func featurePose(predicted: RigidTransform, depth: FrameDepth?) -> (
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
  func gyroscopeRotation() -> (opticalFromO: simd_quatd, sigma: Double)? {
    guard let turn = allowedTurn(noiseDegrees: rgbd.frameGyroscopeNoiseDegrees),
      let keyframe = map.lastKeyframePose
    else { return nil }
    return ((keyframe.rotation * turn.previousFromThis).conjugate.normalized, turn.sigma)
  }

  /// The gyroscope's turn from the last keyframe for an angle random walk of `noiseDegrees` (degrees
  /// per √s), its standard deviation widened by ``TrackerOptions/RGBD/gyroscopeAllowanceDegrees`` (in
  /// quadrature); nil without a turn, or when `noiseDegrees` is not positive (that prior is off).
  func allowedTurn(noiseDegrees: Double) -> LocalBundleWindow.Turn? {
    guard noiseDegrees > 0, var turn = turns?.turn(noise: noiseDegrees * .pi / 180) else { return nil }
    let allowance = max(rgbd.gyroscopeAllowanceDegrees, 0) * .pi / 180
    turn.sigma = (turn.sigma * turn.sigma + allowance * allowance).squareRoot()
    return turn
  }

  /// The depth seen at an image pixel when it is valid and on one surface, fitted over the depth pixels
  /// around it (``FrameDepth/fittedSample(atImagePixel:edgeBase:edgeSlope:radius:spanFactor:)``), within
  /// the depth range.
  func sample(_ pixel: SIMD2<Float>, in depth: FrameDepth) -> FrameDepth.Sample? {
    guard
      let found = depth.fittedSample(
        atImagePixel: pixel, edgeBase: rgbd.depthEdgeBase, edgeSlope: rgbd.depthEdgeSlope,
        radius: rgbd.depthFitRadius, spanFactor: rgbd.depthFitSpanFactor),
      found.depth >= options.minDepth, found.depth <= options.maxDepth
    else { return nil }
    return found
  }

  /// The z-depth at an image pixel (``sample(_:in:)``), metres.
  func depthAt(_ pixel: SIMD2<Float>, in depth: FrameDepth) -> Double? {
    sample(pixel, in: depth)?.depth
  }

  /// Detects new features away from the tracked ones and makes landmarks of those with depth.
  func replenish(gray: GrayImage, depth: FrameDepth?) {
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
  func add(_ samples: [IMUSample]) {
    if !samples.isEmpty { hasIMU = true }
    turns?.add(samples)
    gapPrediction?.add(samples)
    anchor?.samples += samples
    self.samples = samples
    rates = samples.compactMap { sample in sample.rotationRate.map { (sample.timestamp, $0) } }
  }

  /// Moves the tracks' points to where a global-shutter camera at the frame's time sees them, for the
  /// motion from the previous frame's pose to `predicted` (``rollingShutterPoints(opticalFromO:ids:pixels:)``).
  func undoRollingShutter(predicted: RigidTransform) {
    guard shutter != nil else { return }
    tracks.points = rollingShutterPoints(
      opticalFromO: predicted.inverse, ids: tracks.ids, pixels: tracks.pixels)
  }

  /// The global-shutter points of tracks `ids` seen at `pixels` in the frame at `opticalFromO`: the camera's rate from the
  /// gyroscope (its samples within half a readout and one sample interval of the frame, else the
  /// last) or, without one, from the step since the previous frame's pose, and its velocity from that
  /// step; each track's depth from its landmark in `opticalFromO`.
  func rollingShutterPoints(opticalFromO: RigidTransform, ids: [UInt64], pixels: [SIMD2<Float>])
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

  func alignDepth(
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
}
