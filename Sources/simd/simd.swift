// Apple's `simd` module, where Linux has none: `import simd` compiles unchanged and brings ARSimMath's
// vector, matrix and quaternion names (Apple's), plus the ones below. Module-qualified calls such as
// `simd.normalize(v)` and `simd.length(v)` find ARSimMath's functions through the re-export.
@_exported import ARSimMath

/// Two 32-bit signed integers (Apple's `simd_int2`).
public typealias simd_int2 = SIMD2<Int32>
/// Three 32-bit signed integers (Apple's `simd_int3`).
public typealias simd_int3 = SIMD3<Int32>
/// Four 32-bit signed integers (Apple's `simd_int4`).
public typealias simd_int4 = SIMD4<Int32>
/// Two 32-bit unsigned integers (Apple's `simd_uint2`).
public typealias simd_uint2 = SIMD2<UInt32>
/// Three 32-bit unsigned integers (Apple's `simd_uint3`).
public typealias simd_uint3 = SIMD3<UInt32>
/// Four 32-bit unsigned integers (Apple's `simd_uint4`).
public typealias simd_uint4 = SIMD4<UInt32>
/// Two 16-bit unsigned integers (Apple's `simd_ushort2`).
public typealias simd_ushort2 = SIMD2<UInt16>
/// Three 16-bit unsigned integers (Apple's `simd_ushort3`).
public typealias simd_ushort3 = SIMD3<UInt16>
/// Four 16-bit unsigned integers (Apple's `simd_ushort4`).
public typealias simd_ushort4 = SIMD4<UInt16>
/// Two 8-bit unsigned integers (Apple's `simd_uchar2`).
public typealias simd_uchar2 = SIMD2<UInt8>
/// Three 8-bit unsigned integers (Apple's `simd_uchar3`).
public typealias simd_uchar3 = SIMD3<UInt8>
/// Four 8-bit unsigned integers (Apple's `simd_uchar4`).
public typealias simd_uchar4 = SIMD4<UInt8>
/// Two signed integers, Apple's older spelling of ``simd_int2``.
public typealias int2 = simd_int2
/// Three signed integers, Apple's older spelling of ``simd_int3``.
public typealias int3 = simd_int3
/// Four signed integers, Apple's older spelling of ``simd_int4``.
public typealias int4 = simd_int4
/// Two unsigned integers, Apple's older spelling of ``simd_uint2``.
public typealias uint2 = simd_uint2
/// Three unsigned integers, Apple's older spelling of ``simd_uint3``.
public typealias uint3 = simd_uint3
/// Four unsigned integers, Apple's older spelling of ``simd_uint4``.
public typealias uint4 = simd_uint4

/// The product `a · b` of two 4×4 matrices (Apple's `matrix_multiply`, the C spelling of `a * b`).
public func matrix_multiply<S>(_ a: SIMDMatrix4x4<S>, _ b: SIMDMatrix4x4<S>) -> SIMDMatrix4x4<S> { a * b }

/// The product `a · b` of two 3×3 matrices.
public func matrix_multiply<S>(_ a: SIMDMatrix3x3<S>, _ b: SIMDMatrix3x3<S>) -> SIMDMatrix3x3<S> { a * b }

/// The 4×4 matrix `a` applied to the column vector `v`.
public func matrix_multiply<S>(_ a: SIMDMatrix4x4<S>, _ v: SIMD4<S>) -> SIMD4<S> { a * v }

/// The 3×3 matrix `a` applied to the column vector `v`.
public func matrix_multiply<S>(_ a: SIMDMatrix3x3<S>, _ v: SIMD3<S>) -> SIMD3<S> { a * v }

/// The row vector `v` times the 4×4 matrix `a`.
public func matrix_multiply<S>(_ v: SIMD4<S>, _ a: SIMDMatrix4x4<S>) -> SIMD4<S> { v * a }

/// The row vector `v` times the 3×3 matrix `a`.
public func matrix_multiply<S>(_ v: SIMD3<S>, _ a: SIMDMatrix3x3<S>) -> SIMD3<S> { v * a }

/// The transpose of a 4×4 matrix (Apple's `matrix_transpose`).
public func matrix_transpose<S>(_ a: SIMDMatrix4x4<S>) -> SIMDMatrix4x4<S> { a.transpose }

/// The transpose of a 3×3 matrix (Apple's `matrix_transpose`).
public func matrix_transpose<S>(_ a: SIMDMatrix3x3<S>) -> SIMDMatrix3x3<S> { a.transpose }

/// The inverse of a 4×4 matrix (Apple's `matrix_invert`); a singular matrix gives non-finite entries.
public func matrix_invert<S>(_ a: SIMDMatrix4x4<S>) -> SIMDMatrix4x4<S> { a.inverse }

/// The inverse of a 3×3 matrix (Apple's `matrix_invert`); a singular matrix gives non-finite entries.
public func matrix_invert<S>(_ a: SIMDMatrix3x3<S>) -> SIMDMatrix3x3<S> { a.inverse }
