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

/// One tracked frame in the session world.
package struct TrackedFrame: Sendable {
  package var quality: TrackingQuality
  package var source: PoseSource
  /// World from the camera in ARKit's camera frame (x right, y up, looking along -z). Until the
  /// world is fixed (`quality == .initializing`) this is provisional: gravity is assumed from the
  /// first camera being upright.
  package var worldFromCamera: RigidTransform
  /// Landmarks seen in this frame, in world coordinates, with stable identifiers.
  package var featurePoints: [(identifier: UInt64, position: SIMD3<Double>)]
  package var inliers: Int
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

  package init(info: RecordingInfo, options: TrackerOptions) {
    self.info = info
    self.options = options
    switch options.mode {
    case .rgbd: odometry = RGBDOdometry(intrinsics: info.intrinsics, options: options)
    case .mono: odometry = MonoOdometry(intrinsics: info.intrinsics, options: options)
    }
    provisionalWorldFromO = Self.world(up: SIMD3(0, -1, 0))
  }

  /// Where the last frame's tracking time went.
  package var timings: StageTimings { odometry.timings }

  /// How a monocular map got its scale (nil in RGB-D mode or before initialisation).
  package var scaleSource: ScaleSource? { (odometry as? MonoOdometry)?.scaleSource }

  /// Tracks the next frame of the recording.
  package func track(_ frame: RecordedFrame) -> TrackedFrame {
    let result = odometry.process(gray: frame.image.gray, depth: frame.depth, timestamp: frame.timestamp)
    if startTime == nil {
      startTime = frame.timestamp
      fixGravityWithoutAccelerometer(frame)
    }
    if worldFromO == nil, info.hasAccelerometer {
      collectGravityEvidence(frame, oFromCamera: result.oFromCamera)
    }
    var quality = result.quality
    if worldFromO == nil { quality = .initializing }
    let worldFromO = worldFromO ?? provisionalWorldFromO
    let worldFromCamera = worldFromO * result.oFromCamera * opticalFromCamera
    return TrackedFrame(
      quality: quality, source: result.source, worldFromCamera: worldFromCamera,
      featurePoints: result.landmarks.map { ($0.identifier, worldFromO.apply(to: $0.position)) },
      inliers: result.inliers)
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

  /// Gathers accelerometer samples over the gravity window; at its end, gravity in O is
  /// g = a − mean(R f): the mean specific force rotated into O, corrected by the camera's mean
  /// acceleration over the window (from the tracked positions).
  private func collectGravityEvidence(_ frame: RecordedFrame, oFromCamera: RigidTransform) {
    for sample in frame.imu {
      guard let f = sample.acceleration else { continue }
      rotatedSpecificForce.append((sample.timestamp, oFromCamera.rotate(f)))
    }
    positions.append((frame.timestamp, oFromCamera.translation))
    guard let startTime, frame.timestamp - startTime >= options.gravityWindow, positions.count >= 6,
      rotatedSpecificForce.count >= 3
    else { return }
    let meanForce = rotatedSpecificForce.map(\.value).reduce(.zero, +) / Double(rotatedSpecificForce.count)
    let k = min(3, positions.count / 2)
    let velocityStart = velocity(Array(positions.prefix(k)))
    let velocityEnd = velocity(Array(positions.suffix(k)))
    let span =
      (positions.last!.time + positions[positions.count - k].time) / 2
      - (positions[0].time + positions[k - 1].time) / 2
    let meanAcceleration = span > 0 ? (velocityEnd - velocityStart) / span : .zero
    let gravity = meanAcceleration - meanForce
    let magnitude = simd_length(gravity)
    if magnitude > 7, magnitude < 12.5 {
      fix(up: -gravity, source: .accelerometer)
    } else {
      // The accelerometer does not read like gravity (wrong units or a broken sensor).
      fix(up: SIMD3(0, -1, 0), source: .assumedUpright)
    }
    rotatedSpecificForce.removeAll()
    positions.removeAll()
  }

  /// Least-squares velocity of a few timed positions.
  private func velocity(_ samples: [(time: Double, position: SIMD3<Double>)]) -> SIMD3<Double> {
    let meanTime = samples.map(\.time).reduce(0, +) / Double(samples.count)
    let meanPosition = samples.map(\.position).reduce(.zero, +) / Double(samples.count)
    var numerator = SIMD3<Double>.zero
    var denominator = 0.0
    for s in samples {
      numerator += (s.time - meanTime) * (s.position - meanPosition)
      denominator += (s.time - meanTime) * (s.time - meanTime)
    }
    return denominator > 0 ? numerator / denominator : .zero
  }
}
