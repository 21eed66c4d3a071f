/// The feature machinery both odometry front ends share: a set of KLT tracks, each bound to a
/// landmark identifier; tracking them into a new image with predicted positions as initial
/// guesses; a PnP RANSAC pose refined by robust least squares; new corners away from the tracks.
struct FeatureFrontEnd {
  let options: TrackerOptions
  let intrinsics: CameraIntrinsics
  /// Landmark identifier of each track.
  var ids: [UInt64] = []
  /// Pixel position of each track in the last image (where KLT found it).
  var pixels: [SIMD2<Float>] = []
  /// Where a global-shutter camera at the frame's time would see each track (``RollingShutter``): the
  /// positions poses and landmarks are computed from. The pixels themselves without a rolling shutter.
  var points: [SIMD2<Float>] = []

  init(options: TrackerOptions, intrinsics: CameraIntrinsics) {
    self.options = options
    self.intrinsics = intrinsics
  }

  var count: Int { ids.count }

  /// The KLT parameters pyramids are built with.
  var kltParams: KLTParams { options.kltParams }

  /// The KLT pyramid of an image, or nil when it cannot be built (then nothing is tracked): `prepared`
  /// when it was built ahead for this image's size with these parameters (the same pyramid, bit for
  /// bit: building is a function of the image and the parameters), else built now.
  func pyramid(_ gray: GrayImage, prepared: KLTPyramid? = nil) -> KLTPyramid? {
    if let prepared, prepared.params == kltParams, prepared.width == gray.width,
      prepared.height == gray.height
    {
      return prepared
    }
    return try? KLTPyramid(gray, params: kltParams)
  }

  mutating func removeAll() {
    ids.removeAll()
    pixels.removeAll()
    points.removeAll()
  }

  /// A new track found at `pixel`, seen by a global-shutter camera at `point` (default: the pixel).
  mutating func append(_ id: UInt64, _ pixel: SIMD2<Float>, point: SIMD2<Float>? = nil) {
    ids.append(id)
    pixels.append(pixel)
    points.append(point ?? pixel)
  }

  /// Keeps the tracks for which `keep` is true.
  mutating func filter(_ keep: (Int) -> Bool) {
    var keptIDs: [UInt64] = []
    var keptPixels: [SIMD2<Float>] = []
    var keptPoints: [SIMD2<Float>] = []
    for i in ids.indices where keep(i) {
      keptIDs.append(ids[i])
      keptPixels.append(pixels[i])
      keptPoints.append(points[i])
    }
    ids = keptIDs
    pixels = keptPixels
    points = keptPoints
  }

  /// Tracks every track from `previous` into `current` with KLT, starting each from its predicted
  /// pixel when `predict` gives one. Lost tracks are dropped; ``points`` are the pixels found.
  mutating func track(from previous: KLTPyramid, to current: KLTPyramid, predict: (UInt64) -> SIMD2<Double>?)
  {
    guard !ids.isEmpty else { return }
    var guesses = pixels
    let margin = 20.0
    for (i, id) in ids.enumerated() {
      guard let uv = predict(id), uv.x > -margin, uv.y > -margin, uv.x < Double(intrinsics.width) + margin,
        uv.y < Double(intrinsics.height) + margin
      else { continue }
      guesses[i] = SIMD2(Float(uv.x), Float(uv.y))
    }
    guard
      let tracked = try? OpticalFlow.trackKLT(from: previous, to: current, points: pixels, initial: guesses)
    else {
      removeAll()
      return
    }
    for (i, found) in tracked.enumerated() {
      if let found { pixels[i] = found }
    }
    points = pixels
    filter { tracked[$0] != nil }
  }

  /// Camera-from-O pose by PnP RANSAC over the tracks (their ``points``) with a known landmark position, refined by
  /// Huber least squares on the inliers, with the depth measured at a track's pixel as a prior on its
  /// landmark's depth where `depthPrior` gives one (RGB-D: the one refinement of a frame's pose).
  /// With a rolling shutter, `rollingShutter` gives the tracks' ``points`` anew for the motion that
  /// the RANSAC pose (optical from O) implies, and the refinement reads those. `rotationPrior` (optical
  /// from O, standard deviation per axis in radians) holds the refined rotation near the gyroscope's.
  /// Outlier tracks are dropped; tracks without a position are kept. Returns nil (and keeps the tracks)
  /// when fewer than `options.minInliers` agree.
  mutating func solvePose(
    position: (UInt64) -> SIMD3<Double>?, predicted opticalFromO: RigidTransform, seed: UInt64,
    depthPrior: ((SIMD2<Float>) -> BundleAdjustment.DepthPrior?)? = nil,
    rollingShutter: ((RigidTransform) -> [SIMD2<Float>])? = nil,
    rotationPrior: (opticalFromO: simd_quatd, sigma: Double)? = nil
  ) -> (opticalFromO: RigidTransform, inliers: Int)? {
    var world: [SIMD3<Double>] = []
    var image: [SIMD2<Double>] = []
    var trackIndex: [Int] = []
    for (i, id) in ids.enumerated() {
      guard let p = position(id) else { continue }
      world.append(p)
      image.append(SIMD2(Double(points[i].x), Double(points[i].y)))
      trackIndex.append(i)
    }
    guard world.count >= options.minInliers,
      let (ransacPose, mask) = try? PoseSolver.solvePnPRansac(
        worldPoints: world, imagePoints: image, intrinsics: intrinsics,
        threshold: options.reprojectionThreshold,
        confidence: 0.999, maxIterations: 200, seed: seed, initial: opticalFromO.poseCW)
    else { return nil }
    let inliers = mask.indices.filter { mask[$0] }
    guard inliers.count >= options.minInliers else { return nil }
    if let rollingShutter {
      points = rollingShutter(RigidTransform(ransacPose))
      for (k, i) in trackIndex.enumerated() { image[k] = SIMD2(Double(points[i].x), Double(points[i].y)) }
    }
    let refined =
      (try? PoseSolver.refinePose(
        worldPoints: inliers.map { world[$0] }, imagePoints: inliers.map { image[$0] },
        depthPriors: depthPrior.map { prior in inliers.map { prior(points[trackIndex[$0]]) } },
        intrinsics: intrinsics, initial: ransacPose, iterations: 10, huberDelta: 1.0,
        rotationPrior: rotationPrior.map { (RigidTransform(rotation: $0.opticalFromO).poseCW, $0.sigma) }))?
      .pose ?? ransacPose
    var outlier = [Bool](repeating: false, count: ids.count)
    for (k, i) in trackIndex.enumerated() where !mask[k] { outlier[i] = true }
    filter { !outlier[$0] }
    return (RigidTransform(refined), inliers.count)
  }

  /// New corners at least `options.featureSpacing` away from every track, strongest first.
  func newCorners(in gray: GrayImage, count: Int) -> [SIMD2<Float>] {
    guard count > 0 else { return [] }
    var mask = [UInt8](repeating: 255, count: gray.width * gray.height)
    let radius = Int(options.featureSpacing)
    for p in pixels {
      let cx = Int(p.x.rounded())
      let cy = Int(p.y.rounded())
      guard cx + radius >= 0, cy + radius >= 0, cx - radius < gray.width, cy - radius < gray.height else {
        continue
      }
      for y in max(0, cy - radius)...min(gray.height - 1, cy + radius) {
        for x in max(0, cx - radius)...min(gray.width - 1, cx + radius) { mask[y * gray.width + x] = 0 }
      }
    }
    var detector = FeatureDetector(
      method: .gftt, maxFeatures: count, threshold: Float(options.featureQuality),
      minDistance: Float(options.featureSpacing))
    detector.minResponse = Float(options.minCornerStrength)
    return (try? detector.detect(in: gray, mask: mask))?.map(\.position) ?? []
  }

  /// Projects a point in O through a camera-from-O pose to pixels, or nil behind the camera.
  func project(_ point: SIMD3<Double>, _ opticalFromO: RigidTransform) -> SIMD2<Double>? {
    let p = opticalFromO.apply(to: point)
    return p.z > 0.05 ? intrinsics.project(p) : nil
  }

  /// The camera's orientation now (O from optical) from the tracks' bearings alone: each landmark's
  /// direction from the camera at `previous` (O from optical) against its track's ray now, aligned by
  /// ``rotationAligning(_:to:)``: the turn of a camera that turned in place. No depth enters it, so a
  /// depth map that disagrees with the one the landmarks were made from cannot bend it; it is right to
  /// the extent the motion is a turn (a translation `t` past a landmark at distance `d` moves its
  /// bearing by about `t/d` radians). Tracks more than three times the median angle off the first fit
  /// (and over 0.2°) are left out of the second. Nil with fewer than `options.minInliers` tracks on
  /// landmarks, or when the turn is not determined.
  func orientationFromBearings(position: (UInt64) -> SIMD3<Double>?, previous: RigidTransform) -> simd_quatd?
  {
    let opticalFromO = previous.inverse
    var before: [SIMD3<Double>] = []
    var now: [SIMD3<Double>] = []
    for (id, point) in zip(ids, points) {
      guard let landmark = position(id) else { continue }
      let seen = opticalFromO.apply(to: landmark)
      guard simd_length_squared(seen) > 0 else { continue }
      before.append(simd_normalize(seen))
      now.append(intrinsics.bearing(SIMD2<Double>(point)))
    }
    guard before.count >= options.minInliers, var turn = rotationAligning(before, to: now) else { return nil }
    let fitted = turn
    let angles = zip(before, now).map { acos(min(1, simd_dot(fitted.act($0), $1))) }
    let limit = max(3 * angles.sorted()[angles.count / 2], 0.2 * .pi / 180)
    let kept = angles.indices.filter { angles[$0] <= limit }
    if kept.count >= options.minInliers, kept.count < angles.count,
      let refitted = rotationAligning(kept.map { before[$0] }, to: kept.map { now[$0] })
    {
      turn = refitted
    }
    // `turn` takes the previous optical frame to the current one: O from current = O from previous · turn⁻¹.
    return (previous.rotation * turn.conjugate).normalized
  }
}
