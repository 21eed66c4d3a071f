import ARSim
import ARSimMath
import Foundation

/// The camera's motion as a function of time: the keyframes of a ``SyntheticScene/Trajectory``
/// interpolated by natural cubic splines (C², so acceleration is continuous), plus handheld shake.
///
/// Poses are `worldFromOptical`: the camera's optical frame (x right, y down, z forward) in the
/// ground-truth world (metres, +y up).
public struct CameraTrajectory: Sendable {
  private enum Orientation {
    case lookAt(NaturalCubicSpline)
    case quaternion(NaturalCubicSpline)
  }

  private let position: NaturalCubicSpline
  private let orientation: Orientation
  private let positionShake: [Sinusoid]
  private let rotationShake: [Sinusoid]

  /// Step in seconds of the central differences that give the angular rate.
  static let differenceStep = 1e-4

  /// The trajectory of a validated scene (shake seeded by `seed`).
  public init(_ trajectory: SyntheticScene.Trajectory, seed: UInt64) {
    let keyframes = trajectory.keyframes
    let times = keyframes.map(\.time)
    position = NaturalCubicSpline(times: times, values: keyframes.map { SIMD4($0.position, 0) })
    if keyframes.allSatisfy({ $0.lookAt != nil }) {
      orientation = .lookAt(NaturalCubicSpline(times: times, values: keyframes.map { SIMD4($0.lookAt!, 0) }))
    } else {
      var quaternions: [SIMD4<Double>] = []
      for keyframe in keyframes {
        var q =
          keyframe.orientation.map { simd_normalize($0) }
          ?? Self.lookAtRotation(from: keyframe.position, to: keyframe.lookAt!).vector
        if let previous = quaternions.last, simd_dot(previous, q) < 0 { q = -q }
        quaternions.append(q)
      }
      orientation = .quaternion(NaturalCubicSpline(times: times, values: quaternions))
    }
    var random = SplitMix64(seed, stableHash("shake"))
    let shake = trajectory.shake ?? SyntheticScene.Shake()
    // Amplitudes fall as 1/f (like hand tremor) and are scaled so that the root-mean-square of the
    // sum is the given total per axis.
    let lowest = shake.frequencies.min() ?? 1
    let weights = shake.frequencies.map { lowest / $0 }
    let norm = (2 / weights.reduce(0) { $0 + $1 * $1 }).squareRoot()
    func sinusoids(_ total: Double) -> [Sinusoid] {
      guard trajectory.shake != nil, total > 0 else { return [] }
      var result: [Sinusoid] = []
      for axis in 0..<3 {
        for (frequency, weight) in zip(shake.frequencies, weights) {
          result.append(
            Sinusoid(
              axis: axis, amplitude: total * norm * weight * random.uniform(0.7, 1.3),
              angularFrequency: 2 * .pi * frequency * random.uniform(0.85, 1.15),
              phase: random.uniform(0, 2 * .pi)))
        }
      }
      return result
    }
    positionShake = sinusoids(shake.position)
    rotationShake = sinusoids(shake.rotation)
  }

  /// The rotation of the optical frame of a camera at `position` looking at `target`, with the
  /// image's up direction towards the world's +y.
  public static func lookAtRotation(from position: SIMD3<Double>, to target: SIMD3<Double>) -> simd_quatd {
    let forward = simd_normalize(target - position)
    let right = simd_normalize(simd_cross(forward, SIMD3(0, 1, 0)))
    let down = simd_cross(forward, right)
    return simd_quatd(simd_double3x3(right, down, forward))
  }

  /// `worldFromOptical` at time `t` in seconds.
  public func pose(at t: Double) -> RigidTransform {
    RigidTransform(rotation: rotation(at: t), translation: positionValue(at: t))
  }

  /// The acceleration of the camera centre in the world at `t`, m/s² (analytic).
  public func acceleration(at t: Double) -> SIMD3<Double> {
    var a = position.evaluate(t).second.xyz
    for s in positionShake { a[s.axis] += s.second(t) }
    return a
  }

  /// The velocity of the camera centre in the world at `t`, m/s (analytic).
  public func velocity(at t: Double) -> SIMD3<Double> {
    var v = position.evaluate(t).first.xyz
    for s in positionShake { v[s.axis] += s.first(t) }
    return v
  }

  /// The angular rate of the camera in its optical frame at `t`, rad/s (central differences).
  public func angularVelocity(at t: Double) -> SIMD3<Double> {
    let h = Self.differenceStep
    let delta = rotation(at: t - h).conjugate * rotation(at: t + h)
    return RigidTransform.logRotation(delta) / (2 * h)
  }

  /// What an ideal accelerometer at the optical frame reads at `t` (m/s², optical frame): the
  /// specific force `R_world_from_optical^T (a − g)` with `g = (0, −9.81, 0)`.
  public func specificForce(at t: Double) -> SIMD3<Double> {
    let g = SyntheticScene.standardGravity * SyntheticScene.gravityDirection
    return rotation(at: t).conjugate.act(acceleration(at: t) - g)
  }

  private func positionValue(at t: Double) -> SIMD3<Double> {
    var p = position.evaluate(t).value.xyz
    for s in positionShake { p[s.axis] += s.value(t) }
    return p
  }

  private func rotation(at t: Double) -> simd_quatd {
    var base: simd_quatd
    switch orientation {
    case .lookAt(let targets):
      base = Self.lookAtRotation(from: position.evaluate(t).value.xyz, to: targets.evaluate(t).value.xyz)
    case .quaternion(let spline):
      base = simd_quatd(vector: simd_normalize(spline.evaluate(t).value))
    }
    if !rotationShake.isEmpty {
      var vector = SIMD3<Double>.zero
      for s in rotationShake { vector[s.axis] += s.value(t) }
      base = base * RigidTransform.expRotation(vector)
    }
    return base.normalized
  }
}

/// `amplitude · sin(angularFrequency · t + phase)` on one axis.
private struct Sinusoid: Sendable {
  var axis: Int
  var amplitude: Double
  var angularFrequency: Double
  var phase: Double

  func value(_ t: Double) -> Double { amplitude * sin(angularFrequency * t + phase) }
  func first(_ t: Double) -> Double { amplitude * angularFrequency * cos(angularFrequency * t + phase) }
  func second(_ t: Double) -> Double {
    -amplitude * angularFrequency * angularFrequency * sin(angularFrequency * t + phase)
  }
}

/// A natural cubic spline through `(times[i], values[i])` (zero second derivative at both ends),
/// continued linearly outside the keyframe times so that it stays C² there.
struct NaturalCubicSpline: Sendable {
  let times: [Double]
  let values: [SIMD4<Double>]
  /// Second derivatives at the knots.
  private let moments: [SIMD4<Double>]

  init(times: [Double], values: [SIMD4<Double>]) {
    precondition(times.count == values.count && times.count >= 2, "a spline needs two or more knots")
    self.times = times
    self.values = values
    let n = times.count
    var moments = [SIMD4<Double>](repeating: .zero, count: n)
    if n > 2 {
      // Tridiagonal system for the interior moments (Thomas algorithm).
      var diagonal = [Double](repeating: 0, count: n)
      var rhs = [SIMD4<Double>](repeating: .zero, count: n)
      var upper = [Double](repeating: 0, count: n)
      for i in 1..<(n - 1) {
        let h0 = times[i] - times[i - 1]
        let h1 = times[i + 1] - times[i]
        let r = 6 * ((values[i + 1] - values[i]) / h1 - (values[i] - values[i - 1]) / h0)
        let b = 2 * (h0 + h1)
        if i == 1 {
          diagonal[i] = b
          rhs[i] = r
        } else {
          let m = h0 / diagonal[i - 1]
          diagonal[i] = b - m * upper[i - 1]
          rhs[i] = r - m * rhs[i - 1]
        }
        upper[i] = h1
      }
      for i in stride(from: n - 2, through: 1, by: -1) {
        moments[i] = (rhs[i] - upper[i] * moments[i + 1]) / diagonal[i]
      }
    }
    self.moments = moments
  }

  /// The value and its first and second derivatives at `t`.
  func evaluate(_ t: Double) -> (value: SIMD4<Double>, first: SIMD4<Double>, second: SIMD4<Double>) {
    let n = times.count
    if t < times[0] {
      let start = evaluate(times[0])
      return (start.value + (t - times[0]) * start.first, start.first, .zero)
    }
    if t > times[n - 1] {
      let end = evaluate(times[n - 1])
      return (end.value + (t - times[n - 1]) * end.first, end.first, .zero)
    }
    var low = 0
    var high = n - 1
    while high - low > 1 {
      let middle = (low + high) / 2
      if times[middle] <= t { low = middle } else { high = middle }
    }
    let i = low
    let h = times[i + 1] - times[i]
    let a = times[i + 1] - t
    let b = t - times[i]
    let m0 = moments[i]
    let m1 = moments[i + 1]
    let c0 = values[i] / h - m0 * (h / 6)
    let c1 = values[i + 1] / h - m1 * (h / 6)
    let value = m0 * (a * a * a / (6 * h)) + m1 * (b * b * b / (6 * h)) + c0 * a + c1 * b
    let first = m1 * (b * b / (2 * h)) - m0 * (a * a / (2 * h)) + c1 - c0
    let second = m0 * (a / h) + m1 * (b / h)
    return (value, first, second)
  }
}

extension SIMD4 where Scalar == Double {
  fileprivate var xyz: SIMD3<Double> { SIMD3(x, y, z) }
}
