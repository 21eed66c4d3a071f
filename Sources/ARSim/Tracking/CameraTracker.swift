/// Where the session's gravity direction came from.
public enum GravitySource: String, Sendable, Codable {
  /// The recorded accelerometer, averaged over the first moments of the session with the
  /// camera's own acceleration (from the tracked trajectory) taken out.
  case accelerometer
  /// The recording's ground truth (its trajectory and stated gravity direction).
  case groundTruth
  /// No measurement: the first frame's camera is assumed upright (image rows horizontal, level).
  case assumedUpright
  /// Without an accelerometer, the depth's level surfaces (floors, table tops, ceilings): they hold
  /// the level the start gave (the reference's gravity, or the first camera assumed upright) as the
  /// tracked orientation drifts.
  case surfaces
}

/// One tracked frame in the session world: the output of the tracking stage, and the one place its
/// tracking state is decided (the session, the CLI and evaluation read it; none re-derives it).
package struct TrackedFrame: Sendable {
  /// The tracking state to report (ARKit's), as ``TrackingStatePolicy`` decides it: the odometry's
  /// quality, `limited(.initializing)` until gravity fixes the world, and `limited(.relocalizing)`
  /// after the camera was off until a pose is measured normally again.
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
  /// When the session world moved by this frame (a re-level as gravity is refined: a rotation about
  /// the origin; or a correction applied through ``CameraTracker/applyWorldCorrection(_:)``): the new
  /// session world from the previous one (`newWorldFromOld`). The pose and feature points are in the
  /// new world already; the session moves planes and anchors by it (its world correction stage). Nil
  /// otherwise.
  package var worldCorrection: RigidTransform? = nil
  /// When a loop closed this frame: the non-rigid correction of the session world (after
  /// ``worldCorrection``) that moved the keyframes made since the loop's held part. The pose and
  /// feature points are corrected already; the session moves each plane and anchor by the correction
  /// of the time it was mapped (its world correction stage). Nil otherwise.
  package var worldDeformation: WorldDeformation? = nil
  /// Whether this frame relocalised the session to its initial world map: from it on the session
  /// world is the map's.
  package var relocalizedToMap = false
  /// Whether the tracker's keyframes cover the view (nil without a keyframe map): ARKit's
  /// `mapped` rather than `extending`.
  package var isViewMapped: Bool? = nil
  /// The frame's depth as tracking read it, at its own resolution: pixels below
  /// ``TrackerOptions/minDepthConfidence`` masked (NaN). Plane detection reads the same map.
  package var depth: DepthImage? = nil

  /// Whether the frame has a tracked pose: `normal`, or limited by features or motion (not
  /// initialising, not relocalising).
  package var isTracked: Bool {
    switch state {
    case .normal, .limited(.insufficientFeatures), .limited(.excessiveMotion): true
    default: false
    }
  }

  /// Whether the frame has a pose worth recording: tracked, or initialising with a measured pose
  /// (the world levelled from the first accelerometer samples and still being refined; monocular
  /// before the map exists: the rotation fitted to the features or turned by the gyroscope, the
  /// position held) in the fixed world.
  package var hasPose: Bool {
    isTracked || (state == .limited(.initializing) && source != .prediction && isWorldFixed)
  }
}

/// Turns recorded frames into camera poses in the session world of ARCHITECTURE.md: metres,
/// +y up against gravity, origin at the first camera, -z the first camera's forward direction
/// projected onto the horizontal plane.
package final class CameraTracker {
  package let options: TrackerOptions
  package let info: RecordingInfo
  /// Where gravity came from, once known.
  package var gravitySource: GravitySource? { leveller.source }
  /// The up direction in the odometry frame O (the first optical frame), once known; refined over the
  /// session when the recording has an accelerometer.
  package var upInO: SIMD3<Double>? { leveller.upInO }
  /// The session's gravity estimate so far (nil without an accelerometer or before the first
  /// segment of samples closes).
  package var gravityEstimate: GravityEstimator.Estimate? { leveller.estimate }
  private let odometry: any Odometry
  /// How many times smaller images are tracked (``TrackerOptions/trackingReduction(for:)``), and
  /// the intrinsics of the reduced image the odometry measures in.
  private let reduction: Int
  private let trackingIntrinsics: CameraIntrinsics
  private var leveller = WorldLeveller()
  private let provisionalWorldFromO: RigidTransform
  /// Decides each frame's tracking state from the odometry's facts and the session's.
  private var policy: TrackingStatePolicy
  /// A world map's keyframes (in its world) to relocalise against before anything is tracked; nil
  /// without a map or once relocalised.
  private var pendingMap: [Keyframe]?
  /// The map alignments of the last consecutive located frames, while they are too few to agree.
  private var mapCandidates: [RigidTransform] = []
  /// The map's world from O, once relocalised to a world map: the session world from then on.
  private var mapWorldFromO: RigidTransform?
  /// The session world from O at the last frame.
  private var lastWorldFromO: RigidTransform?
  /// Corrections applied since the last frame (``applyWorldCorrection(_:)``), composed.
  private var pendingCorrection: RigidTransform?

  /// A tracker for the recording and options of `context`, in its mode.
  package convenience init(_ context: SessionContext) { self.init(context, map: nil) }

  /// A tracker as ``init(_:)``. With `map` (a world map's keyframes in its world) every frame is
  /// `limited(.relocalizing)` until one is located in the map; the session world is the map's from then on.
  init(_ context: SessionContext, map: [Keyframe]?) {
    pendingMap = map
    let info = context.info
    let resolved = context.tracking
    self.info = info
    options = resolved
    policy = TrackingStatePolicy(options: resolved)
    mode = context.mode
    reduction = mode == .depth ? 1 : resolved.trackingReduction(for: info.intrinsics)
    trackingIntrinsics = Self.intrinsics(info.intrinsics, reducedBy: reduction)
    switch mode {
    case .rgbd:
      odometry = RGBDOdometry(
        intrinsics: trackingIntrinsics, options: resolved, readoutTime: info.readoutTime)
    case .mono:
      let mono = MonoOdometry(intrinsics: trackingIntrinsics, options: resolved)
      // A monocular session's scale is its own: the map must start it (its O is the map's world).
      if let map { mono.awaitMap(map) }
      odometry = mono
    case .depth:
      odometry = DepthOdometry(intrinsics: info.depthIntrinsics ?? info.intrinsics, options: resolved)
    }
    provisionalWorldFromO = Self.world(up: SIMD3(0, -1, 0))
  }

  /// What the reading thread may do to a frame ahead of tracking (``PrefetchingFrameSource``): reduce
  /// its grey image to the size it is tracked at and build that image's KLT pyramid, as the tracker
  /// for `context` would; nil when that tracker reads no image (depth-only). Tracking then finds both
  /// made, two stages fewer on its thread.
  package static func preparation(_ context: SessionContext) -> (@Sendable (inout RecordedFrame) -> Void)? {
    guard context.readsImages else { return nil }
    let info = context.info
    let resolved = context.tracking
    let params = resolved.kltParams
    let reduction = resolved.trackingReduction(for: info.intrinsics)
    let size = (info.intrinsics.width / reduction, info.intrinsics.height / reduction)
    return { frame in
      guard let gray = frame.trackingImage(size: size, reduction: reduction) else { return }
      frame.kltPyramid = try? KLTPyramid(gray, params: params)
      if reduction > 1 { frame.trackingImage = gray }
    }
  }

  /// The intrinsics of `intrinsics`' image reduced `reduction` times (``GrayImage/reduced(by:)``):
  /// pixel centre `u` of the reduced image lies at `(u + 0.5)·reduction − 0.5` in the full one.
  private static func intrinsics(_ intrinsics: CameraIntrinsics, reducedBy reduction: Int) -> CameraIntrinsics
  {
    guard reduction > 1 else { return intrinsics }
    let scale = 1 / Double(reduction)
    return CameraIntrinsics(
      fx: intrinsics.fx * scale, fy: intrinsics.fy * scale, cx: (intrinsics.cx + 0.5) * scale - 0.5,
      cy: (intrinsics.cy + 0.5) * scale - 0.5, width: intrinsics.width / reduction,
      height: intrinsics.height / reduction)
  }

  /// The tracking mode in use (``SessionContext/mode``).
  package let mode: TrackerOptions.Mode

  /// Tells the tracker the camera was off (the session paused, or the recording has a gap longer than
  /// ``TrackerOptions/interruptionThreshold``): the frames that follow are `limited(.relocalizing)` until a
  /// pose is measured normally again.
  package func cameraWasOff() {
    policy.cameraWasOff()
    odometry.cameraWasOff(gravity: gravity)
  }

  /// The gravity estimate as the odometry's IMU predictions take it (nil: none yet).
  private var gravity: GapPrediction.Gravity? {
    gravityEstimate.map {
      GapPrediction.Gravity(inO: $0.gravity, bias: $0.bias, uncertaintyDegrees: $0.uncertaintyDegrees)
    }
  }

  /// Moves the session world by a rigid correction (`newWorldFromOld`, e.g. from a pose-graph
  /// optimisation): the tracker's map lives in its odometry frame O and does not move, the world's
  /// placement over it does. The next tracked frame carries the correction
  /// (``TrackedFrame/worldCorrection``, composed with that frame's own re-level), so the session moves
  /// planes and anchors by it in the same frame. Before the world is fixed it is ignored. It should keep
  /// up up (a turn about the vertical and a translation): a tilt is undone by the next re-level.
  package func applyWorldCorrection(_ correction: RigidTransform) {
    if let mapWorldFromO {
      // Relocalised to a world map: the map's world placement moves.
      self.mapWorldFromO = correction * mapWorldFromO
    } else {
      guard leveller.worldFromO != nil else { return }
      leveller.applyWorldCorrection(correction)
    }
    pendingCorrection = correction * (pendingCorrection ?? .identity)
  }

  /// Where the last frame's tracking time went.
  package var timings: StageTimings { odometry.timings }

  /// How a monocular map got its scale (nil in RGB-D mode or before initialisation).
  package var scaleSource: ScaleSource? { odometry.scaleSource }

  /// Tracks the next frame of the recording.
  package func track(_ frame: RecordedFrame) -> TrackedFrame {
    // Recordings without images reach here only in depth-only mode (ARReplay checks), whose
    // odometry reads no image.
    let gray =
      frame.trackingImage(size: (trackingIntrinsics.width, trackingIntrinsics.height), reduction: reduction)
      ?? GrayImage(width: 0, height: 0, pixels: [])
    let masked = frame.depth(minConfidence: options.minDepthConfidence)
    let depth = masked.map {
      FrameDepth(
        map: $0, confidence: frame.confidence, depthIntrinsics: info.depthIntrinsics,
        imageIntrinsics: trackingIntrinsics)
    }
    let result = odometry.process(
      FrameInput(
        gray: gray, pyramid: frame.kltPyramid, depth: depth, timestamp: frame.timestamp, imu: frame.imu,
        gravity: gravity))
    // Gravity is estimated from the measured position where the pose's was filtered with the
    // accelerometer (``OdometryResult/measuredPosition``).
    var measuredPose = result.oFromOptical
    if let position = result.measuredPosition { measuredPose.translation = position }
    var level = leveller.update(
      frame, oFromOptical: measuredPose,
      // A loop closure's or a relocalisation's jump in the trajectory is no motion, nor a position
      // held while the camera translates: the gravity estimator's chain breaks (not at a
      // relocalisation that measured a wide motion: ``OdometryResult/continuesMotion``).
      measured: ![.prediction, .gyroscope].contains(result.source)
        && (result.source != .relocalization || result.continuesMotion) && result.deformation == nil,
      depth: depth, info: info, options: options)
    let relocalizedToMap = locateInMap(gray: gray, depth: depth, result: result)
    if let mapWorldFromO { level = WorldLeveller.Update(worldFromO: mapWorldFromO, correction: nil) }
    let isWorldFixed = level.worldFromO != nil
    // Applied before this frame's re-level, which was computed from the already corrected world.
    let correction = pendingCorrection.map { (level.correction ?? .identity) * $0 } ?? level.correction
    pendingCorrection = nil
    let decision = policy.decide(
      result.evidence, source: result.source, isWorldSettled: leveller.isSettled || mapWorldFromO != nil,
      awaitingMap: pendingMap != nil)
    let worldFromO = level.worldFromO ?? provisionalWorldFromO
    lastWorldFromO = worldFromO
    let worldFromCamera = worldFromO * result.oFromOptical * opticalFromCamera
    let features =
      decision.publishesFeatures
      ? result.landmarks.map {
        FeaturePoint(identifier: $0.identifier, position: worldFromO.apply(to: $0.position))
      } : nil
    return TrackedFrame(
      state: decision.state, source: result.source, worldFromCamera: worldFromCamera, featurePoints: features,
      inliers: result.inliers, isWorldFixed: isWorldFixed, worldCorrection: correction,
      worldDeformation: result.deformation?.expressed(in: worldFromO), relocalizedToMap: relocalizedToMap,
      isViewMapped: odometry.isMapped(result.oFromOptical), depth: masked)
  }

  /// While a world map waits: locates the frame in it (when the odometry measured the frame; the
  /// monocular odometry does it itself, ``MonoOdometry/awaitMap(_:)``); once
  /// ``TrackerOptions/Relocalization/mapAgreementFrames`` consecutive frames give map alignments (map
  /// world from O) that agree, takes their mean as the map's world and hands the map's keyframes to
  /// the odometry. True when it did.
  private func locateInMap(gray: GrayImage, depth: FrameDepth?, result: OdometryResult) -> Bool {
    guard let map = pendingMap else { return false }
    if let located = odometry.isLocatedInOwnMap {
      // The monocular odometry locates itself in the map it was started from (its O is the map's world).
      guard located else { return false }
      pendingMap = nil
      mapWorldFromO = .identity
      return true
    }
    guard result.source != .prediction,
      let (mapFromOptical, _) = odometry.locate(gray: gray, depth: depth, in: map)
    else {
      mapCandidates.removeAll()
      return false
    }
    let mapFromO = mapFromOptical * result.oFromOptical.inverse
    let limits = options.relocalization
    if let first = mapCandidates.first, case let step = first.inverse * mapFromO,
      simd_length(step.translation) > limits.mapAgreementTranslation
        || step.angle > limits.mapAgreementDegrees * .pi / 180
    {
      mapCandidates.removeAll()
    }
    mapCandidates.append(mapFromO)
    guard mapCandidates.count >= limits.mapAgreementFrames else { return false }
    let mean = Self.mean(mapCandidates)
    pendingMap = nil
    mapCandidates.removeAll()
    mapWorldFromO = mean
    odometry.adopt(map.map { $0.moved(by: mean.inverse) })
    return true
  }

  /// The mean of nearby transforms: mean translation, normalised sum of the (sign-aligned) quaternions.
  static func mean(_ transforms: [RigidTransform]) -> RigidTransform {
    let reference = transforms[0].rotation.vector
    var q = SIMD4<Double>.zero
    var t = SIMD3<Double>.zero
    for transform in transforms {
      let v = transform.rotation.vector
      q += simd_dot(v, reference) < 0 ? -v : v
      t += transform.translation
    }
    return RigidTransform(rotation: simd_quatd(vector: q), translation: t / Double(transforms.count))
  }

  /// The keyframe map in the session world (as of the last frame), for a world map; empty before the
  /// first frame, without a keyframe map, or while relocalising to an initial map.
  func worldKeyframes() -> [Keyframe] {
    guard let worldFromO = lastWorldFromO, pendingMap == nil else { return [] }
    return odometry.mapKeyframes.map { $0.moved(by: worldFromO) }
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
}
