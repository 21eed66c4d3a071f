internal import CVision

extension CameraIntrinsics {
  /// These intrinsics as CVision's struct (the image size is not passed).
  var c: cv_intrinsics { cv_intrinsics(fx: fx, fy: fy, cx: cx, cy: cy) }
}

/// A rigid transform `x_to = r * x_from + t` between two frames, as the geometry solvers use it.
///
/// For camera poses it is camera-from-world in the optical frame (x right, y down, z forward);
/// `PoseSolver.essentialPose` returns camera b from camera a. Units of `t` are those of the
/// points (metres for metric data; unit length for essential-matrix poses).
package struct PoseCW: Sendable, Equatable {
  /// The rotation, 9 values row-major: `r[3 * row + column]`.
  package var r: [Double]
  /// The translation.
  package var t: SIMD3<Double>

  /// Creates a transform; `r` must have 9 values (checked).
  package init(r: [Double], t: SIMD3<Double>) {
    precondition(r.count == 9, "PoseCW.r needs 9 values (row-major 3x3)")
    self.r = r
    self.t = t
  }

  /// The identity transform.
  package static let identity = PoseCW(r: [1, 0, 0, 0, 1, 0, 0, 0, 1], t: .zero)

  /// Applies the transform to a point: `r * p + t`.
  package func apply(_ p: SIMD3<Double>) -> SIMD3<Double> {
    SIMD3(
      r[0] * p.x + r[1] * p.y + r[2] * p.z, r[3] * p.x + r[4] * p.y + r[5] * p.z,
      r[6] * p.x + r[7] * p.y + r[8] * p.z) + t
  }

  /// The inverse transform (`x_from = r^T x_to - r^T t`).
  package var inverse: PoseCW {
    let rt = [r[0], r[3], r[6], r[1], r[4], r[7], r[2], r[5], r[8]]
    let rotated = PoseCW(r: rt, t: .zero).apply(t)
    return PoseCW(r: rt, t: -rotated)
  }

  /// This pose as CVision's struct.
  var c: cv_pose {
    var pose = cv_pose()
    withUnsafeMutableBytes(of: &pose.r) { raw in
      let doubles = raw.bindMemory(to: Double.self)
      for i in 0..<9 { doubles[i] = r[i] }
    }
    pose.t = (t.x, t.y, t.z)
    return pose
  }

  /// A pose from CVision's struct.
  init(_ pose: cv_pose) {
    var copy = pose
    let rotation = withUnsafeBytes(of: &copy.r) { Array($0.bindMemory(to: Double.self)) }
    self.init(r: rotation, t: SIMD3(pose.t.0, pose.t.1, pose.t.2))
  }
}

/// Camera pose and structure solvers (OpenCV's minimal solvers inside seeded RANSAC loops,
/// plus Eigen least squares). Pixels are undistorted, origin at the centre of the top-left pixel.
package enum PoseSolver {
  /// Camera pose from 3D-2D correspondences by RANSAC (P3P samples), refined on the inliers.
  ///
  /// - Parameters:
  ///   - worldPoints: points in the world frame (at least 4, same count as `imagePoints`).
  ///   - imagePoints: their observations in pixels.
  ///   - threshold: inlier threshold on the reprojection error, pixels.
  ///   - confidence: RANSAC stopping confidence in (0, 1).
  ///   - maxIterations: upper bound on RANSAC samples.
  ///   - seed: random seed; the same inputs and seed give the same result.
  ///   - initial: an optional camera-from-world guess, tried before any sample.
  /// - Returns: camera-from-world (optical frame) and the inlier flag of each correspondence.
  /// - Throws: `.invalidArgument` for bad input, `.notEnoughData` when no pose has 4 inliers.
  package static func solvePnPRansac(
    worldPoints: [SIMD3<Double>], imagePoints: [SIMD2<Double>], intrinsics: CameraIntrinsics,
    threshold: Double = 2, confidence: Double = 0.999, maxIterations: Int = 1000, seed: UInt64 = 0,
    initial: PoseCW? = nil
  ) throws(VisionError) -> (pose: PoseCW, inliers: [Bool]) {
    guard worldPoints.count == imagePoints.count else {
      throw .invalidArgument(
        "worldPoints (\(worldPoints.count)) and imagePoints (\(imagePoints.count)) differ in count")
    }
    let count = try VisionError.int32(worldPoints.count, "worldPoints.count")
    let params = cv_ransac_params(
      threshold: threshold, confidence: confidence,
      max_iterations: try VisionError.int32(maxIterations, "maxIterations"), seed: seed)
    let world = pack(worldPoints)
    let image = pack(imagePoints)
    var pose = cv_pose()
    var mask = [UInt8](repeating: 0, count: worldPoints.count)
    var inlierCount: Int32 = 0
    var status = cv_status()
    var initialPose = initial?.c ?? cv_pose()
    let hasInitial = initial != nil
    let code = world.withUnsafeBufferPointer { worldBuffer in
      image.withUnsafeBufferPointer { imageBuffer in
        mask.withUnsafeMutableBufferPointer { maskBuffer in
          withUnsafePointer(to: &initialPose) { initialPointer in
            cv_solve_pnp_ransac(
              worldBuffer.baseAddress, imageBuffer.baseAddress, count, intrinsics.c, params,
              hasInitial ? initialPointer : nil, &pose, maskBuffer.baseAddress, &inlierCount, &status)
          }
        }
      }
    }
    try VisionError.check(code, status)
    return (PoseCW(pose), mask.map { $0 != 0 })
  }

  /// Relative pose of two views from 2D-2D correspondences: five-point RANSAC on the essential
  /// matrix, cheirality, then Levenberg-Marquardt on the Sampson errors of the inliers.
  ///
  /// - Parameters:
  ///   - pointsA, pointsB: corresponding pixels in views a and b (at least 5).
  ///   - threshold: inlier threshold on the Sampson error, pixels.
  ///   - seed: random seed; the same inputs and seed give the same result.
  /// - Returns: b-from-a (points in camera a's optical frame to camera b's) with `|t| = 1`,
  ///   and the flags of the correspondences that are inliers and in front of both cameras.
  package static func essentialPose(
    pointsA: [SIMD2<Double>], pointsB: [SIMD2<Double>], intrinsics: CameraIntrinsics, threshold: Double = 1,
    confidence: Double = 0.999, maxIterations: Int = 1000, seed: UInt64 = 0
  ) throws(VisionError) -> (bFromA: PoseCW, inliers: [Bool]) {
    guard pointsA.count == pointsB.count else {
      throw .invalidArgument("pointsA (\(pointsA.count)) and pointsB (\(pointsB.count)) differ in count")
    }
    let count = try VisionError.int32(pointsA.count, "pointsA.count")
    let params = cv_ransac_params(
      threshold: threshold, confidence: confidence,
      max_iterations: try VisionError.int32(maxIterations, "maxIterations"), seed: seed)
    let a = pack(pointsA)
    let b = pack(pointsB)
    var pose = cv_pose()
    var mask = [UInt8](repeating: 0, count: pointsA.count)
    var inlierCount: Int32 = 0
    var status = cv_status()
    let code = a.withUnsafeBufferPointer { bufferA in
      b.withUnsafeBufferPointer { bufferB in
        mask.withUnsafeMutableBufferPointer { maskBuffer in
          cv_essential_pose(
            bufferA.baseAddress, bufferB.baseAddress, count, intrinsics.c, params, &pose,
            maskBuffer.baseAddress,
            &inlierCount, &status)
        }
      }
    }
    try VisionError.check(code, status)
    return (PoseCW(pose), mask.map { $0 != 0 })
  }

  /// Triangulates correspondences seen from two camera-from-world poses (linear DLT).
  ///
  /// Returns one world point per correspondence, or `nil` when it is not in front of both
  /// cameras, is at infinity, or its parallax (angle between the two rays) is below
  /// `minParallaxDegrees`.
  package static func triangulate(
    pointsA: [SIMD2<Double>], pointsB: [SIMD2<Double>], intrinsics: CameraIntrinsics, aFromWorld: PoseCW,
    bFromWorld: PoseCW, minParallaxDegrees: Double = 1
  ) throws(VisionError) -> [SIMD3<Double>?] {
    guard pointsA.count == pointsB.count else {
      throw .invalidArgument("pointsA (\(pointsA.count)) and pointsB (\(pointsB.count)) differ in count")
    }
    let count = try VisionError.int32(pointsA.count, "pointsA.count")
    let a = pack(pointsA)
    let b = pack(pointsB)
    var world = [Double](repeating: .nan, count: 3 * pointsA.count)
    var valid = [UInt8](repeating: 0, count: pointsA.count)
    var status = cv_status()
    let code = a.withUnsafeBufferPointer { bufferA in
      b.withUnsafeBufferPointer { bufferB in
        world.withUnsafeMutableBufferPointer { worldBuffer in
          valid.withUnsafeMutableBufferPointer { validBuffer in
            cv_triangulate(
              bufferA.baseAddress, bufferB.baseAddress, count, intrinsics.c, aFromWorld.c, bFromWorld.c,
              minParallaxDegrees, worldBuffer.baseAddress, validBuffer.baseAddress, &status)
          }
        }
      }
    }
    try VisionError.check(code, status)
    return (0..<pointsA.count).map {
      valid[$0] != 0 ? SIMD3(world[3 * $0], world[3 * $0 + 1], world[3 * $0 + 2]) : nil
    }
  }

  /// Refines a camera-from-world pose by robust (Huber) Levenberg-Marquardt on the reprojection
  /// errors, starting from `initial`; with `depthPriors` (RGB-D) also on each point's z-depth in the
  /// camera against the depth measured there, in standard deviations.
  ///
  /// - Parameters:
  ///   - weights: optional non-negative weight per correspondence (0 ignores it).
  ///   - depthPriors: optional measured depth per correspondence (nil entries: none).
  ///   - iterations: maximum iterations (default 10).
  ///   - huberDelta: Huber threshold on the reprojection error, pixels (default 2).
  ///   - depthHuberDelta: Huber threshold on the depth residuals, standard deviations (default 2).
  ///   - rotationPrior: a prior on the rotation (camera from world, as `initial`'s) with its standard
  ///     deviation per axis, radians (> 0): the gyroscope's turn from a refined keyframe.
  /// - Returns: the refined pose and the RMS reprojection error in pixels over the points with
  ///   non-zero weight in front of the camera (at least 3 correspondences are required).
  package static func refinePose(
    worldPoints: [SIMD3<Double>], imagePoints: [SIMD2<Double>], weights: [Double]? = nil,
    depthPriors: [BundleAdjustment.DepthPrior?]? = nil, intrinsics: CameraIntrinsics, initial: PoseCW,
    iterations: Int = 10, huberDelta: Double = 2, depthHuberDelta: Double = 2,
    rotationPrior: (rotation: PoseCW, sigma: Double)? = nil
  ) throws(VisionError) -> (pose: PoseCW, rmsError: Double) {
    guard worldPoints.count == imagePoints.count else {
      throw .invalidArgument(
        "worldPoints (\(worldPoints.count)) and imagePoints (\(imagePoints.count)) differ in count")
    }
    if let weights, weights.count != worldPoints.count {
      throw .invalidArgument(
        "weights (\(weights.count)) and worldPoints (\(worldPoints.count)) differ in count")
    }
    if let depthPriors, depthPriors.count != worldPoints.count {
      throw .invalidArgument(
        "depthPriors (\(depthPriors.count)) and worldPoints (\(worldPoints.count)) differ in count")
    }
    let count = try VisionError.int32(worldPoints.count, "worldPoints.count")
    if let rotationPrior, !(rotationPrior.sigma > 0 && rotationPrior.sigma.isFinite) {
      throw .invalidArgument("rotationPrior.sigma must be positive and finite (got \(rotationPrior.sigma))")
    }
    let params = cv_refine_params(
      iterations: try VisionError.int32(iterations, "iterations"), huber_delta: huberDelta,
      depth_huber_delta: depthHuberDelta, rotation_prior: rotationPrior?.rotation.c ?? PoseCW.identity.c,
      rotation_prior_inverse_sigma: rotationPrior.map { 1 / $0.sigma } ?? 0)
    // (depth, 1 / sigma) pairs, 0 where there is no prior.
    let depths = depthPriors.map { priors -> [Double] in
      var pairs = [Double]()
      pairs.reserveCapacity(2 * priors.count)
      for prior in priors { pairs += prior.map { [$0.depth, 1 / $0.sigma] } ?? [0, 0] }
      return pairs
    }
    let world = pack(worldPoints)
    let image = pack(imagePoints)
    var pose = initial.c
    var rms = 0.0
    var status = cv_status()
    let code = world.withUnsafeBufferPointer { worldBuffer in
      image.withUnsafeBufferPointer { imageBuffer in
        withOptionalDoubles(weights) { weightPointer in
          withOptionalDoubles(depths) { depthPointer in
            cv_refine_pose(
              worldBuffer.baseAddress, imageBuffer.baseAddress, weightPointer, depthPointer, count,
              intrinsics.c, params, &pose, &rms, &status)
          }
        }
      }
    }
    try VisionError.check(code, status)
    return (PoseCW(pose), rms)
  }

  /// Packs points tightly as x, y, z triples (`SIMD3<Double>` has a 32-byte stride).
  private static func pack(_ points: [SIMD3<Double>]) -> [Double] {
    var packed = [Double]()
    packed.reserveCapacity(3 * points.count)
    for p in points { packed += [p.x, p.y, p.z] }
    return packed
  }

  /// Packs points as x, y pairs.
  private static func pack(_ points: [SIMD2<Double>]) -> [Double] {
    var packed = [Double]()
    packed.reserveCapacity(2 * points.count)
    for p in points { packed += [p.x, p.y] }
    return packed
  }

  private static func withOptionalDoubles<Result>(
    _ array: [Double]?, _ body: (UnsafePointer<Double>?) -> Result
  ) -> Result {
    guard let array else { return body(nil) }
    return array.withUnsafeBufferPointer { body($0.baseAddress) }
  }
}
