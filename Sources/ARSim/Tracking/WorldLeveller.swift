import ARSimMath

/// Keeps the session world level for the whole session: fixes it from the first accelerometer
/// samples, refines gravity from every sample after (``GravityEstimator``) and re-levels the world
/// whenever the estimate has moved by ``TrackerOptions/relevelDegrees`` since the last level, while the
/// world is provisional or, with ``TrackerOptions/relevelsOnceSettled``, for the whole session (each
/// re-level is a rotation about the origin that the session applies to planes and anchors too). The
/// origin stays the first camera; -z stays the first camera's forward direction projected onto the
/// horizontal plane. Without an accelerometer the world is levelled from the reference trajectory and
/// its stated gravity (``referenceSeconds``), or else with the first camera assumed upright; after
/// that the depth's level surfaces hold it as the odometry's orientation drifts (``SurfaceUp``,
/// ``TrackerOptions/SurfaceLevel``).
/// Corrections from elsewhere (``applyWorldCorrection(_:)``) compose with the levelling. Not
/// thread-safe.
struct WorldLeveller {
  /// What one frame did to the world.
  struct Update {
    /// The session world from O after this frame; nil until the world is fixed.
    var worldFromO: RigidTransform?
    /// The new world from the previous one when this frame re-levelled it (a rotation about the
    /// origin), else nil.
    var correction: RigidTransform?
  }

  private(set) var estimator = GravityEstimator()
  /// The estimator's estimate after the last frame (``update(_:oFromOptical:measured:depth:info:options:)``
  /// solves it once; it changes only there).
  private(set) var estimate: GravityEstimator.Estimate?
  /// Where gravity came from, once known.
  private(set) var source: GravitySource?
  /// Up in O, once known.
  private(set) var upInO: SIMD3<Double>?
  private(set) var worldFromO: RigidTransform?
  /// The corrections applied from elsewhere (``applyWorldCorrection(_:)``), composed: the world is
  /// `adjustment * level(up)`.
  private var adjustment = RigidTransform.identity
  /// Whether the world is past its provisional start (``TrackerOptions/gravityWindow`` after the first
  /// frame and gravity known to ``TrackerOptions/gravitySettledDegrees``), or was fixed without an
  /// accelerometer. Stays true once true.
  private(set) var isSettled = false

  /// Takes one frame: its recorded data, the odometry's pose in O, and whether the pose was measured.
  mutating func update(
    _ frame: RecordedFrame, oFromOptical: RigidTransform, measured: Bool, depth: FrameDepth? = nil,
    info: RecordingInfo, options: TrackerOptions
  ) -> Update {
    guard info.hasAccelerometer else {
      return levelWithoutAccelerometer(
        frame, oFromOptical: oFromOptical, measured: measured, depth: depth, info: info, options: options)
    }
    if startTime == nil {
      estimator.driftDegrees = options.gravityDriftDegrees
      estimator.learnsNoise = true
      let filter = options.gravityFilter
      estimator.segmentSeconds = filter.segmentSeconds
      estimator.velocityHalfWindow = filter.velocityHalfWindow
      if options.mode == .mono {
        estimator.scalePriorSigma = filter.monocularScalePriorSigma
        estimator.scaleDrift = filter.monocularScaleDrift
      }
    }
    if measured {
      estimator.add(time: frame.timestamp, oFromOptical: oFromOptical, samples: frame.imu)
    } else {
      estimator.breakChain()
    }
    estimate = estimator.estimate
    var correction: RigidTransform?
    if let estimate {
      let length = simd_length(estimate.gravity)
      if length > 7, length < 12.5 {
        let up = -estimate.gravity / length
        if let old = upInO, let previous = worldFromO {
          let follows = !isSettled || options.relevelsOnceSettled
          if follows, angleDegrees(old, up) >= options.relevelDegrees {
            fix(up: up, source: .accelerometer)
            correction = worldFromO! * previous.inverse
          }
        } else {
          fix(up: up, source: .accelerometer)
        }
      }
    } else if worldFromO == nil, let up = firstUp(frame, oFromOptical: oFromOptical) {
      // Until a segment closes: the frame's samples rotated into O, linear acceleration neglected.
      fix(up: up, source: .accelerometer)
    }
    let elapsed = frame.timestamp - (startTime ?? frame.timestamp)
    if worldFromO == nil, elapsed >= options.gravityWindow {
      // The accelerometer does not read like gravity (wrong units or a broken sensor).
      fix(up: SIMD3(0, -1, 0), source: .assumedUpright)
    }
    let known = (estimate?.uncertaintyDegrees ?? .infinity) <= options.gravitySettledDegrees
    if elapsed >= options.gravityWindow && (known || elapsed >= 10 * options.gravityWindow) {
      isSettled = true
    }
    startTime = startTime ?? frame.timestamp
    return Update(worldFromO: worldFromO, correction: correction)
  }

  private var startTime: Double?

  /// Up in O from one frame's samples (their mean specific force rotated into O), when they read like
  /// gravity.
  private func firstUp(_ frame: RecordedFrame, oFromOptical: RigidTransform) -> SIMD3<Double>? {
    let forces = frame.imu.compactMap(\.acceleration)
    guard !forces.isEmpty else { return nil }
    let mean = oFromOptical.rotate(forces.reduce(.zero, +) / Double(forces.count))
    let length = simd_length(mean)
    return length > 7 && length < 12.5 ? mean / length : nil
  }

  /// Moves the world by a rigid correction (`newWorldFromOld`) from outside the levelling (a map
  /// correction); ignored before the world is fixed. It should keep up up (a turn about the vertical and
  /// a translation): a tilt would be undone by the next re-level.
  mutating func applyWorldCorrection(_ correction: RigidTransform) {
    guard let world = worldFromO else { return }
    adjustment = correction * adjustment
    worldFromO = correction * world
  }

  private mutating func fix(up: SIMD3<Double>, source: GravitySource) {
    upInO = simd_normalize(up)
    worldFromO = adjustment * CameraTracker.world(up: up)
    self.source = source
  }

  /// Seconds from the first frame during which, without an accelerometer, the reference's up is
  /// gathered (each frame's reference orientation carries the stated gravity into O through the
  /// tracked pose) and the world re-levelled to their consensus. One frame alone can be wrong where
  /// the others agree: where a capture's first depth map does not register with the second (it reads
  /// the room nearer), the tracked first step is off, and a world levelled from the first frame alone
  /// stays tilted by its error
  /// (`ARKitScenesReplayTests.theWorldIsLevelledFromTheReferencesConsensus`).
  static let referenceSeconds = 1.0
  /// Up in O from each frame of the first ``referenceSeconds`` that had a reference pose and a
  /// measured pose.
  private var referenceUps: [SIMD3<Double>] = []

  /// Without an accelerometer: with a reference trajectory and its gravity, the world is fixed from
  /// the first frame that has a reference pose and re-levelled to the consensus of the first
  /// ``referenceSeconds`` (``consensus(_:)``) whenever it moves by ``TrackerOptions/relevelDegrees``;
  /// until a reference pose comes, the first camera is assumed upright. The world is never provisional
  /// (tracking is not held in `initializing`); a re-level is a correction.
  private mutating func levelWithoutAccelerometer(
    _ frame: RecordedFrame, oFromOptical: RigidTransform, measured: Bool, depth: FrameDepth?,
    info: RecordingInfo, options: TrackerOptions
  ) -> Update {
    startTime = startTime ?? frame.timestamp
    defer { previousTime = frame.timestamp }
    isSettled = true
    let inWindow = frame.timestamp - startTime! <= Self.referenceSeconds
    let referenced = info.groundTruthGravity != nil && frame.groundTruth != nil && inWindow
    if !referenced, worldFromO != nil, measured, let depth {
      return follow(depth, oFromOptical: oFromOptical, time: frame.timestamp, options: options)
    }
    guard let gravity = info.groundTruthGravity, let truth = frame.groundTruth, inWindow,
      measured || worldFromO == nil
    else {
      if worldFromO == nil { fix(up: SIMD3(0, -1, 0), source: .assumedUpright) }
      return Update(worldFromO: worldFromO, correction: nil)
    }
    // Up in this optical frame from the reference, then in O through the tracked pose.
    referenceUps.append(oFromOptical.rotate(truth.inverse.rotate(-gravity)))
    let up = Self.consensus(referenceUps)
    if let old = upInO, source == .groundTruth, angleDegrees(old, up) < options.relevelDegrees {
      return Update(worldFromO: worldFromO, correction: nil)
    }
    let previous = worldFromO
    fix(up: up, source: .groundTruth)
    return Update(worldFromO: worldFromO, correction: previous.map { worldFromO! * $0.inverse })
  }

  /// The last frame's time (without an accelerometer).
  private var previousTime: Double?
  /// Up in O as the level surfaces hold it (``follow(_:oFromOptical:time:options:)``), once they do.
  private var surfaceUp: SIMD3<Double>?

  /// Without an accelerometer, once the start's level is fixed: the level follows the up that the
  /// depth's level surfaces observe (``SurfaceUp``), each frame's observation weighed by its interval
  /// over ``TrackerOptions/SurfaceLevel/timeConstant``, and the world is re-levelled whenever that has
  /// moved by ``TrackerOptions/SurfaceLevel/relevelDegrees`` since the last level.
  ///
  /// The tilt it corrects is the odometry's orientation drift since the last level, which lives in the
  /// newest poses, not in what was mapped before: the re-level turns the world's placement over O
  /// about the camera (which keeps its position) and is no world correction (``Update/correction`` nil),
  /// as a roll and pitch prior on the newest pose would correct it. Planes, anchors and poses mapped
  /// before were level when they were mapped and stay; turning them about the origin by drift that
  /// came later tilts old planes (`RealCaptureGravityTests.arkitScenesIsReadRightSideUp` checks that no
  /// delivered pose moves afterwards).
  private mutating func follow(
    _ depth: FrameDepth, oFromOptical: RigidTransform, time: Double, options: TrackerOptions
  ) -> Update {
    let settings = options.surfaceLevel
    guard settings.isEnabled, let up = upInO, let previous = worldFromO,
      let observation = SurfaceUp.observe(
        depth.map, intrinsics: depth.depthIntrinsics, expectedUp: oFromOptical.inverse.rotate(up),
        options: settings)
    else { return Update(worldFromO: worldFromO, correction: nil) }
    let observed = oFromOptical.rotate(observation.up)
    let next = SurfaceUp.step(
      from: surfaceUp ?? up, towards: observed, pixels: observation.pixels,
      interval: previousTime.map { time - $0 } ?? 0, options: settings)
    surfaceUp = next
    guard angleDegrees(next, up) >= settings.relevelDegrees else {
      return Update(worldFromO: worldFromO, correction: nil)
    }
    fix(up: next, source: .surfaces)
    // The turn about the origin of the world moved to turn about the camera.
    let camera = previous.apply(to: oFromOptical.translation)
    let shift = RigidTransform(translation: camera - worldFromO!.apply(to: oFromOptical.translation))
    adjustment = shift * adjustment
    worldFromO = shift * worldFromO!
    return Update(worldFromO: worldFromO, correction: nil)
  }

  /// The direction most of `ups` (unit vectors) agree on: the one with the least summed angle to the
  /// others (the first of equals), averaged with those within 2 degrees of it.
  static func consensus(_ ups: [SIMD3<Double>]) -> SIMD3<Double> {
    let medoid = ups.min { a, b in
      ups.reduce(0) { $0 + angleDegrees(a, $1) } < ups.reduce(0) { $0 + angleDegrees(b, $1) }
    }!
    return simd_normalize(ups.filter { angleDegrees($0, medoid) <= 2 }.reduce(.zero, +))
  }
}

/// The angle between two unit vectors, degrees.
private func angleDegrees(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double {
  atan2(simd_length(simd_cross(a, b)), simd_dot(a, b)) * 180 / .pi
}
