import ARSimMath

/// The IMU's prediction of the camera's pose across a gap in the frames (dropped frames, a gap in the
/// recording), a prior for relocalisation after it: a relocalised pose far from where the inertial
/// samples put the camera is a false match (a repeated texture one period away), however well its
/// features agree. Dead reckoning from the last frame's pose and velocity: the gyroscope's rates
/// integrated into the orientation, and the accelerometer's specific force, unbiased and rotated into
/// O with gravity added (the accelerometer reads `f = Rᵀ(a − g) + b`, ``GravityEstimator``),
/// integrated twice into the position. Without gravity (no accelerometer, or no estimate yet) only
/// the orientation is predicted; without samples spanning the gap (a pause, whose frames and
/// samples are dropped) nothing is. Each sample's rate and force hold over the interval that ends at
/// its timestamp (``GyroIntegrator``'s convention). Deterministic.
struct GapPrediction {
  /// Gravity in O (m/s², pointing down), the accelerometer's bias (sensor frame) and the standard
  /// deviation of gravity's direction, degrees: ``GravityEstimator/Estimate``'s.
  struct Gravity {
    var inO: SIMD3<Double>
    var bias: SIMD3<Double>
    var uncertaintyDegrees: Double
  }

  /// The time the prediction starts from (the last frame before the gap), seconds.
  let start: Double
  private let gravity: Gravity?
  private let options: TrackerOptions.Relocalization
  /// The time integrated to, seconds.
  private var time: Double
  /// O from the optical frame at `time`.
  private var rotation: simd_quatd
  private var position: SIMD3<Double>
  private var velocity: SIMD3<Double>
  private var lastRate: SIMD3<Double>?
  private var lastAcceleration: SIMD3<Double>?
  /// Whether the translation is still predicted (every sample so far had a force).
  private var hasTranslation: Bool
  /// Whether the samples spanned the time so far (none further than
  /// ``TrackerOptions/Relocalization/maxSampleGap`` apart).
  private var isContinuous = true

  /// The frame before the last, for the velocity the prediction starts with: its time and pose,
  /// and the IMU samples recorded between it and the last frame.
  struct Step {
    var time: Double
    var oFromOptical: RigidTransform
    var samples: [IMUSample]
  }

  /// A prediction from the frame at `time` at `oFromOptical`, with `gravity` (nil: orientation only).
  /// The velocity it starts with comes from the frame before, `previous` (nil: unknown, orientation
  /// only): ``velocity(at:oFromOptical:previous:gravity:)``.
  init(
    time: Double, oFromOptical: RigidTransform, previous: Step?, gravity: Gravity?,
    options: TrackerOptions.Relocalization
  ) {
    start = time
    self.time = time
    rotation = oFromOptical.rotation
    position = oFromOptical.translation
    self.gravity = gravity
    self.options = options
    let velocity = gravity.flatMap { gravity in
      previous.flatMap { Self.velocity(at: time, oFromOptical: oFromOptical, previous: $0, gravity: gravity) }
    }
    self.velocity = velocity ?? .zero
    hasTranslation = velocity != nil
  }

  /// The velocity in O at the last frame (`time`, `oFromOptical`): the mean velocity since the frame
  /// before, `Δp/Δt`, is the one at the interval's middle, which the acceleration changes by the end:
  /// `v = Δp/Δt + (1/Δt)∫(s − t₀)·a(s) ds` over the interval (t₀ its start; `a` from the samples in it,
  /// rotated by the orientation interpolated between the two poses). Nil when the interval is empty
  /// or a sample lacks a force.
  static func velocity(
    at time: Double, oFromOptical: RigidTransform, previous: Step, gravity: Gravity
  ) -> SIMD3<Double>? {
    let interval = time - previous.time
    guard interval > 0 else { return nil }
    var moment = SIMD3<Double>.zero
    var integrated = previous.time
    for sample in previous.samples where sample.timestamp > integrated && sample.timestamp <= time {
      guard let force = finite(sample.acceleration) else { return nil }
      let middle = (integrated + sample.timestamp) / 2
      let rotation = simd_slerp(
        previous.oFromOptical.rotation, oFromOptical.rotation, (middle - previous.time) / interval)
      let acceleration = rotation.act(force - gravity.bias) + gravity.inO
      moment += acceleration * (middle - previous.time) * (sample.timestamp - integrated)
      integrated = sample.timestamp
    }
    return (oFromOptical.translation - previous.oFromOptical.translation) / interval + moment / interval
  }

  /// `vector` when every component is a finite number, else nil.
  private static func finite(_ vector: SIMD3<Double>?) -> SIMD3<Double>? {
    guard let vector, vector.x.isFinite, vector.y.isFinite, vector.z.isFinite else { return nil }
    return vector
  }

  /// Integrates the samples recorded since the last call (those not after the integrated time are
  /// ignored; one without a rate ends the prediction, one without a force its translation).
  mutating func add(_ samples: [IMUSample]) {
    for sample in samples where sample.timestamp > time {
      guard let rate = sample.rotationRate, rate.x.isFinite, rate.y.isFinite, rate.z.isFinite,
        sample.timestamp - time <= options.maxSampleGap
      else {
        isContinuous = false
        return
      }
      // A force not recorded, or not a number (from a programmatic source), ends the translation.
      let force = Self.finite(sample.acceleration)
      if force == nil { hasTranslation = false }
      step(to: sample.timestamp, rate: rate, force: force)
    }
  }

  /// One interval ending at `end` with the rate and force held over it.
  private mutating func step(to end: Double, rate: SIMD3<Double>, force: SIMD3<Double>?) {
    let dt = end - time
    rotation = (rotation * RigidTransform.expRotation(rate * dt)).normalized
    if hasTranslation, let gravity, let force {
      let acceleration = rotation.act(force - gravity.bias) + gravity.inO
      position += velocity * dt + 0.5 * acceleration * dt * dt
      velocity += acceleration * dt
    }
    time = end
    lastRate = rate
    lastAcceleration = force
  }

  /// Whether `oFromOptical` at `timestamp` (a relocalised pose) agrees with the prediction: its
  /// rotation within ``TrackerOptions/Relocalization/gapRotationSigmaDegrees`` (per second of gap, and
  /// a floor of one second's worth) times ``TrackerOptions/Relocalization/gapSigmas``, and, where the
  /// translation is predicted, its position within that many of the prediction's standard deviation
  /// (``translationSigma(over:)``). True when nothing is predicted (no samples across the gap).
  func agrees(with oFromOptical: RigidTransform, at timestamp: Double) -> Bool {
    guard let (predicted, sigma) = prediction(at: timestamp) else { return true }
    let seconds = max(1, timestamp - start)
    let rotationBound = options.gapSigmas * options.gapRotationSigmaDegrees * seconds * .pi / 180
    guard (predicted.inverse * oFromOptical).angle <= rotationBound else { return false }
    guard let sigma else { return true }
    return simd_length(oFromOptical.translation - predicted.translation) <= options.gapSigmas * sigma
  }

  /// The predicted pose at `timestamp` (the last sample's rate and force held to it; the pose at the
  /// last sample when that is later, by rounding) and the translation's standard deviation (nil when
  /// not predicted); nil without samples spanning the time.
  func prediction(at timestamp: Double) -> (oFromOptical: RigidTransform, translationSigma: Double?)? {
    guard isContinuous, let lastRate, timestamp - time <= options.maxSampleGap else {
      return nil
    }
    var held = self
    if timestamp > time { held.step(to: timestamp, rate: lastRate, force: lastAcceleration) }
    let pose = RigidTransform(rotation: held.rotation, translation: held.position)
    return (pose, held.hasTranslation ? translationSigma(over: timestamp - start) : nil)
  }

  /// The translation's standard deviation after `seconds`: the start velocity's error
  /// (``TrackerOptions/Relocalization/gapVelocitySigma``) times the time, and half the acceleration's
  /// error (gravity's direction error times g, plus
  /// ``TrackerOptions/Relocalization/gapAccelerationSigma`` for the bias and noise) times its square.
  func translationSigma(over seconds: Double) -> Double {
    let gravityError =
      gravity.map { simd_length($0.inO) * sin(min(90, $0.uncertaintyDegrees) * .pi / 180) } ?? 0
    let acceleration = gravityError + options.gapAccelerationSigma
    return options.gapPositionSigma + options.gapVelocitySigma * seconds
      + 0.5 * acceleration * seconds * seconds
  }
}
