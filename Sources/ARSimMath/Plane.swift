#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(ucrt)
  import ucrt
#endif

/// An infinite plane `n·x + d = 0` with unit normal `n` and offset `d` (metres), in double precision.
/// An ARSim type. The normal's direction is meaningful: `signedDistance` is positive on the side it points
/// to. The frame is whatever frame the points are in (usually world).
public struct Plane: Sendable, Hashable, Codable {
  /// The unit normal `n`.
  public var normal: SIMD3<Double>
  /// The offset `d` in metres: the signed distance from the plane to the frame's origin, so the plane's
  /// point closest to the origin is `-d·n`.
  public var offset: Double

  /// The plane `normal·x + offset = 0`. A non-unit `normal` is normalised and `offset` divided by the
  /// same length, so the set of points is unchanged. The normal must be non-zero and finite (a
  /// precondition).
  public init(normal: SIMD3<Double>, offset: Double) {
    let length = simd_length(normal)
    precondition(length > 0 && length.isFinite, "a plane needs a non-zero finite normal")
    self.normal = normal / length
    self.offset = offset / length
  }

  /// The plane through `point` (metres) with the given normal (normalised here; must be non-zero).
  public init(point: SIMD3<Double>, normal: SIMD3<Double>) {
    let n = simd_normalize(normal)
    self.init(normal: n, offset: -simd_dot(n, point))
  }

  /// The least-squares plane of `points` (minimising the sum of squared perpendicular distances): through
  /// the centroid, normal along the eigenvector of the smallest eigenvalue of the centred covariance.
  /// `nil` for fewer than three points or when the points are (numerically) all on one line. The normal is
  /// oriented so that its largest-magnitude component is positive (so a horizontal plane's normal is +y);
  /// use `flipped` to orient it otherwise, e.g. towards a camera.
  public init?(fitting points: some Sequence<SIMD3<Double>>) {
    guard let plane = PlaneMoments(points: points).plane else { return nil }
    self = plane
  }

  /// The same plane with the normal reversed (`-n`, `-d`).
  public var flipped: Plane {
    var result = self
    result.normal = -normal
    result.offset = -offset
    return result
  }

  /// The point of the plane closest to the origin, `-d·n` (metres).
  public var pointClosestToOrigin: SIMD3<Double> { -offset * normal }

  /// The signed distance `n·p + d` from the plane to `point`, metres; positive on the normal's side.
  @inlinable
  public func signedDistance(to point: SIMD3<Double>) -> Double {
    simd_dot(normal, point) + offset
  }

  /// The orthogonal projection of `point` onto the plane.
  @inlinable
  public func project(_ point: SIMD3<Double>) -> SIMD3<Double> {
    point - signedDistance(to: point) * normal
  }

  /// Where the ray `origin + s·direction` (`s ≥ 0`) meets the plane: the ray parameter `s`, in units
  /// of `direction`'s length (metres when it is a unit vector). `nil` when the ray is parallel to the
  /// plane (`|n·direction| ≤ 1e-12·|direction|`, including a ray lying in it) or the plane is behind the
  /// origin (`s < 0`).
  public func intersection(rayOrigin origin: SIMD3<Double>, direction: SIMD3<Double>) -> Double? {
    let denominator = simd_dot(normal, direction)
    guard denominator.magnitude > 1e-12 * simd_length(direction) else { return nil }
    let s = -signedDistance(to: origin) / denominator
    return s >= 0 ? s : nil
  }

  /// The angle between the two normals in radians, in `[0, π]` (π for the same surface with opposite
  /// orientation). Computed with `atan2` so small angles are accurate.
  public func angle(to other: Plane) -> Double {
    atan2(simd_length(simd_cross(normal, other.normal)), simd_dot(normal, other.normal))
  }

  /// The plane moved by `transform`: if this plane is in frame B, the result is the same surface in
  /// frame A for a transform `aFromB`.
  public func transformed(by transform: RigidTransform) -> Plane {
    let n = transform.rotate(normal)
    let point = transform.apply(to: pointClosestToOrigin)
    return Plane(normal: n, offset: -simd_dot(n, point))
  }
}

/// Sums over a set of 3-D points that describe its best plane, and merge by addition: the union of two
/// disjoint sets has `PlaneMoments(a) + PlaneMoments(b)` (up to rounding of the sums), as CAPE's
/// `PlaneSeg` merges cells. An ARSim type; points in metres in any one frame.
///
/// The covariance is centred (`Σ x xᵀ / n − μ μᵀ`) before the plane is fitted. For best accuracy keep
/// coordinates near the origin of the frame relative to the spread of the points (tens of metres is fine
/// in double precision).
public struct PlaneMoments: Sendable, Hashable, Codable {
  /// The number of points.
  public private(set) var count: Int
  /// `Σ x`, metres.
  public private(set) var sum: SIMD3<Double>
  /// `Σ x xᵀ`, square metres.
  public private(set) var sumOfOuterProducts: simd_double3x3

  /// The moments of no points.
  public init() {
    count = 0
    sum = .zero
    sumOfOuterProducts = simd_double3x3()
  }

  /// The moments of `count` points with the sum `sum` and the sum of outer products
  /// `sumOfOuterProducts` (accumulated by the caller, for example in a loop that ``add(_:)``, a call
  /// across modules, would slow).
  public init(count: Int, sum: SIMD3<Double>, sumOfOuterProducts: simd_double3x3) {
    self.count = count
    self.sum = sum
    self.sumOfOuterProducts = sumOfOuterProducts
  }

  /// The moments of `points`.
  public init(points: some Sequence<SIMD3<Double>>) {
    self.init()
    for point in points { add(point) }
  }

  /// Adds one point.
  public mutating func add(_ point: SIMD3<Double>) {
    count += 1
    sum += point
    sumOfOuterProducts.columns.0 += point * point.x
    sumOfOuterProducts.columns.1 += point * point.y
    sumOfOuterProducts.columns.2 += point * point.z
  }

  /// The centroid `Σ x / n`; `nil` when empty.
  public var mean: SIMD3<Double>? {
    count > 0 ? sum / Double(count) : nil
  }

  /// The centred covariance `Σ (x − μ)(x − μ)ᵀ / n` (population, square metres); `nil` when empty.
  public var covariance: simd_double3x3? {
    guard count > 0 else { return nil }
    let n = Double(count)
    let mu = sum / n
    let outer = simd_double3x3(mu * mu.x, mu * mu.y, mu * mu.z)
    return sumOfOuterProducts * (1 / n) - outer
  }

  /// The least-squares plane through the centroid with the normal along the covariance's smallest
  /// eigenvector, oriented with its largest-magnitude component positive. `nil` for fewer than three
  /// points or when the points are (numerically) on one line or all equal.
  public var plane: Plane? { planeFit?.plane }

  /// The mean squared distance (square metres) of the points to `plane`, which is the smallest eigenvalue
  /// of the covariance; `nil` when `plane` is `nil`.
  public var meanSquaredDistance: Double? { planeFit?.meanSquaredDistance }

  /// ``plane`` and ``meanSquaredDistance`` together, from one eigen decomposition of the covariance
  /// (asking for each separately decomposes it twice); `nil` when ``plane`` is `nil`.
  public var planeFit: (plane: Plane, meanSquaredDistance: Double)? {
    guard count >= 3, let covariance, let mean else { return nil }
    let (values, vectors) = symmetricEigenDecomposition(covariance)
    // Collinear or coincident points: the middle eigenvalue vanishes relative to the largest.
    guard values.z > 0, values.y > values.z * 1e-12 else { return nil }
    let normal = vectors.columns.0
    return (Plane(point: mean, normal: normal), Swift.max(values.x, 0))
  }

  /// The moments of the same points moved by `transform` (`aFromB` for points in frame B): exact up to
  /// rounding, `Σ (Rx + t)(Rx + t)ᵀ = R (Σ x xᵀ) Rᵀ + R(Σ x) tᵀ + t (R Σ x)ᵀ + n t tᵀ`.
  public func transformed(by transform: RigidTransform) -> PlaneMoments {
    let r = simd_double3x3(transform.rotation)
    let t = transform.translation
    let rotatedSum = r * sum
    let n = Double(count)
    var result = self
    result.sum = rotatedSum + n * t
    let rotated = r * sumOfOuterProducts * r.transpose
    let cross = simd_double3x3(rotatedSum * t.x, rotatedSum * t.y, rotatedSum * t.z)
    let translation = simd_double3x3(t * (n * t.x), t * (n * t.y), t * (n * t.z))
    result.sumOfOuterProducts = rotated + cross + cross.transpose + translation
    return result
  }

  /// The moments of the union of two disjoint point sets.
  public static func + (lhs: PlaneMoments, rhs: PlaneMoments) -> PlaneMoments {
    var result = lhs
    result += rhs
    return result
  }

  /// Adds the points of `rhs` to `lhs`.
  public static func += (lhs: inout PlaneMoments, rhs: PlaneMoments) {
    lhs.count += rhs.count
    lhs.sum += rhs.sum
    lhs.sumOfOuterProducts += rhs.sumOfOuterProducts
  }
}
