import ARSimMath
import Foundation

/// A Kalman filter on the camera's position and velocity (odometry frame O), driven by the
/// accelerometer when gravity in O is known and by a constant-velocity model otherwise, and
/// corrected by measured positions (a depth alignment's).
///
/// The three axes share one model (the same transition, process and measurement noise), so one
/// 2x2 covariance (position, velocity) serves them all. The measurement noise is learnt from the
/// innovations (their running mean square less the prediction's variance), so exact depth is
/// followed closely and noisy phone depth is smoothed; an innovation beyond ``gate`` standard
/// deviations is down-weighted in proportion (a robust update), so a single wrong alignment moves
/// the estimate little. Deterministic; not thread-safe.
struct PositionFilter: Sendable {
  /// Position in O, metres.
  private(set) var position: SIMD3<Double>
  /// Velocity in O, m/s.
  private(set) var velocity = SIMD3<Double>.zero
  /// Covariance of one axis: position², position·velocity, velocity².
  private var pp: Double
  private var pv = 0.0
  private var vv: Double
  /// Running mean square of one axis' innovation, metres².
  private var innovationSquare: Double
  /// The noise settings.
  let noise: Noise
  private let restartSpeed: Double

  /// The filter's noise settings.
  struct Noise: Sendable {
    /// Acceleration noise with the accelerometer (its noise, the bias left and gravity's error:
    /// about a degree), m/s².
    var measuredAcceleration = 0.2
    /// Acceleration noise without it (a hand-held camera's acceleration), m/s².
    var unmeasuredAcceleration = 3.0
    /// Smallest measurement standard deviation, metres (a depth alignment on exact depth).
    var minMeasurement = 0.0005
    /// Largest measurement standard deviation, metres (the filter trusts its prediction no more than this).
    var maxMeasurement = 0.02
    /// Innovations beyond this many standard deviations restart the filter at the measurement (the
    /// prediction, not the measurement, is then what went wrong).
    var restartGate = 8.0
    /// Measurement standard deviation before any innovation is seen, metres.
    var initialMeasurement = 0.005
    /// Seconds over which the innovations' mean square is averaged.
    var innovationSeconds = 1.0
    /// Innovations beyond this many standard deviations (one axis) are down-weighted.
    var gate = 3.0
  }

  /// A filter at `position`, at rest to within `initialSpeed` m/s.
  init(position: SIMD3<Double>, noise: Noise, initialSpeed: Double = 0.5) {
    restartSpeed = initialSpeed
    self.position = position
    self.noise = noise
    pp = 0
    vv = initialSpeed * initialSpeed
    innovationSquare = noise.initialMeasurement * noise.initialMeasurement
  }

  /// Moves the state on by `dt` seconds under `acceleration` (O, m/s²; nil: constant velocity).
  mutating func predict(dt: Double, acceleration: SIMD3<Double>?) {
    guard dt > 0 else { return }
    let a = acceleration ?? .zero
    position += velocity * dt + 0.5 * dt * dt * a
    velocity += dt * a
    let sigma = acceleration == nil ? noise.unmeasuredAcceleration : noise.measuredAcceleration
    let q = sigma * sigma
    let newPP = pp + 2 * dt * pv + dt * dt * vv + q * dt * dt * dt * dt / 4
    let newPV = pv + dt * vv + q * dt * dt * dt / 2
    vv += q * dt * dt
    pp = newPP
    pv = newPV
  }

  /// The measurement standard deviation in use, metres.
  var measurementSigma: Double {
    min(noise.maxMeasurement, max(noise.minMeasurement, (max(innovationSquare - pp, 0)).squareRoot()))
  }

  /// Corrects the state with a measured position (O) taken `dt` seconds after the last one.
  mutating func update(measured: SIMD3<Double>, dt: Double) {
    let r = measurementSigma * measurementSigma
    var s = pp + r
    let innovation = measured - position
    let perAxis = simd_length_squared(innovation) / 3
    let limit = noise.gate * noise.gate * s
    if perAxis > noise.restartGate * noise.restartGate * s {
      position = measured
      velocity = .zero
      pp = r
      pv = 0
      vv = restartSpeed * restartSpeed
      return
    }
    // Robust: an innovation beyond the gate counts as one at the gate (its noise inflated).
    let inflation = perAxis > limit ? perAxis / limit : 1
    s = pp + r * inflation
    let fade = min(1, dt / noise.innovationSeconds)
    innovationSquare += fade * (min(perAxis, limit) - innovationSquare)
    let kp = pp / s
    let kv = pv / s
    position += kp * innovation
    velocity += kv * innovation
    let newPV = pv - kp * pv
    vv -= kv * pv
    pp -= kp * pp
    pv = newPV
  }

  /// Stops the camera (no measurement for long: the velocity is no longer known).
  mutating func stop() { velocity = .zero }
}
