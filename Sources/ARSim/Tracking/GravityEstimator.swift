import ARSimMath
import Foundation

/// Gravity and the accelerometer's bias estimated from every accelerometer sample of a session,
/// rotated into the odometry frame O by the tracked orientation (interpolated to the sample's time).
///
/// The accelerometer reads `f = Rᵀ(a − g) + b` (R: O from the optical frame, `a` the camera's linear
/// acceleration in O, `g` gravity in O, `b` the bias in the sensor's frame). Over a segment of the
/// session, `∫R f dt = Δv − g·T + (∫R dt)·b`, where `Δv` is the change of the tracked velocity
/// across it (a local quadratic fit at each end of the tracked positions, less the motion the samples
/// describe about that frame). The samples' integrals end at the frames' times (the last sample held
/// over the rest of its interval), as the velocities do. Segments of about
/// ``segmentSeconds`` give one linear equation each in `(g, b)`; their least-squares solution, with a
/// zero-mean prior of ``biasPriorSigma`` on the bias, is the estimate. The velocity terms telescope,
/// so velocity errors do not accumulate; the bias separates from gravity as the camera turns.
/// Not thread-safe; deterministic.
package struct GravityEstimator: Sendable {
  /// The estimate: gravity in O (m/s², pointing down), the bias (m/s², sensor frame), and the
  /// standard deviation of gravity's direction in degrees (from the residuals).
  package struct Estimate: Sendable, Equatable {
    package var gravity: SIMD3<Double>
    package var bias: SIMD3<Double>
    package var uncertaintyDegrees: Double
    /// Seconds of samples behind it.
    package var seconds: Double
    /// The covariance of (gravity, bias), row-major 6 x 6, (m/s²)² (from the residuals, as
    /// `uncertaintyDegrees`); empty when not computed.
    package var covariance: [Double] = []
  }

  /// Seconds per segment (one equation). Default 0.25.
  package var segmentSeconds = 0.25
  /// Half-width of the window of tracked positions fitted for a velocity, seconds. Default 0.1.
  package var velocityHalfWindow = 0.1
  /// Prior standard deviation of each bias component, m/s² (phones: a few hundredths). Default 0.1.
  package var biasPriorSigma = 0.1
  /// Standard deviation assumed for one segment's residual, m/s (the error of the tracked velocities
  /// at its ends), which weighs the prior. Default 0.01: with the samples' motion taken out of the
  /// velocity fits, a phone-profile session's segments (10 fps, 1-2 mm tracked positions) leave 3-6
  /// mm/s against exact gravity and bias, 10-25 mm/s before (hand shake the frames do not resolve).
  package var segmentSigma = 0.01
  /// Seconds over which old segments fade (their weight falls by e per this many seconds of samples
  /// since), so that the estimate follows the slow drift of the odometry's orientation: gravity in O is
  /// then the current camera's, not the session's average. Nil: every segment weighs the same.
  package var memorySeconds: Double? = nil

  /// One tracked frame with the integrals of the rotated samples since the chain began: `∫R f`, `∫R`
  /// and `∫∫R f` up to the last sample, and the same held to the frame's time (the last sample's
  /// force and orientation carried over the rest of the interval), so that every frame's integrals
  /// end exactly at its time.
  private struct Node {
    var time: Double
    var position: SIMD3<Double>
    var rotation: simd_quatd
    var forceIntegral = SIMD3<Double>.zero
    var rotationIntegral = simd_double3x3()
    var doubleIntegral = SIMD3<Double>.zero
    var seconds = 0.0
    var lastSampleTime: Double
    var lastForce = SIMD3<Double>.zero
    var lastRotation = simd_double3x3()
    /// `∫R f`, `∫R`, `∫∫R f` and the seconds covered, up to the frame's time.
    var heldForce = SIMD3<Double>.zero
    var heldRotation = simd_double3x3()
    var heldDouble = SIMD3<Double>.zero
    var heldSeconds = 0.0

    init(time: Double, position: SIMD3<Double>, rotation: simd_quatd) {
      self.time = time
      self.position = position
      self.rotation = rotation
      lastSampleTime = time
    }

    /// Integrates one sample standing for the interval since the previous one, at `rotation`.
    mutating func integrate(_ force: SIMD3<Double>, at timestamp: Double, rotation: simd_quatd) {
      let dt = timestamp - lastSampleTime
      lastForce = rotation.act(force)
      lastRotation = simd_double3x3(rotation)
      doubleIntegral += forceIntegral * dt + lastForce * (dt * dt / 2)
      forceIntegral += lastForce * dt
      rotationIntegral += lastRotation * dt
      seconds += dt
      lastSampleTime = timestamp
    }

    /// Holds the last sample over the rest of the interval up to the frame's time.
    mutating func hold() {
      let gap = time - lastSampleTime
      heldForce = forceIntegral + lastForce * gap
      heldRotation = rotationIntegral + lastRotation * gap
      heldDouble = doubleIntegral + forceIntegral * gap + lastForce * (gap * gap / 2)
      heldSeconds = seconds + gap
    }
  }

  /// Frames of the current unbroken chain not yet behind a closed segment, oldest first (the first
  /// is the open segment's start).
  private var chain: [Node] = []
  /// Normal equations (6x6, row-major) and right-hand side of `(g, b)`; residual sums for the scale.
  private var normal = [Double](repeating: 0, count: 36)
  private var right = [Double](repeating: 0, count: 6)
  private var squaredRight = 0.0
  private var equations = 0
  /// The equations' total weight (their number without fading).
  private var weight = 0.0
  private var seconds = 0.0
  /// The velocity at the open segment's start, when known.
  private var startVelocity: SIMD3<Double>?

  /// An estimator with no evidence.
  package init() {}

  /// Whether any segment has closed.
  package var hasEstimate: Bool { equations > 0 }

  /// Adds a tracked frame at `time` with `oFromOptical` and the accelerometer samples since the
  /// previous frame (those with timestamps in (previous time, `time`], as readers deliver them); the
  /// chain's first frame only starts it (its samples are dropped). Frames without a measured pose should go to ``breakChain()`` instead.
  package mutating func add(time: Double, oFromOptical: RigidTransform, samples: [IMUSample]) {
    guard var node = chain.last else {
      chain = [Node(time: time, position: oFromOptical.translation, rotation: oFromOptical.rotation)]
      return
    }
    guard time > node.time else { return }
    let start = node
    for sample in samples {
      guard let f = sample.acceleration, sample.timestamp > node.lastSampleTime else { continue }
      // Each sample stands for the interval since the previous sample (or the chain's first frame),
      // at its own orientation; one a rounding error past the frame time still belongs to this frame.
      let w = min(1, (sample.timestamp - start.time) / (time - start.time))
      node.integrate(f, at: sample.timestamp, rotation: simd_slerp(start.rotation, oFromOptical.rotation, w))
    }
    node.time = time
    node.position = oFromOptical.translation
    node.rotation = oFromOptical.rotation
    node.hold()
    chain.append(node)
    closeSegments()
  }

  /// Ends the chain (a frame without a measured pose): the open segment is dropped.
  package mutating func breakChain() {
    chain.removeAll()
    startVelocity = nil
  }

  /// The velocity in O at `chain[index]` from a quadratic fit of the positions within
  /// ``velocityHalfWindow`` (at least two frames on each side where the chain has them, four in all),
  /// or nil when the chain does not yet reach that far past it. The motion the rotated samples
  /// describe about that frame (their double integral, less its value and slope there) is taken out
  /// of the positions first: what remains is the slow part, `p₀ + v₀τ + ½(g − R b)τ²`, which a
  /// quadratic fits however fast the hand shakes (the samples see the shake, sparse frames do not).
  private func velocity(at index: Int) -> SIMD3<Double>? {
    let origin = chain[index]
    let t0 = origin.time
    var first = index
    while first > 0, chain[first - 1].time >= t0 - velocityHalfWindow || index - first < 2 { first -= 1 }
    var last = index
    while last + 1 < chain.count,
      chain[last + 1].time <= t0 + velocityHalfWindow || last - index < 2 || last - first < 3
    {
      last += 1
    }
    guard let end = chain.last?.time, end >= t0 + velocityHalfWindow, last - index >= 2, last - first >= 3
    else { return nil }
    let span = max(t0 - chain[first].time, chain[last].time - t0)
    var normal = simd_double3x3()
    var right = simd_double3x3()
    for node in chain[first...last] {
      let elapsed = node.time - t0
      let sampled = node.heldDouble - origin.heldDouble - origin.heldForce * elapsed
      let slow = node.position - sampled
      let tau = elapsed / span
      let basis = SIMD3(1, tau, tau * tau)
      normal += simd_double3x3(basis * basis.x, basis * basis.y, basis * basis.z)
      right += simd_double3x3(basis * slow.x, basis * slow.y, basis * slow.z)
    }
    guard abs(normal.determinant) > 1e-12 else { return nil }
    let c = normal.inverse * right
    return SIMD3(c.columns.0.y, c.columns.1.y, c.columns.2.y) / span
  }

  /// Closes every segment whose end velocity is known, adding its equation.
  private mutating func closeSegments() {
    while chain.count > 1 {
      if startVelocity == nil {
        guard let v = velocity(at: 0) else { return }
        startVelocity = v
      }
      let start = chain[0]
      guard let end = chain.firstIndex(where: { $0.time - start.time >= segmentSeconds }),
        let endVelocity = velocity(at: end), let startVelocity
      else { return }
      let node = chain[end]
      let y = node.heldForce - start.heldForce - (endVelocity - startVelocity)
      let m = node.heldRotation - start.heldRotation
      let span = node.heldSeconds - start.heldSeconds
      if span > 0 { addEquation(y: y, m: m, span: span) }
      chain.removeFirst(end)
      self.startVelocity = endVelocity
    }
  }

  /// Adds `y = −g·span + m·b` (three rows), after fading the older ones (``memorySeconds``).
  private mutating func addEquation(y: SIMD3<Double>, m: simd_double3x3, span: Double) {
    if let memory = memorySeconds, memory > 0 {
      let fade = exp(-span / memory)
      for i in normal.indices { normal[i] *= fade }
      for i in right.indices { right[i] *= fade }
      squaredRight *= fade
      weight *= fade
    }
    for row in 0..<3 {
      var a = [Double](repeating: 0, count: 6)
      a[row] = -span
      for k in 0..<3 { a[3 + k] = m[k][row] }
      for i in 0..<6 {
        right[i] += a[i] * y[row]
        for j in 0..<6 { normal[6 * i + j] += a[i] * a[j] }
      }
      squaredRight += y[row] * y[row]
    }
    equations += 1
    weight += 1
    seconds += span
  }

  /// The current estimate, or nil before the first segment closes (or when degenerate).
  package var estimate: Estimate? {
    guard equations > 0 else { return nil }
    var n = normal
    let prior = (segmentSigma / biasPriorSigma) * (segmentSigma / biasPriorSigma)
    for k in 3..<6 { n[7 * k] += prior }
    guard let inverse = Self.inverse6(n) else { return nil }
    var x = [Double](repeating: 0, count: 6)
    for i in 0..<6 { for j in 0..<6 { x[i] += inverse[6 * i + j] * right[j] } }
    let gravity = SIMD3(x[0], x[1], x[2])
    let length = simd_length(gravity)
    guard length > 0, length.isFinite else { return nil }
    // Residual sum of squares from the normal equations: |y|² − 2xᵀr + xᵀNx (N without the prior).
    var fitted = 0.0
    for i in 0..<6 {
      for j in 0..<6 { fitted += x[i] * normal[6 * i + j] * x[j] }
    }
    let rows = 3 * weight
    let residual = max(0, squaredRight - 2 * zip(x, right).map(*).reduce(0, +) + fitted)
    let variance = rows > 6 ? residual / (rows - 6) : segmentSigma * segmentSigma
    // Direction spread: the covariance of g across its direction.
    let u = gravity / length
    var across = 0.0
    for i in 0..<3 { across += inverse[7 * i] * variance }
    var along = 0.0
    for i in 0..<3 { for j in 0..<3 { along += u[i] * inverse[6 * i + j] * variance * u[j] } }
    let sigma = max(0, across - along).squareRoot() / length
    return Estimate(
      gravity: gravity, bias: SIMD3(x[3], x[4], x[5]), uncertaintyDegrees: sigma * 180 / .pi,
      seconds: seconds, covariance: inverse.map { $0 * variance })
  }

  /// The inverse of a row-major 6x6 matrix by Gauss–Jordan elimination with partial pivoting; nil
  /// when singular.
  static func inverse6(_ matrix: [Double]) -> [Double]? {
    var a = matrix
    var inverse = [Double](repeating: 0, count: 36)
    for i in 0..<6 { inverse[7 * i] = 1 }
    let scale = matrix.map(abs).max() ?? 0
    guard scale > 0 else { return nil }
    for column in 0..<6 {
      let pivot = (column..<6).max { abs(a[6 * $0 + column]) < abs(a[6 * $1 + column]) }!
      guard abs(a[6 * pivot + column]) > 1e-12 * scale else { return nil }
      if pivot != column {
        for k in 0..<6 {
          a.swapAt(6 * pivot + k, 6 * column + k)
          inverse.swapAt(6 * pivot + k, 6 * column + k)
        }
      }
      let p = a[6 * column + column]
      for k in 0..<6 {
        a[6 * column + k] /= p
        inverse[6 * column + k] /= p
      }
      for row in 0..<6 where row != column {
        let factor = a[6 * row + column]
        guard factor != 0 else { continue }
        for k in 0..<6 {
          a[6 * row + k] -= factor * a[6 * column + k]
          inverse[6 * row + k] -= factor * inverse[6 * column + k]
        }
      }
    }
    return inverse
  }
}
