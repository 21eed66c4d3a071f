import ARSim
import ARSimEval
import ARSimTestSupport
import Foundation
import Testing

/// ATE (SE(3) or Sim(3)) of the tracked frames of a replay against the recording's ground truth, with
/// the poses of `session`'s recorded trajectory (in its final world, as saved), not as delivered.
func trackingError(
  _ records: [FrameCollector.Record], in session: ARSession, scale: Bool = false
) throws -> ErrorStatistics {
  let (reference, estimate) = try trackedTrajectories(records, in: session)
  return try absoluteTrajectoryError(
    reference: reference, estimate: estimate, options: AbsoluteErrorOptions(alignment: scale ? .sim3 : .se3)
  ).statistics
}

/// The 1-frame RPE (translation, evo's definition) of the tracked frames of a replay, poses as
/// ``trackingError(_:in:scale:)`` reads them.
func frameToFrameError(_ records: [FrameCollector.Record], in session: ARSession) throws -> ErrorStatistics {
  let (reference, estimate) = try trackedTrajectories(records, in: session)
  return try relativePoseError(reference: reference, estimate: estimate).statistics
}

/// The ground truth and the estimate (optical frames) of the frames tracked normally, the estimate from
/// `session`'s recorded trajectory (in its final world, as saved).
private func trackedTrajectories(
  _ records: [FrameCollector.Record], in session: ARSession
) throws -> (reference: Trajectory, estimate: Trajectory) {
  let tracked = records.filter { $0.state == .normal && $0.groundTruth != nil }
  // By time: a replay may repeat frame indices (a recording replayed in stretches), never times.
  let final = Dictionary(uniqueKeysWithValues: session.trajectory.map { ($0.timestamp, $0.worldFromCamera) })
  let reference = Trajectory(timestamps: tracked.map(\.timestamp), poses: tracked.map { $0.groundTruth! })
  let estimate = Trajectory(
    timestamps: tracked.map(\.timestamp),
    poses: try tracked.map {
      try #require(final[$0.timestamp], "frame \($0.frameIndex) is in the trajectory") * opticalFromCamera
    })
  return (reference, estimate)
}

@Suite struct RGBDTrackingTests {
  @Test(.enabled(if: Datasets.exists("tabletop"))) func tracksTheTabletopSession() throws {
    let (session, collector) = try FrameCollector.replay(Datasets.path("tabletop"))
    let records = collector.records
    #expect(collector.errors.isEmpty)
    // Limited while initialising, then normal for every frame.
    #expect(records.first?.state == .limited(.initializing))
    let firstNormal = try #require(records.firstIndex { $0.state == .normal })
    #expect(records[firstNormal...].allSatisfy { $0.state == .normal })
    // Normal once gravity is known to 1 degree (TrackerOptions.gravitySettledDegrees).
    #expect(records[firstNormal].timestamp - records[0].timestamp < 1)
    let ate = try trackingError(records, in: session)
    #expect(ate.rmse < 0.01, "ATE \(ate.rmse) m")
    #expect(session.gravitySource == .accelerometer)
  }

  /// Tracked at half its size (``TrackerOptions/trackingMaxSide``), the session still tracks to the
  /// full size's bound: the reduced image's intrinsics place its pixels where the full image has them.
  @Test(.enabled(if: Datasets.exists("tabletop"))) func tracksTheTabletopAtHalfSize() throws {
    let configuration = ARWorldTrackingConfiguration()
    configuration.tracking.trackingMaxSide = 320
    let (session, collector) = try FrameCollector.replay(
      Datasets.path("tabletop"), configuration: configuration)
    #expect(collector.errors.isEmpty)
    let tracked = collector.records.filter { $0.state == .normal }.count
    #expect(Double(tracked) > 0.9 * Double(collector.records.count))
    let ate = try trackingError(collector.records, in: session)
    #expect(ate.rmse < 0.01, "ATE \(ate.rmse) m")
  }

  @Test(.enabled(if: Datasets.exists("tabletop"))) func worldIsGravityAligned() throws {
    // Both worlds have +y up, so each camera's tilt (the angle between its up axis and world up)
    // must be the same in the session world as in the ground-truth world, whatever the heading.
    let (_, collector) = try FrameCollector.replay(Datasets.path("tabletop"))
    var worst = 0.0
    for record in collector.records where record.state == .normal {
      guard let truth = record.groundTruth else { continue }
      let estimated = RigidTransform(matrix: record.transform)
      // Camera's up axis (ARKit camera +y = optical -y) in each world.
      let upInSession = estimated.rotate(SIMD3(0, 1, 0))
      let upInTruth = truth.rotate(SIMD3(0, -1, 0))
      let tiltSession = acos(min(1, max(-1, upInSession.y)))
      let tiltTruth = acos(min(1, max(-1, upInTruth.y)))
      worst = max(worst, abs(tiltSession - tiltTruth))
    }
    #expect(worst * 180 / .pi < 1.0, "camera tilt differs by \(worst * 180 / .pi)° from the truth")
  }

  @Test(.enabled(if: Datasets.exists("tabletop"))) func replaysAreIdentical() throws {
    let a = try FrameCollector.replay(Datasets.path("tabletop")).collector.records
    let b = try FrameCollector.replay(Datasets.path("tabletop")).collector.records
    #expect(a.count == b.count)
    #expect(zip(a, b).allSatisfy { $0.transform == $1.transform && $0.state == $1.state })
  }

  @Test(.enabled(if: Datasets.exists("stress"))) func stressGoesLimitedAndRecovers() throws {
    let (_, collector) = try FrameCollector.replay(Datasets.path("stress"))
    let states = collector.stateChanges.map { "\($0)" }
    // Initialising, normal, then limited where features vanish, then normal again.
    let firstNormal = try #require(states.firstIndex(of: "normal"))
    let limited = try #require(
      states[firstNormal...].firstIndex { $0.hasPrefix("limited:") && $0 != "limited:initializing" })
    #expect(states[limited...].contains("normal"), "states: \(states)")
    #expect(collector.records.last?.state == .normal, "ends normal")
  }
}

@Suite struct MonocularTrackingTests {
  @Test(.enabled(if: Datasets.exists("tabletop-mono"))) func tracksTheMonocularSession() throws {
    let (session, collector) = try FrameCollector.replay(Datasets.path("tabletop-mono"))
    let tracked = collector.records.filter { $0.state == .normal }
    #expect(Double(tracked.count) > 0.8 * Double(collector.records.count))
    let ate = try trackingError(collector.records, in: session, scale: true)
    #expect(ate.rmse < 0.03, "Sim(3) ATE \(ate.rmse) m")
  }

  /// Issue 13's pose from the first frame: before the map exists (the orbit translates from the start,
  /// too little for two views over the first 0.4 s, too much for a rotation alone) each frame is
  /// `limited(.initializing)` with its position held and its rotation turned by the gyroscope, so
  /// every frame has a pose in the trajectory; its rotation since the first frame is the truth's.
  @Test(.enabled(if: Datasets.exists("tabletop-mono"))) func everyFrameHasAPoseFromTheFirst() throws {
    let (session, collector) = try FrameCollector.replay(Datasets.path("tabletop-mono"))
    let trajectory = session.trajectory
    #expect(trajectory.map(\.frameIndex) == collector.records.map(\.frameIndex))
    let first = try #require(trajectory.first)
    let firstTruth = try #require(collector.records.first?.groundTruth)
    let initializing = collector.records.prefix { $0.state == .limited(.initializing) }
    #expect(initializing.count > 6)
    var worst = 0.0
    for (record, pose) in zip(initializing, trajectory) {
      let truth = try #require(record.groundTruth)
      let estimated =
        (first.worldFromCamera * opticalFromCamera).rotation.inverse
        * (pose.worldFromCamera * opticalFromCamera).rotation
      let error = (estimated * (firstTruth.rotation.inverse * truth.rotation).inverse).normalized
      worst = max(worst, min(error.angle, 2 * .pi - error.angle) * 180 / .pi)
    }
    // The gyroscope's frames are far within the bound; the map's first poses, fitted to the features,
    // come nearer it.
    #expect(worst < 1, "rotation off by \(worst)° while initialising")
  }
}

@Suite struct TrackingRobustnessTests {
  /// A recording whose depth is all unknown: tracking must not crash nor report a wild pose.
  @Test func depthAllUnknownGivesLimitedStates() throws {
    let folder = RecordingFixtures.temporaryFolder()
    let intrinsics = CameraIntrinsics(fx: 60, fy: 60, cx: 31.5, cy: 23.5, width: 64, height: 48)
    let writer = try RecordingWriter(
      folder: folder,
      session: RecordingSession(
        camera: intrinsics, frameRate: 10, sensors: .init(depth: true, accelerometer: false, gyroscope: false)
      ),
      writesGroundTruth: false)
    for i in 0..<6 {
      try writer.append(
        timestamp: Double(i) * 0.1, image: .rgb(RecordingFixtures.image(frame: i, width: 64, height: 48)),
        depth: DepthImage(width: 64, height: 48, fill: .nan), groundTruth: nil)
    }
    try writer.finish()
    let (_, collector) = try FrameCollector.replay(folder)
    #expect(collector.records.count == 6)
    #expect(collector.records.allSatisfy { $0.state != .normal })
    for record in collector.records {
      let position = record.transform.columns.3
      #expect(simd_length(SIMD3(position.x, position.y, position.z)) < 1e-6)
    }
  }

  @Test func jumpThresholdsFollowTheMotion() {
    let options = TrackerOptions()
    let last = RigidTransform.identity
    let step = RigidTransform(
      rotation: simd_quatd(angle: 0, axis: SIMD3(0, 1, 0)), translation: SIMD3(0.5, 0, 0))
    // Moving 0.5 m per frame: 0.2 m off the prediction is within half a step.
    #expect(
      !options.isJump(from: last, predicted: step, measured: RigidTransform(translation: SIMD3(0.7, 0, 0))))
    #expect(
      options.isJump(from: last, predicted: step, measured: RigidTransform(translation: SIMD3(0.8, 0, 0))))
    // At rest the fixed threshold holds.
    #expect(
      options.isJump(from: last, predicted: last, measured: RigidTransform(translation: SIMD3(0, 0.2, 0))))
    let turned = RigidTransform(rotation: simd_quatd(angle: 0.5, axis: SIMD3(0, 1, 0)), translation: .zero)
    #expect(options.isJump(from: last, predicted: last, measured: turned))
  }

  @Test func worldAxesFollowGravityAndTheFirstView() {
    // A camera pitched down by 30° sees up, in its optical frame (y down, z forward), tilted
    // towards -z: (0, -cos 30°, -sin 30°).
    let pitch = 30 * Double.pi / 180
    let up = SIMD3(0, -cos(pitch), -sin(pitch))
    let world = CameraTracker.world(up: up)
    #expect(simd_length(world.rotate(up) - SIMD3(0, 1, 0)) < 1e-9)
    // The forward direction (optical +z) lies in the vertical plane through world -z.
    let forward = world.rotate(SIMD3(0, 0, 1))
    #expect(abs(forward.x) < 1e-9)
    #expect(forward.z < 0)
  }
}

@Suite struct RelocalizationTests {
  /// After a pause of 20 frames (1.3 s) the tabletop's camera looks 20-30 degrees past the end of its
  /// map, and the IMU does not span a pause: nothing in view has been mapped. The session says so
  /// (limited(.relocalizing)) rather than resume in a false place: without the relocalisation view
  /// check, PnP can take a pose mirrored through the floor and track on from it. Any frame reported
  /// normal after the resume is in the map's world.
  /// Resuming where the map reaches: ``PauseRelocalizationTests``.
  @Test(.enabled(if: Datasets.exists("tabletop"))) func noFalsePoseAfterAPauseIntoAnUnmappedView() throws {
    let (collector, session) = try Self.pausedReplay("tabletop", mode: nil, frames: 20)
    let resumed = collector.records.drop { $0.timestamp <= 6.0 + 1e-6 }
    #expect(resumed.count > 30)
    #expect(resumed.first?.state == .limited(.relocalizing))
    let ate = try trackingError(
      collector.records.filter { $0.timestamp <= 6.0 + 1e-6 || $0.state == .normal }, in: session)
    #expect(
      ate.rmse < 0.015, "ATE over the frames before the pause and the normal ones after it: \(ate.rmse) m")
  }

  /// A pause of 5 frames (the camera moves about 13 cm and 10 degrees, its view still on the map): the
  /// session reports relocalizing until it recognises the scene against its keyframes, then normal,
  /// in the same world as before.
  @Test(.enabled(if: Datasets.exists("tabletop"))) func resumesAfterAPause() throws {
    let (ate, frames) = try Self.pauseAndResume("tabletop", mode: nil, frames: 5)
    #expect(frames <= 10, "normal again \(frames) frames after the resume")
    #expect(ate.rmse < 0.015, "ATE \(ate.rmse) m")
  }

  /// The same in monocular tracking (the tabletop's images without its depth): the keyframes' ORB
  /// features take the tracked landmarks' depths, and the relocalised pose's PnP inliers restart the
  /// tracks and the map in the same world (and scale), confirmed over 3 frames. Not met yet: on
  /// tabletop-mono (no depth at all) it does not recover; and the ATE across the pause (Sim(3)) is
  /// bounded at twice RGB-D's bound.
  @Test(.enabled(if: Datasets.exists("tabletop"))) func monocularResumesAfterAPause() throws {
    let (ate, frames) = try Self.pauseAndResume("tabletop", mode: .mono, frames: 5)
    #expect(frames <= 10, "normal again \(frames) frames after the resume")
    #expect(ate.rmse < 0.03, "Sim(3) ATE \(ate.rmse) m")
  }

  /// Replays `name`, paused at 6 s for `frames` frames (the camera moves on), and checks the resumed frames:
  /// relocalizing (monocular), then normal to the end. Returns the ATE over the frames before the pause and after
  /// recovery (one world throughout: one trajectory; Sim(3) in monocular mode) and how many frames
  /// after the resume the first normal one came.
  static func pauseAndResume(_ name: String, mode: TrackerOptions.Mode?, frames: Int) throws -> (
    ErrorStatistics, Int
  ) {
    let (collector, session) = try pausedReplay(name, mode: mode, frames: frames)
    let resumed = collector.records.drop { $0.timestamp <= 6.0 + 1e-6 }
    // RGB-D may relocalise on the first frame (PnP checked by the depth: normal at once); monocular
    // confirms a relocalised pose over 3 frames first.
    if mode == .mono { #expect(resumed.first?.state == .limited(.relocalizing)) }
    let recovered = try #require(resumed.firstIndex { $0.state == .normal }, "recovers")
    #expect(resumed[recovered].timestamp - resumed.first!.timestamp < 1.0)
    #expect(resumed[recovered...].allSatisfy { $0.state == .normal })
    let recoveredIndex = resumed[recovered].frameIndex
    let ate = try trackingError(
      collector.records.filter { $0.timestamp <= 6.0 + 1e-6 || $0.frameIndex >= recoveredIndex }, in: session,
      scale: mode == .mono)
    return (ate, recovered - resumed.startIndex)
  }

  /// Replays `name` to the end, paused at 6 s for `frames` frames (the camera moves on), with ground
  /// truth on every frame, before the pause too: an ATE then spans both sides of it, so a resume in
  /// another world (a false relocalisation) fails it. (Attached after the resume only, the ATE aligned
  /// the resumed frames on their own and passed a resume 2 m off the map's world.)
  static func pausedReplay(_ name: String, mode: TrackerOptions.Mode?, frames: Int) throws -> (
    FrameCollector, ARSession
  ) {
    let session = ARSession()
    let collector = FrameCollector()
    session.delegate = collector
    let configuration = ARWorldTrackingConfiguration()
    configuration.tracking.mode = mode
    session.run(configuration)
    let replay = try ARReplay(session: session, recording: Datasets.path(name))
    while replay.lastFrame.map({ $0.timestamp < 6.0 }) ?? true, try replay.step() != nil {
      collector.attachGroundTruth(replay.lastFrame?.groundTruth)
    }
    session.pause()
    try replay.step(frames: frames)
    session.run(configuration)
    while try replay.step() != nil { collector.attachGroundTruth(replay.lastFrame?.groundTruth) }
    return (collector, session)
  }
}

/// The median angle, degrees, between the up direction of each delivered pose and the true one (both
/// in the camera frame) over the frames tracked normally from 1 s on: issue 13's gravity error.
func gravityErrorMedian(_ records: [FrameCollector.Record], gravity: SIMD3<Double>) throws -> Double {
  let start = try #require(records.first?.timestamp)
  let angles = records.compactMap { record -> Double? in
    guard record.timestamp - start >= 1, let truth = record.groundTruth,
      case .normal = record.state
    else { return nil }
    let worldFromOptical = RigidTransform(matrix: record.transform) * opticalFromCamera
    let estimated = worldFromOptical.inverse.rotate(SIMD3(0, 1, 0))
    let expected = truth.inverse.rotate(-simd_normalize(gravity))
    return atan2(simd_length(simd_cross(estimated, expected)), simd_dot(estimated, expected)) * 180 / .pi
  }
  return try #require(ErrorStatistics(angles)).median
}

/// RGB-D on the phone-profile sessions (256x192 depth with noise growing with d², flying pixels,
/// rolling shutter, JPEG): landmarks refined over the keyframe window with their depths as priors,
/// features moved to where a global shutter would have seen them.
@Suite struct PhoneRGBDTrackingTests {
  /// The session's ATE, 1-frame RPE and median gravity error (world up is +y in the phone-profile
  /// sessions), replayed with the configuration `configure` sets.
  private func errors(
    _ name: String, _ configure: (ARWorldTrackingConfiguration) -> Void = { _ in }
  ) throws -> (ate: ErrorStatistics, rpe: ErrorStatistics, gravity: Double) {
    let configuration = ARWorldTrackingConfiguration()
    configure(configuration)
    let (session, collector) = try FrameCollector.replay(Datasets.path(name), configuration: configuration)
    #expect(collector.errors.isEmpty)
    return (
      try trackingError(collector.records, in: session),
      try frameToFrameError(collector.records, in: session),
      try gravityErrorMedian(collector.records, gravity: SIMD3(0, -1, 0))
    )
  }

  @Test(.enabled(if: Datasets.exists("door"))) func tracksTheDoorToTwoMillimetres() throws {
    let (ate, _, gravity) = try errors("door")
    // Landmarks refined over the keyframe window with their depths as priors, each feature's depth
    // fitted over the depth pixels around it (``TrackerOptions/RGBD/depthFitRadius``).
    #expect(ate.rmse < 0.0012, "ATE \(ate.rmse) m")
    // Issue 13's 0.15°, which needs the gravity estimator's velocity fits to take the samples' motion
    // (the hand shake between the 10 fps frames) out of them.
    #expect(gravity < 0.15, "gravity error median \(gravity)°")
  }

  /// KLT from frame to frame passes its error on along a track (a random walk); each track aligned to
  /// the patch where its landmark was made (``TrackerOptions/alignsFeatures``) keeps one frame's error,
  /// and the landmark the point that was measured. The room only: on the door's seeds alignment wins on
  /// average but not on every one, the bundled door among the exceptions (Tools/seed-figures.sh door).
  @Test(.enabled(if: Datasets.exists("room-phone"))) func alignedTracksTrackCloser() throws {
    let with = try errors("room-phone") { $0.tracking.alignsFeatures = true }.ate.rmse
    let without = try errors("room-phone") { $0.tracking.alignsFeatures = false }.ate.rmse
    #expect(with < 0.8 * without, "ATE \(with) m aligned against \(without) m")
  }

  /// Each frame's rotation held to the last keyframe's turned by the gyroscope
  /// (``TrackerOptions/RGBD/frameGyroscopeNoiseDegrees``): where the room's far wall fills the view,
  /// the features alone trade the rotation against the translation across it from frame to frame.
  @Test(.enabled(if: Datasets.exists("room-phone"))) func gyroscopeHoldsEachFramesRotation() throws {
    let with = try errors("room-phone")
    let without = try errors("room-phone") { $0.tracking.rgbd.frameGyroscopeNoiseDegrees = 0 }
    // The prior is for the frame-to-frame error; the ATE must not get markedly worse by it.
    #expect(
      with.rpe.rmse < 0.85 * without.rpe.rmse, "RPE \(with.rpe.rmse) m held against \(without.rpe.rmse) m")
    #expect(
      with.ate.rmse < without.ate.rmse * 1.05, "ATE \(with.ate.rmse) m held against \(without.ate.rmse) m")
  }

  /// The window's keyframes held to the gyroscope's turns between them
  /// (``TrackerOptions/RGBD/bundleGyroscopeNoiseDegrees``, with ``TrackerOptions/RGBD/gyroscopeAllowanceDegrees``):
  /// the map made while the room's far wall fills the view keeps its rotation, and gravity its level.
  @Test(.enabled(if: Datasets.exists("room-phone"))) func gyroscopeHoldsTheWindow() throws {
    let with = try errors("room-phone")
    let without = try errors("room-phone") { $0.tracking.rgbd.bundleGyroscopeNoiseDegrees = 0 }
    // The allowance keeps the prior from costing gravity.
    #expect(
      with.ate.rmse < 0.85 * without.ate.rmse, "ATE \(with.ate.rmse) m held against \(without.ate.rmse) m")
    #expect(
      with.gravity < without.gravity + 0.02, "gravity \(with.gravity)° held against \(without.gravity)°")
  }

  /// The room at 10 fps with a 20 ms readout and a hand-held camera turning up to about 1 rad/s.
  @Test(.enabled(if: Datasets.exists("room-phone"))) func undoesTheRollingShutterInTheRoom() throws {
    let (ate, _, gravity) = try errors("room-phone")
    // Issue 13's 2 mm: the shutter undone and each feature's depth fitted over the depth pixels
    // around it (past the shutter, the depth noise is what is left: other seeds give as much with a
    // global shutter).
    #expect(ate.rmse < 0.002, "ATE \(ate.rmse) m")
    // Issue 13's 0.15°: the shutter undone, the hand shake between the frames taken out of the
    // gravity estimator's velocity fits, the bias held over the whole session while gravity follows
    // the odometry's drift. (Until the camera has turned, about 4 s here, the bias across gravity is
    // not observable: those frames stay further off.)
    #expect(gravity < 0.15, "gravity error median \(gravity)°")
  }
}
