import ARSimMath

/// Depth-only odometry (`--mode depth`): each depth map is aligned by point-to-plane ICP
/// (``DepthAlignment``) to the current keyframe's depth map, the model it is tracked against,
/// starting from the last pose; a new keyframe is taken once the camera has
/// moved 4 cm or 4 degrees from it, or the overlap falls. Tracking against a keyframe rather than
/// the previous frame keeps the error from growing with the frame rate. Reads no image, so
/// recordings without colour (or rooms without texture) replay. Depth is used at its own
/// resolution with its own intrinsics; low-confidence pixels arrive already masked (NaN). With a
/// gyroscope, the rotation integrated from it since the last frame predicts the rotation and holds
/// it by a prior (`TrackerOptions.DepthOnly.gyroscopeWeight`): on phone depth the alignment's own
/// rotation is the larger error. The translation goes through a ``PositionFilter``: smoothed against
/// the alignment's frame-to-frame noise (large on phone depth), and, once gravity in the
/// odometry frame is known (its own ``GravityEstimator`` over the filtered poses and the
/// accelerometer), driven by the gravity-compensated accelerometer, whose prediction starts the
/// alignment and holds it by a prior (`TrackerOptions.DepthOnly.accelerometerWeight`) in the
/// directions the geometry leaves free. Keyframes are taken at the filtered pose. The session's
/// levelling is given the alignment's own position (``OdometryResult/measuredPosition``).
///
/// Why a second estimator beside the levelling's: fed this odometry's poses, the levelling's
/// estimator (its gravity drifting, its bias held for the session, its noise learned) is reinforced
/// by the accelerometer it steers. On a flat scene, whose free directions the accelerometer's
/// prediction holds even in the alignment's own position, the session's estimate then passes the
/// compensation's gate while wrong, and the trajectory runs off, far worse than without the
/// accelerometer (Datasets/tabletop in `--mode depth`). This one holds the default estimator
/// and a magnitude test of its own until the estimate is given only the directions the alignment
/// constrains.
final class DepthOdometry: Odometry {
  private let intrinsics: CameraIntrinsics
  private let depthOnly: TrackerOptions.DepthOnly
  private let parameters: DepthAlignment.Parameters
  private var keyframe: (depth: DepthImage, oFromOptical: RigidTransform)?
  private var pose = RigidTransform.identity
  private var velocity = RigidTransform.identity
  private var lostFrames = 0
  private var gyroscope = GyroIntegrator()
  /// The translation's filter (from the first depth map on).
  private var filter: PositionFilter?
  /// Gravity in the odometry frame, from the filtered poses and the accelerometer.
  private var gravity = GravityEstimator()
  /// Inertial samples since the last frame.
  private var samples: [IMUSample] = []
  private var lastTimestamp: Double?
  private(set) var timings = StageTimings()

  /// A gravity compensation (`g − R b`, what the accelerometer reads at rest in the frame's
  /// orientation) whose magnitude is further than this from standard gravity (m/s²) is not used: the
  /// poses behind it are wrong (a phone accelerometer's scale is within a percent).
  private static let gravityMagnitudeTolerance = 0.3
  /// Seconds of samples a gravity estimate needs before it is used.
  private static let minGravitySeconds = 1.0
  /// Frames without a measurement after which the motion is no longer carried on.
  private static let maxCarriedFrames = 5

  /// - Parameter intrinsics: the depth maps' intrinsics.
  init(intrinsics: CameraIntrinsics, options: TrackerOptions) {
    self.intrinsics = intrinsics
    depthOnly = options.depthOnly
    var parameters = DepthAlignment.Parameters()
    parameters.minDepth = options.minDepth
    parameters.maxDepth = options.maxDepth
    // Phone depth maps are small (256x192): every pixel at full resolution, finer normals.
    parameters.stride = intrinsics.width <= 320 ? 1 : 2
    parameters.normalRadius = intrinsics.width <= 320 ? 1 : 2
    parameters.maxDistance = 0.05
    parameters.robustScale = 0.01
    parameters.iterationsPerLevel = [10, 10, 15]
    self.parameters = parameters
  }

  /// Adds the inertial samples recorded up to the next frame.
  private func add(_ samples: [IMUSample]) {
    gyroscope.add(samples)
    self.samples += samples
  }

  /// The camera was off: the gyroscope's turn and the accelerometer across the gap are not used
  /// (the next frame is predicted as without them).
  func cameraWasOff() {
    gyroscope.reset()
    gravity.breakChain()
    lastTimestamp = nil
  }

  func process(_ frame: FrameInput) -> OdometryResult {
    add(frame.imu)
    return track(depth: frame.depth, timestamp: frame.timestamp)
  }

  private func track(depth: FrameDepth?, timestamp: Double) -> OdometryResult {
    timings = StageTimings()
    let start = ContinuousClock.now
    defer { lap(&timings.pose, since: start) }
    let turn = gyroscope.rotation(at: timestamp)
    let samples = self.samples
    self.samples = []
    let dt = lastTimestamp.map { timestamp - $0 } ?? 0
    lastTimestamp = timestamp
    let acceleration = self.acceleration(samples, rotation: turn.map { pose.rotation * $0 } ?? pose.rotation)
    filter?.predict(dt: dt, acceleration: acceleration)
    guard let depth = depth?.map else {
      gravity.breakChain()
      return predicted(turn: turn)
    }
    guard let keyframe else {
      self.keyframe = (depth, pose)
      filter = PositionFilter(position: pose.translation, noise: PositionFilter.Noise())
      gravity.add(time: timestamp, oFromOptical: pose, samples: samples)
      return OdometryResult(
        oFromOptical: pose, evidence: .tracked(.newMap), source: .origin, inliers: 0, landmarks: [])
    }
    // Without the accelerometer, start from the last pose, not the constant-velocity prediction:
    // on recorded phone depth the prediction's overshoot survives the ICP's stopping rule (and adds
    // up over the session), and on a single plane the directions it leaves free would
    // keep the velocity for ever. With it, start from the filter's prediction and hold it there by
    // the prior. With the gyroscope's turn the rotation is predicted too, and held by its prior.
    var parameters = parameters
    var guess = pose
    if acceleration != nil, let filter {
      guess.translation = filter.position
      parameters.translationPriorWeight = depthOnly.accelerometerWeight
    }
    if let turn, depthOnly.gyroscopeWeight > 0 {
      guess.rotation = pose.rotation * turn
      parameters.rotationPriorWeight = depthOnly.gyroscopeWeight
    }
    let initial = (guess.inverse * keyframe.oFromOptical).poseCW
    guard
      let aligned = try? DepthAlignment.align(
        reference: keyframe.depth, current: depth, intrinsics: intrinsics, initial: initial,
        parameters: parameters),
      aligned.inlierFraction > depthOnly.minInlierFraction
    else {
      gravity.breakChain()
      return predicted(turn: turn)
    }
    var measured = keyframe.oFromOptical * RigidTransform(aligned.currentFromReference).inverse
    let alignedPosition = measured.translation
    if var filter {
      filter.update(measured: measured.translation, dt: dt)
      measured.translation = filter.position
      self.filter = filter
    }
    gravity.add(time: timestamp, oFromOptical: measured, samples: samples)
    velocity = pose.inverse * measured
    pose = measured
    lostFrames = 0
    let fromKeyframe = keyframe.oFromOptical.inverse * pose
    if simd_length(fromKeyframe.translation) > depthOnly.keyframeTranslation
      || fromKeyframe.angle > depthOnly.keyframeRotationDegrees * .pi / 180
      || aligned.inlierFraction < depthOnly.keyframeOverlap
    {
      self.keyframe = (depth, pose)
    }
    // Directions the geometry leaves free (sliding along one plane) stay where the last pose put
    // them, so a degenerate fit is still a pose; too little overlap is not.
    return OdometryResult(
      oFromOptical: pose, evidence: .tracked(.depthOverlap(aligned.inlierFraction)), source: .depth,
      inliers: 0, landmarks: [],
      measuredPosition: alignedPosition)
  }

  /// The camera's acceleration in the odometry frame over the last interval (m/s²): the mean
  /// specific force of `samples` turned by `rotation` (the frame's predicted orientation), with the
  /// gravity compensation at that orientation added (``compensation(_:rotation:)``: gravity less the
  /// turned bias); nil without accelerometer samples or `accelerometerWeight`, or while that
  /// compensation is not known to `maxGravityUncertaintyDegrees` (as the tilt of gravity it equals).
  private func acceleration(_ samples: [IMUSample], rotation: simd_quatd) -> SIMD3<Double>? {
    let forces = samples.compactMap(\.acceleration)
    guard depthOnly.accelerometerWeight > 0, !forces.isEmpty, let estimate = gravity.estimate,
      estimate.seconds >= Self.minGravitySeconds
    else { return nil }
    // The compensation's error as the tilt of gravity it equals (0.17 m/s² per degree).
    let compensation = Self.compensation(estimate, rotation: rotation)
    let tiltDegrees = compensation.sigma / standardGravity * 180 / .pi
    guard tiltDegrees < depthOnly.maxGravityUncertaintyDegrees,
      abs(simd_length(compensation.value) - standardGravity) < Self.gravityMagnitudeTolerance
    else { return nil }
    let mean = forces.reduce(SIMD3<Double>.zero, +) / Double(forces.count)
    return rotation.act(mean) + compensation.value
  }

  /// What the accelerometer's samples need added, once turned into O by `rotation`, to be the camera's
  /// acceleration: gravity less the turned bias, `g − R b`, and its standard deviation (m/s², the
  /// root of the covariance's trace). While the camera has not turned, the estimator cannot tell
  /// gravity's direction from the bias (`uncertaintyDegrees` stays large), but this sum is known
  /// from the first segments on: it is what the accelerometer reads at rest in this orientation.
  static func compensation(_ estimate: GravityEstimator.Estimate, rotation: simd_quatd) -> (
    value: SIMD3<Double>, sigma: Double
  ) {
    let r = simd_double3x3(rotation)
    let value = estimate.gravity - r * estimate.bias
    guard estimate.covariance.count == 36 else { return (value, .infinity) }
    // J = [I, -R] (3 x 6); the trace of J C Jᵀ.
    var trace = 0.0
    for row in 0..<3 {
      var j = [Double](repeating: 0, count: 6)
      j[row] = 1
      for k in 0..<3 { j[3 + k] = -r[k][row] }
      for a in 0..<6 { for b in 0..<6 { trace += j[a] * estimate.covariance[6 * a + b] * j[b] } }
    }
    return (value, max(0, trace).squareRoot())
  }

  /// No measurement: carry the motion on for a few frames (the filter's prediction), then hold the
  /// position; the rotation follows the gyroscope's `turn` when there is one.
  private func predicted(turn: simd_quatd?) -> OdometryResult {
    lostFrames += 1
    let lost = lostFrames > Self.maxCarriedFrames
    if lost {
      velocity = .identity
      filter?.stop()
    }
    let last = pose
    pose = pose * velocity
    if let turn, depthOnly.gyroscopeWeight > 0 { pose.rotation = last.rotation * turn }
    if let filter { pose.translation = filter.position }
    return OdometryResult(
      oFromOptical: pose, evidence: lost ? .lost() : .tracked(.lostAlignment), source: .prediction,
      inliers: 0, landmarks: [])
  }
}
