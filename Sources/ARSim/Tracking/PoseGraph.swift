/// A pose graph over SE(3) poses (keyframes in O): relative-pose edges between nodes, the first
/// ``fixed`` nodes held, the others solved by Gauss-Newton (Levenberg-damped) on the right-perturbed
/// poses `pose · exp(δ)`, with numeric Jacobians and a dense Cholesky factorisation of the normal
/// equations (6 unknowns per free node; the graphs here have at most a few dozen nodes, so the
/// factorisation is a fraction of a millisecond optimised and stays cheap unoptimised). Deterministic.
struct PoseGraph {
  /// A relative-pose measurement: `aFromB`, node `b`'s pose in node `a`'s frame, with the inverse
  /// standard deviations of its translation (1/m) and rotation (1/rad).
  struct Edge {
    var a: Int
    var b: Int
    var aFromB: RigidTransform
    var translationWeight: Double
    var rotationWeight: Double
  }

  /// The nodes' poses (O from node).
  var poses: [RigidTransform]
  /// How many of the first nodes are held.
  var fixed: Int
  var edges: [Edge] = []

  init(poses: [RigidTransform], fixed: Int) {
    self.poses = poses
    self.fixed = fixed
  }

  /// The weighted residual of an edge for given poses: `log(measured⁻¹ · a⁻¹ · b)`, rotation first.
  private static func residual(_ edge: Edge, _ a: RigidTransform, _ b: RigidTransform) -> [Double] {
    let twist = (edge.aFromB.inverse * a.inverse * b).log
    let w = edge.rotationWeight
    let v = edge.translationWeight
    return [
      w * twist.angular.x, w * twist.angular.y, w * twist.angular.z,
      v * twist.linear.x, v * twist.linear.y, v * twist.linear.z,
    ]
  }

  /// The sum of the squared weighted residuals.
  var cost: Double {
    edges.reduce(0) { sum, edge in
      sum + Self.residual(edge, poses[edge.a], poses[edge.b]).reduce(0) { $0 + $1 * $1 }
    }
  }

  /// `pose · exp(δ)` for the 6-vector `δ` (rotation first).
  private static func perturbed(_ pose: RigidTransform, _ delta: [Double], at offset: Int) -> RigidTransform {
    pose
      * RigidTransform.exp(
        Twist(
          angular: SIMD3(delta[offset], delta[offset + 1], delta[offset + 2]),
          linear: SIMD3(delta[offset + 3], delta[offset + 4], delta[offset + 5])))
  }

  /// Runs up to `iterations` Gauss-Newton steps, stopping when a step no longer lowers the cost
  /// (that step is not taken). Returns the final cost.
  @discardableResult
  mutating func optimize(iterations: Int = 8) -> Double {
    let free = poses.count - fixed
    guard free > 0, !edges.isEmpty else { return cost }
    let n = 6 * free
    var current = cost
    for _ in 0..<iterations {
      var h = [Double](repeating: 0, count: n * n)
      var g = [Double](repeating: 0, count: n)
      for edge in edges {
        accumulate(edge, h: &h, g: &g, n: n)
      }
      // Levenberg damping keeps the step defined where the graph leaves a direction free.
      for i in 0..<n { h[i * n + i] += 1e-9 + 1e-6 * h[i * n + i] }
      guard let step = Self.solve(h, g, n: n) else { break }
      var candidate = poses
      for node in fixed..<poses.count {
        candidate[node] = Self.perturbed(poses[node], step, at: 6 * (node - fixed))
      }
      let saved = poses
      poses = candidate
      let next = cost
      guard next < current else {
        poses = saved
        break
      }
      let improvement = current - next
      current = next
      if improvement <= 1e-12 * max(current, 1) { break }
    }
    return current
  }

  /// Adds an edge's Jacobian products to `h` (JᵀJ) and `g` (−Jᵀr): central differences of the residual
  /// in each free node's six perturbation directions.
  private func accumulate(_ edge: Edge, h: inout [Double], g: inout [Double], n: Int) {
    let a = poses[edge.a]
    let b = poses[edge.b]
    let r = Self.residual(edge, a, b)
    var columns: [(index: Int, values: [Double])] = []
    let step = 1e-6
    for (node, isA) in [(edge.a, true), (edge.b, false)] where node >= fixed {
      for k in 0..<6 {
        var delta = [Double](repeating: 0, count: 6)
        delta[k] = step
        let plus = Self.perturbed(isA ? a : b, delta, at: 0)
        delta[k] = -step
        let minus = Self.perturbed(isA ? a : b, delta, at: 0)
        let rp = isA ? Self.residual(edge, plus, b) : Self.residual(edge, a, plus)
        let rm = isA ? Self.residual(edge, minus, b) : Self.residual(edge, a, minus)
        columns.append((6 * (node - fixed) + k, (0..<6).map { (rp[$0] - rm[$0]) / (2 * step) }))
      }
    }
    for (i, ci) in columns {
      var dot = 0.0
      for k in 0..<6 { dot += ci[k] * r[k] }
      g[i] -= dot
      for (j, cj) in columns {
        var product = 0.0
        for k in 0..<6 { product += ci[k] * cj[k] }
        h[i * n + j] += product
      }
    }
  }

  /// Solves `h x = g` for a symmetric positive-definite `h` (n×n, row-major) by Cholesky; nil when
  /// `h` is not positive definite.
  static func solve(_ h: [Double], _ g: [Double], n: Int) -> [Double]? {
    var l = h
    var x = g
    let solved = l.withUnsafeMutableBufferPointer { l -> Bool in
      for j in 0..<n {
        var d = l[j * n + j]
        for k in 0..<j { d -= l[j * n + k] * l[j * n + k] }
        guard d > 0, d.isFinite else { return false }
        let root = d.squareRoot()
        l[j * n + j] = root
        for i in (j + 1)..<n {
          var s = l[i * n + j]
          for k in 0..<j { s -= l[i * n + k] * l[j * n + k] }
          l[i * n + j] = s / root
        }
      }
      return true
    }
    guard solved else { return nil }
    // Forward (L y = g), then back substitution (Lᵀ x = y).
    for i in 0..<n {
      var s = x[i]
      for k in 0..<i { s -= l[i * n + k] * x[k] }
      x[i] = s / l[i * n + i]
    }
    for i in stride(from: n - 1, through: 0, by: -1) {
      var s = x[i]
      for k in (i + 1)..<n { s -= l[k * n + i] * x[k] }
      x[i] = s / l[i * n + i]
    }
    return x
  }
}
