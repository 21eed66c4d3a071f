/// A 3×3 matrix of `Float` stored as three column vectors (Apple's `simd_float3x3`).
public typealias simd_float3x3 = SIMDMatrix3x3<Float>
/// A 3×3 matrix of `Double` stored as three column vectors (Apple's `simd_double3x3`).
public typealias simd_double3x3 = SIMDMatrix3x3<Double>
/// Apple's C name for `simd_float3x3`.
public typealias matrix_float3x3 = simd_float3x3
/// Apple's C name for `simd_double3x3`.
public typealias matrix_double3x3 = simd_double3x3
/// Apple's Swift name for `simd_float3x3`.
public typealias float3x3 = simd_float3x3
/// Apple's Swift name for `simd_double3x3`.
public typealias double3x3 = simd_double3x3

/// A 3×3 matrix stored as three columns, column-major, acting on column vectors (`m * v`).
///
/// This is the one implementation behind `simd_float3x3` and `simd_double3x3`; use those names. Names and
/// semantics follow Apple's `simd` module: `columns` is a tuple, `m[column]` is a column, `m[column, row]`
/// an element. Arithmetic is IEEE: nothing is checked for NaN or overflow.
public struct SIMDMatrix3x3<Scalar: SIMDScalar & BinaryFloatingPoint> {
  /// The three columns, left to right.
  public var columns: (SIMD3<Scalar>, SIMD3<Scalar>, SIMD3<Scalar>)

  /// The zero matrix (as Apple's `simd_float3x3()`).
  @inlinable
  public init() {
    columns = (.zero, .zero, .zero)
  }

  /// A matrix with the given columns.
  @inlinable
  public init(columns: (SIMD3<Scalar>, SIMD3<Scalar>, SIMD3<Scalar>)) {
    self.columns = columns
  }

  /// A matrix with the given columns, left to right.
  @inlinable
  public init(_ c0: SIMD3<Scalar>, _ c1: SIMD3<Scalar>, _ c2: SIMD3<Scalar>) {
    columns = (c0, c1, c2)
  }

  /// A matrix from an array of exactly three columns (a precondition).
  @inlinable
  public init(_ columns: [SIMD3<Scalar>]) {
    precondition(columns.count == 3, "simd_float3x3 needs exactly 3 columns")
    self.columns = (columns[0], columns[1], columns[2])
  }

  /// A matrix from an array of exactly three rows, top to bottom (a precondition).
  @inlinable
  public init(rows: [SIMD3<Scalar>]) {
    precondition(rows.count == 3, "simd_float3x3 needs exactly 3 rows")
    self = SIMDMatrix3x3(rows[0], rows[1], rows[2]).transpose
  }

  /// A diagonal matrix with `diagonal` on the diagonal and zeros elsewhere.
  @inlinable
  public init(diagonal: SIMD3<Scalar>) {
    columns = (SIMD3(diagonal.x, 0, 0), SIMD3(0, diagonal.y, 0), SIMD3(0, 0, diagonal.z))
  }

  /// A diagonal matrix with `scalar` on the diagonal (`scalar` times the identity).
  @inlinable
  public init(_ scalar: Scalar) {
    self.init(diagonal: SIMD3(repeating: scalar))
  }

  /// The same matrix with its elements converted to `Scalar` (rounding to nearest).
  @inlinable
  public init<Other>(_ other: SIMDMatrix3x3<Other>) {
    columns = (SIMD3(other.columns.0), SIMD3(other.columns.1), SIMD3(other.columns.2))
  }

  /// The identity matrix.
  @inlinable
  public static var identity: Self { Self(diagonal: SIMD3(repeating: 1)) }

  /// Column `column` (0...2); out-of-range indices trap.
  @inlinable
  public subscript(column: Int) -> SIMD3<Scalar> {
    get {
      switch column {
      case 0: return columns.0
      case 1: return columns.1
      case 2: return columns.2
      default: preconditionFailure("column index out of range")
      }
    }
    set {
      switch column {
      case 0: columns.0 = newValue
      case 1: columns.1 = newValue
      case 2: columns.2 = newValue
      default: preconditionFailure("column index out of range")
      }
    }
  }

  /// The transpose: rows become columns.
  @inlinable
  public var transpose: Self {
    let (a, b, c) = columns
    return Self(SIMD3(a.x, b.x, c.x), SIMD3(a.y, b.y, c.y), SIMD3(a.z, b.z, c.z))
  }

  /// The determinant, `c0 · (c1 × c2)`.
  @inlinable
  public var determinant: Scalar {
    simd_dot(columns.0, simd_cross(columns.1, columns.2))
  }

  /// The inverse by the adjugate. A singular matrix gives infinities or NaN, as Apple's does; check
  /// `determinant` first when that can happen.
  @inlinable
  public var inverse: Self {
    let (a, b, c) = columns
    let r0 = simd_cross(b, c)
    let r1 = simd_cross(c, a)
    let r2 = simd_cross(a, b)
    let inverseDeterminant = 1 / simd_dot(a, r0)
    return Self(r0 * inverseDeterminant, r1 * inverseDeterminant, r2 * inverseDeterminant).transpose
  }

  /// The matrix product `lhs * rhs` (apply `rhs` first).
  @inlinable
  public static func * (lhs: Self, rhs: Self) -> Self {
    Self(lhs * rhs.columns.0, lhs * rhs.columns.1, lhs * rhs.columns.2)
  }

  /// The matrix times a column vector.
  @inlinable
  public static func * (lhs: Self, rhs: SIMD3<Scalar>) -> SIMD3<Scalar> {
    let x = lhs.columns.0 * rhs.x
    let y = lhs.columns.1 * rhs.y
    let z = lhs.columns.2 * rhs.z
    return x + y + z
  }

  /// A row vector times the matrix (`vᵀ M`), returned as a vector.
  @inlinable
  public static func * (lhs: SIMD3<Scalar>, rhs: Self) -> SIMD3<Scalar> {
    SIMD3(simd_dot(lhs, rhs.columns.0), simd_dot(lhs, rhs.columns.1), simd_dot(lhs, rhs.columns.2))
  }
}

extension SIMDMatrix3x3: SIMDSquareMatrix {}

extension SIMDMatrix3x3: Sendable where Scalar: Sendable, Scalar.SIMD4Storage: Sendable {}

extension SIMDMatrix3x3: Codable where Scalar: Codable {}

// MARK: - Globals and free functions

/// The 3×3 `Float` identity matrix.
@inlinable
public var matrix_identity_float3x3: simd_float3x3 { .identity }

/// The 3×3 `Double` identity matrix.
@inlinable
public var matrix_identity_double3x3: simd_double3x3 { .identity }

/// A matrix from three columns (Apple's `simd_matrix`).
@inlinable
public func simd_matrix<S>(_ c0: SIMD3<S>, _ c1: SIMD3<S>, _ c2: SIMD3<S>) -> SIMDMatrix3x3<S> {
  SIMDMatrix3x3(c0, c1, c2)
}

/// A matrix from three rows (Apple's `simd_matrix_from_rows`).
@inlinable
public func simd_matrix_from_rows<S>(_ r0: SIMD3<S>, _ r1: SIMD3<S>, _ r2: SIMD3<S>) -> SIMDMatrix3x3<S> {
  SIMDMatrix3x3(r0, r1, r2).transpose
}

/// A diagonal matrix (Apple's `simd_diagonal_matrix`).
@inlinable
public func simd_diagonal_matrix<S>(_ diagonal: SIMD3<S>) -> SIMDMatrix3x3<S> {
  SIMDMatrix3x3(diagonal: diagonal)
}
