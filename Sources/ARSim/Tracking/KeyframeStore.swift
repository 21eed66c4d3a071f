/// A keyframe kept for relocalisation: ORB features with their 3D positions in O.
struct Keyframe {
  /// O from the keyframe's optical frame.
  var oFromOptical: RigidTransform
  var descriptors: [ORBDescriptor]
  /// Each descriptor's feature in O, metres.
  var points: [SIMD3<Double>]
}

/// The RGB-D odometry's keyframes: ORB features with depth, made as the camera moves on, the oldest
/// dropped beyond ``TrackerOptions/Relocalization/maxKeyframes``.
struct KeyframeStore {
  let options: TrackerOptions.Relocalization
  let intrinsics: CameraIntrinsics
  /// The keyframes, oldest first.
  private(set) var keyframes: [Keyframe] = []

  init(options: TrackerOptions.Relocalization, intrinsics: CameraIntrinsics) {
    self.options = options
    self.intrinsics = intrinsics
  }

  /// Whether the camera at `oFromOptical` has moved far enough from the last keyframe for a new one.
  func needsKeyframe(at oFromOptical: RigidTransform) -> Bool {
    guard let last = keyframes.last else { return true }
    let step = last.oFromOptical.inverse * oFromOptical
    return simd_length(step.translation) > options.keyframeTranslation
      || step.angle > options.keyframeRotationDegrees * .pi / 180
  }

  /// Makes a keyframe of the frame at `oFromOptical` from its ORB features with a depth (`depthAt`
  /// gives the usable z-depth of a pixel, or nil); none when too few have one.
  mutating func add(
    gray: GrayImage, oFromOptical: RigidTransform, depthAt: (SIMD2<Float>) -> Double?
  ) {
    let orb = FeatureDetector(
      method: .orb, maxFeatures: options.keyframeFeatures, threshold: Float(options.orbThreshold),
      pyramidLevels: 4, scaleFactor: 1.2)
    guard let (keypoints, descriptors) = try? orb.detectAndDescribe(in: gray) else { return }
    var kept: [ORBDescriptor] = []
    var points: [SIMD3<Double>] = []
    for (keypoint, descriptor) in zip(keypoints, descriptors) {
      guard let d = depthAt(keypoint.position) else { continue }
      kept.append(descriptor)
      points.append(oFromOptical.apply(to: intrinsics.backProject(SIMD2(keypoint.position), depth: d)))
    }
    guard kept.count >= options.minFeatures else { return }
    keyframes.append(Keyframe(oFromOptical: oFromOptical, descriptors: kept, points: points))
    if keyframes.count > options.maxKeyframes { keyframes.removeFirst() }
  }
}

/// Recovers a lost pose against keyframes (stella_vslam's `relocalizer`): the frame's ORB features
/// matched to each keyframe's, most recent first, and PnP RANSAC on the matched 3D points.
struct Relocalizer {
  let options: TrackerOptions.Relocalization
  let intrinsics: CameraIntrinsics

  /// O from the frame's optical frame and the PnP inliers, or nil when no keyframe agrees.
  func relocalize(gray: GrayImage, against keyframes: ArraySlice<Keyframe>, seed: UInt64)
    -> (oFromOptical: RigidTransform, inliers: Int)?
  {
    guard !keyframes.isEmpty else { return nil }
    let orb = FeatureDetector(
      method: .orb, maxFeatures: options.queryFeatures, threshold: Float(options.orbThreshold),
      pyramidLevels: 4, scaleFactor: 1.2)
    guard let (keypoints, descriptors) = try? orb.detectAndDescribe(in: gray),
      keypoints.count >= options.minFeatures
    else { return nil }
    for keyframe in keyframes.reversed().prefix(options.searchedKeyframes) {
      guard
        let matches = try? DescriptorMatcher.match(
          descriptors, keyframe.descriptors, maxDistance: options.maxDescriptorDistance, ratio: 1,
          crossCheck: true),
        matches.count >= options.minMatches
      else { continue }
      let world = matches.map { keyframe.points[$0.b] }
      let image = matches.map { SIMD2(Double(keypoints[$0.a].x), Double(keypoints[$0.a].y)) }
      guard
        let (found, mask) = try? PoseSolver.solvePnPRansac(
          worldPoints: world, imagePoints: image, intrinsics: intrinsics,
          threshold: options.reprojectionThreshold, confidence: 0.999,
          maxIterations: options.ransacIterations,
          seed: seed),
        mask.count(where: { $0 }) >= options.minMatches
      else { continue }
      return (RigidTransform(found).inverse, mask.count(where: { $0 }))
    }
    return nil
  }
}
