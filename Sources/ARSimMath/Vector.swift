#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(ucrt)
  import ucrt
#endif

// MARK: - Vector type names

/// Apple's C name for a vector of two `Float`s; the same type as `SIMD2<Float>`.
public typealias simd_float2 = SIMD2<Float>
/// Apple's C name for a vector of three `Float`s; the same type as `SIMD3<Float>`.
public typealias simd_float3 = SIMD3<Float>
/// Apple's C name for a vector of four `Float`s; the same type as `SIMD4<Float>`.
public typealias simd_float4 = SIMD4<Float>
/// Apple's C name for a vector of two `Double`s; the same type as `SIMD2<Double>`.
public typealias simd_double2 = SIMD2<Double>
/// Apple's C name for a vector of three `Double`s; the same type as `SIMD3<Double>`.
public typealias simd_double3 = SIMD3<Double>
/// Apple's C name for a vector of four `Double`s; the same type as `SIMD4<Double>`.
public typealias simd_double4 = SIMD4<Double>
/// Apple's older Swift name for `SIMD2<Float>` (deprecated by Apple; prefer `SIMD2<Float>`).
public typealias float2 = SIMD2<Float>
/// Apple's older Swift name for `SIMD3<Float>` (deprecated by Apple; prefer `SIMD3<Float>`).
public typealias float3 = SIMD3<Float>
/// Apple's older Swift name for `SIMD4<Float>` (deprecated by Apple; prefer `SIMD4<Float>`).
public typealias float4 = SIMD4<Float>
/// Apple's older Swift name for `SIMD2<Double>` (deprecated by Apple; prefer `SIMD2<Double>`).
public typealias double2 = SIMD2<Double>
/// Apple's older Swift name for `SIMD3<Double>` (deprecated by Apple; prefer `SIMD3<Double>`).
public typealias double3 = SIMD3<Double>
/// Apple's older Swift name for `SIMD4<Double>` (deprecated by Apple; prefer `SIMD4<Double>`).
public typealias double4 = SIMD4<Double>

// MARK: - Elementary functions for generic code

// The generic matrix and quaternion code needs trigonometry for any `BinaryFloatingPoint` scalar.
// It goes through `Double` (exact for `Float`); after specialisation this is a conversion and a libm call.

@inlinable @inline(__always)
func _sin<T: BinaryFloatingPoint>(_ x: T) -> T { T(sin(Double(x))) }

@inlinable @inline(__always)
func _cos<T: BinaryFloatingPoint>(_ x: T) -> T { T(cos(Double(x))) }

@inlinable @inline(__always)
func _atan2<T: BinaryFloatingPoint>(_ y: T, _ x: T) -> T { T(atan2(Double(y), Double(x))) }

@inlinable @inline(__always)
func _acos<T: BinaryFloatingPoint>(_ x: T) -> T { T(acos(Double(x))) }

// MARK: - Geometry of vectors (Apple's `simd_` names)

/// The dot product `a·b` of two vectors (Apple's `simd_dot`).
@inlinable
public func simd_dot<V: SIMD>(_ a: V, _ b: V) -> V.Scalar where V.Scalar: FloatingPoint {
  (a * b).sum()
}

/// The cross product `a×b` of two 3-vectors, right-handed (Apple's `simd_cross`).
@inlinable
public func simd_cross<S: SIMDScalar & FloatingPoint>(_ a: SIMD3<S>, _ b: SIMD3<S>) -> SIMD3<S> {
  let x = a.y * b.z - a.z * b.y
  let y = a.z * b.x - a.x * b.z
  let z = a.x * b.y - a.y * b.x
  return SIMD3(x, y, z)
}

/// The squared Euclidean length `v·v` (Apple's `simd_length_squared`).
@inlinable
public func simd_length_squared<V: SIMD>(_ v: V) -> V.Scalar where V.Scalar: FloatingPoint {
  (v * v).sum()
}

/// The Euclidean length `|v|` (Apple's `simd_length`). Not guarded against overflow of `v·v`.
@inlinable
public func simd_length<V: SIMD>(_ v: V) -> V.Scalar where V.Scalar: FloatingPoint {
  (v * v).sum().squareRoot()
}

/// The Euclidean distance `|a - b|` (Apple's `simd_distance`).
@inlinable
public func simd_distance<V: SIMD>(_ a: V, _ b: V) -> V.Scalar where V.Scalar: FloatingPoint {
  simd_length(a - b)
}

/// The squared Euclidean distance `|a - b|²` (Apple's `simd_distance_squared`).
@inlinable
public func simd_distance_squared<V: SIMD>(_ a: V, _ b: V) -> V.Scalar where V.Scalar: FloatingPoint {
  simd_length_squared(a - b)
}

/// The unit vector `v / |v|` (Apple's `simd_normalize`).
///
/// Like Apple's, the zero vector has no direction and gives NaN in every lane; check the length first
/// when the input can be zero.
@inlinable
public func simd_normalize<V: SIMD>(_ v: V) -> V where V.Scalar: FloatingPoint {
  v / simd_length(v)
}

/// Linear interpolation `x + t * (y - x)`, lane by lane (Apple's `simd_mix`); `t` is not clamped.
@inlinable
public func simd_mix<V: SIMD>(_ x: V, _ y: V, _ t: V) -> V where V.Scalar: FloatingPoint {
  x + t * (y - x)
}

/// Linear interpolation `x + t * (y - x)` of scalars (Apple's `simd_mix`); `t` is not clamped.
@inlinable
public func simd_mix<T: FloatingPoint>(_ x: T, _ y: T, _ t: T) -> T {
  x + t * (y - x)
}

/// Each lane of `x` limited to `[min, max]` of the same lane: `simd_min(simd_max(x, min), max)` (Apple's
/// `simd_clamp`).
@inlinable
public func simd_clamp<V: SIMD>(_ x: V, _ min: V, _ max: V) -> V where V.Scalar: FloatingPoint {
  pointwiseMin(pointwiseMax(x, min), max)
}

/// Each lane of `x` limited to the scalar range `[min, max]` (Apple's `simd_clamp`).
@inlinable
public func simd_clamp<V: SIMD>(_ x: V, _ min: V.Scalar, _ max: V.Scalar) -> V
where V.Scalar: FloatingPoint {
  pointwiseMin(pointwiseMax(x, V(repeating: min)), V(repeating: max))
}

/// A scalar limited to `[min, max]` (Apple's `simd_clamp`).
@inlinable
public func simd_clamp<T: FloatingPoint>(_ x: T, _ min: T, _ max: T) -> T {
  Swift.min(Swift.max(x, min), max)
}

/// The absolute value of each lane (Apple's `simd_abs`).
@inlinable
public func simd_abs<V: SIMD>(_ v: V) -> V where V.Scalar: FloatingPoint {
  var result = v
  for i in result.indices { result[i] = result[i].magnitude }
  return result
}

/// The smaller of `a` and `b` in each lane (Apple's `simd_min`).
@inlinable
public func simd_min<V: SIMD>(_ a: V, _ b: V) -> V where V.Scalar: FloatingPoint {
  pointwiseMin(a, b)
}

/// The larger of `a` and `b` in each lane (Apple's `simd_max`).
@inlinable
public func simd_max<V: SIMD>(_ a: V, _ b: V) -> V where V.Scalar: FloatingPoint {
  pointwiseMax(a, b)
}

/// The sum of the lanes of `v` (Apple's `simd_reduce_add`).
@inlinable
public func simd_reduce_add<V: SIMD>(_ v: V) -> V.Scalar where V.Scalar: FloatingPoint {
  v.sum()
}

// MARK: - Apple's unprefixed Swift spellings

/// The dot product `a·b` (Apple's Swift `dot`, same as `simd_dot`).
@inlinable
public func dot<V: SIMD>(_ a: V, _ b: V) -> V.Scalar where V.Scalar: FloatingPoint { simd_dot(a, b) }

/// The right-handed cross product `a×b` (Apple's Swift `cross`, same as `simd_cross`).
@inlinable
public func cross<S: SIMDScalar & FloatingPoint>(_ a: SIMD3<S>, _ b: SIMD3<S>) -> SIMD3<S> {
  simd_cross(a, b)
}

/// The Euclidean length `|v|` (Apple's Swift `length`, same as `simd_length`).
@inlinable
public func length<V: SIMD>(_ v: V) -> V.Scalar where V.Scalar: FloatingPoint { simd_length(v) }

/// The squared length `v·v` (Apple's Swift `length_squared`, same as `simd_length_squared`).
@inlinable
public func length_squared<V: SIMD>(_ v: V) -> V.Scalar where V.Scalar: FloatingPoint {
  simd_length_squared(v)
}

/// The distance `|a - b|` (Apple's Swift `distance`, same as `simd_distance`).
@inlinable
public func distance<V: SIMD>(_ a: V, _ b: V) -> V.Scalar where V.Scalar: FloatingPoint {
  simd_distance(a, b)
}

/// The squared distance `|a - b|²` (Apple's Swift `distance_squared`, same as `simd_distance_squared`).
@inlinable
public func distance_squared<V: SIMD>(_ a: V, _ b: V) -> V.Scalar where V.Scalar: FloatingPoint {
  simd_distance_squared(a, b)
}

/// The unit vector `v / |v|`, NaN for the zero vector (Apple's Swift `normalize`, same as
/// `simd_normalize`).
@inlinable
public func normalize<V: SIMD>(_ v: V) -> V where V.Scalar: FloatingPoint { simd_normalize(v) }

// MARK: - Constructors (Apple's `simd_make_` names)

/// A 3-vector from three scalars (Apple's `simd_make_float3`).
@inlinable
public func simd_make_float3(_ x: Float, _ y: Float, _ z: Float) -> SIMD3<Float> { SIMD3(x, y, z) }

/// The first three lanes of a 4-vector, dropping `w` (Apple's `simd_make_float3`).
@inlinable
public func simd_make_float3(_ v: SIMD4<Float>) -> SIMD3<Float> { SIMD3(v.x, v.y, v.z) }

/// A 3-vector from a 2-vector and a third lane `z` (Apple's `simd_make_float3`).
@inlinable
public func simd_make_float3(_ xy: SIMD2<Float>, _ z: Float) -> SIMD3<Float> { SIMD3(xy.x, xy.y, z) }

/// A 4-vector from four scalars (Apple's `simd_make_float4`).
@inlinable
public func simd_make_float4(_ x: Float, _ y: Float, _ z: Float, _ w: Float) -> SIMD4<Float> {
  SIMD4(x, y, z, w)
}

/// A 4-vector from a 3-vector and a fourth lane `w`, e.g. `w = 1` for a point, `0` for a direction
/// (Apple's `simd_make_float4`).
@inlinable
public func simd_make_float4(_ xyz: SIMD3<Float>, _ w: Float) -> SIMD4<Float> { SIMD4(xyz, w) }

/// A 3-vector from three scalars (Apple's `simd_make_double3`).
@inlinable
public func simd_make_double3(_ x: Double, _ y: Double, _ z: Double) -> SIMD3<Double> { SIMD3(x, y, z) }

/// The first three lanes of a 4-vector, dropping `w` (Apple's `simd_make_double3`).
@inlinable
public func simd_make_double3(_ v: SIMD4<Double>) -> SIMD3<Double> { SIMD3(v.x, v.y, v.z) }

/// A 4-vector from four scalars (Apple's `simd_make_double4`).
@inlinable
public func simd_make_double4(_ x: Double, _ y: Double, _ z: Double, _ w: Double) -> SIMD4<Double> {
  SIMD4(x, y, z, w)
}

/// A 4-vector from a 3-vector and a fourth lane `w` (Apple's `simd_make_double4`).
@inlinable
public func simd_make_double4(_ xyz: SIMD3<Double>, _ w: Double) -> SIMD4<Double> { SIMD4(xyz, w) }
