/// A keyframe kept for relocalisation: ORB features with their 3D positions in O.
struct Keyframe {
  /// O from the keyframe's optical frame.
  var oFromOptical: RigidTransform
  let descriptors: [ORBDescriptor]
  /// Each descriptor's feature in O, metres.
  var points: [SIMD3<Double>]
  /// The time of the frame it was made from, seconds (the recording's clock); -∞ for a world map's.
  var time = -Double.infinity
  /// Its depth at low resolution (RGB-D; nil without depth and for a world map's keyframes), which a
  /// relocalised pose's frame depth must agree with (``Relocalizer``).
  var depth: DepthThumbnail?
  /// Its descriptors' words, place recognition's shortlist (``PlaceWords``): derived from the
  /// descriptors, so a world map's keyframes get them on load.
  let words: PlaceWords

  init(
    oFromOptical: RigidTransform, descriptors: [ORBDescriptor], points: [SIMD3<Double>],
    time: Double = -.infinity, depth: DepthThumbnail? = nil
  ) {
    self.oFromOptical = oFromOptical
    self.descriptors = descriptors
    self.points = points
    self.time = time
    self.depth = depth
    words = PlaceWords(descriptors)
  }

  /// The keyframe in another frame: `newFromO` applied to its pose and points.
  func moved(by newFromO: RigidTransform) -> Keyframe {
    var moved = self
    moved.oFromOptical = newFromO * oFromOptical
    moved.points = points.map { newFromO.apply(to: $0) }
    return moved
  }
}

/// The RGB-D and monocular odometries' keyframes: ORB features with depth (measured, or a tracked
/// landmark's), made as the camera moves on, the oldest dropped beyond
/// ``TrackerOptions/Relocalization/maxKeyframes``.
struct KeyframeStore {
  let options: TrackerOptions.Relocalization
  let intrinsics: CameraIntrinsics
  /// The keyframes: those adopted from a world map first (kept for good), then the session's own,
  /// oldest first.
  private(set) var keyframes: [Keyframe] = []
  /// How many of the first keyframes came from a world map (never dropped).
  private(set) var adopted = 0

  init(options: TrackerOptions.Relocalization, intrinsics: CameraIntrinsics) {
    self.options = options
    self.intrinsics = intrinsics
  }

  /// Whether the camera at `oFromOptical` has moved far enough from the last keyframe for a new one,
  /// into a view no older keyframe covers (``covers(_:)``): a revisit adds none, so a place keeps the
  /// keyframes made when it was first mapped, which loop closure corrects the drift against.
  func needsKeyframe(at oFromOptical: RigidTransform) -> Bool {
    guard let last = keyframes.last else { return true }
    let step = last.oFromOptical.inverse * oFromOptical
    return
      (simd_length(step.translation) > options.keyframeTranslation
      || step.angle > options.keyframeRotationDegrees * .pi / 180) && !covers(oFromOptical)
  }

  /// Makes a keyframe of the frame at `oFromOptical` from its ORB features with a depth (`depthAt`
  /// gives the usable z-depth of a pixel, or nil); none when too few have one. `mask` (one byte per
  /// pixel, non-zero where features may be) keeps ORB to where depths are known. `depth`: the
  /// frame's depth at low resolution, kept with the keyframe.
  mutating func add(
    gray: GrayImage, oFromOptical: RigidTransform, time: Double, mask: [UInt8]? = nil,
    depth: DepthThumbnail? = nil, depthAt: (SIMD2<Float>) -> Double?
  ) {
    let orb = FeatureDetector(
      method: .orb, maxFeatures: options.keyframeFeatures, threshold: Float(options.orbThreshold),
      pyramidLevels: 4, scaleFactor: 1.2)
    guard let (keypoints, descriptors) = try? orb.detectAndDescribe(in: gray, mask: mask) else { return }
    var kept: [ORBDescriptor] = []
    var points: [SIMD3<Double>] = []
    for (keypoint, descriptor) in zip(keypoints, descriptors) {
      guard let d = depthAt(keypoint.position) else { continue }
      kept.append(descriptor)
      points.append(oFromOptical.apply(to: intrinsics.backProject(SIMD2(keypoint.position), depth: d)))
    }
    guard kept.count >= options.minFeatures else { return }
    keyframes.append(
      Keyframe(oFromOptical: oFromOptical, descriptors: kept, points: points, time: time, depth: depth))
    if keyframes.count - adopted > options.maxKeyframes { keyframes.remove(at: adopted) }
  }

  /// Moves keyframe `index` and its points by `newFromO` (a loop closure's correction).
  mutating func correct(_ index: Int, by newFromO: RigidTransform) {
    keyframes[index] = keyframes[index].moved(by: newFromO)
  }

  /// Adds a world map's keyframes (in O), kept for good, before the session's own.
  mutating func adopt(_ map: [Keyframe]) {
    keyframes.insert(contentsOf: map, at: adopted)
    adopted += map.count
  }

  /// Whether the map covered the view from `oFromOptical` before the camera came: a keyframe other
  /// than the two most recent lies within the keyframe distance and angle
  /// (``TrackerOptions/Relocalization``). False while the camera explores (only the keyframes it just
  /// made are near), true where it returns or where an adopted map covers.
  func covers(_ oFromOptical: RigidTransform) -> Bool {
    keyframes.dropLast(2).contains { keyframe in
      let step = keyframe.oFromOptical.inverse * oFromOptical
      return simd_length(step.translation) <= options.keyframeTranslation
        && step.angle <= options.keyframeRotationDegrees * .pi / 180
    }
  }
}
