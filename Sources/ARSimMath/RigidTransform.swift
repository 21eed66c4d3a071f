#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(ucrt)
  import ucrt
#endif

/// A rigid transform (a rotation followed by a translation) in double precision: `x ↦ R x + t`.
/// Metres and radians. An ARSim type; ARKit itself uses `simd_float4x4`.
///
/// Naming convention: a transform is named by both of its frames, destination first. `worldFromCamera`
/// maps coordinates in the camera frame to coordinates in the world frame, so frames cancel when composed,
/// `worldFromCamera * cameraFromAnchor == worldFromAnchor`, and `worldFromCamera.inverse` is
/// `cameraFromWorld`. Its `translation` is the camera's origin in world coordinates, and its `matrix` is
/// what ARKit calls the camera's `transform`.
public struct RigidTransform: Sendable, Hashable, Codable {
  /// The rotation `R`, a unit quaternion (normalised by the initialisers).
  public var rotation: simd_quatd
  /// The translation `t` in metres: the source frame's origin expressed in the destination frame.
  public var translation: SIMD3<Double>

  /// A transform from a rotation (normalised here; a zero quaternion becomes the identity) and a
  /// translation in metres.
  @inlinable
  public init(
    rotation: simd_quatd = simd_quatd(ix: 0, iy: 0, iz: 0, r: 1), translation: SIMD3<Double> = .zero
  ) {
    self.rotation = rotation.normalized
    self.translation = translation
  }

  /// The identity transform.
  public static let identity = RigidTransform()

  /// The composition `lhs * rhs`: apply `rhs` first, so `aFromB * bFromC == aFromC`.
  @inlinable
  public static func * (lhs: RigidTransform, rhs: RigidTransform) -> RigidTransform {
    var result = RigidTransform()
    result.rotation = (lhs.rotation * rhs.rotation).normalized
    result.translation = lhs.rotation.act(rhs.translation) + lhs.translation
    return result
  }

  /// The inverse transform `x ↦ Rᵀ(x − t)`: the inverse of `aFromB` is `bFromA`.
  @inlinable
  public var inverse: RigidTransform {
    var result = RigidTransform()
    result.rotation = rotation.conjugate
    result.translation = -result.rotation.act(translation)
    return result
  }

  /// The point `point` (source-frame coordinates, metres) in destination-frame coordinates: `R p + t`.
  @inlinable
  public func apply(to point: SIMD3<Double>) -> SIMD3<Double> {
    rotation.act(point) + translation
  }

  /// The direction `vector` rotated into the destination frame, without translation: `R v`.
  @inlinable
  public func rotate(_ vector: SIMD3<Double>) -> SIMD3<Double> {
    rotation.act(vector)
  }

  /// The 4×4 homogeneous matrix `[R t; 0 1]`.
  @inlinable
  public var matrix: simd_double4x4 {
    var m = simd_double4x4(rotation)
    m.columns.3 = SIMD4(translation, 1)
    return m
  }

  /// The 4×4 homogeneous matrix rounded to `Float`, as ARKit's `transform` properties hold it.
  @inlinable
  public var floatMatrix: simd_float4x4 { simd_float4x4(matrix) }

  /// The transform of a homogeneous matrix whose upper-left block is a rotation, possibly with noise,
  /// scale or rounding. The rotation is the nearest rotation to the 3×3 block in the Frobenius sense
  /// (Bar-Itzhack's method: the dominant eigenvector of a symmetric 4×4 matrix), so a slightly
  /// non-orthonormal input is orthonormalised; the translation is `columns.3.xyz`; the bottom row is
  /// ignored.
  public init(matrix: simd_double4x4) {
    let (c0, c1, c2, c3) = matrix.columns
    // mRC: row R, column C. The quadratic form qᵀKq equals tr(Mᵀ R(q)) for q = (x, y, z, w).
    let (m00, m10, m20) = (c0.x, c0.y, c0.z)
    let (m01, m11, m21) = (c1.x, c1.y, c1.z)
    let (m02, m12, m22) = (c2.x, c2.y, c2.z)
    let rows: [[Double]] = [
      [m00 - m11 - m22, m01 + m10, m02 + m20, m21 - m12],
      [m01 + m10, m11 - m00 - m22, m12 + m21, m02 - m20],
      [m02 + m20, m12 + m21, m22 - m00 - m11, m10 - m01],
      [m21 - m12, m02 - m20, m10 - m01, m00 + m11 + m22],
    ]
    var k = SIMD16<Double>(repeating: 0)
    for r in 0..<4 {
      for c in 0..<4 { k[r * 4 + c] = rows[r][c] }
    }
    let (_, vectors) = jacobiEigen(k, size: 4)
    let q = SIMD4(vectors[3], vectors[7], vectors[11], vectors[15])
    self.init(rotation: simd_quatd(vector: q.w < 0 ? -q : q), translation: SIMD3(c3.x, c3.y, c3.z))
  }

  /// The transform of a `Float` homogeneous matrix (for example an ARKit `transform`); see
  /// `init(matrix: simd_double4x4)`.
  public init(matrix: simd_float4x4) {
    self.init(matrix: simd_double4x4(matrix))
  }

  // MARK: Lie group maps

  /// The exponential map of SE(3): the transform reached by moving along `twist` for unit time,
  /// `R = exp(ω×)`, `t = J(ω) ρ` with the left Jacobian `J`.
  public static func exp(_ twist: Twist) -> RigidTransform {
    let phi = twist.angular
    let theta2 = simd_length_squared(phi)
    let theta = theta2.squareRoot()
    let b: Double  // (1 − cos θ)/θ²
    let c: Double  // (θ − sin θ)/θ³
    if theta < 1e-3 {
      b = 0.5 - theta2 / 24 + theta2 * theta2 / 720
      c = 1.0 / 6 - theta2 / 120 + theta2 * theta2 / 5040
    } else {
      b = (1 - cos(theta)) / theta2
      c = (theta - sin(theta)) / (theta2 * theta)
    }
    let rho = twist.linear
    let phiCrossRho = simd_cross(phi, rho)
    let t = rho + b * phiCrossRho + c * simd_cross(phi, phiCrossRho)
    return RigidTransform(rotation: expRotation(phi), translation: t)
  }

  /// The logarithm map of SE(3), the inverse of `exp`: the twist with rotation angle in `[0, π]`.
  public var log: Twist {
    let phi = RigidTransform.logRotation(rotation)
    let theta2 = simd_length_squared(phi)
    let theta = theta2.squareRoot()
    let d: Double  // (1 − (θ/2)·cot(θ/2))/θ²
    if theta < 1e-3 {
      d = 1.0 / 12 + theta2 / 720 + theta2 * theta2 / 30240
    } else {
      let half = theta / 2
      d = (1 - half * cos(half) / sin(half)) / theta2
    }
    let phiCrossT = simd_cross(phi, translation)
    let rho = translation - 0.5 * phiCrossT + d * simd_cross(phi, phiCrossT)
    return Twist(angular: phi, linear: rho)
  }

  /// The exponential map of SO(3): the rotation by `|rotationVector|` radians about its direction.
  public static func expRotation(_ rotationVector: SIMD3<Double>) -> simd_quatd {
    let theta2 = simd_length_squared(rotationVector)
    let theta = theta2.squareRoot()
    let k = theta < 1e-4 ? 0.5 - theta2 / 48 : sin(theta / 2) / theta
    return simd_quatd(real: cos(theta / 2), imag: k * rotationVector)
  }

  /// The logarithm map of SO(3): the rotation vector (axis times angle, angle in `[0, π]`) of a rotation
  /// given as a non-zero quaternion (either sign).
  public static func logRotation(_ rotation: simd_quatd) -> SIMD3<Double> {
    var q = rotation.normalized
    if q.real < 0 { q = -q }
    let v = q.imag
    let n = simd_length(v)
    if n < 1e-8 { return (2 / q.real) * v }
    return (2 * atan2(n, q.real) / n) * v
  }

  // MARK: TUM trajectory format

  /// The transform of a TUM trajectory pose `tx ty tz qx qy qz qw` (translation in metres, then the
  /// rotation quaternion, real part last); `nil` when there are not exactly 7 finite values or the
  /// quaternion is zero. The quaternion is normalised. In a TUM file the pose is `worldFromCamera` for
  /// the camera's optical frame (x right, y down, z forward).
  public init?(tumValues values: some Collection<Double>) {
    let v = Array(values)
    guard v.count == 7, v.allSatisfy(\.isFinite) else { return nil }
    let q = SIMD4(v[3], v[4], v[5], v[6])
    guard simd_length_squared(q) > 0 else { return nil }
    self.init(rotation: simd_quatd(vector: q), translation: SIMD3(v[0], v[1], v[2]))
  }

  /// The seven TUM values `[tx, ty, tz, qx, qy, qz, qw]` (metres, unit quaternion, sign as stored).
  public var tumValues: [Double] {
    [
      translation.x, translation.y, translation.z, rotation.vector.x, rotation.vector.y, rotation.vector.z,
      rotation.vector.w,
    ]
  }
}

/// A twist: an element of se(3), the tangent space of rigid transforms, as used by `RigidTransform.exp`
/// and `RigidTransform.log`.
public struct Twist: Sendable, Hashable, Codable {
  /// The rotation vector `ω` (axis times angle, radians).
  public var angular: SIMD3<Double>
  /// The translational part `ρ` in metres. It equals the transform's translation only when `ω` is zero;
  /// in general `translation = J(ω) ρ`.
  public var linear: SIMD3<Double>

  /// A twist from its rotation vector (radians) and translational part (metres).
  public init(angular: SIMD3<Double>, linear: SIMD3<Double>) {
    self.angular = angular
    self.linear = linear
  }
}
