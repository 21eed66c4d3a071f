/// A 4×4 matrix of `Float` stored as four column vectors (Apple's `simd_float4x4`, ARKit's transform type).
public typealias simd_float4x4 = SIMDMatrix4x4<Float>
/// A 4×4 matrix of `Double` stored as four column vectors (Apple's `simd_double4x4`).
public typealias simd_double4x4 = SIMDMatrix4x4<Double>
/// Apple's C name for `simd_float4x4`.
public typealias matrix_float4x4 = simd_float4x4
/// Apple's C name for `simd_double4x4`.
public typealias matrix_double4x4 = simd_double4x4
/// Apple's Swift name for `simd_float4x4`.
public typealias float4x4 = simd_float4x4
/// Apple's Swift name for `simd_double4x4`.
public typealias double4x4 = simd_double4x4

/// A 4×4 matrix stored as four columns, column-major, acting on column vectors (`m * v`).
///
/// This is the one implementation behind `simd_float4x4` and `simd_double4x4`; use those names. Names and
/// semantics follow Apple's `simd` module: `columns` is a tuple, `m[column]` is a column, `m[column, row]`
/// an element. For a rigid transform `aFromB`, `columns.3` holds the origin of frame B in frame A
/// (`w = 1`) and the upper-left 3×3 block the rotation. Arithmetic is IEEE: nothing is checked for NaN.
public struct SIMDMatrix4x4<Scalar: SIMDScalar & BinaryFloatingPoint> {
  /// The four columns, left to right.
  public var columns: (SIMD4<Scalar>, SIMD4<Scalar>, SIMD4<Scalar>, SIMD4<Scalar>)

  /// The zero matrix (as Apple's `simd_float4x4()`).
  @inlinable
  public init() {
    columns = (.zero, .zero, .zero, .zero)
  }

  /// A matrix with the given columns.
  @inlinable
  public init(columns: (SIMD4<Scalar>, SIMD4<Scalar>, SIMD4<Scalar>, SIMD4<Scalar>)) {
    self.columns = columns
  }

  /// A matrix with the given columns, left to right.
  @inlinable
  public init(_ c0: SIMD4<Scalar>, _ c1: SIMD4<Scalar>, _ c2: SIMD4<Scalar>, _ c3: SIMD4<Scalar>) {
    columns = (c0, c1, c2, c3)
  }

  /// A matrix from an array of exactly four columns (a precondition).
  @inlinable
  public init(_ columns: [SIMD4<Scalar>]) {
    precondition(columns.count == 4, "simd_float4x4 needs exactly 4 columns")
    self.columns = (columns[0], columns[1], columns[2], columns[3])
  }

  /// A matrix from an array of exactly four rows, top to bottom (a precondition).
  @inlinable
  public init(rows: [SIMD4<Scalar>]) {
    precondition(rows.count == 4, "simd_float4x4 needs exactly 4 rows")
    self = SIMDMatrix4x4(rows[0], rows[1], rows[2], rows[3]).transpose
  }

  /// A diagonal matrix with `diagonal` on the diagonal and zeros elsewhere.
  @inlinable
  public init(diagonal: SIMD4<Scalar>) {
    columns = (
      SIMD4(diagonal.x, 0, 0, 0), SIMD4(0, diagonal.y, 0, 0), SIMD4(0, 0, diagonal.z, 0),
      SIMD4(0, 0, 0, diagonal.w)
    )
  }

  /// A diagonal matrix with `scalar` on the diagonal (`scalar` times the identity).
  @inlinable
  public init(_ scalar: Scalar) {
    self.init(diagonal: SIMD4(repeating: scalar))
  }

  /// The same matrix with its elements converted to `Scalar` (rounding to nearest).
  @inlinable
  public init<Other>(_ other: SIMDMatrix4x4<Other>) {
    columns = (
      SIMD4(other.columns.0), SIMD4(other.columns.1), SIMD4(other.columns.2), SIMD4(other.columns.3)
    )
  }

  /// The identity matrix.
  @inlinable
  public static var identity: Self { Self(diagonal: SIMD4(repeating: 1)) }

  /// Column `column` (0...3); out-of-range indices trap.
  @inlinable
  public subscript(column: Int) -> SIMD4<Scalar> {
    get {
      switch column {
      case 0: return columns.0
      case 1: return columns.1
      case 2: return columns.2
      case 3: return columns.3
      default: preconditionFailure("column index out of range")
      }
    }
    set {
      switch column {
      case 0: columns.0 = newValue
      case 1: columns.1 = newValue
      case 2: columns.2 = newValue
      case 3: columns.3 = newValue
      default: preconditionFailure("column index out of range")
      }
    }
  }

  /// The transpose: rows become columns.
  @inlinable
  public var transpose: Self {
    let (a, b, c, d) = columns
    return Self(
      SIMD4(a.x, b.x, c.x, d.x), SIMD4(a.y, b.y, c.y, d.y), SIMD4(a.z, b.z, c.z, d.z),
      SIMD4(a.w, b.w, c.w, d.w))
  }

  // Both the determinant and the inverse split the matrix into the xyz parts of the columns
  // (a, b, c, d) and the bottom row (x, y, z, w) and work with 3-vector cross products:
  // det = s·v + t·u with s = a×b, t = c×d, u = y a − x b, v = w c − z d.

  /// The determinant.
  @inlinable
  public var determinant: Scalar {
    let (c0, c1, c2, c3) = columns
    let a = SIMD3(c0.x, c0.y, c0.z)
    let b = SIMD3(c1.x, c1.y, c1.z)
    let c = SIMD3(c2.x, c2.y, c2.z)
    let d = SIMD3(c3.x, c3.y, c3.z)
    let s = simd_cross(a, b)
    let t = simd_cross(c, d)
    let u = a * c1.w - b * c0.w
    let v = c * c3.w - d * c2.w
    return simd_dot(s, v) + simd_dot(t, u)
  }

  /// The inverse of a general matrix (not only rigid ones). A singular matrix gives infinities or NaN,
  /// as Apple's does; check `determinant` first when that can happen. For rigid transforms
  /// `RigidTransform.inverse` is cheaper and exact in rotation.
  @inlinable
  public var inverse: Self {
    let (c0, c1, c2, c3) = columns
    let a = SIMD3(c0.x, c0.y, c0.z)
    let b = SIMD3(c1.x, c1.y, c1.z)
    let c = SIMD3(c2.x, c2.y, c2.z)
    let d = SIMD3(c3.x, c3.y, c3.z)
    let x = c0.w
    let y = c1.w
    let z = c2.w
    let w = c3.w
    var s = simd_cross(a, b)
    var t = simd_cross(c, d)
    var u = a * y - b * x
    var v = c * w - d * z
    let inverseDeterminant = 1 / (simd_dot(s, v) + simd_dot(t, u))
    s *= inverseDeterminant
    t *= inverseDeterminant
    u *= inverseDeterminant
    v *= inverseDeterminant
    let r0 = simd_cross(b, v) + t * y
    let r1 = simd_cross(v, a) - t * x
    let r2 = simd_cross(d, u) + s * w
    let r3 = simd_cross(u, c) - s * z
    let rows = Self(
      SIMD4(r0, -simd_dot(b, t)), SIMD4(r1, simd_dot(a, t)), SIMD4(r2, -simd_dot(d, s)),
      SIMD4(r3, simd_dot(c, s)))
    return rows.transpose
  }

  /// The matrix product `lhs * rhs` (apply `rhs` first): `aFromB * bFromC = aFromC`.
  @inlinable
  public static func * (lhs: Self, rhs: Self) -> Self {
    Self(lhs * rhs.columns.0, lhs * rhs.columns.1, lhs * rhs.columns.2, lhs * rhs.columns.3)
  }

  /// The matrix times a column vector (use `w = 1` for points, `w = 0` for directions).
  @inlinable
  public static func * (lhs: Self, rhs: SIMD4<Scalar>) -> SIMD4<Scalar> {
    let x = lhs.columns.0 * rhs.x
    let y = lhs.columns.1 * rhs.y
    let z = lhs.columns.2 * rhs.z
    let w = lhs.columns.3 * rhs.w
    return (x + y) + (z + w)
  }

  /// A row vector times the matrix (`vᵀ M`), returned as a vector.
  @inlinable
  public static func * (lhs: SIMD4<Scalar>, rhs: Self) -> SIMD4<Scalar> {
    SIMD4(
      simd_dot(lhs, rhs.columns.0), simd_dot(lhs, rhs.columns.1), simd_dot(lhs, rhs.columns.2),
      simd_dot(lhs, rhs.columns.3))
  }
}

extension SIMDMatrix4x4: SIMDSquareMatrix {}

extension SIMDMatrix4x4: Sendable where Scalar: Sendable, Scalar.SIMD4Storage: Sendable {}

extension SIMDMatrix4x4: Codable where Scalar: Codable {}

// MARK: - Globals and free functions

/// The 4×4 `Float` identity matrix.
@inlinable
public var matrix_identity_float4x4: simd_float4x4 { .identity }

/// The 4×4 `Double` identity matrix.
@inlinable
public var matrix_identity_double4x4: simd_double4x4 { .identity }

/// A matrix from four columns (Apple's `simd_matrix`).
@inlinable
public func simd_matrix<S>(_ c0: SIMD4<S>, _ c1: SIMD4<S>, _ c2: SIMD4<S>, _ c3: SIMD4<S>) -> SIMDMatrix4x4<S>
{
  SIMDMatrix4x4(c0, c1, c2, c3)
}

/// A matrix from four rows (Apple's `simd_matrix_from_rows`).
@inlinable
public func simd_matrix_from_rows<S>(
  _ r0: SIMD4<S>, _ r1: SIMD4<S>, _ r2: SIMD4<S>, _ r3: SIMD4<S>
) -> SIMDMatrix4x4<S> {
  SIMDMatrix4x4(r0, r1, r2, r3).transpose
}

/// A diagonal matrix (Apple's `simd_diagonal_matrix`).
@inlinable
public func simd_diagonal_matrix<S>(_ diagonal: SIMD4<S>) -> SIMDMatrix4x4<S> {
  SIMDMatrix4x4(diagonal: diagonal)
}
