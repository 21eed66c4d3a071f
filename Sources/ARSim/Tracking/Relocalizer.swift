/// Recovers a lost pose against keyframes (stella_vslam's `relocalizer`): place recognition by
/// brute-force Hamming matching of the frame's ORB features against every candidate keyframe's
/// (capped at ``TrackerOptions/Relocalization/recognizedKeyframes``, most recent first), the
/// keyframes ranked by their cross-checked matches, then PnP RANSAC (seeded) on the best-ranked
/// keyframes' matched 3D points until one agrees.
struct Relocalizer {
  let options: TrackerOptions.Relocalization
  let intrinsics: CameraIntrinsics

  /// A frame located against keyframes.
  struct Location {
    /// O from the frame's optical frame.
    var oFromOptical: RigidTransform
    /// The PnP inliers: each one's pixel in the frame and its keyframe point in O.
    var matches: [(pixel: SIMD2<Float>, point: SIMD3<Double>)]
    /// The index of the keyframe that located it.
    var keyframe: Int
    /// How many PnP inliers.
    var inliers: Int { matches.count }
  }

  /// O from the frame's optical frame and the PnP inliers, or nil when no keyframe agrees.
  /// `depthAt` gives the frame's usable z-depth at a pixel (nil where unknown, or always nil without
  /// depth): where it exists a pose is kept only when most inliers' depths agree with it
  /// (``depthAgrees(_:)``), which rejects the wrong poses PnP finds on a few ambiguous matches.
  /// Deterministic: ties in the ranking go to the more recent keyframe, RANSAC takes `seed`.
  func relocalize(
    gray: GrayImage, against keyframes: ArraySlice<Keyframe>, seed: UInt64,
    depthAt: (SIMD2<Float>) -> Double? = { _ in nil }
  )
    -> (oFromOptical: RigidTransform, inliers: Int)?
  {
    locate(gray: gray, against: keyframes, seed: seed, depthAt: depthAt).map { ($0.oFromOptical, $0.inliers) }
  }

  /// ``relocalize(gray:against:seed:depthAt:)`` with the PnP inliers: what a front end without depth
  /// (monocular) restarts its tracks and landmarks from.
  func locate(
    gray: GrayImage, against keyframes: ArraySlice<Keyframe>, seed: UInt64,
    depthAt: (SIMD2<Float>) -> Double? = { _ in nil }
  ) -> Location? {
    guard !keyframes.isEmpty, let (keypoints, descriptors) = features(in: gray) else { return nil }
    let candidates = Array(keyframes.indices.reversed().prefix(options.recognizedKeyframes))
    return locate(
      keypoints: keypoints, descriptors: descriptors, against: keyframes, candidates: candidates, seed: seed,
      depthAt: depthAt)
  }

  /// A frame's ORB features for ``locate(keypoints:descriptors:against:candidates:seed:depthAt:)``
  /// (``TrackerOptions/Relocalization/queryFeatures`` of them), or nil when too few are found.
  func features(in gray: GrayImage) -> (keypoints: [Keypoint], descriptors: [ORBDescriptor])? {
    let orb = FeatureDetector(
      method: .orb, maxFeatures: options.queryFeatures, threshold: Float(options.orbThreshold),
      pyramidLevels: 4, scaleFactor: 1.2)
    guard let found = try? orb.detectAndDescribe(in: gray), found.keypoints.count >= options.minFeatures
    else { return nil }
    return found
  }

  /// Locates a frame, given its ORB features, against the `candidates` (indices into `keyframes`):
  /// each scored by its cross-checked matches, then PnP RANSAC on the best-scored as in
  /// ``relocalize(gray:against:seed:depthAt:)``.
  func locate(
    keypoints: [Keypoint], descriptors: [ORBDescriptor], against keyframes: ArraySlice<Keyframe>,
    candidates: [Int], seed: UInt64, depthAt: (SIMD2<Float>) -> Double?
  ) -> Location? {
    // Place recognition: every candidate keyframe scored by its matches.
    var ranked: [(index: Int, matches: [DescriptorMatch])] = []
    for index in candidates {
      guard
        let matches = try? DescriptorMatcher.match(
          descriptors, keyframes[index].descriptors, maxDistance: options.maxDescriptorDistance, ratio: 1,
          crossCheck: true),
        matches.count >= options.minMatches
      else { continue }
      ranked.append((index, matches))
    }
    ranked.sort {
      $0.matches.count != $1.matches.count ? $0.matches.count > $1.matches.count : $0.index > $1.index
    }
    for (index, matches) in ranked.prefix(options.searchedKeyframes) {
      let keyframe = keyframes[index]
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
      // Depth check: each inlier's point, in the found camera, against the frame's own depth there.
      var measured = 0
      var agreeing = 0
      for (match, isInlier) in zip(matches, mask) where isInlier {
        guard let d = depthAt(keypoints[match.a].position) else { continue }
        measured += 1
        let z = found.apply(keyframe.points[match.b]).z
        if abs(z - d) <= options.depthTolerance * d { agreeing += 1 }
      }
      guard depthAgrees(measured: measured, agreeing: agreeing) else { continue }
      let inliers = zip(matches, mask).filter(\.1).map { match, _ in
        (pixel: keypoints[match.a].position, point: keyframe.points[match.b])
      }
      return Location(oFromOptical: RigidTransform(found).inverse, matches: inliers, keyframe: index)
    }
    return nil
  }

  /// Whether the depth check passes: with fewer than ``TrackerOptions/Relocalization/minMatches``
  /// inliers measured (no depth) it cannot judge and passes; otherwise at least
  /// ``TrackerOptions/Relocalization/minDepthAgreement`` of them must agree.
  func depthAgrees(measured: Int, agreeing: Int) -> Bool {
    measured < options.minMatches || Double(agreeing) >= options.minDepthAgreement * Double(measured)
  }
}
