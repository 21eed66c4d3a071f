/// A quaternion of `Float` (Apple's `simd_quatf`).
public typealias simd_quatf = SIMDQuaternion<Float>
/// A quaternion of `Double` (Apple's `simd_quatd`).
public typealias simd_quatd = SIMDQuaternion<Double>

/// A quaternion `ix·i + iy·j + iz·k + r`, stored as `vector = (ix, iy, iz, r)` (real part last, as Apple
/// and TUM order it).
///
/// This is the one implementation behind `simd_quatf` and `simd_quatd`; use those names. Unit quaternions
/// represent rotations, right-handed, angles in radians; `q` and `-q` are the same rotation. Names and
/// semantics follow Apple's `simd` module.
public struct SIMDQuaternion<Scalar: SIMDScalar & BinaryFloatingPoint> {
  /// The components `(ix, iy, iz, r)`: imaginary part in `x, y, z`, real part in `w`.
  public var vector: SIMD4<Scalar>

  /// The zero quaternion (as Apple's `simd_quatf()`); it is not a rotation: use
  /// `init(ix: 0, iy: 0, iz: 0, r: 1)` for the identity.
  @inlinable
  public init() {
    vector = .zero
  }

  /// A quaternion from its four components.
  @inlinable
  public init(ix: Scalar, iy: Scalar, iz: Scalar, r: Scalar) {
    vector = SIMD4(ix, iy, iz, r)
  }

  /// A quaternion from its real part and imaginary part.
  @inlinable
  public init(real: Scalar, imag: SIMD3<Scalar>) {
    vector = SIMD4(imag, real)
  }

  /// A quaternion from the components `(ix, iy, iz, r)`.
  @inlinable
  public init(vector: SIMD4<Scalar>) {
    self.vector = vector
  }

  /// The rotation by `angle` radians about `axis` (right-handed: counter-clockwise looking down the axis
  /// towards its origin). As in Apple's, `axis` should be a unit vector; it is not normalised, and a
  /// non-unit axis gives a non-unit quaternion.
  @inlinable
  public init(angle: Scalar, axis: SIMD3<Scalar>) {
    let half = angle / 2
    vector = SIMD4(axis * _sin(half), _cos(half))
  }

  /// The shortest rotation that turns the direction `from` into the direction `to`. Both are normalised
  /// here (Apple asks for unit vectors). When they are opposite, the angle is π about an axis
  /// perpendicular to `from`, chosen deterministically; a zero vector gives NaN.
  @inlinable
  public init(from: SIMD3<Scalar>, to: SIMD3<Scalar>) {
    let f = simd_normalize(from)
    let t = simd_normalize(to)
    // Rotation by less than 90°: the half-way vector h gives (f×h, f·h) accurately.
    @inline(__always) func reduced(_ a: SIMD3<Scalar>, _ b: SIMD3<Scalar>) -> SIMDQuaternion {
      let half = simd_normalize(a + b)
      return SIMDQuaternion(real: simd_dot(a, half), imag: simd_cross(a, half))
    }
    if simd_dot(f, t) >= 0 {
      self = reduced(f, t)
      return
    }
    let sum = f + t
    if simd_length_squared(sum) <= Scalar.ulpOfOne * Scalar.ulpOfOne {
      // Opposite: rotate by π about an axis perpendicular to f, crossing f with the basis vector that
      // f is least aligned with.
      let a = simd_abs(f)
      let basis: SIMD3<Scalar> =
        a.x <= a.y && a.x <= a.z ? SIMD3(1, 0, 0) : (a.y <= a.z ? SIMD3(0, 1, 0) : SIMD3(0, 0, 1))
      self.init(real: 0, imag: simd_normalize(simd_cross(f, basis)))
      return
    }
    // More than 90°: go through the half-way direction in two accurate steps.
    let half = simd_normalize(sum)
    self = reduced(f, half) * reduced(half, t)
  }

  /// The rotation of a 3×3 rotation matrix, by Shepperd's method (the largest of the four squared
  /// components is computed first, so it is accurate for every angle including 180°). The result is
  /// normalised and its real part made non-negative. For a matrix that is not a rotation the result is
  /// a rotation near it but not the nearest; `RigidTransform(matrix:)` finds the nearest.
  @inlinable
  public init(_ rotationMatrix: SIMDMatrix3x3<Scalar>) {
    let (c0, c1, c2) = rotationMatrix.columns
    self.init(shepperd: c0.x, c1.x, c2.x, c0.y, c1.y, c2.y, c0.z, c1.z, c2.z)
  }

  /// The rotation of the upper-left 3×3 block of a 4×4 transform (translation and last row ignored);
  /// see `init(_: SIMDMatrix3x3)`.
  @inlinable
  public init(_ rotationMatrix: SIMDMatrix4x4<Scalar>) {
    let (c0, c1, c2, _) = rotationMatrix.columns
    self.init(shepperd: c0.x, c1.x, c2.x, c0.y, c1.y, c2.y, c0.z, c1.z, c2.z)
  }

  // Elements are passed row by row: mRC is row R, column C.
  @inlinable
  init(
    shepperd m00: Scalar, _ m01: Scalar, _ m02: Scalar, _ m10: Scalar, _ m11: Scalar, _ m12: Scalar,
    _ m20: Scalar, _ m21: Scalar, _ m22: Scalar
  ) {
    let trace = m00 + m11 + m22
    var q: SIMD4<Scalar>
    if trace >= m00 && trace >= m11 && trace >= m22 {
      let r = (Swift.max(1 + trace, 0)).squareRoot() * 2  // 4w
      q = SIMD4((m21 - m12) / r, (m02 - m20) / r, (m10 - m01) / r, r / 4)
    } else if m00 >= m11 && m00 >= m22 {
      let r = (Swift.max(1 + m00 - m11 - m22, 0)).squareRoot() * 2  // 4x
      q = SIMD4(r / 4, (m01 + m10) / r, (m02 + m20) / r, (m21 - m12) / r)
    } else if m11 >= m22 {
      let r = (Swift.max(1 - m00 + m11 - m22, 0)).squareRoot() * 2  // 4y
      q = SIMD4((m01 + m10) / r, r / 4, (m12 + m21) / r, (m02 - m20) / r)
    } else {
      let r = (Swift.max(1 - m00 - m11 + m22, 0)).squareRoot() * 2  // 4z
      q = SIMD4((m02 + m20) / r, (m12 + m21) / r, r / 4, (m10 - m01) / r)
    }
    if q.w < 0 { q = -q }
    vector = q / simd_length(q)
  }

  /// The real (scalar) part `r`.
  @inlinable
  public var real: Scalar {
    get { vector.w }
    set { vector.w = newValue }
  }

  /// The imaginary (vector) part `(ix, iy, iz)`.
  @inlinable
  public var imag: SIMD3<Scalar> {
    get { SIMD3(vector.x, vector.y, vector.z) }
    set { vector = SIMD4(newValue, vector.w) }
  }

  /// The rotation angle in radians, in `[0, 2π]`: `2·atan2(|imag|, real)`.
  @inlinable
  public var angle: Scalar { 2 * _atan2(simd_length(imag), real) }

  /// The unit rotation axis, `normalize(imag)`; NaN for the identity (zero imaginary part), as Apple's.
  @inlinable
  public var axis: SIMD3<Scalar> { simd_normalize(imag) }

  /// The length `|q|` as a 4-vector (1 for rotations).
  @inlinable
  public var length: Scalar { simd_length(vector) }

  /// `q / |q|`; the zero quaternion gives the identity, as Apple's.
  @inlinable
  public var normalized: Self {
    let lengthSquared = simd_length_squared(vector)
    if lengthSquared == 0 { return Self(ix: 0, iy: 0, iz: 0, r: 1) }
    return Self(vector: vector / lengthSquared.squareRoot())
  }

  /// The conjugate `(-imag, real)`: the inverse rotation for a unit quaternion.
  @inlinable
  public var conjugate: Self { Self(vector: vector * SIMD4(-1, -1, -1, 1)) }

  /// The multiplicative inverse `conjugate / |q|²`.
  @inlinable
  public var inverse: Self { Self(vector: conjugate.vector / simd_length_squared(vector)) }

  /// The vector `v` rotated by this quaternion, `q v q⁻¹`. A non-unit quaternion rotates by its
  /// normalised rotation (the length cancels), unlike Apple's x86 formula which assumes unit length.
  @inlinable
  public func act(_ v: SIMD3<Scalar>) -> SIMD3<Scalar> { act(v, lengthSquared: simd_length_squared(vector)) }

  /// ``act(_:)`` given this quaternion's squared length, for a caller that rotates many vectors by one
  /// quaternion and works the length out once: the same operations, so the same bits.
  @inlinable
  public func act(_ v: SIMD3<Scalar>, lengthSquared: Scalar) -> SIMD3<Scalar> {
    let u = imag
    let t = 2 * simd_cross(u, v)
    let correction = real * t + simd_cross(u, t)
    return v + correction / lengthSquared
  }

  /// The Hamilton product `lhs * rhs`: rotating by the result is rotating by `rhs`, then by `lhs`.
  @inlinable
  public static func * (lhs: Self, rhs: Self) -> Self {
    let a = lhs.imag
    let b = rhs.imag
    let real = lhs.real * rhs.real - simd_dot(a, b)
    let imag = lhs.real * b + rhs.real * a + simd_cross(a, b)
    return Self(real: real, imag: imag)
  }

  /// `lhs * rhs.inverse`.
  @inlinable
  public static func / (lhs: Self, rhs: Self) -> Self { lhs * rhs.inverse }

  /// Every component times `rhs`.
  @inlinable
  public static func * (lhs: Self, rhs: Scalar) -> Self { Self(vector: lhs.vector * rhs) }

  /// Every component times `lhs`.
  @inlinable
  public static func * (lhs: Scalar, rhs: Self) -> Self { Self(vector: rhs.vector * lhs) }

  /// Every component divided by `rhs`.
  @inlinable
  public static func / (lhs: Self, rhs: Scalar) -> Self { Self(vector: lhs.vector / rhs) }

  /// The component-wise sum.
  @inlinable
  public static func + (lhs: Self, rhs: Self) -> Self { Self(vector: lhs.vector + rhs.vector) }

  /// The component-wise difference.
  @inlinable
  public static func - (lhs: Self, rhs: Self) -> Self { Self(vector: lhs.vector - rhs.vector) }

  /// The negation: the same rotation as `operand`.
  @inlinable
  public static prefix func - (operand: Self) -> Self { Self(vector: -operand.vector) }

  /// `lhs = lhs * rhs`.
  @inlinable
  public static func *= (lhs: inout Self, rhs: Self) { lhs = lhs * rhs }

  /// `lhs = lhs / rhs`.
  @inlinable
  public static func /= (lhs: inout Self, rhs: Self) { lhs = lhs / rhs }

  /// `lhs = lhs + rhs`.
  @inlinable
  public static func += (lhs: inout Self, rhs: Self) { lhs = lhs + rhs }

  /// `lhs = lhs - rhs`.
  @inlinable
  public static func -= (lhs: inout Self, rhs: Self) { lhs = lhs - rhs }

  /// `lhs = lhs * rhs` for a scalar.
  @inlinable
  public static func *= (lhs: inout Self, rhs: Scalar) { lhs = lhs * rhs }
}

extension SIMDQuaternion: Equatable {
  /// Component-wise equality (so `q != -q` although they are the same rotation).
  @inlinable
  public static func == (lhs: Self, rhs: Self) -> Bool { lhs.vector == rhs.vector }
}

extension SIMDQuaternion: Hashable {
  /// Hashes the four components.
  @inlinable
  public func hash(into hasher: inout Hasher) { hasher.combine(vector) }
}

extension SIMDQuaternion: Sendable where Scalar: Sendable, Scalar.SIMD4Storage: Sendable {}

extension SIMDQuaternion: Codable where Scalar: Codable {
  /// Encodes `[ix, iy, iz, r]`.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(vector)
  }

  /// Decodes `[ix, iy, iz, r]`.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    vector = try container.decode(SIMD4<Scalar>.self)
  }
}

extension SIMDQuaternion: CustomStringConvertible, CustomDebugStringConvertible {
  /// Apple's format: `simd_quatf(real: 1.0, imag: SIMD3<Float>(0.0, 0.0, 0.0))`.
  public var description: String {
    let name: String
    if Scalar.self == Float.self {
      name = "simd_quatf"
    } else if Scalar.self == Double.self {
      name = "simd_quatd"
    } else {
      name = "SIMDQuaternion<\(Scalar.self)>"
    }
    return "\(name)(real: \(real), imag: \(imag))"
  }

  /// Same as `description`.
  public var debugDescription: String { description }
}

// MARK: - Rotation matrices from quaternions

extension SIMDMatrix3x3 {
  /// The rotation matrix of `quaternion` (normalised first, so any non-zero quaternion gives a
  /// rotation; the zero quaternion gives the identity).
  @inlinable
  public init(_ quaternion: SIMDQuaternion<Scalar>) {
    let q = quaternion.vector
    let n = simd_length_squared(q)
    let s: Scalar = n == 0 ? 0 : 2 / n
    let (x, y, z, w) = (q.x, q.y, q.z, q.w)
    let xx = s * x * x
    let yy = s * y * y
    let zz = s * z * z
    let xy = s * x * y
    let xz = s * x * z
    let yz = s * y * z
    let wx = s * w * x
    let wy = s * w * y
    let wz = s * w * z
    self.init(
      SIMD3(1 - yy - zz, xy + wz, xz - wy),
      SIMD3(xy - wz, 1 - xx - zz, yz + wx),
      SIMD3(xz + wy, yz - wx, 1 - xx - yy))
  }
}

extension SIMDMatrix4x4 {
  /// The 4×4 transform that rotates by `quaternion` (normalised first) with no translation.
  @inlinable
  public init(_ quaternion: SIMDQuaternion<Scalar>) {
    let r = SIMDMatrix3x3(quaternion)
    self.init(SIMD4(r.columns.0, 0), SIMD4(r.columns.1, 0), SIMD4(r.columns.2, 0), SIMD4(0, 0, 0, 1))
  }
}

// MARK: - Free functions (Apple's names)

/// The product `p * q` (rotate by `q`, then by `p`).
@inlinable
public func simd_mul<S>(_ p: SIMDQuaternion<S>, _ q: SIMDQuaternion<S>) -> SIMDQuaternion<S> { p * q }

/// `q` scaled by `a`.
@inlinable
public func simd_mul<S>(_ q: SIMDQuaternion<S>, _ a: S) -> SIMDQuaternion<S> { q * a }

/// `q` scaled by `a`.
@inlinable
public func simd_mul<S>(_ a: S, _ q: SIMDQuaternion<S>) -> SIMDQuaternion<S> { a * q }

/// The component-wise sum.
@inlinable
public func simd_add<S>(_ p: SIMDQuaternion<S>, _ q: SIMDQuaternion<S>) -> SIMDQuaternion<S> { p + q }

/// The component-wise difference.
@inlinable
public func simd_sub<S>(_ p: SIMDQuaternion<S>, _ q: SIMDQuaternion<S>) -> SIMDQuaternion<S> { p - q }

/// The negation `-q` (the same rotation).
@inlinable
public func simd_negate<S>(_ q: SIMDQuaternion<S>) -> SIMDQuaternion<S> { -q }

/// The dot product of `p` and `q` as 4-vectors.
@inlinable
public func simd_dot<S>(_ p: SIMDQuaternion<S>, _ q: SIMDQuaternion<S>) -> S { simd_dot(p.vector, q.vector) }

/// The length of `q` as a 4-vector.
@inlinable
public func simd_length<S>(_ q: SIMDQuaternion<S>) -> S { q.length }

/// `q / |q|`; the zero quaternion gives the identity.
@inlinable
public func simd_normalize<S>(_ q: SIMDQuaternion<S>) -> SIMDQuaternion<S> { q.normalized }

/// The conjugate `(-imag, real)`.
@inlinable
public func simd_conjugate<S>(_ q: SIMDQuaternion<S>) -> SIMDQuaternion<S> { q.conjugate }

/// The multiplicative inverse.
@inlinable
public func simd_inverse<S>(_ q: SIMDQuaternion<S>) -> SIMDQuaternion<S> { q.inverse }

/// `v` rotated by `q`.
@inlinable
public func simd_act<S>(_ q: SIMDQuaternion<S>, _ v: SIMD3<S>) -> SIMD3<S> { q.act(v) }

/// The rotation angle of `q` in radians.
@inlinable
public func simd_angle<S>(_ q: SIMDQuaternion<S>) -> S { q.angle }

/// The unit rotation axis of `q` (NaN for the identity).
@inlinable
public func simd_axis<S>(_ q: SIMDQuaternion<S>) -> SIMD3<S> { q.axis }

/// The real part of `q`.
@inlinable
public func simd_real<S>(_ q: SIMDQuaternion<S>) -> S { q.real }

/// The imaginary part of `q`.
@inlinable
public func simd_imag<S>(_ q: SIMDQuaternion<S>) -> SIMD3<S> { q.imag }

/// The quaternion `(ix, iy, iz, r)`.
@inlinable
public func simd_quaternion<S>(_ ix: S, _ iy: S, _ iz: S, _ r: S) -> SIMDQuaternion<S> {
  SIMDQuaternion(ix: ix, iy: iy, iz: iz, r: r)
}

/// The rotation by `angle` radians about the unit vector `axis`.
@inlinable
public func simd_quaternion<S>(_ angle: S, _ axis: SIMD3<S>) -> SIMDQuaternion<S> {
  SIMDQuaternion(angle: angle, axis: axis)
}

/// The shortest rotation from direction `from` to direction `to`.
@inlinable
public func simd_quaternion<S>(_ from: SIMD3<S>, _ to: SIMD3<S>) -> SIMDQuaternion<S> {
  SIMDQuaternion(from: from, to: to)
}

/// The rotation of a 3×3 rotation matrix.
@inlinable
public func simd_quaternion<S>(_ matrix: SIMDMatrix3x3<S>) -> SIMDQuaternion<S> { SIMDQuaternion(matrix) }

/// The rotation of the upper-left 3×3 block of a 4×4 transform.
@inlinable
public func simd_quaternion<S>(_ matrix: SIMDMatrix4x4<S>) -> SIMDQuaternion<S> { SIMDQuaternion(matrix) }

/// The 3×3 rotation matrix of `q`.
@inlinable
public func simd_matrix3x3<S>(_ q: SIMDQuaternion<S>) -> SIMDMatrix3x3<S> { SIMDMatrix3x3(q) }

/// The 4×4 transform that rotates by `q`.
@inlinable
public func simd_matrix4x4<S>(_ q: SIMDQuaternion<S>) -> SIMDMatrix4x4<S> { SIMDMatrix4x4(q) }

/// Spherical linear interpolation along the shorter arc from `q0` (`t = 0`) to `q1` (`t = 1`), at
/// constant angular speed; the result is normalised. `t` outside `[0, 1]` extrapolates.
@inlinable
public func simd_slerp<S>(_ q0: SIMDQuaternion<S>, _ q1: SIMDQuaternion<S>, _ t: S) -> SIMDQuaternion<S> {
  simd_dot(q0, q1) >= 0 ? _slerp(q0, q1, t) : _slerp(q0, -q1, t)
}

/// Spherical linear interpolation along the longer arc from `q0` to `q1`.
@inlinable
public func simd_slerp_longest<S>(
  _ q0: SIMDQuaternion<S>, _ q1: SIMDQuaternion<S>, _ t: S
) -> SIMDQuaternion<S> {
  simd_dot(q0, q1) >= 0 ? _slerp(q0, -q1, t) : _slerp(q0, q1, t)
}

/// Slerp along the arc from `q0` to `q1` as given (no sign flip). The angle between the two 4-vectors
/// is `2·atan2(|q0 - q1|, |q0 + q1|)`, accurate for small and large angles; weights use sin(x)/x so
/// that equal inputs need no special case.
@inlinable
func _slerp<S>(_ q0: SIMDQuaternion<S>, _ q1: SIMDQuaternion<S>, _ t: S) -> SIMDQuaternion<S> {
  @inline(__always) func sinc(_ x: S) -> S { x == 0 ? 1 : _sin(x) / x }
  let s = 1 - t
  let angle = 2 * _atan2(simd_length(q0.vector - q1.vector), simd_length(q0.vector + q1.vector))
  let r = 1 / sinc(angle)
  let v = (sinc(s * angle) * r * s) * q0.vector + (sinc(t * angle) * r * t) * q1.vector
  return SIMDQuaternion(vector: v).normalized
}
