/// Where the session's gravity direction came from.
public enum GravitySource: String, Sendable, Codable {
  /// The recorded accelerometer, averaged over the first moments of the session with the
  /// camera's own acceleration (from the tracked trajectory) taken out.
  case accelerometer
  /// The recording's ground truth (its trajectory and stated gravity direction).
  case groundTruth
  /// No measurement: the first frame's camera is assumed upright (image rows horizontal, level).
  case assumedUpright
}

/// One tracked frame in the session world: the output of the tracking stage, and the one place its
/// tracking state is decided (the session, the CLI and evaluation read it; none re-derives it).
package struct TrackedFrame: Sendable {
  /// The tracking state to report (ARKit's): the odometry's quality, `limited(.initializing)` until
  /// gravity fixes the world, and `limited(.relocalizing)` after the camera was off until a pose is
  /// measured normally again.
  package var state: ARCamera.TrackingState
  /// What carried the pose.
  package var source: PoseSource
  /// World from the camera in ARKit's camera frame (x right, y up, looking along -z), metres. Until the
  /// world is fixed (``isWorldFixed`` false) this is provisional: gravity is assumed from the first
  /// camera being upright.
  package var worldFromCamera: RigidTransform
  /// Landmarks seen in this frame, world coordinates, with stable identifiers; nil while the
  /// odometry is initialising (no map yet).
  package var featurePoints: [FeaturePoint]?
  /// Feature inliers behind the pose (0 when the pose came from depth or prediction).
  package var inliers: Int
  /// Whether gravity had fixed the session world by this frame.
  package var isWorldFixed: Bool

  /// Whether the frame has a tracked pose: `normal`, or limited by features or motion (not
  /// initialising, not relocalising).
  package var isTracked: Bool {
    switch state {
    case .normal, .limited(.insufficientFeatures), .limited(.excessiveMotion): true
    default: false
    }
  }

  /// Whether the frame has a pose worth recording: tracked, or initialising with a measured
  /// rotation-only pose (monocular, before the map exists: the camera has not moved measurably, its
  /// position is held) in the fixed world.
  package var hasPose: Bool {
    isTracked || (state == .limited(.initializing) && source == .rotation && isWorldFixed)
  }
}

/// Turns recorded frames into camera poses in the session world of ARCHITECTURE.md: metres,
/// +y up against gravity, origin at the first camera, -z the first camera's forward direction
/// projected onto the horizontal plane.
package final class CameraTracker {
  package let options: TrackerOptions
  package let info: RecordingInfo
  /// Where gravity came from, once known.
  package private(set) var gravitySource: GravitySource?
  /// The up direction in the odometry frame O (the first optical frame), once known.
  package private(set) var upInO: SIMD3<Double>?
  private let odometry: any Odometry
  private var worldFromO: RigidTransform?
  private let provisionalWorldFromO: RigidTransform
  private var startTime: Double?
  /// Accelerometer samples of the gravity window rotated into O, with their time.
  private var rotatedSpecificForce: [(time: Double, value: SIMD3<Double>)] = []
  private var positions: [(time: Double, position: SIMD3<Double>)] = []
  /// Whether the camera was off (a pause or a gap in the recording) and no pose has been measured
  /// normally since: frames are then `limited(.relocalizing)`.
  private var relocalizing = false

  /// A tracker for a recording; `options.mode` nil follows the recording (``TrackerOptions/Mode/following(_:)``).
  package init(info: RecordingInfo, options: TrackerOptions) {
    self.info = info
    var resolved = options
    resolved.mode = options.mode ?? .following(info)
    self.options = resolved
    switch resolved.mode ?? .rgbd {
    case .rgbd: odometry = RGBDOdometry(intrinsics: info.intrinsics, options: resolved)
    case .mono: odometry = MonoOdometry(intrinsics: info.intrinsics, options: resolved)
    case .depth:
      odometry = DepthOdometry(intrinsics: info.depthIntrinsics ?? info.intrinsics, options: resolved)
    }
    provisionalWorldFromO = Self.world(up: SIMD3(0, -1, 0))
  }

  /// The tracking mode in use (the recording's when the options left it open).
  package var mode: TrackerOptions.Mode { options.mode ?? .rgbd }

  /// Tells the tracker the camera was off (the session paused, or the recording has a gap longer than
  /// ``TrackerOptions/interruptionThreshold``): the frames that follow are `limited(.relocalizing)` until a
  /// pose is measured normally again.
  package func cameraWasOff() {
    relocalizing = true
    odometry.cameraWasOff()
  }

  /// Where the last frame's tracking time went.
  package var timings: StageTimings { odometry.timings }

  /// How a monocular map got its scale (nil in RGB-D mode or before initialisation).
  package var scaleSource: ScaleSource? { (odometry as? MonoOdometry)?.scaleSource }

  /// Tracks the next frame of the recording.
  package func track(_ frame: RecordedFrame) -> TrackedFrame {
    // Recordings without images reach here only in depth-only mode (ARReplay checks), whose
    // odometry reads no image.
    let gray = frame.image?.gray ?? GrayImage(width: 0, height: 0, pixels: [])
    var depth = frame.depth(minConfidence: options.minDepthConfidence)
    if options.mode != .depth, let map = depth {
      depth = map.resampled(width: info.intrinsics.width, height: info.intrinsics.height)
    }
    let result = odometry.process(gray: gray, depth: depth, timestamp: frame.timestamp)
    if startTime == nil {
      startTime = frame.timestamp
      fixGravityWithoutAccelerometer(frame)
    }
    if worldFromO == nil, info.hasAccelerometer {
      collectGravityEvidence(frame, oFromOptical: result.oFromOptical)
    }
    let isWorldFixed = worldFromO != nil
    let quality = isWorldFixed ? result.quality : .initializing
    var state = Self.trackingState(quality)
    if relocalizing {
      if quality == .normal && result.source != .prediction {
        relocalizing = false
      } else {
        state = .limited(.relocalizing)
      }
    }
    let worldFromO = worldFromO ?? provisionalWorldFromO
    let worldFromCamera = worldFromO * result.oFromOptical * opticalFromCamera
    let features =
      quality == .initializing
      ? nil
      : result.landmarks.map {
        FeaturePoint(identifier: $0.identifier, position: SIMD3<Float>(worldFromO.apply(to: $0.position)))
      }
    return TrackedFrame(
      state: state, source: result.source, worldFromCamera: worldFromCamera, featurePoints: features,
      inliers: result.inliers, isWorldFixed: isWorldFixed)
  }

  /// ARKit's state for an odometry quality.
  static func trackingState(_ quality: TrackingQuality) -> ARCamera.TrackingState {
    switch quality {
    case .initializing: .limited(.initializing)
    case .normal: .normal
    case .insufficientFeatures: .limited(.insufficientFeatures)
    case .excessiveMotion: .limited(.excessiveMotion)
    case .relocalizing: .limited(.relocalizing)
    }
  }

  /// The session world from O for a given up direction in O.
  package static func world(up: SIMD3<Double>) -> RigidTransform {
    let y = simd_normalize(up)
    // The first camera's forward (optical +z) projected onto the horizontal plane is world -z.
    var forward = SIMD3<Double>(0, 0, 1) - simd_dot(SIMD3(0, 0, 1), y) * y
    if simd_length(forward) < 1e-3 {
      // Looking straight up or down: use the image's up direction (optical -y) instead.
      forward = SIMD3<Double>(0, -1, 0) - simd_dot(SIMD3(0, -1, 0), y) * y
    }
    let z = -simd_normalize(forward)
    let x = simd_cross(y, z)
    // Rows x, y, z map O coordinates to world coordinates.
    let rotation = simd_double3x3(rows: [x, y, z])
    return RigidTransform(rotation: simd_quatd(rotation).normalized, translation: .zero)
  }

  private func fix(up: SIMD3<Double>, source: GravitySource) {
    upInO = simd_normalize(up)
    worldFromO = Self.world(up: up)
    gravitySource = source
  }

  private func fixGravityWithoutAccelerometer(_ frame: RecordedFrame) {
    guard !info.hasAccelerometer else { return }
    if let truth = frame.groundTruth, let gravity = info.groundTruthGravity {
      // Up in the first optical frame: the ground-truth world's up rotated into the camera.
      fix(up: truth.inverse.rotate(-gravity), source: .groundTruth)
    } else {
      fix(up: SIMD3(0, -1, 0), source: .assumedUpright)
    }
  }

  /// Gathers accelerometer samples and tracked positions over the gravity window; at its end, fixes
  /// gravity from them (``gravity(positions:specificForce:)``).
  private func collectGravityEvidence(_ frame: RecordedFrame, oFromOptical: RigidTransform) {
    for sample in frame.imu {
      guard let f = sample.acceleration else { continue }
      rotatedSpecificForce.append((sample.timestamp, oFromOptical.rotate(f)))
    }
    positions.append((frame.timestamp, oFromOptical.translation))
    guard let startTime, frame.timestamp - startTime >= options.gravityWindow, positions.count >= 6,
      rotatedSpecificForce.count >= 3
    else { return }
    let gravity = Self.gravity(positions: positions, specificForce: rotatedSpecificForce)
    if let gravity, simd_length(gravity) > 7, simd_length(gravity) < 12.5 {
      fix(up: -gravity, source: .accelerometer)
    } else {
      // The accelerometer does not read like gravity (wrong units or a broken sensor).
      fix(up: SIMD3(0, -1, 0), source: .assumedUpright)
    }
    rotatedSpecificForce.removeAll()
    positions.removeAll()
  }

  /// Gravity in O (m/s², pointing down) from timed camera positions and the specific force rotated
  /// into O, as in visual-inertial initialisation: the position is `p(t) = p₀ + v₀·t + ½·g·t² + D(t)`
  /// where `D` is the specific force integrated twice from the first position's time (piecewise
  /// linear between samples, held beyond them). `p − D` is thus a quadratic in `t` on each axis, and
  /// its least-squares fit over all the positions gives `g` (with `p₀` and `v₀`), which uses every
  /// frame of the window rather than end-point velocities. Nil when the fit is degenerate.
  package static func gravity(
    positions: [(time: Double, position: SIMD3<Double>)],
    specificForce: [(time: Double, value: SIMD3<Double>)]
  ) -> SIMD3<Double>? {
    guard let t0 = positions.first?.time, let tEnd = positions.last?.time, tEnd > t0,
      !specificForce.isEmpty
    else { return nil }
    // The force at time t, piecewise linear over the samples and held beyond them.
    var next = 0
    func force(at t: Double) -> SIMD3<Double> {
      while next < specificForce.count && specificForce[next].time <= t { next += 1 }
      if next == 0 { return specificForce[0].value }
      if next == specificForce.count { return specificForce[next - 1].value }
      let (a, b) = (specificForce[next - 1], specificForce[next])
      let w = b.time > a.time ? (t - a.time) / (b.time - a.time) : 1
      return a.value + w * (b.value - a.value)
    }
    // Integration knots: the sample times inside the window and the frame times, in order.
    var knots = specificForce.map(\.time).filter { $0 > t0 && $0 < tEnd } + positions.map(\.time)
    knots.sort()
    var velocity = SIMD3<Double>.zero
    var displacement = SIMD3<Double>.zero
    var time = t0
    var f = force(at: t0)
    var frame = 0
    // Normal equations of the per-axis fit y = c₀ + c₁·τ + c₂·τ²/2, τ = (t − t₀)/T (conditioning).
    let span = tEnd - t0
    var normal = simd_double3x3()
    var right = simd_double3x3()  // column k: the right-hand side for axis k
    for knot in knots {
      let dt = knot - time
      if dt > 0 {
        let g = force(at: knot)
        // Exact for a linearly varying force over the step.
        displacement += velocity * dt + (2 * f + g) * (dt * dt / 6)
        velocity += (f + g) * (dt / 2)
        (time, f) = (knot, g)
      }
      while frame < positions.count && positions[frame].time <= time {
        let tau = (positions[frame].time - t0) / span
        let basis = SIMD3(1, tau, tau * tau / 2)
        let y = positions[frame].position - displacement
        normal += simd_double3x3(basis * basis.x, basis * basis.y, basis * basis.z)
        right += simd_double3x3(basis * y.x, basis * y.y, basis * y.z)
        frame += 1
      }
    }
    guard abs(normal.determinant) > 1e-12 else { return nil }
    let coefficients = normal.inverse * right  // column k: (c₀, c₁, c₂) of axis k
    let g =
      SIMD3(coefficients.columns.0.z, coefficients.columns.1.z, coefficients.columns.2.z) / (span * span)
    return g.x.isFinite && g.y.isFinite && g.z.isFinite ? g : nil
  }
}
