import Foundation

/// What carried a frame's pose.
package enum PoseSource: String, Sendable, Equatable {
  /// PnP on tracked features, refined by robust least squares.
  case features
  /// Dense depth alignment against the previous frame.
  case depth
  /// Recovered against a keyframe after tracking was lost.
  case relocalization
  /// Nothing measured it: constant-velocity prediction, or the last pose held (while relocalising, or
  /// while initialising without a rotation-only fit).
  case prediction
  /// The first frame: the pose is the origin by definition.
  case origin
  /// Rotation only: the camera has not moved measurably since the reference frame (monocular, before
  /// the map exists); the rotation is fitted to the tracked features' bearings, the position held.
  case rotation
  /// The gyroscope's rotation since the last frame, the position held: monocular, before the map
  /// exists, while the camera translates too much for a rotation to explain the tracks but too little
  /// for two views to triangulate (ARKit's provisional pose while `limited(.initializing)`).
  case gyroscope
}

/// One frame's result from an odometry front end, in the odometry frame O (the first camera's
/// optical frame: x right, y down, z forward, metres).
package struct OdometryResult: Sendable {
  /// O from the current camera's optical frame.
  package var oFromOptical: RigidTransform
  /// The facts the frame's tracking state is decided from (``TrackingStatePolicy``).
  package var evidence: TrackingEvidence
  package var source: PoseSource
  /// Feature inliers behind the pose (0 when the pose came from depth or prediction).
  package var inliers: Int
  /// Landmarks seen in this frame: stable identifiers and positions in O.
  package var landmarks: [(identifier: UInt64, position: SIMD3<Double>)]
  /// When a loop closed this frame: the deformation of the map (in O) that moved the keyframes made
  /// since and this frame's pose (``oFromOptical`` is the corrected one). Nil otherwise.
  package var deformation: WorldDeformation? = nil
  /// The position the measurement alone gave (O), when ``oFromOptical``'s was filtered with the
  /// accelerometer (depth-only odometry): what the gravity estimator is given, since positions the
  /// accelerometer has driven with a gravity estimate agree with that estimate and would confirm it.
  /// Nil: ``oFromOptical``'s is the measurement.
  package var measuredPosition: SIMD3<Double>? = nil
  /// Whether a relocalised pose (``PoseSource/relocalization``) continues the tracked motion: the
  /// frame was located against the keyframes because the motion since the last measured frame was
  /// too large to track frame to frame (``TrackerOptions/isJump(from:predicted:measured:)``), and the
  /// IMU's prediction from that frame agrees with it; not after a loss, a gap or a stretch of drift,
  /// whose relocalised pose jumps by what had drifted. The gravity estimator's chain goes on through
  /// it (at 2 fps nearly every frame is one).
  package var continuesMotion = false
}

/// One frame's input to an odometry, given in one call so that no order of calls matters.
struct FrameInput {
  /// The tracking image (empty in depth-only mode, whose odometry reads no image).
  var gray: GrayImage
  /// `gray`'s KLT pyramid when it was built ahead (used when built with the odometry's own KLT
  /// parameters).
  var pyramid: KLTPyramid?
  /// The registered z-depth (metres, NaN where unknown or of low confidence) at its own resolution,
  /// when recorded.
  var depth: FrameDepth?
  /// The frame's time, seconds (the recording's clock).
  var timestamp: Double
  /// The IMU samples recorded since the last frame.
  var imu: [IMUSample]
  /// The session's gravity estimate before this frame (nil: none yet), for front ends that check a
  /// relocalised pose against the IMU's prediction.
  var gravity: GapPrediction.Gravity?
}

/// A visual odometry front end: frames in, poses in the odometry frame O out.
protocol Odometry: AnyObject {
  /// Where the last frame's time went (measured with the monotonic clock; results never depend on it).
  var timings: StageTimings { get }
  /// Tracks one frame.
  func process(_ frame: FrameInput) -> OdometryResult
  /// The camera was off (a pause or a gap in the recording): the motion since the last frame is unknown.
  func cameraWasOff()
  /// ``cameraWasOff()`` with the session's gravity estimate (nil: none yet), for front ends that
  /// predict the motion across the gap with the IMU.
  func cameraWasOff(gravity: GapPrediction.Gravity?)
  /// The keyframe map in O (empty without one).
  var mapKeyframes: [Keyframe] { get }
  /// The last processed frame (whose `gray` and `depth` are given again) located against `keyframes`
  /// of a world map: map from the frame's optical frame and the PnP inliers, or nil when no keyframe
  /// recognises the place. Changes nothing in the odometry.
  func locate(gray: GrayImage, depth: FrameDepth?, in keyframes: [Keyframe]) -> (
    mapFromOptical: RigidTransform, inliers: Int
  )?
  /// Adds a world map's keyframes (already in O) to the keyframe map, for later relocalisations.
  func adopt(_ keyframes: [Keyframe])
  /// Whether a keyframe covers the view from `oFromOptical`, or nil without a keyframe map.
  func isMapped(_ oFromOptical: RigidTransform) -> Bool?
  /// How the map got its metric scale, for front ends that make their own (monocular); nil for those
  /// whose scale comes from depth, and before initialisation.
  var scaleSource: ScaleSource? { get }
  /// For a front end that locates itself in the world map it was started from (monocular: its O is
  /// the map's world, so only it can place its first frames), whether it has; nil for front ends whose
  /// frames the tracker locates in the map with ``locate(gray:depth:in:)``.
  var isLocatedInOwnMap: Bool? { get }
}

extension Odometry {
  /// Front ends without a keyframe map (depth-only) carry on frame to frame and rely on their own
  /// loss detection.
  func cameraWasOff() {}
  func cameraWasOff(gravity: GapPrediction.Gravity?) { cameraWasOff() }
  var mapKeyframes: [Keyframe] { [] }
  func locate(gray: GrayImage, depth: FrameDepth?, in keyframes: [Keyframe]) -> (
    mapFromOptical: RigidTransform, inliers: Int
  )? { nil }
  func adopt(_ keyframes: [Keyframe]) {}
  func isMapped(_ oFromOptical: RigidTransform) -> Bool? { nil }
  var scaleSource: ScaleSource? { nil }
  var isLocatedInOwnMap: Bool? { nil }
}

/// Seconds a frame spent in each tracking stage.
package struct StageTimings: Sendable, Equatable {
  /// Image pyramid and KLT tracking, plus detection of new features.
  package var track = 0.0
  /// Pose: PnP RANSAC and refinement, depth alignment, relocalisation.
  package var pose = 0.0
  /// Map upkeep: landmark averaging, new landmarks, keyframes.
  package var map = 0.0
  /// Of the above, relocalisation and loop closure: ORB place recognition against the keyframes, PnP
  /// RANSAC, the pose graph; plus, in a session's frame timings, the closure's move of the planes,
  /// voxels and anchors (``WorldDeformation``, also in the frame's plane time).
  package var recognition = 0.0

  package init() {}
}

/// Adds the time since `start` to a stage and returns now.
@discardableResult
func lap(_ stage: inout Double, since start: ContinuousClock.Instant) -> ContinuousClock.Instant {
  let now = ContinuousClock.now
  let elapsed = (now - start).components
  stage += Double(elapsed.seconds) + Double(elapsed.attoseconds) * 1e-18
  return now
}
