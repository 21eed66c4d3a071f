import Foundation

/// Monocular odometry's recovery: starting from an initial world map and following it, keyframes,
/// and relocalisation against them after a loss, confirmed over several frames.
extension MonoOdometry {
  // MARK: Initial world map

  /// Once located in the world map: where its keyframes cover the view, at most every
  /// ``TrackerOptions/LoopClosure/checkInterval``, the frame is located in them again and, with
  /// ``TrackerOptions/normalInliers`` PnP inliers, the tracks and landmarks restart from the map's
  /// points (``restart(from:gray:)``). Monocular tracking drifts in scale; the map's points hold it to
  /// the map's.
  func followMap(gray: GrayImage) {
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
  func locateInMap(gray: GrayImage) -> OdometryResult {
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
  func confirmLocation(gray: GrayImage) {
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
  func located(_ gray: GrayImage, mapOnly: Bool = false, asPose: Bool = false) -> Relocalizer
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
  func recover(gray: GrayImage) -> OdometryResult {
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
  func restart(from location: Relocalizer.Location, gray: GrayImage) {
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
  func addKeyframe(gray: GrayImage) {
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
}
