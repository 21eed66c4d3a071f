import ARSimMath
import Foundation

/// Gravity and the accelerometer's bias estimated from every accelerometer sample of a session,
/// rotated into the odometry frame O by the tracked orientation (interpolated to each sample's time).
///
/// The accelerometer reads `f = Rᵀ(a − g) + b` (R: O from the optical frame, `a` the camera's linear
/// acceleration in O, `g` gravity in O, `b` the bias in the sensor's frame), so the camera's position
/// over a segment `[t₀, t₁]` of length T is `p₁ = p₀ + v₀T + ∫(t₁ − s)(R f − R b + g) ds`. Two
/// consecutive segments of about ``segmentSeconds`` share a frame; eliminating that frame's unknown
/// velocity between them leaves three linear equations in `(g, b)` whose only inputs are the tracked
/// positions at the three frames and the rotated samples: no velocity is differentiated out of the
/// positions, and the samples cover exactly the time between the frames (the last sample before a
/// frame is held up to it). Each triple is one update of a Kalman filter over `(g, b)`, weighted by
/// ``positionSigma``; the bias has a zero-mean prior of ``biasPriorSigma`` and stays (it is a property
/// of the sensor), while gravity in O may walk by ``driftDegreesPerRootSecond`` (the odometry's
/// orientation drifts, so the gravity the current camera needs is not the session's average). The bias
/// separates from gravity as the camera turns. Not thread-safe; deterministic.
package struct GravityEstimator: Sendable {
  /// The estimate: gravity in O (m/s², pointing down), the bias (m/s², sensor frame), and the
  /// standard deviation of gravity's direction in degrees (from the filter's covariance, scaled by
  /// how well the equations agreed).
  package struct Estimate: Sendable, Equatable {
    package var gravity: SIMD3<Double>
    package var bias: SIMD3<Double>
    package var uncertaintyDegrees: Double
    /// Seconds of samples behind it.
    package var seconds: Double
  }

  /// Seconds per segment (two consecutive segments make one update). Default 0.25.
  package var segmentSeconds = 0.25
  /// Standard deviation of one tracked position, metres (frame-to-frame noise, not drift). Default 0.001.
  package var positionSigma = 0.001
  /// Prior standard deviation of each bias component, m/s² (phones: a few hundredths). Default 0.1.
  package var biasPriorSigma = 0.1
  /// Random walk of gravity's direction in O, degrees per square root of a second: the slow drift of
  /// the odometry's orientation, which the estimate follows so that the world stays level under the
  /// current camera. Nil: gravity in O is constant and every update weighs the same.
  package var driftDegreesPerRootSecond: Double? = nil

  /// One frame at a segment boundary of the current chain, with the integrals of the rotated samples
  /// since the chain began: `force = ∫R f`, `rotation = ∫R`, and their first moments `∫(s − t₀)R f`,
  /// `∫(s − t₀)R` (t₀ the chain's first frame).
  private struct Node {
    var time: Double
    var position: SIMD3<Double>
    var force = SIMD3<Double>.zero
    var rotation = simd_double3x3()
    var forceMoment = SIMD3<Double>.zero
    var rotationMoment = simd_double3x3()
  }

  /// The last two segment boundaries of the chain (oldest first).
  private var boundaries: [Node] = []
  /// The integrals up to the last frame added, and that frame's orientation.
  private var current: Node?
  private var currentRotation = simd_quatd(ix: 0, iy: 0, iz: 0, r: 1)
  private var chainStart = 0.0
  /// The last sample integrated and its specific force (held up to the next frame's time).
  private var lastSample: (time: Double, force: SIMD3<Double>)?
  /// The filter's state `(g, b)` and its covariance (6x6, row-major).
  private var state = [Double](repeating: 0, count: 6)
  private var covariance = [Double](repeating: 0, count: 36)
  /// Updates made, the sum of their squared normalised innovations (for the uncertainty's scale) and
  /// the time of the last update.
  private var updates = 0
  private var innovations = 0.0
  private var lastUpdateTime: Double?
  private var seconds = 0.0

  /// Gravity's prior standard deviation per component, m/s² (uninformative).
  private static let gravityPriorSigma = 100.0
  /// Standard gravity, m/s², which turns the direction's walk into one of the vector.
  private static let standardGravity = 9.80665
  /// Samples further apart than this (seconds) break the chain: the time between them is not covered.
  private static let maxSampleGap = 0.1
  /// Innovations beyond this many standard deviations are left out (``maxRejectedInARow`` at most).
  private static let gate = 6.0
  private static let maxRejectedInARow = 3
  private var rejectedInARow = 0

  /// An estimator with no evidence.
  package init() {}

  /// Whether any update has been made.
  package var hasEstimate: Bool { updates > 0 }

  /// Adds a tracked frame at `time` with `oFromOptical` and the accelerometer samples since the
  /// previous frame (those with timestamps in (previous time, `time`], as readers deliver them); the
  /// chain's first frame only starts it (its samples are dropped). Frames without a measured pose
  /// should go to ``breakChain()`` instead.
  package mutating func add(time: Double, oFromOptical: RigidTransform, samples: [IMUSample]) {
    guard var node = current else {
      start(time: time, oFromOptical: oFromOptical, samples: samples)
      return
    }
    guard time > node.time else { return }
    let (t0, r0, r1) = (node.time, currentRotation, oFromOptical.rotation)
    // Each sample's force holds over the interval since the one before; the piece of an interval
    // before this chain's first sample is the frame's (from its time).
    func integrate(from a: Double, to b: Double, _ f: SIMD3<Double>) {
      let middle = (a + b) / 2
      let rotation = simd_double3x3(simd_slerp(r0, r1, min(1, max(0, (middle - t0) / (time - t0)))))
      let dt = b - a
      let rotated = rotation * f
      node.force += rotated * dt
      node.rotation += rotation * dt
      node.forceMoment += rotated * ((middle - chainStart) * dt)
      node.rotationMoment += rotation * ((middle - chainStart) * dt)
    }
    var last = lastSample
    for sample in samples {
      guard let f = sample.acceleration, sample.timestamp > (last?.time ?? t0),
        sample.timestamp <= time + 1e-9
      else { continue }
      integrate(from: max(last?.time ?? t0, t0), to: sample.timestamp, f)
      last = (sample.timestamp, f)
    }
    guard let held = last, time - held.time <= Self.maxSampleGap else {
      // No samples for a while: the time since is not covered; start again from this frame.
      breakChain()
      start(time: time, oFromOptical: oFromOptical, samples: [])
      return
    }
    if time > held.time { integrate(from: max(held.time, t0), to: time, held.force) }
    lastSample = held
    node.time = time
    node.position = oFromOptical.translation
    current = node
    currentRotation = r1
    guard let boundary = boundaries.last, time - boundary.time >= segmentSeconds else { return }
    if boundaries.count == 2 {
      update(boundaries[0], boundaries[1], node)
      boundaries.removeFirst()
    }
    boundaries.append(node)
  }

  private mutating func start(time: Double, oFromOptical: RigidTransform, samples: [IMUSample]) {
    let node = Node(time: time, position: oFromOptical.translation)
    current = node
    currentRotation = oFromOptical.rotation
    boundaries = [node]
    chainStart = time
    lastSample = samples.last { $0.acceleration != nil && $0.timestamp <= time }.map {
      ($0.timestamp, $0.acceleration!)
    }
  }

  /// Ends the chain (a frame without a measured pose): the open segments are dropped.
  package mutating func breakChain() {
    boundaries.removeAll()
    current = nil
    lastSample = nil
  }

  /// One Kalman update from the boundaries `a`, `b`, `c`: `b`'s velocity eliminated between the
  /// segments `[a, b]` and `[b, c]`, it reads
  /// `(p_c − p_b)/T₂ − (p_b − p_a)/T₁ − I₁ − D₂/T₂ + D₁/T₁ = g(T₁ + T₂)/2 − (M₁ + E₂/T₂ − E₁/T₁) b`
  /// with `I = ∫R f`, `M = ∫R` over a segment and `D = ∫(t_end − s)R f`, `E = ∫(t_end − s)R` its
  /// double integrals.
  private mutating func update(_ a: Node, _ b: Node, _ c: Node) {
    let (t1, t2) = (b.time - a.time, c.time - b.time)
    guard t1 > 0, t2 > 0 else { return }
    // Double integrals over a segment from the cumulative integrals and moments.
    func double(_ from: Node, _ to: Node) -> (SIMD3<Double>, simd_double3x3) {
      let end = to.time - chainStart
      return (
        (to.force - from.force) * end - (to.forceMoment - from.forceMoment),
        (to.rotation - from.rotation) * end - (to.rotationMoment - from.rotationMoment)
      )
    }
    let (d1, e1) = double(a, b)
    let (d2, e2) = double(b, c)
    let y =
      (c.position - b.position) / t2 - (b.position - a.position) / t1 - (b.force - a.force) - d2 / t2 + d1
      / t1
    let m = (b.rotation - a.rotation) + e2 * (1 / t2) - e1 * (1 / t1)
    let sigma =
      positionSigma * (1 / (t1 * t1) + (1 / t1 + 1 / t2) * (1 / t1 + 1 / t2) + 1 / (t2 * t2)).squareRoot()
    if updates == 0 {
      // The priors (the options may have been set after `init`).
      for k in 0..<3 { covariance[7 * k] = Self.gravityPriorSigma * Self.gravityPriorSigma }
      for k in 3..<6 { covariance[7 * k] = biasPriorSigma * biasPriorSigma }
    }
    if let drift = driftDegreesPerRootSecond, let last = lastUpdateTime {
      let walk = drift * .pi / 180 * Self.standardGravity
      for k in 0..<3 { covariance[7 * k] += walk * walk * max(0, c.time - last) }
    }
    let rows = (0..<3).map { row in
      var h = [Double](repeating: 0, count: 6)
      h[row] = (t1 + t2) / 2
      for k in 0..<3 { h[3 + k] = -m[k][row] }
      return h
    }
    // A jump in the tracked positions (a relocalisation, a glitch) is no motion: an update whose
    // innovation is beyond ``gate`` standard deviations is left out, unless the filter is the one
    // that is wrong (several in a row).
    if updates > 0, rejectedInARow < Self.maxRejectedInARow,
      (0..<3).contains(where: {
        normalisedInnovation(h: rows[$0], y: y[$0], variance: sigma * sigma) > Self.gate
      })
    {
      rejectedInARow += 1
      return
    }
    rejectedInARow = 0
    for row in 0..<3 { scalarUpdate(h: rows[row], y: y[row], variance: sigma * sigma) }
    updates += 1
    lastUpdateTime = c.time
    seconds += t2 + (updates == 1 ? t1 : 0)
  }

  /// `|y − h·x| / √(h P hᵀ + variance)` before any update by it.
  private func normalisedInnovation(h: [Double], y: Double, variance: Double) -> Double {
    var s = variance
    for i in 0..<6 { for j in 0..<6 { s += h[i] * covariance[6 * i + j] * h[j] } }
    return abs(y - zip(h, state).reduce(0) { $0 + $1.0 * $1.1 }) / s.squareRoot()
  }

  /// The Kalman update by one scalar measurement `y = h·x` with noise `variance`.
  private mutating func scalarUpdate(h: [Double], y: Double, variance: Double) {
    var ph = [Double](repeating: 0, count: 6)
    for i in 0..<6 { for j in 0..<6 { ph[i] += covariance[6 * i + j] * h[j] } }
    let s = zip(h, ph).reduce(variance) { $0 + $1.0 * $1.1 }
    guard s > 0, s.isFinite else { return }
    let innovation = y - zip(h, state).reduce(0) { $0 + $1.0 * $1.1 }
    for i in 0..<6 { state[i] += ph[i] / s * innovation }
    for i in 0..<6 { for j in 0..<6 { covariance[6 * i + j] -= ph[i] * ph[j] / s } }
    innovations += innovation * innovation / s
  }

  /// The current estimate, or nil before the first update (or when degenerate).
  package var estimate: Estimate? {
    guard updates > 0 else { return nil }
    let gravity = SIMD3(state[0], state[1], state[2])
    let length = simd_length(gravity)
    guard length > 0, length.isFinite else { return nil }
    // The covariance scaled by the mean squared normalised innovation (1 when the noise is as assumed)
    // once there are more equations than unknowns.
    let rows = Double(3 * updates)
    let scale = rows > 6 ? innovations / rows : 1
    let u = gravity / length
    var across = 0.0
    for i in 0..<3 { across += covariance[7 * i] }
    var along = 0.0
    for i in 0..<3 { for j in 0..<3 { along += u[i] * covariance[6 * i + j] * u[j] } }
    let sigma = (max(0, across - along) * scale).squareRoot() / length
    return Estimate(
      gravity: gravity, bias: SIMD3(state[3], state[4], state[5]), uncertaintyDegrees: sigma * 180 / .pi,
      seconds: seconds)
  }
}
