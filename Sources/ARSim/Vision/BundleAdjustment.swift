internal import CVision

/// Sliding-window bundle adjustment: jointly refines camera poses and the points they observe by
/// robust (Huber) Levenberg-Marquardt on the reprojection errors (CVision's `cv_bundle_adjust`) and,
/// for observations with a measured depth (RGB-D), on the depth residuals weighted by their noise.
///
/// Poses are camera-from-world in the optical frame (x right, y down, z forward); points are in the
/// world frame (metres for metric data); pixels are undistorted, origin at the centre of the
/// top-left pixel. The gauge (world frame) is held by the fixed cameras: at least one camera must
/// be fixed, and with monocular data the scale is held only when two are (simplest: fix the
/// first two keyframes of the window). Deterministic: the same inputs give bit-identical results.
package enum BundleAdjustment {
  /// One observation: point `point` seen by camera `camera` at `pixel`.
  package struct Observation: Sendable, Equatable {
    /// Index into the `cameras` array.
    package var camera: Int
    /// Index into the `points` array.
    package var point: Int
    /// Where the point was observed, pixels (undistorted, origin at the centre of the top-left pixel).
    package var pixel: SIMD2<Double>
    /// The point's measured z-depth in the camera, when a depth sensor gave one: a prior on the
    /// point's depth, weighted by its noise.
    package var depth: DepthPrior?

    /// Creates an observation of point `point` by camera `camera` at `pixel` (pixels), with the
    /// measured `depth` when there is one.
    package init(camera: Int, point: Int, pixel: SIMD2<Double>, depth: DepthPrior? = nil) {
      self.camera = camera
      self.point = point
      self.pixel = pixel
      self.depth = depth
    }
  }

  /// A measured z-depth and its noise: the residual (z − `depth`) / `sigma` joins the cost, with its
  /// own Huber threshold in standard deviations.
  package struct DepthPrior: Sendable, Equatable {
    /// Measured z-depth along the camera's optical axis, metres, > 0.
    package var depth: Double
    /// Standard deviation of the measurement, metres, > 0.
    package var sigma: Double

    /// A depth of `depth` metres measured with standard deviation `sigma` metres.
    package init(depth: Double, sigma: Double) {
      self.depth = depth
      self.sigma = sigma
    }
  }

  /// A prior on the relative rotation of two cameras, such as a gyroscope's turn between them: the
  /// residual log(Qᵀ R_first R_secondᵀ) / `sigma` (R the cameras' camera-from-world rotations, Q
  /// `firstFromSecond`) joins the cost, plain least squares.
  package struct RotationPrior: Sendable, Equatable {
    /// Index into the `cameras` array of the first camera.
    package var first: Int
    /// Index into the `cameras` array of the second camera.
    package var second: Int
    /// The measured rotation from the second camera's optical frame to the first's.
    package var firstFromSecond: simd_quatd
    /// Standard deviation of the measurement per axis, radians, > 0.
    package var sigma: Double

    /// A prior that camera `second`'s optical frame turned by `firstFromSecond` from camera `first`'s,
    /// with standard deviation `sigma` radians per axis.
    package init(first: Int, second: Int, firstFromSecond: simd_quatd, sigma: Double) {
      self.first = first
      self.second = second
      self.firstFromSecond = firstFromSecond
      self.sigma = sigma
    }
  }

  /// The adjusted window and statistics.
  package struct Result: Sendable, Equatable {
    /// Camera-from-world poses (optical frame), in the order given; fixed cameras are returned
    /// bit-identical.
    package var cameras: [PoseCW]
    /// World points, in the order given; points without an observation in front of a camera are
    /// unchanged.
    package var points: [SIMD3<Double>]
    /// RMS reprojection error before the adjustment, pixels: plain (unweighted, outliers included),
    /// over the observations in front of their camera.
    package var initialRMS: Double
    /// RMS reprojection error after the adjustment, pixels (same definition as `initialRMS`).
    package var finalRMS: Double
    /// Levenberg-Marquardt iterations whose step lowered the robust cost (and was kept).
    package var iterations: Int
    /// Observations treated as outliers at the end: error above 3 × `huberDelta`, or behind their
    /// camera (those get weight 0).
    package var outliers: Int
  }

  /// Adjusts the cameras that are not fixed and all observed points.
  ///
  /// Method: Levenberg-Marquardt with Huber (IRLS) weights; camera updates are left increments on
  /// SE(3), point updates additive; the Schur complement on the points leaves a dense reduced
  /// camera system (LDLT). Observations of points behind their camera are ignored.
  ///
  /// - Parameters:
  ///   - cameras: camera-from-world poses (optical frame), at least one; rotations must be proper.
  ///   - fixed: one flag per camera; `true` holds the camera constant. At least one must be set
  ///     (two for monocular data, to hold the scale).
  ///   - points: world points (metres for metric data), at least one, finite.
  ///   - observations: at least one; indices in range, pixels finite.
  ///   - intrinsics: pinhole intrinsics, pixels.
  ///   - iterations: most iterations, 0...1000 (default 10).
  ///   - huberDelta: Huber threshold on the reprojection error, pixels, > 0 (default 2;
  ///     `.infinity` gives plain least squares).
  ///   - initialLambda: initial Levenberg-Marquardt damping relative to the diagonal, > 0
  ///     (default 1e-4).
  ///   - depthHuberDelta: Huber threshold on the depth residuals, standard deviations, > 0
  ///     (default 2); read only when an observation has a depth.
  ///   - rotationPriors: priors on the relative rotation of two cameras (default none); those between
  ///     two fixed cameras are constants and ignored.
  /// - Throws: `.invalidArgument` for bad input (counts, indices, non-finite values, no fixed
  ///   camera); `.notEnoughData` when no observation lies in front of its camera.
  package static func adjust(
    cameras: [PoseCW], fixed: [Bool], points: [SIMD3<Double>], observations: [Observation],
    intrinsics: CameraIntrinsics, iterations: Int = 10, huberDelta: Double = 2, initialLambda: Double = 1e-4,
    depthHuberDelta: Double = 2, rotationPriors: [RotationPrior] = []
  ) throws(VisionError) -> Result {
    guard fixed.count == cameras.count else {
      throw .invalidArgument("fixed (\(fixed.count)) and cameras (\(cameras.count)) differ in count")
    }
    let cameraCount = try VisionError.int32(cameras.count, "cameras.count")
    let pointCount = try VisionError.int32(points.count, "points.count")
    let observationCount = try VisionError.int32(observations.count, "observations.count")
    var cameraIndices = [Int32]()
    var pointIndices = [Int32]()
    var pixels = [Double]()
    // Depth priors (depth, sigma) per observation, NaN without one; none at all: no buffer.
    let hasDepth = observations.contains { $0.depth != nil }
    var depths = [Double]()
    if hasDepth { depths.reserveCapacity(2 * observations.count) }
    cameraIndices.reserveCapacity(observations.count)
    pointIndices.reserveCapacity(observations.count)
    pixels.reserveCapacity(2 * observations.count)
    for (k, observation) in observations.enumerated() {
      cameraIndices.append(try VisionError.int32(observation.camera, "observations[\(k)].camera"))
      pointIndices.append(try VisionError.int32(observation.point, "observations[\(k)].point"))
      pixels += [observation.pixel.x, observation.pixel.y]
      if hasDepth { depths += [observation.depth?.depth ?? .nan, observation.depth?.sigma ?? .nan] }
    }
    var priors = [cv_rotation_prior]()
    priors.reserveCapacity(rotationPriors.count)
    for (k, prior) in rotationPriors.enumerated() {
      var c = cv_rotation_prior()
      c.first = try VisionError.int32(prior.first, "rotationPriors[\(k)].first")
      c.second = try VisionError.int32(prior.second, "rotationPriors[\(k)].second")
      // Row-major, as CVision's poses hold their rotations.
      c.rotation = RigidTransform(rotation: prior.firstFromSecond).poseCW.c.r
      c.inverse_sigma = 1 / prior.sigma
      priors.append(c)
    }
    let priorCount = try VisionError.int32(priors.count, "rotationPriors.count")
    var poses = cameras.map(\.c)
    let flags = fixed.map { UInt8($0 ? 1 : 0) }
    var packed = [Double]()
    packed.reserveCapacity(3 * points.count)
    for p in points { packed += [p.x, p.y, p.z] }

    let params = cv_bundle_params(
      iterations: try VisionError.int32(iterations, "iterations"), huber_delta: huberDelta,
      initial_lambda: initialLambda, depth_huber_delta: depthHuberDelta)
    let k = intrinsics.c
    var result = cv_bundle_result()
    var status = cv_status()
    let code = poses.withUnsafeMutableBufferPointer { poseBuffer in
      packed.withUnsafeMutableBufferPointer { pointBuffer in
        flags.withUnsafeBufferPointer { flagBuffer in
          cameraIndices.withUnsafeBufferPointer { cameraBuffer in
            pointIndices.withUnsafeBufferPointer { pointIndexBuffer in
              pixels.withUnsafeBufferPointer { pixelBuffer in
                depths.withUnsafeBufferPointer { depthBuffer in
                  priors.withUnsafeBufferPointer { priorBuffer in
                    cv_bundle_adjust(
                      poseBuffer.baseAddress, cameraCount, flagBuffer.baseAddress, pointBuffer.baseAddress,
                      pointCount, cameraBuffer.baseAddress, pointIndexBuffer.baseAddress,
                      pixelBuffer.baseAddress,
                      hasDepth ? depthBuffer.baseAddress : nil, observationCount,
                      priors.isEmpty ? nil : priorBuffer.baseAddress, priorCount, k, params, &result, &status)
                  }
                }
              }
            }
          }
        }
      }
    }
    try VisionError.check(code, status)
    // Fixed cameras are returned as given (CVision does not write them).
    let adjusted = poses.indices.map { fixed[$0] ? cameras[$0] : PoseCW(poses[$0]) }
    let adjustedPoints = points.indices.map { SIMD3(packed[3 * $0], packed[3 * $0 + 1], packed[3 * $0 + 2]) }
    return Result(
      cameras: adjusted, points: adjustedPoints, initialRMS: result.initial_rms, finalRMS: result.final_rms,
      iterations: Int(result.iterations), outliers: Int(result.outliers))
  }
}
