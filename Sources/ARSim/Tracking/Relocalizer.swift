import Foundation

/// Recovers a lost pose against keyframes (stella_vslam's `relocalizer`): place recognition by
/// brute-force Hamming matching of the frame's ORB features against every candidate keyframe's
/// (capped at ``TrackerOptions/Relocalization/recognizedKeyframes``, most recent first), the
/// keyframes ranked by their cross-checked matches, then PnP RANSAC (seeded) on the best-ranked
/// keyframes' matched 3D points until one agrees: with the frame's depth at its inliers and, where the
/// keyframe kept its depth, with the frame's depth as a whole (``viewAgrees(_:_:keyframeFromFrame:)``).
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
  /// `view` gives the frame's depth thumbnail (nil without depth; asked once, when a found pose is
  /// first checked against a keyframe with one): the pose must then pass the view check
  /// (``viewAgrees(_:_:keyframeFromFrame:)``), which rejects a place recognised one period of a
  /// repeated texture away. Deterministic: ties in the ranking go to the more recent keyframe, RANSAC
  /// takes `seed`.
  /// `accepts` may reject a found pose (O from the optical frame) on other evidence (the IMU's
  /// prediction across a gap, ``GapPrediction``): the next-ranked keyframe is tried then.
  func relocalize(
    gray: GrayImage, against keyframes: ArraySlice<Keyframe>, seed: UInt64,
    depthAt: (SIMD2<Float>) -> Double? = { _ in nil }, view: () -> DepthThumbnail? = { nil },
    accepts: (RigidTransform) -> Bool = { _ in true }
  )
    -> (oFromOptical: RigidTransform, inliers: Int)?
  {
    locate(gray: gray, against: keyframes, seed: seed, depthAt: depthAt, view: view, accepts: accepts).map {
      ($0.oFromOptical, $0.inliers)
    }
  }

  /// ``relocalize(gray:against:seed:depthAt:view:accepts:)`` with the PnP inliers: what a front end without depth
  /// (monocular) restarts its tracks and landmarks from; `extendingByProjection`, with more of the
  /// map's points than one keyframe's matches give and the pose refined on them
  /// (``extended(_:keypoints:descriptors:against:)``).
  func locate(
    gray: GrayImage, against keyframes: ArraySlice<Keyframe>, seed: UInt64,
    depthAt: (SIMD2<Float>) -> Double? = { _ in nil }, view: () -> DepthThumbnail? = { nil },
    extendingByProjection: Bool = false, accepts: (RigidTransform) -> Bool = { _ in true }
  ) -> Location? {
    guard !keyframes.isEmpty, let (keypoints, descriptors) = features(in: gray) else { return nil }
    let candidates = Array(keyframes.indices.reversed().prefix(options.recognizedKeyframes))
    let found = locate(
      keypoints: keypoints, descriptors: descriptors, against: keyframes, candidates: candidates, seed: seed,
      depthAt: depthAt, view: view, accepts: accepts)
    guard extendingByProjection, let found else { return found }
    return extended(found, keypoints: keypoints, descriptors: descriptors, against: keyframes)
  }

  /// A location with the points of the keyframes that share its view (within twice the keyframe
  /// distance and angle of it, ``TrackerOptions/Relocalization``) matched by projection (ORB-SLAM's
  /// search by projection after relocalisation): each point projected through the located pose is
  /// matched to the frame's nearest-in-descriptor feature within ``guidedRadius`` pixels (within
  /// ``TrackerOptions/Relocalization/maxDescriptorDistance``, and clearly better than the second best
  /// there), one point per feature (the closest in descriptor), then the pose refined on all of them
  /// and the matches within ``TrackerOptions/Relocalization/reprojectionThreshold`` of it kept. The
  /// location as it was when that keeps fewer matches. Deterministic: keyframes, points and features
  /// in order, ties to the first.
  func extended(
    _ location: Location, keypoints: [Keypoint], descriptors: [ORBDescriptor],
    against keyframes: ArraySlice<Keyframe>
  ) -> Location {
    let opticalFromO = location.oFromOptical.inverse
    let grid = FeatureGrid(keypoints, cell: Self.guidedRadius, intrinsics: intrinsics)
    // Per feature: the best point (descriptor distance, point).
    var best: [Int: (distance: Int, point: SIMD3<Double>)] = [:]
    for keyframe in keyframes {
      let step = keyframe.oFromOptical.inverse * location.oFromOptical
      guard
        simd_length(step.translation) <= 2 * options.keyframeTranslation
          && step.angle <= 2 * options.keyframeRotationDegrees * .pi / 180
      else { continue }
      for (point, descriptor) in zip(keyframe.points, keyframe.descriptors) {
        let p = opticalFromO.apply(to: point)
        guard p.z > 0,
          let found = grid.match(
            descriptor, near: intrinsics.project(p), in: descriptors, ratio: Self.guidedRatio),
          found.distance <= options.maxDescriptorDistance,
          found.distance < best[found.index]?.distance ?? .max
        else { continue }
        best[found.index] = (found.distance, point)
      }
    }
    let indices = best.keys.sorted()
    guard indices.count > location.inliers else { return location }
    let world = indices.map { best[$0]!.point }
    let image = indices.map { SIMD2<Double>(keypoints[$0].position) }
    guard
      let (refined, _) = try? PoseSolver.refinePose(
        worldPoints: world, imagePoints: image, intrinsics: intrinsics, initial: opticalFromO.poseCW)
    else { return location }
    var matches: [(pixel: SIMD2<Float>, point: SIMD3<Double>)] = []
    for (k, point) in zip(indices, world) {
      let p = refined.apply(point)
      guard p.z > 0,
        simd_length(intrinsics.project(p) - SIMD2<Double>(keypoints[k].position))
          <= options.reprojectionThreshold
      else { continue }
      matches.append((keypoints[k].position, point))
    }
    guard matches.count > location.inliers else { return location }
    return Location(
      oFromOptical: RigidTransform(refined).inverse, matches: matches, keyframe: location.keyframe)
  }

  /// How far, pixels, a frame's feature may be from a keyframe point's projection to match it in
  /// ``extended(_:keypoints:descriptors:against:)``: the located pose is within a few pixels.
  static let guidedRadius = 6.0
  /// The best match's descriptor distance must be below this fraction of the second best's there.
  static let guidedRatio = 0.8

  /// A frame's ORB features for ``locate(keypoints:descriptors:against:candidates:seed:depthAt:view:accepts:)``
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
  /// ``relocalize(gray:against:seed:depthAt:view:accepts:)``.
  func locate(
    keypoints: [Keypoint], descriptors: [ORBDescriptor], against keyframes: ArraySlice<Keyframe>,
    candidates: [Int], seed: UInt64, depthAt: (SIMD2<Float>) -> Double?,
    view: () -> DepthThumbnail? = { nil }, accepts: (RigidTransform) -> Bool = { _ in true }
  ) -> Location? {
    // The frame's depth thumbnail, made when a found pose is first checked against a keyframe's.
    var thumbnail: DepthThumbnail??
    for (index, matches) in ranked(descriptors, against: keyframes, candidates: candidates)
      .prefix(options.searchedKeyframes)
    {
      let keyframe = keyframes[index]
      guard
        let (found, mask) = solvePose(
          matches, keypoints: keypoints, keyframe: keyframe, seed: seed, depthAt: depthAt)
      else { continue }
      let oFromOptical = found.inverse
      // View check: the frame's depth against the keyframe's (thumbnails), where both are known.
      if let kept = keyframe.depth {
        let frame: DepthThumbnail?
        if let made = thumbnail {
          frame = made
        } else {
          frame = view()
          thumbnail = .some(frame)
        }
        if let frame,
          !viewAgrees(frame, kept, keyframeFromFrame: keyframe.oFromOptical.inverse * oFromOptical)
        {
          continue
        }
      }
      guard accepts(oFromOptical) else { continue }
      let inliers = zip(matches, mask).filter(\.1).map { match, _ in
        (pixel: keypoints[match.a].position, point: keyframe.points[match.b])
      }
      return Location(oFromOptical: oFromOptical, matches: inliers, keyframe: index)
    }
    return nil
  }

  /// Place recognition: the `candidates` (indices into `keyframes`) shortlisted by their words
  /// (``shortlist(_:against:candidates:)``), then matched in full (cross-checked Hamming), those with
  /// at least ``TrackerOptions/Relocalization/minMatches`` matches ranked by their matches (ties to the
  /// more recent keyframe).
  func ranked(
    _ descriptors: [ORBDescriptor], against keyframes: ArraySlice<Keyframe>, candidates: [Int]
  ) -> [(index: Int, matches: [DescriptorMatch])] {
    var ranked: [(index: Int, matches: [DescriptorMatch])] = []
    for index in shortlist(descriptors, against: keyframes, candidates: candidates) {
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
    return ranked
  }

  /// The `candidates` worth matching in full: all of them when they are at most
  /// ``TrackerOptions/Relocalization/shortlistedKeyframes``, else that many, those sharing the most
  /// words with the frame (``PlaceWords``; ties to the more recent keyframe). Matching the frame's
  /// descriptors against every candidate's would be most of relocalisation's cost.
  func shortlist(_ descriptors: [ORBDescriptor], against keyframes: ArraySlice<Keyframe>, candidates: [Int])
    -> [Int]
  {
    guard candidates.count > options.shortlistedKeyframes else { return candidates }
    let query = PlaceQuery(descriptors)
    let scored = candidates.map { (index: $0, score: query.score(keyframes[$0].words)) }
      .sorted { $0.score != $1.score ? $0.score > $1.score : $0.index > $1.index }
    return scored.prefix(options.shortlistedKeyframes).map(\.index)
  }

  /// The frame's pose (optical from O) by PnP RANSAC on its `matches` to `keyframe`'s points, and
  /// the inlier mask, when enough inliers agree with the frame's own depth (`depthAt`,
  /// ``depthAgrees(measured:agreeing:)``); nil otherwise.
  private func solvePose(
    _ matches: [DescriptorMatch], keypoints: [Keypoint], keyframe: Keyframe, seed: UInt64,
    depthAt: (SIMD2<Float>) -> Double?
  ) -> (opticalFromO: RigidTransform, inliers: [Bool])? {
    let world = matches.map { keyframe.points[$0.b] }
    let image = matches.map { SIMD2(Double(keypoints[$0.a].x), Double(keypoints[$0.a].y)) }
    guard
      let (found, mask) = try? PoseSolver.solvePnPRansac(
        worldPoints: world, imagePoints: image, intrinsics: intrinsics,
        threshold: options.reprojectionThreshold, confidence: Self.ransacConfidence,
        maxIterations: ransacIterations(matches: matches.count), seed: seed),
      mask.count(where: { $0 }) >= options.minMatches
    else { return nil }
    // Depth check: each inlier's point, in the found camera, against the frame's own depth there.
    var measured = 0
    var agreeing = 0
    for (match, isInlier) in zip(matches, mask) where isInlier {
      guard let d = depthAt(keypoints[match.a].position) else { continue }
      measured += 1
      let z = found.apply(keyframe.points[match.b]).z
      if abs(z - d) <= options.depthTolerance * d { agreeing += 1 }
    }
    guard depthAgrees(measured: measured, agreeing: agreeing) else { return nil }
    return (RigidTransform(found), mask)
  }

  /// PnP RANSAC's confidence of drawing one all-inlier sample.
  static let ransacConfidence = 0.999

  /// The PnP RANSAC iterations for `matches` matches: enough to draw, with ``ransacConfidence``, one
  /// sample of 4 inliers when only ``TrackerOptions/Relocalization/minMatches`` of them are (the
  /// fewest inliers a pose needs: one with more is drawn sooner), at most
  /// ``TrackerOptions/Relocalization/ransacIterations``. A keyframe matched by little more than
  /// `minMatches` (place recognition's usual false candidates: no pose) costs a few iterations, not
  /// thousands.
  func ransacIterations(matches: Int) -> Int {
    let ratio = Double(options.minMatches) / Double(max(matches, 1))
    guard ratio < 1 else { return 1 }
    let needed = log(1 - Self.ransacConfidence) / log(1 - pow(ratio, 4))
    guard needed.isFinite else { return options.ransacIterations }
    return max(1, min(options.ransacIterations, Int(needed.rounded(.up))))
  }

  /// Whether the frame's depth (`frame`, its thumbnail) agrees with keyframe's (`kept`) when the
  /// frame is at `keyframeFromFrame` (the keyframe's optical frame from the frame's): the frame's
  /// depths moved into the keyframe's view, and the keyframe's into the frame's, compared
  /// (``DepthThumbnail/agreement(with:keyframeFromFrame:tolerance:emptyRange:)``, within
  /// ``TrackerOptions/Relocalization/viewToleranceBase`` + ``TrackerOptions/Relocalization/viewToleranceSlope``
  /// times the depth). A pose one period of a repeated texture away (a tiled floor matched to its
  /// copy, 2 m on) puts what stands on the floor where the other view saw the floor beyond it, or
  /// nothing within the sensor's range: more than ``TrackerOptions/Relocalization/maxViewInFront`` of
  /// either direction's compared depths in front of the other view's fail it (a false pose puts a
  /// large share there, a true one almost none: `DepthThumbnailTests`). A direction with fewer than
  /// ``TrackerOptions/Relocalization/minViewCompared`` compared (the views hardly overlap) cannot
  /// judge and passes. Depth alone cannot tell one flat wall's tiles from the next.
  func viewAgrees(_ frame: DepthThumbnail, _ kept: DepthThumbnail, keyframeFromFrame: RigidTransform) -> Bool
  {
    let tolerance = { [options] (d: Double) in options.viewToleranceBase + options.viewToleranceSlope * d }
    let forward = kept.agreement(
      with: frame, keyframeFromFrame: keyframeFromFrame, tolerance: tolerance,
      emptyRange: options.viewEmptyRange)
    let backward = frame.agreement(
      with: kept, keyframeFromFrame: keyframeFromFrame.inverse, tolerance: tolerance,
      emptyRange: options.viewEmptyRange)
    return [forward, backward].allSatisfy {
      $0.compared < options.minViewCompared
        || Double($0.inFront) <= options.maxViewInFront * Double($0.compared)
    }
  }

  /// Whether the depth check passes: with fewer than ``TrackerOptions/Relocalization/minMatches``
  /// inliers measured (no depth) it cannot judge and passes; otherwise at least
  /// ``TrackerOptions/Relocalization/minDepthAgreement`` of them must agree.
  func depthAgrees(measured: Int, agreeing: Int) -> Bool {
    measured < options.minMatches || Double(agreeing) >= options.minDepthAgreement * Double(measured)
  }
}

/// A frame's features binned by pixel (cells of the search radius), for matching by projection.
private struct FeatureGrid {
  let keypoints: [Keypoint]
  let cell: Double
  let columns: Int
  let rows: Int
  /// The image's size, pixels.
  let size: SIMD2<Double>
  private var bins: [[Int]]

  init(_ keypoints: [Keypoint], cell: Double, intrinsics: CameraIntrinsics) {
    self.keypoints = keypoints
    self.cell = cell
    size = SIMD2(Double(intrinsics.width), Double(intrinsics.height))
    columns = Int((Double(intrinsics.width) / cell).rounded(.up))
    rows = Int((Double(intrinsics.height) / cell).rounded(.up))
    bins = [[Int]](repeating: [], count: columns * rows)
    for (k, keypoint) in keypoints.enumerated() {
      let column = Int(Double(keypoint.x) / cell)
      let row = Int(Double(keypoint.y) / cell)
      guard column >= 0, row >= 0, column < columns, row < rows else { continue }
      bins[row * columns + column].append(k)
    }
  }

  /// The feature within `cell` pixels of `pixel` nearest to `descriptor` (Hamming; ties to the lower
  /// index) and its distance, when it passes the ratio test against the second nearest there (best <
  /// `ratio` times second; a lone feature passes); nil outside the image or without one.
  func match(
    _ descriptor: ORBDescriptor, near pixel: SIMD2<Double>, in descriptors: [ORBDescriptor], ratio: Double
  )
    -> (index: Int, distance: Int)?
  {
    guard pixel.x >= 0, pixel.y >= 0, pixel.x < size.x, pixel.y < size.y else { return nil }
    let column = Int(pixel.x / cell)
    let row = Int(pixel.y / cell)
    var first: (index: Int, distance: Int)?
    var second = Int.max
    for r in max(0, row - 1)...min(rows - 1, row + 1) {
      for c in max(0, column - 1)...min(columns - 1, column + 1) {
        for k in bins[r * columns + c] {
          let offset = SIMD2<Double>(keypoints[k].position) - pixel
          guard simd_dot(offset, offset) <= cell * cell else { continue }
          let distance = descriptor.distance(to: descriptors[k])
          if distance < first?.distance ?? .max {
            second = first?.distance ?? .max
            first = (k, distance)
          } else if distance < second {
            second = distance
          }
        }
      }
    }
    guard let first, Double(first.distance) < ratio * Double(second) else { return nil }
    return first
  }
}
