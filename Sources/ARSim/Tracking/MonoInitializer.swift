/// A monocular track without a 3D point yet: its first pixel and the optical-from-O pose then.
typealias MonoCandidate = (pixel: SIMD2<Float>, opticalFromO: RigidTransform)

/// Monocular initialisation (stella_vslam's `initializer`): before the map exists, a rotation-only
/// model measures the camera's rotation while it has not translated measurably; once the tracks show
/// parallax a rotation cannot explain, a two-view initialisation through the essential matrix against
/// the reference frame (where the candidates were detected) triangulates the first map, with its
/// metric scale from the reference frame's depth or a given scale.
struct MonoInitializer {
  let options: TrackerOptions.MonoInitialization
  let intrinsics: CameraIntrinsics
  /// O from the reference frame's optical frame: the first view of the two-view initialisation.
  var referencePose = RigidTransform.identity
  /// The number of tracks detected in the reference frame.
  var referenceTrackCount = 0
  /// The reference frame's depth, when recorded (the map's metric scale).
  var referenceDepth: FrameDepth?

  /// Median pixel displacement that triggers the two-view initialisation.
  var initialParallax: Double {
    max(options.minParallaxPixels, options.parallaxFraction * Double(intrinsics.width))
  }

  /// The rotation-only model's fit of the tracks from the reference frame to the current one.
  struct RotationFit {
    /// O from the current optical frame: the reference frame's position, the fitted rotation.
    var oFromOptical: RigidTransform
    /// Tracks within ``TrackerOptions/MonoInitialization/rotationOutlierPixels`` of the fit, of `count`.
    var inliers: Int
    var count: Int
    /// Median residual of the inliers, pixels.
    var inlierResidual: Double
    /// Median residual of all the tracks, pixels: the parallax the rotation does not explain.
    var unexplainedParallax: Double
  }

  /// The first map: landmarks in O (in the order triangulated), the current frame's pose, the scale.
  struct Map {
    var landmarks: [(identifier: UInt64, position: SIMD3<Double>)]
    var oFromOptical: RigidTransform
    /// Metres per unit of the initial baseline.
    var scale: Double
    var scaleSource: ScaleSource
  }

  /// The rotation from the reference frame to this one that best turns the candidates' bearings there
  /// into their bearings here (``rotationAligning(_:to:)``), refitted once without the tracks it misses
  /// by more than the outlier bound. Nil with fewer than `minTracks` tracks, or when they do not
  /// determine a rotation.
  func fitRotation(_ tracks: FeatureFrontEnd, candidates: [UInt64: MonoCandidate]) -> RotationFit? {
    var reference: [SIMD3<Double>] = []
    var current: [SIMD3<Double>] = []
    var pixels: [SIMD2<Double>] = []
    for (i, id) in tracks.ids.enumerated() {
      guard let candidate = candidates[id] else { continue }
      reference.append(intrinsics.bearing(SIMD2(candidate.pixel)))
      current.append(intrinsics.bearing(SIMD2(tracks.pixels[i])))
      pixels.append(SIMD2(Double(tracks.pixels[i].x), Double(tracks.pixels[i].y)))
    }
    // Pixels from rotating reference bearings into the current camera (infinite behind it).
    func residuals(_ currentFromReference: simd_quatd, _ indices: [Int]) -> [Double] {
      indices.map { k in
        let p = currentFromReference.act(reference[k])
        return p.z > 1e-6 ? simd_length(intrinsics.project(p) - pixels[k]) : .infinity
      }
    }
    guard reference.count >= options.minTracks, let first = rotationAligning(reference, to: current) else {
      return nil
    }
    let all = Array(reference.indices)
    let kept = zip(all, residuals(first, all)).filter { $0.1 < options.rotationOutlierPixels }.map(\.0)
    let rotation =
      kept.count >= 3
      ? rotationAligning(kept.map { reference[$0] }, to: kept.map { current[$0] }) ?? first : first
    let everyResidual = residuals(rotation, all)
    let inlierResiduals = kept.map { everyResidual[$0] }.sorted()
    let sorted = everyResidual.sorted()
    let referenceFromCurrent = RigidTransform(rotation: rotation.inverse, translation: .zero)
    return RotationFit(
      oFromOptical: referencePose * referenceFromCurrent, inliers: kept.count, count: all.count,
      inlierResidual: inlierResiduals.isEmpty ? .infinity : inlierResiduals[inlierResiduals.count / 2],
      unexplainedParallax: sorted[sorted.count / 2])
  }

  /// Whether a rotation fit says the camera has not translated measurably since the reference frame:
  /// at least `minTracks` inliers, making `minRotationInlierFraction` of the tracks, with a median
  /// residual below `maxRotationResidual`.
  func isRotationOnly(_ fit: RotationFit) -> Bool {
    fit.inliers >= options.minTracks
      && Double(fit.inliers) >= options.minRotationInlierFraction * Double(fit.count)
      && fit.inlierResidual < options.maxRotationResidual
  }

  /// Whether a fit (or its absence) leaves enough parallax unexplained to try two views.
  func hasTranslated(_ fit: RotationFit?) -> Bool {
    fit.map { $0.unexplainedParallax >= options.minTranslationParallax } ?? true
  }

  /// Two-view initialisation against the reference frame: the relative pose and the landmarks come
  /// out in the reference camera's frame, and are moved into O by the reference frame's pose. Nil when
  /// the tracks have too little parallax, or too few agree or triangulate.
  func initialize(
    _ tracks: FeatureFrontEnd, candidates: [UInt64: MonoCandidate], monocularScale: Double?, seed: UInt64
  ) -> Map? {
    var first: [SIMD2<Double>] = []
    var current: [SIMD2<Double>] = []
    var ids: [UInt64] = []
    var displacements: [Double] = []
    for (i, id) in tracks.ids.enumerated() {
      guard let candidate = candidates[id] else { continue }
      let a = SIMD2(Double(candidate.pixel.x), Double(candidate.pixel.y))
      let b = SIMD2(Double(tracks.pixels[i].x), Double(tracks.pixels[i].y))
      first.append(a)
      current.append(b)
      ids.append(id)
      displacements.append(simd_length(b - a))
    }
    guard ids.count >= options.minTracks, displacements.sorted()[displacements.count / 2] >= initialParallax,
      let (currentFromFirst, inliers) = try? PoseSolver.essentialPose(
        pointsA: first, pointsB: current, intrinsics: intrinsics, threshold: options.essentialThreshold,
        confidence: 0.999, maxIterations: 1000, seed: seed)
    else { return nil }
    let keep = inliers.indices.filter { inliers[$0] }
    guard keep.count >= options.minTracks,
      let points = try? PoseSolver.triangulate(
        pointsA: keep.map { first[$0] }, pointsB: keep.map { current[$0] }, intrinsics: intrinsics,
        aFromWorld: .identity, bFromWorld: currentFromFirst, minParallaxDegrees: 0.5)
    else { return nil }
    var triangulated: [(UInt64, SIMD3<Double>, SIMD2<Double>)] = []
    for (k, index) in keep.enumerated() {
      if let p = points[k] { triangulated.append((ids[index], p, first[index])) }
    }
    guard triangulated.count >= options.minTriangulated else { return nil }
    let (scale, source) = metricScale(of: triangulated.map { ($0.1, $0.2) }, given: monocularScale)
    let currentFromReference = RigidTransform(currentFromFirst)
    let pose =
      referencePose
      * RigidTransform(
        rotation: currentFromReference.rotation, translation: currentFromReference.translation * scale
      ).inverse
    return Map(
      landmarks: triangulated.map { ($0.0, referencePose.apply(to: $0.1 * scale)) }, oFromOptical: pose,
      scale: scale, scaleSource: source)
  }

  /// The map's metric scale: the median ratio of the reference depth to the triangulated depth at the
  /// points' first pixels (at least 20 of them), else the given scale, else 1 (unscaled).
  private func metricScale(of points: [(SIMD3<Double>, SIMD2<Double>)], given: Double?) -> (
    Double, ScaleSource
  ) {
    var ratios: [Double] = []
    if let referenceDepth {
      // Any surface's depth will do (the median is robust to the odd edge pixel).
      for (p, pixel) in points where p.z > 0 {
        guard
          let d = referenceDepth.sample(
            atImagePixel: SIMD2(Float(pixel.x), Float(pixel.y)), edgeBase: .infinity, edgeSlope: 0)?.depth
        else { continue }
        ratios.append(d / p.z)
      }
    }
    if ratios.count >= 20 { return (ratios.sorted()[ratios.count / 2], .firstDepthFrame) }
    if let given { return (given, .givenScale) }
    return (1, .unscaled)
  }
}
