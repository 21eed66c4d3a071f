import ARSimMath
import Foundation

/// Gravity, the accelerometer's bias and the tracked positions' scale, estimated from every
/// accelerometer sample of a session rotated into the odometry frame O by the tracked orientation
/// (interpolated to the sample's time).
///
/// The accelerometer reads `f = Rᵀ(a − g) + b` (R: O from the optical frame, `a` the camera's linear
/// acceleration in O, `g` gravity in O, `b` the bias in the sensor's frame). Over a segment of the
/// session, `∫R f dt = Δv − g·T + (∫R dt)·b`, where `Δv` is the change of the camera's velocity
/// across it: `k·Δv̂ − Δs`, with `Δv̂` from a local quadratic fit at each end of the tracked positions,
/// `Δs` the same fit to the motion the samples describe about that frame (what the sparse frames do
/// not resolve), and `k` the positions' scale (metres per tracked unit: 1 for metric depth, unknown
/// for a monocular map). The samples' integrals end at the frames' times (the last sample held over
/// the rest of its interval), as the velocities do. Segments of about ``segmentSeconds`` give one
/// linear equation each in `(g, b, k)`, weighed by one standard deviation for every segment; the
/// estimate is their least-squares solution with zero-mean priors of ``biasPriorSigma`` on the bias
/// and ``scalePriorSigma`` on `k − 1`. The velocity terms telescope, so velocity errors do not
/// accumulate; the bias separates from gravity as the camera turns, so it is held for the whole
/// session, while gravity in O may follow the odometry's slow orientation drift (``driftDegrees``).
/// Not thread-safe; deterministic.
package struct GravityEstimator: Sendable {
  /// The estimate: gravity in O (m/s², pointing down), the bias (m/s², sensor frame), the scale, and
  /// the standard deviation of gravity's direction in degrees.
  package struct Estimate: Sendable, Equatable {
    package var gravity: SIMD3<Double>
    package var bias: SIMD3<Double>
    /// Metres per unit of the tracked positions.
    package var scale: Double
    package var uncertaintyDegrees: Double
    /// Seconds of samples behind it.
    package var seconds: Double
    /// The covariance of (gravity, bias), row-major 6 x 6, (m/s²)² (from the residuals, as
    /// `uncertaintyDegrees`); empty when not computed.
    package var covariance: [Double] = []
  }

  /// Seconds per segment (one equation). A segment closes once the velocity fit reaches past its
  /// end, so the estimate stands about a segment and that look-ahead behind the latest frame (gravity
  /// is carried to it by the gyroscope's measured drift, ``estimate``). Default 0.25.
  package var segmentSeconds = 0.25
  /// Half-width of the window of tracked positions fitted for a velocity, seconds: the fit takes as
  /// many frames on each side as the frame interval (the median of the last ``intervalCount``) goes
  /// into it, at least two. Counted in frames, the window does not change with the frames'
  /// timestamp jitter. Default 0.1.
  package var velocityHalfWindow = 0.1
  /// Prior standard deviation of each bias component, m/s² (phones: a few hundredths). Default 0.1.
  package var biasPriorSigma = 0.1
  /// Prior standard deviation of the positions' scale about 1; 0 holds it at 1 (metric positions).
  /// Default 0.
  package var scalePriorSigma = 0.0
  /// Standard deviation assumed for one segment's residual, m/s (the error of the tracked velocities
  /// at its ends), which weighs the priors against the segments. Default 0.01: the order of what a
  /// phone's segments leave against exact gravity and bias once the samples' motion is taken out of the
  /// velocity fits (hand shake the frames do not resolve would otherwise dominate). With
  /// ``learnsNoise`` it is only the start of the session's own.
  package var segmentSigma = 0.01
  /// Whether the segments' standard deviation is learned from the session's own residuals (the
  /// innovations of each new segment against the estimate before it, ``segmentSigma`` counted as
  /// ``noisePriorSegments`` of them; an innovation beyond ``outlierSigmas`` counts as that many). A
  /// segment within ``outlierSigmas`` keeps its full weight: a bad velocity at a segment boundary errs
  /// in opposite directions in the two segments that share it, which cancel for gravity only while
  /// both weigh the same. One beyond weighs less (``weighsOutliersDown``). Default false.
  package var learnsNoise = false
  /// Random walk of gravity's direction in O, degrees per √s: the odometry's orientation drifts, so
  /// that older segments say less about gravity under the current camera (not about the bias). Nil:
  /// gravity in O is constant. Default nil.
  package var driftDegrees: Double? = nil
  /// The gyroscope's angle random walk, degrees per √s. With gyroscope rates in the samples and a
  /// ``driftDegrees``, each segment's drift of gravity in O is measured: the tracked rotation across
  /// the segment against the gyroscope's (its bias, constant, fitted to the difference over the
  /// session), turned into O. Gravity is turned by it, weighed against the drift's random walk by the
  /// two variances (this one's and the bias fit's, which shrinks as the session goes on), so that the
  /// estimate follows the odometry's drift, not only forgets the segments before it. Default 0.01 (a
  /// phone's gyroscope: 0.0017 rad/s white noise at 100 Hz is 0.0097).
  package var gyroNoiseDegrees = 0.01
  /// Seconds over which an error of the gyroscope's fitted bias adds up in the estimate (its memory
  /// under the drift): the measured drift weighs less until the fit's error over that long is below
  /// the random walk's. Default 30: a shorter memory trusts the young bias fit, whose error adds up
  /// before the camera has turned enough to tell the bias.
  package var gyroBiasHorizon = 30.0
  /// Random walk of the scale (relative, per √s): a monocular map's scale drifts. Default 0.
  package var scaleDrift = 0.0
  /// Segments the starting ``segmentSigma`` counts as when the noise is learned. Default 8 (2 s).
  package var noisePriorSegments = 8.0
  /// Innovations beyond this many standard deviations (root mean square over the three rows) count
  /// as this many in the learned noise. Default 3.
  package var outlierSigmas = 3.0
  /// With ``learnsNoise``, whether a segment whose innovation is `r` standard deviations, beyond
  /// ``outlierSigmas``, weighs `outlierSigmas / r` of a segment (Huber's weight), so that a run of
  /// segments the model does not explain turns gravity no more than segments at ``outlierSigmas``
  /// would. A session the model explains has no segment near the bound, and weighs the same either
  /// way; a fast turn of a real capture, where the tracked positions and the samples disagree, gives a
  /// run of outlying segments that at full weight tilt the delivered gravity
  /// (`GravityEstimatorTests.outlyingSegmentsWeighLess`). Default true.
  package var weighsOutliersDown = true

  /// Frames of the current unbroken chain not yet behind a closed segment, oldest first (the first
  /// is the open segment's start).
  var chain: [Node] = []
  /// The unknowns: gravity (3), bias (3), scale.
  static let unknowns = 7
  /// Normal equations (row-major) and right-hand side of `(g, b, k)` in units of the segments'
  /// variance, without the priors (``prior``).
  var normal = [Double](repeating: 0, count: unknowns * unknowns)
  var right = [Double](repeating: 0, count: unknowns)
  var equations = 0
  var seconds = 0.0
  /// The sum of the right-hand sides' squares and the rows' number, for the residual variance when
  /// the noise is not learned.
  var squaredRight = 0.0
  var rowCount = 0.0
  /// The segments' variance learned so far (``learnsNoise``): the sum of the innovations' per-row
  /// variances and their count, after the prior's.
  var noiseSum = 0.0
  var noiseCount = 0.0
  /// The gyroscope's bias fit (``gyroNoiseDegrees``): the sums over segments of the tracked-minus-gyro
  /// rotation vector `e`, of `|e|²/span` and of the spans; `e = −b·span` plus the odometry's noise.
  var gyroSum = SIMD3<Double>.zero
  var gyroSquares = 0.0
  var gyroSpan = 0.0
  var gyroSegments = 0
  /// The previous segment's measured drift of gravity in O, weighed (rotation vector, radians): half of
  /// it is applied with the next segment.
  var previousDrift: SIMD3<Double>?
  /// The velocity fits (positions, samples' motion) at the open segment's start, when known.
  var startVelocity: (positions: SIMD3<Double>, samples: SIMD3<Double>)?
  /// The last frame's time, and the intervals between the last frames (at most ``intervalCount``),
  /// whose median is the frame interval that counts the velocity fit's frames (``windowFrames``).
  var lastTime: Double?
  var intervals: [Double] = []
  static let intervalCount = 15

  /// An estimator with no evidence.
  package init() {}

  /// Whether any segment has closed.
  package var hasEstimate: Bool { equations > 0 }

  /// Adds a tracked frame at `time` with `oFromOptical` and the accelerometer samples since the
  /// previous frame (those with timestamps in (previous time, `time`], as readers deliver them); the
  /// chain's first frame only starts it (its samples are dropped). Frames without a measured pose should go to ``breakChain()`` instead.
  package mutating func add(time: Double, oFromOptical: RigidTransform, samples: [IMUSample]) {
    if let lastTime, time > lastTime {
      if intervals.count == Self.intervalCount { intervals.removeFirst() }
      intervals.append(time - lastTime)
    }
    lastTime = max(lastTime ?? time, time)
    guard var node = chain.last else {
      chain = [Node(time: time, position: oFromOptical.translation, rotation: oFromOptical.rotation)]
      return
    }
    guard time > node.time else { return }
    let start = node
    node.integrateRates(samples, to: time, from: start.time)
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
    previousDrift = nil
  }

  /// The velocity in O at `chain[index]` from a quadratic fit of the positions of ``windowFrames``
  /// frames on each side (where the chain has them: at its start, as many after as make the window's
  /// length, at least four frames in all), and the same fit to the motion the rotated samples describe
  /// about that frame (their double integral, less its value and slope there); nil when the chain does
  /// not yet reach that far past it. The camera's velocity is the first times the scale less the
  /// second: the positions less the samples' motion are the slow part, `p₀ + v₀τ + ½(g − R b)τ²`,
  /// which a quadratic fits however fast the hand shakes (the samples see the shake, sparse frames do
  /// not).
  func velocity(at index: Int) -> (positions: SIMD3<Double>, samples: SIMD3<Double>)? {
    let k = windowFrames
    let first = max(0, index - k)
    let last = max(index + k, first + max(3, k))
    guard last < chain.count else { return nil }
    let origin = chain[index]
    let t0 = origin.time
    let span = max(t0 - chain[first].time, chain[last].time - t0)
    var normal = simd_double3x3()
    var positions = simd_double3x3()
    var samples = simd_double3x3()
    for node in chain[first...last] {
      let elapsed = node.time - t0
      let sampled = node.heldDouble - origin.heldDouble - origin.heldForce * elapsed
      let tau = elapsed / span
      let basis = SIMD3(1, tau, tau * tau)
      normal += simd_double3x3(basis * basis.x, basis * basis.y, basis * basis.z)
      let p = node.position
      positions += simd_double3x3(basis * p.x, basis * p.y, basis * p.z)
      samples += simd_double3x3(basis * sampled.x, basis * sampled.y, basis * sampled.z)
    }
    guard abs(normal.determinant) > 1e-12 else { return nil }
    let inverse = normal.inverse
    let (c, d) = (inverse * positions, inverse * samples)
    return (
      SIMD3(c.columns.0.y, c.columns.1.y, c.columns.2.y) / span,
      SIMD3(d.columns.0.y, d.columns.1.y, d.columns.2.y) / span
    )
  }

  /// Frames on each side of a velocity fit: ``velocityHalfWindow`` over the median frame interval,
  /// rounded, at least two.
  var windowFrames: Int {
    guard !intervals.isEmpty else { return 2 }
    let interval = intervals.sorted()[intervals.count / 2]
    guard interval > 0 else { return 2 }
    return max(2, Int(min(1000, velocityHalfWindow / interval).rounded()))
  }

  /// Closes every segment whose end velocity is known, adding its equation.
  mutating func closeSegments() {
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
      let y = node.heldForce - start.heldForce + (endVelocity.samples - startVelocity.samples)
      let m = node.heldRotation - start.heldRotation
      let span = node.heldSeconds - start.heldSeconds
      if span > 0 {
        let turn =
          node.framesWithoutRate == start.framesWithoutRate ? measuredDrift(from: start, to: node) : nil
        addEquation(
          y: y, m: m, moved: endVelocity.positions - startVelocity.positions, span: span, drift: turn)
      }
      chain.removeFirst(end)
      self.startVelocity = endVelocity
    }
  }

  /// The segments' variance, m²/s²: ``segmentSigma``², or with ``learnsNoise`` the session's own.
  var variance: Double {
    let prior = segmentSigma * segmentSigma
    guard learnsNoise else { return prior }
    return (prior * noisePriorSegments + noiseSum) / (noisePriorSegments + noiseCount)
  }

  /// The priors' diagonal and right-hand side in units of the segments' variance: the bias's, and the
  /// scale's (or, with the scale held, a unit weight on `k = 1`, its column being empty).
  func prior(variance: Double) -> (diagonal: [Double], right: [Double]) {
    var diagonal = [Double](repeating: 0, count: Self.unknowns)
    var right = [Double](repeating: 0, count: Self.unknowns)
    let bias = variance / (biasPriorSigma * biasPriorSigma)
    for k in 3..<6 { diagonal[k] = bias }
    diagonal[6] = scalePriorSigma > 0 ? variance / (scalePriorSigma * scalePriorSigma) : 1
    right[6] = diagonal[6]
    return (diagonal, right)
  }

  /// The normal equations with the priors, their inverse and solution; nil when singular.
  func solve(variance: Double) -> (full: [Double], inverse: [Double], x: [Double])? {
    let n = Self.unknowns
    let (diagonal, priorRight) = prior(variance: variance)
    var full = normal
    for k in 0..<n { full[(n + 1) * k] += diagonal[k] }
    guard let inverse = DenseMatrix.inverse(full, dimension: n) else { return nil }
    var x = [Double](repeating: 0, count: n)
    for i in 0..<n { for j in 0..<n { x[i] += inverse[n * i + j] * (right[j] + priorRight[j]) } }
    return (full, inverse, x)
  }

  /// Adds `y = −g·span + m·b + k·moved` (three rows): after letting gravity (and the scale) drift
  /// over the segment's span, and, with ``learnsNoise``, learning the noise from its innovation.
  /// `drift` is gravity's drift in O over the segment as the gyroscope measures it (``measuredDrift(from:to:)``).
  mutating func addEquation(
    y: SIMD3<Double>, m: simd_double3x3, moved: SIMD3<Double>, span: Double,
    drift measured: (vector: SIMD3<Double>, variance: Double)? = nil
  ) {
    let n = Self.unknowns
    let held = scalePriorSigma <= 0
    // The three rows: coefficients of (g, b, k) and the right-hand side (with k = 1 when held).
    var rows: [[Double]] = []
    var values: [Double] = []
    for row in 0..<3 {
      var a = [Double](repeating: 0, count: n)
      a[row] = -span
      for k in 0..<3 { a[3 + k] = m[k][row] }
      a[6] = held ? 0 : moved[row]
      rows.append(a)
      values.append(held ? y[row] - moved[row] : y[row])
    }
    let variance = self.variance
    if equations > 0, let (_, inverse, x) = solve(variance: variance) {
      if driftDegrees != nil || scaleDrift > 0 {
        drift(span: span, inverse: inverse, x: x, variance: variance, measured: measured)
      }
      if learnsNoise, let sigmas = learnNoise(rows: rows, values: values, variance: variance),
        weighsOutliersDown, sigmas > outlierSigmas
      {
        let scale = (outlierSigmas / sigmas).squareRoot()
        rows = rows.map { row in row.map { $0 * scale } }
        values = values.map { $0 * scale }
      }
    }
    for (a, value) in zip(rows, values) {
      for i in 0..<n {
        right[i] += a[i] * value
        for j in 0..<n { normal[n * i + j] += a[i] * a[j] }
      }
      squaredRight += value * value
      rowCount += 1
    }
    equations += 1
    seconds += span
  }

  /// Adds a new segment's innovation (its residual against the estimate before it, whose own
  /// uncertainty is taken out) to the learned variance; returns its size in standard deviations (root
  /// mean square over the rows), or nil when the estimate is singular.
  mutating func learnNoise(rows: [[Double]], values: [Double], variance: Double) -> Double? {
    guard let (_, inverse, x) = solve(variance: variance) else { return nil }
    let n = Self.unknowns
    var squared = 0.0
    var spread = 0.0
    for (a, value) in zip(rows, values) {
      var predicted = 0.0
      for i in 0..<n { predicted += a[i] * x[i] }
      squared += (value - predicted) * (value - predicted)
      // The row's predicted variance, in units of the segments': 1 + aᵀ N⁻¹ a.
      var own = 0.0
      for i in 0..<n { for j in 0..<n { own += a[i] * inverse[n * i + j] * a[j] } }
      spread += 1 + own
    }
    let perRow = squared / spread
    noiseSum += min(perRow, outlierSigmas * outlierSigmas * variance)
    noiseCount += 1
    return (perRow / variance).squareRoot()
  }

  /// The current estimate, or nil before the first segment closes (or when degenerate). Gravity is
  /// carried from where the segments put it to the latest frame by the drift the gyroscope has
  /// measured since (``driftSinceLastSegment``), weighed as each segment's drift is.
  package var estimate: Estimate? {
    guard equations > 0 else { return nil }
    let variance = self.variance
    guard let (_, solved, x) = solve(variance: variance) else { return nil }
    let n = Self.unknowns
    var inverse = solved
    var gravity = SIMD3(x[0], x[1], x[2])
    if let turn = driftSinceLastSegment {
      var turned = x
      let rotation = simd_double3x3(RigidTransform.expRotation(turn))
      Self.rotateGravity(by: rotation, covariance: &inverse, x: &turned)
      gravity = SIMD3(turned[0], turned[1], turned[2])
    }
    let length = simd_length(gravity)
    guard length > 0, length.isFinite else { return nil }
    let spread = learnsNoise ? variance : residualVariance(x) ?? variance
    // Direction spread: the covariance of g across its direction.
    let u = gravity / length
    var across = 0.0
    for i in 0..<3 { across += inverse[(n + 1) * i] * spread }
    var along = 0.0
    for i in 0..<3 { for j in 0..<3 { along += u[i] * inverse[n * i + j] * spread * u[j] } }
    let sigma = max(0, across - along).squareRoot() / length
    return Estimate(
      gravity: gravity, bias: SIMD3(x[3], x[4], x[5]), scale: x[6],
      uncertaintyDegrees: sigma * 180 / .pi, seconds: seconds,
      covariance: (0..<36).map { inverse[n * ($0 / 6) + $0 % 6] * spread })
  }

  /// The residuals' variance per row at `x` from the normal equations (|y|² − 2xᵀr + xᵀNx, N
  /// without the priors), or nil while the rows are too few.
  func residualVariance(_ x: [Double]) -> Double? {
    let n = Self.unknowns
    let free = scalePriorSigma > 0 ? n : n - 1
    guard rowCount > Double(free) else { return nil }
    var fitted = 0.0
    for i in 0..<n { for j in 0..<n { fitted += x[i] * normal[n * i + j] * x[j] } }
    let residual = max(0, squaredRight - 2 * zip(x, right).map(*).reduce(0, +) + fitted)
    return residual / (rowCount - Double(free))
  }
}
