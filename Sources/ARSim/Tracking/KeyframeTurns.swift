import ARSimMath

/// The gyroscope's turn between consecutive keyframes of a bundle window, as a prior on their relative
/// rotation (``LocalBundleWindow/Turn``): the rates integrated since the last keyframe (trapezoid
/// rule), corrected by the gyroscope's bias. The bias is fitted to the keyframes' own
/// adjusted turns (the least-squares rate that takes the gyroscope's turns to them), so the prior
/// holds the window's relative rotations to the gyroscope's shape, not to its bias; its standard
/// deviation over `dt` seconds is √(n² dt + σ_b² dt²), n the gyroscope's angle random walk and σ_b the
/// fitted bias's standard deviation (from the scatter of the turns about the fit). No prior until the
/// fit has ``minPairs`` keyframe pairs over ``minSeconds``. A chain broken by a frame the features did
/// not measure (a prediction, a relocalisation, the camera off) gives no turn until the next keyframe.
/// Deterministic.
struct KeyframeTurns: Sendable {
  /// Keyframe pairs, and seconds spanned by them, the bias fit needs before it makes priors.
  var minPairs = 5
  var minSeconds = 1.0

  /// The last gyroscope sample, and the time up to which the rates are integrated.
  private var lastSample: (time: Double, rate: SIMD3<Double>)?
  private var integratedTime: Double?
  /// The raw gyroscope rotation from the current optical frame to the last keyframe's, and the
  /// seconds since it; nil when the chain is broken (or before the first keyframe).
  private var sinceKeyframe: (rotation: simd_quatd, seconds: Double)?
  /// The bias fit: sums over keyframe pairs of e·dt, dt², |e|² (e = log(G⁻¹ V), the adjusted turn
  /// V against the gyroscope's G, radians) and the pair count.
  private var errorTimesSeconds = SIMD3<Double>.zero
  private var squaredSeconds = 0.0
  private var squaredErrors = 0.0
  private var pairs = 0
  private var seconds = 0.0

  /// Adds the IMU samples recorded since the last call (those without a finite rate are skipped):
  /// the rate is taken to vary linearly between two samples (the trapezoid rule: a rate held over
  /// the interval before or after its sample shifts the turn by half a sample, which between two
  /// keyframes leaves the change of the rate times 5 ms at 100 Hz, several hundredths of a degree
  /// in a hand's motion).
  mutating func add(_ samples: [IMUSample]) {
    for sample in samples {
      guard let rate = sample.rotationRate, rate.x.isFinite, rate.y.isFinite, rate.z.isFinite else {
        continue
      }
      if let last = lastSample {
        guard sample.timestamp > last.time else { continue }
        let start = max(last.time, integratedTime ?? last.time)
        if sample.timestamp > start {
          // The mean of the linear rate over [start, sample]: its value at the midpoint.
          let mid = (start + sample.timestamp) / 2
          let f = (mid - last.time) / (sample.timestamp - last.time)
          integrate(last.rate + (rate - last.rate) * f, over: sample.timestamp - start)
        }
      }
      integratedTime = sample.timestamp
      lastSample = (sample.timestamp, rate)
    }
  }

  /// Turns the chain by `rate` held over `seconds`.
  private mutating func integrate(_ rate: SIMD3<Double>, over seconds: Double) {
    guard let chain = sinceKeyframe else { return }
    sinceKeyframe = (
      (chain.rotation * RigidTransform.expRotation(rate * seconds)).normalized, chain.seconds + seconds
    )
  }

  /// Integrates the rates up to the frame at `timestamp` (the last sample's rate held past it); call
  /// once per frame. Without a rate within `maxGap` seconds before it the chain breaks.
  mutating func frame(at timestamp: Double, maxGap: Double = 0.1) {
    guard let last = lastSample, let integrated = integratedTime, timestamp - last.time <= maxGap else {
      sinceKeyframe = nil
      return
    }
    if timestamp > integrated {
      integrate(last.rate, over: timestamp - integrated)
      integratedTime = timestamp
    }
  }

  /// The frame was not measured by the features (or the camera was off): no turn until the next
  /// keyframe.
  mutating func breakChain() { sinceKeyframe = nil }

  /// The camera was off: forgets the rates since the last frame too.
  mutating func reset() {
    lastSample = nil
    integratedTime = nil
    sinceKeyframe = nil
  }

  /// The fitted bias (rad/s, optical frame) and its variance per axis, once the fit is old enough.
  var bias: (rate: SIMD3<Double>, variance: Double)? {
    guard pairs >= minPairs, seconds >= minSeconds, squaredSeconds > 0 else { return nil }
    let rate = -errorTimesSeconds / squaredSeconds
    let residual =
      squaredErrors + 2 * simd_dot(rate, errorTimesSeconds) + simd_length_squared(rate) * squaredSeconds
    let perPair = max(0, residual) / (3 * Double(pairs - 1))
    return (rate, perPair / squaredSeconds)
  }

  /// The prior from the last keyframe to the current frame (should it become a keyframe), or nil, for a
  /// gyroscope of angle random walk `noise` (radians per √s).
  func turn(noise: Double) -> LocalBundleWindow.Turn? {
    guard let chain = sinceKeyframe, chain.seconds > 0, let bias else { return nil }
    let dt = chain.seconds
    let corrected = chain.rotation * RigidTransform.expRotation(-bias.rate * dt)
    let sigma = (noise * noise * dt + bias.variance * dt * dt).squareRoot()
    guard sigma > 0 else { return nil }
    return LocalBundleWindow.Turn(previousFromThis: corrected.normalized, sigma: sigma)
  }

  /// A keyframe was made at the current frame, and its turn from the previous keyframe as adjusted
  /// is `adjusted` (nil: unknown): the bias fit takes the pair, and the chain restarts here.
  mutating func keyframeMade(adjusted: simd_quatd?) {
    if let chain = sinceKeyframe, let adjusted, chain.seconds > 0 {
      let e = RigidTransform.logRotation(chain.rotation.inverse * adjusted)
      errorTimesSeconds += e * chain.seconds
      squaredSeconds += chain.seconds * chain.seconds
      squaredErrors += simd_length_squared(e)
      seconds += chain.seconds
      pairs += 1
    }
    sinceKeyframe = (simd_quatd(ix: 0, iy: 0, iz: 0, r: 1), 0)
  }
}
