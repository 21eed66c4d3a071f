internal import CVision

/// Dense alignment of two depth maps of the same camera by point-to-plane ICP (CVision's
/// `cv_depth_align`): coarse to fine over a depth pyramid, projective data association,
/// rejection by distance and normal angle, robust weights, Gauss-Newton on SE(3).
///
/// Useful where image features are scarce (plain rooms, darkness) or motion is large. Runs on one
/// thread and is deterministic: the same inputs give bit-identical outputs.
package enum DepthAlignment {
  /// The robust loss applied to point-to-plane residuals.
  package enum RobustLoss: String, Sendable, Codable, Equatable {
    /// Weight 1 up to `robustScale`, then `robustScale / |r|` (convex; never discards a match).
    case huber
    /// Weight `(1 - (r / robustScale)²)²` below `robustScale`, 0 beyond (discards outliers).
    case tukey
  }

  /// Settings of an alignment. Every property has a default (listed with it); decoding fills
  /// missing keys with the defaults.
  package struct Parameters: Sendable, Codable, Equatable {
    /// Pyramid levels, 1...5; level 0 is the full resolution, each further level halves width
    /// and height. Default 3.
    package var levels: Int = 3
    /// Gauss-Newton iterations per level (0...100 each), FINEST level first: either one value used
    /// for every level, or exactly `levels` values. A level with 0 iterations is skipped.
    /// Default `[6, 10, 15]` (full resolution 6, half 10, quarter 15).
    package var iterationsPerLevel: [Int] = [6, 10, 15]
    /// Correspondences further apart than this (metres, 3D distance) are rejected at the full
    /// resolution; the limit doubles at every coarser level. Default 0.1.
    package var maxDistance: Double = 0.1
    /// Correspondences whose surface normals differ by more than this (degrees, (0, 180]) are
    /// rejected. Default 30.
    package var maxNormalAngleDegrees: Double = 30
    /// Only every `stride`-th reference pixel in x and y is used at full resolution (1...16);
    /// coarser levels use every pixel. Default 2.
    package var stride: Int = 2
    /// Depths below this (metres, >= 0) are ignored. Default 0.1.
    package var minDepth: Double = 0.1
    /// Depths above this (metres, > `minDepth`; may be infinite) are ignored. Default 10.
    package var maxDepth: Double = 10
    /// Robust loss on the point-to-plane residuals. Default `.huber`.
    package var robustLoss: RobustLoss = .huber
    /// Scale of the robust loss (metres of point-to-plane error) at full resolution, doubled at
    /// every coarser level. Default 0.02.
    package var robustScale: Double = 0.02
    /// A level stops once an update moves by less than this (metres) and rotates by less than
    /// `stopRotationDegrees`. Default 1e-4.
    package var stopTranslation: Double = 1e-4
    /// See `stopTranslation`; degrees. Default 0.01.
    package var stopRotationDegrees: Double = 0.01
    /// Normals come from the neighbours this many pixels away (1...16) at full resolution, half
    /// as far (at least 1) at each coarser level; larger values average out depth noise but blur
    /// corners. Default 2.
    package var normalRadius: Int = 2
    /// Weight (>= 0) of a prior holding the rotation at `initial`'s (one integrated from a
    /// gyroscope, say): the cost gains `rotationPriorWeight` · Σw · |log(R R₀ᵀ)|² (radians), so per
    /// unit of inlier weight a rotation 1 rad away from `initial`'s costs as much as a
    /// point-to-plane residual of √`rotationPriorWeight` metres. Ignored without `initial`.
    /// Default 0 (no prior).
    package var rotationPriorWeight: Double = 0
    /// Weight (>= 0) of a prior holding the translation at `initial`'s (one predicted from an
    /// accelerometer, say): the cost gains `translationPriorWeight` · Σw · |t − t₀|² (metres), as
    /// strong per unit of inlier weight as the residuals of a surface with that fraction of its
    /// points facing the motion, so directions the geometry leaves free (sliding along a wall) stay
    /// at `initial`'s. Ignored without `initial`. Default 0 (no prior).
    package var translationPriorWeight: Double = 0

    /// Creates parameters; omitted arguments take the defaults (`Parameters()` is all defaults).
    package init(
      levels: Int = 3, iterationsPerLevel: [Int] = [6, 10, 15], maxDistance: Double = 0.1,
      maxNormalAngleDegrees: Double = 30, stride: Int = 2, minDepth: Double = 0.1, maxDepth: Double = 10,
      robustLoss: RobustLoss = .huber, robustScale: Double = 0.02, stopTranslation: Double = 1e-4,
      stopRotationDegrees: Double = 0.01, normalRadius: Int = 2, rotationPriorWeight: Double = 0,
      translationPriorWeight: Double = 0
    ) {
      self.levels = levels
      self.iterationsPerLevel = iterationsPerLevel
      self.maxDistance = maxDistance
      self.maxNormalAngleDegrees = maxNormalAngleDegrees
      self.stride = stride
      self.minDepth = minDepth
      self.maxDepth = maxDepth
      self.robustLoss = robustLoss
      self.robustScale = robustScale
      self.stopTranslation = stopTranslation
      self.stopRotationDegrees = stopRotationDegrees
      self.normalRadius = normalRadius
      self.rotationPriorWeight = rotationPriorWeight
      self.translationPriorWeight = translationPriorWeight
    }

    private enum CodingKeys: String, CodingKey {
      case levels, iterationsPerLevel, maxDistance, maxNormalAngleDegrees, stride, minDepth, maxDepth
      case robustLoss, robustScale, stopTranslation, stopRotationDegrees, normalRadius, rotationPriorWeight
      case translationPriorWeight
    }

    /// Decodes parameters: missing keys take the defaults; an unknown key is an error.
    package init(from decoder: any Decoder) throws {
      self.init()
      let c = try decoder.optionsContainer(keyedBy: CodingKeys.self)
      try c.decode(.levels, into: &levels)
      try c.decode(.iterationsPerLevel, into: &iterationsPerLevel)
      try c.decode(.maxDistance, into: &maxDistance)
      try c.decode(.maxNormalAngleDegrees, into: &maxNormalAngleDegrees)
      try c.decode(.stride, into: &stride)
      try c.decode(.minDepth, into: &minDepth)
      try c.decode(.maxDepth, into: &maxDepth)
      try c.decode(.robustLoss, into: &robustLoss)
      try c.decode(.robustScale, into: &robustScale)
      try c.decode(.stopTranslation, into: &stopTranslation)
      try c.decode(.stopRotationDegrees, into: &stopRotationDegrees)
      try c.decode(.normalRadius, into: &normalRadius)
      try c.decode(.rotationPriorWeight, into: &rotationPriorWeight)
      try c.decode(.translationPriorWeight, into: &translationPriorWeight)
    }
  }

  /// The outcome of an alignment.
  package struct Result: Sendable {
    /// The transform from the reference camera's optical frame to the current one's
    /// (x right, y down, z forward; metres): `x_current = r * x_reference + t`.
    package var currentFromReference: PoseCW
    /// RMS point-to-plane error of the inlier correspondences, metres (measured in the last
    /// association, at most the stop thresholds away from the returned pose).
    package var rmsError: Double
    /// Correspondences that pass the distance and normal tests (and, for Tukey, have a non-zero
    /// weight), counted at `level`.
    package var inlierCount: Int
    /// `inlierCount` over the valid reference pixels sampled at `level` (with the stride at full
    /// resolution), 0...1: how much of the reference found a partner.
    package var inlierFraction: Double
    /// The 6 eigenvalues, ascending, of Σ w JᵀJ / Σ w over the inliers (w the robust weight; with
    /// all weights 1 this is JᵀJ / `inlierCount`), where each inlier adds the row
    /// J = [(m × c)ᵀ, -mᵀ]: c the current point (current optical frame, metres), m the reference
    /// normal rotated into that frame. Rotation directions are in m², translation directions
    /// dimensionless. A value near 0 marks a motion the geometry does not constrain (a single
    /// plane leaves 3); noise in the normals lifts such values somewhat.
    package var eigenvalues: [Double]
    /// Gauss-Newton iterations performed, over all levels.
    package var iterations: Int
    /// The pyramid level at which the statistics were measured (the finest with iterations; 0 is
    /// full resolution).
    package var level: Int

    /// True when the smallest eigenvalue is below `threshold`: some motion (often sliding along
    /// a plane or a corridor) is not constrained by the geometry, so the pose is unreliable in
    /// that direction. The default 1e-3 suits indoor scenes at 0.5...5 m.
    package func isDegenerate(threshold: Double = 1e-3) -> Bool {
      (eigenvalues.first ?? 0) < threshold
    }
  }

  /// Aligns the current depth map to the reference one.
  ///
  /// - Parameters:
  ///   - reference: the depth map whose points and normals define the surface (metres, z-depth;
  ///     NaN, values <= 0 and values outside `minDepth...maxDepth` are ignored).
  ///   - current: the depth map to align, same size and camera as `reference`.
  ///   - intrinsics: the camera's pinhole intrinsics for these maps (pixels).
  ///   - initial: a guess of current-from-reference; identity when nil. Its rotation is also the
  ///     prior's (`Parameters.rotationPriorWeight`).
  ///   - parameters: settings (see `Parameters` for the defaults).
  /// - Returns: current-from-reference (optical frames) and the quality figures of the fit.
  /// - Throws: `.invalidArgument` for maps of different or too small sizes (the coarsest level
  ///   must be at least 4 × 4), bad intrinsics, a non-rotation `initial` or out-of-range
  ///   parameters; `.notEnoughData` when fewer than 6 correspondences support the final pose.
  package static func align(
    reference: DepthImage, current: DepthImage, intrinsics: CameraIntrinsics, initial: PoseCW? = nil,
    parameters: Parameters = Parameters()
  ) throws(VisionError) -> Result {
    guard reference.width == current.width, reference.height == current.height else {
      throw .invalidArgument(
        "reference (\(reference.width) x \(reference.height)) and current (\(current.width) x "
          + "\(current.height)) depth maps differ in size")
    }
    if let initial, initial.r.count != 9 {
      throw .invalidArgument("initial.r needs 9 values (got \(initial.r.count))")
    }
    let width = try VisionError.int32(reference.width, "width")
    let height = try VisionError.int32(reference.height, "height")
    var params = cv_depth_align_params()
    params.levels = try VisionError.int32(parameters.levels, "levels")
    let counts = parameters.iterationsPerLevel
    let maxLevels = Int(CV_DEPTH_ALIGN_MAX_LEVELS)
    guard counts.count == 1 || (counts.count == parameters.levels && counts.count <= maxLevels) else {
      throw .invalidArgument(
        "iterationsPerLevel needs 1 or `levels` (\(parameters.levels)) values, at most \(maxLevels) "
          + "(got \(counts.count))")
    }
    var iterations = [Int32](repeating: 0, count: maxLevels)
    for level in 0..<maxLevels {
      let count = counts.count == 1 ? counts[0] : (level < counts.count ? counts[level] : 0)
      iterations[level] = try VisionError.int32(count, "iterationsPerLevel[\(level)]")
    }
    withUnsafeMutableBytes(of: &params.iterations) { raw in
      let values = raw.bindMemory(to: Int32.self)
      for level in 0..<maxLevels { values[level] = iterations[level] }
    }
    params.max_distance = parameters.maxDistance
    params.max_normal_angle_degrees = parameters.maxNormalAngleDegrees
    params.stride = try VisionError.int32(parameters.stride, "stride")
    params.min_depth = parameters.minDepth
    params.max_depth = parameters.maxDepth
    params.robust_loss = Int32(parameters.robustLoss == .huber ? CV_ROBUST_HUBER : CV_ROBUST_TUKEY)
    params.robust_scale = parameters.robustScale
    params.stop_translation = parameters.stopTranslation
    params.stop_rotation_degrees = parameters.stopRotationDegrees
    params.normal_radius = try VisionError.int32(parameters.normalRadius, "normalRadius")
    params.rotation_prior_weight = parameters.rotationPriorWeight
    params.translation_prior_weight = parameters.translationPriorWeight

    let k = intrinsics.c
    var initialPose = (initial ?? .identity).c
    let hasInitial = initial != nil
    var pose = cv_pose()
    var result = cv_depth_align_result()
    var status = cv_status()
    let code = reference.metres.withUnsafeBufferPointer { referenceBuffer in
      current.metres.withUnsafeBufferPointer { currentBuffer in
        withUnsafePointer(to: &initialPose) { initialPointer in
          cv_depth_align(
            referenceBuffer.baseAddress, currentBuffer.baseAddress, width, height, k, params,
            hasInitial ? initialPointer : nil, &pose, &result, &status)
        }
      }
    }
    try VisionError.check(code, status)
    let eigenvalues = withUnsafeBytes(of: &result.eigenvalues) { Array($0.bindMemory(to: Double.self)) }
    return Result(
      currentFromReference: PoseCW(pose), rmsError: result.rms_error, inlierCount: Int(result.inlier_count),
      inlierFraction: result.inlier_fraction, eigenvalues: eigenvalues, iterations: Int(result.iterations),
      level: Int(result.level))
  }
}
