/// What `simd_float3x3` and `simd_float4x4` (and their `Double` forms) share, written once over the
/// columns: element-wise arithmetic, equality, hashing, `Codable` as a flat column-major array, Apple's
/// description, and the `simd_*` free functions. Each matrix type supplies its storage, the products
/// and the inverse (written out per size, where the order of operations matters).
///
/// Arithmetic is IEEE: nothing is checked for NaN or overflow.
public protocol SIMDSquareMatrix: Hashable, CustomStringConvertible, CustomDebugStringConvertible {
  /// The element type.
  associatedtype Scalar: SIMDScalar & BinaryFloatingPoint
  /// A column (and a row) vector: as many elements as the matrix has columns.
  associatedtype Column: SIMD where Column.Scalar == Scalar

  /// The zero matrix.
  init()
  /// Column `column` (from 0); out-of-range indices trap.
  subscript(column: Int) -> Column { get set }
  /// The transpose: rows become columns.
  var transpose: Self { get }
  /// The inverse; a singular matrix gives infinities or NaN.
  var inverse: Self { get }
  /// The determinant.
  var determinant: Scalar { get }
  /// The matrix product `lhs * rhs` (apply `rhs` first).
  static func * (lhs: Self, rhs: Self) -> Self
  /// The matrix times a column vector.
  static func * (lhs: Self, rhs: Column) -> Column
  /// A row vector times the matrix (`vᵀ M`), returned as a vector.
  static func * (lhs: Column, rhs: Self) -> Column
}

extension SIMDSquareMatrix {
  /// The number of columns (and rows).
  @inlinable
  public static var dimension: Int { Column().scalarCount }

  /// The element in column `column` and row `row` (both from 0).
  @inlinable
  public subscript(column: Int, row: Int) -> Scalar {
    get { self[column][row] }
    set { self[column][row] = newValue }
  }

  /// The matrix whose columns are `transform` of this one's.
  @inlinable
  func mapColumns(_ transform: (Column) -> Column) -> Self {
    var result = Self()
    for c in 0..<Self.dimension { result[c] = transform(self[c]) }
    return result
  }

  /// The matrix whose columns are `combine` of this one's and `other`'s.
  @inlinable
  func combineColumns(_ other: Self, _ combine: (Column, Column) -> Column) -> Self {
    var result = Self()
    for c in 0..<Self.dimension { result[c] = combine(self[c], other[c]) }
    return result
  }

  /// Exact element-wise equality (Apple's `simd_equal`).
  @inlinable
  public static func == (lhs: Self, rhs: Self) -> Bool {
    (0..<dimension).allSatisfy { lhs[$0] == rhs[$0] }
  }

  /// Hashes the elements, column by column.
  @inlinable
  public func hash(into hasher: inout Hasher) {
    for c in 0..<Self.dimension { hasher.combine(self[c]) }
  }

  /// Every element times `rhs`.
  @inlinable
  public static func * (lhs: Self, rhs: Scalar) -> Self { lhs.mapColumns { $0 * rhs } }

  /// Every element times `lhs`.
  @inlinable
  public static func * (lhs: Scalar, rhs: Self) -> Self { rhs * lhs }

  /// The element-wise sum.
  @inlinable
  public static func + (lhs: Self, rhs: Self) -> Self { lhs.combineColumns(rhs, +) }

  /// The element-wise difference.
  @inlinable
  public static func - (lhs: Self, rhs: Self) -> Self { lhs.combineColumns(rhs, -) }

  /// The element-wise negation.
  @inlinable
  public static prefix func - (operand: Self) -> Self { operand.mapColumns { -$0 } }

  /// `lhs = lhs * rhs`.
  @inlinable
  public static func *= (lhs: inout Self, rhs: Self) { lhs = lhs * rhs }

  /// `lhs = lhs * rhs` for a scalar.
  @inlinable
  public static func *= (lhs: inout Self, rhs: Scalar) { lhs = lhs * rhs }

  /// `lhs = lhs + rhs`.
  @inlinable
  public static func += (lhs: inout Self, rhs: Self) { lhs = lhs + rhs }

  /// `lhs = lhs - rhs`.
  @inlinable
  public static func -= (lhs: inout Self, rhs: Self) { lhs = lhs - rhs }

  /// Apple's format, one bracket per column: `simd_float3x3([[c0], [c1], [c2]])`.
  public var description: String {
    let n = Self.dimension
    let name: String
    if Scalar.self == Float.self {
      name = "simd_float\(n)x\(n)"
    } else if Scalar.self == Double.self {
      name = "simd_double\(n)x\(n)"
    } else {
      name = "SIMDMatrix\(n)x\(n)<\(Scalar.self)>"
    }
    let cols = (0..<n).map { c in "[" + (0..<n).map { r in "\(self[c, r])" }.joined(separator: ", ") + "]" }
    return name + "([" + cols.joined(separator: ", ") + "])"
  }

  /// Same as `description`.
  public var debugDescription: String { description }
}

extension SIMDSquareMatrix where Scalar: Codable {
  /// Encodes the elements as one flat array, column-major (`[m00, m10, m20, m01, ...]`); for a 4×4
  /// transform the last four numbers are the translation and 1.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.unkeyedContainer()
    for c in 0..<Self.dimension {
      for r in 0..<Self.dimension { try container.encode(self[c, r]) }
    }
  }

  /// Decodes a flat column-major array of exactly `dimension²` numbers.
  public init(from decoder: any Decoder) throws {
    var container = try decoder.unkeyedContainer()
    var elements: [Scalar] = []
    while !container.isAtEnd { elements.append(try container.decode(Scalar.self)) }
    let n = Self.dimension
    guard elements.count == n * n else {
      throw DecodingError.dataCorrupted(
        .init(
          codingPath: decoder.codingPath,
          debugDescription:
            "a \(n)x\(n) matrix needs \(n * n) numbers (column-major), found \(elements.count)"))
    }
    self.init()
    for c in 0..<n {
      for r in 0..<n { self[c, r] = elements[c * n + r] }
    }
  }
}

// MARK: - Free functions (Apple's names)

/// The matrix product `a * b` (apply `b` first).
@inlinable
public func simd_mul<M: SIMDSquareMatrix>(_ a: M, _ b: M) -> M { a * b }

/// The matrix times a column vector.
@inlinable
public func simd_mul<M: SIMDSquareMatrix>(_ a: M, _ v: M.Column) -> M.Column { a * v }

/// A row vector times the matrix.
@inlinable
public func simd_mul<M: SIMDSquareMatrix>(_ v: M.Column, _ a: M) -> M.Column { v * a }

/// Every element of `a` times the scalar `s`.
@inlinable
public func simd_mul<M: SIMDSquareMatrix>(_ s: M.Scalar, _ a: M) -> M { s * a }

/// The element-wise sum.
@inlinable
public func simd_add<M: SIMDSquareMatrix>(_ a: M, _ b: M) -> M { a + b }

/// The element-wise difference.
@inlinable
public func simd_sub<M: SIMDSquareMatrix>(_ a: M, _ b: M) -> M { a - b }

/// The inverse; singular input gives infinities or NaN.
@inlinable
public func simd_inverse<M: SIMDSquareMatrix>(_ a: M) -> M { a.inverse }

/// The transpose.
@inlinable
public func simd_transpose<M: SIMDSquareMatrix>(_ a: M) -> M { a.transpose }

/// The determinant.
@inlinable
public func simd_determinant<M: SIMDSquareMatrix>(_ a: M) -> M.Scalar { a.determinant }

/// Exact element-wise equality.
@inlinable
public func simd_equal<M: SIMDSquareMatrix>(_ a: M, _ b: M) -> Bool { a == b }

/// True when every element differs by at most `tolerance` (absolute): `|a_ij - b_ij| <= tolerance`.
@inlinable
public func simd_almost_equal_elements<M: SIMDSquareMatrix>(_ a: M, _ b: M, _ tolerance: M.Scalar) -> Bool {
  (0..<M.dimension).allSatisfy { simd_abs(a[$0] - b[$0]).max() <= tolerance }
}

/// True when every element differs by at most `tolerance` relative to `a`:
/// `|a_ij - b_ij| <= tolerance * |a_ij|`.
@inlinable
public func simd_almost_equal_elements_relative<M: SIMDSquareMatrix>(
  _ a: M, _ b: M, _ tolerance: M.Scalar
) -> Bool {
  for c in 0..<M.dimension {
    for r in 0..<M.dimension where (a[c, r] - b[c, r]).magnitude > tolerance * a[c, r].magnitude {
      return false
    }
  }
  return true
}
