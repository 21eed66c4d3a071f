import ARSim
import Foundation

/// A scale, a rotation and a translation, applied in that order, as RealityKit's `Transform`.
///
/// The transform maps points of an entity's own space to its parent's space (`parentFromEntity`):
/// `p′ = translation + rotation.act(scale * p)`. Its ``matrix`` is `T · R · S`. Lengths are metres,
/// scale is a unitless factor per axis of the entity's own space.
public struct Transform: Sendable, Hashable, CustomStringConvertible {
  /// The scale factor along each of the entity's own axes (applied first). Default `(1, 1, 1)`.
  public var scale: SIMD3<Float>
  /// The rotation (applied after the scale). A unit quaternion; default the identity.
  public var rotation: simd_quatf
  /// The translation in the parent's space, metres (applied last). Default zero.
  public var translation: SIMD3<Float>

  /// The identity transform: scale one, no rotation, no translation.
  public static let identity = Transform()

  /// The identity transform (RealityKit's `init()`).
  public init() {
    self.init(scale: SIMD3(repeating: 1), rotation: simd_quatf(ix: 0, iy: 0, iz: 0, r: 1), translation: .zero)
  }

  /// A transform from its parts (metres for the translation).
  public init(
    scale: SIMD3<Float> = SIMD3(repeating: 1), rotation: simd_quatf = simd_quatf(ix: 0, iy: 0, iz: 0, r: 1),
    translation: SIMD3<Float> = .zero
  ) {
    self.scale = scale
    self.rotation = rotation
    self.translation = translation
  }

  /// The transform of an affine matrix whose upper-left block is a rotation times a diagonal scale
  /// (`T · R · S`, the matrices ``matrix`` gives), as RealityKit's `Transform(matrix:)`.
  ///
  /// The scale is the length of each of the first three columns; a matrix that mirrors (negative
  /// determinant) gets a negative x scale. A shear (parents scaled non-uniformly under a rotation) cannot
  /// be represented: the rotation is then the one nearest the normalised columns and the result is an
  /// approximation. The bottom row is ignored.
  public init(matrix: simd_float4x4) {
    let (c0, c1, c2, c3) = matrix.columns
    let x = SIMD3(c0.x, c0.y, c0.z)
    let y = SIMD3(c1.x, c1.y, c1.z)
    let z = SIMD3(c2.x, c2.y, c2.z)
    var s = SIMD3(simd_length(x), simd_length(y), simd_length(z))
    if simd_dot(simd_cross(x, y), z) < 0 { s.x = -s.x }
    let safe = SIMD3<Float>(
      s.x != 0 ? s.x : 1, s.y != 0 ? s.y : 1, s.z != 0 ? s.z : 1)
    let r = simd_float3x3(x / safe.x, y / safe.y, z / safe.z)
    scale = s
    rotation = simd_quatf(Transform.orthonormalized(r))
    translation = SIMD3(c3.x, c3.y, c3.z)
  }

  /// The 4×4 matrix `T · R · S`, mapping the entity's space to its parent's (metres).
  public var matrix: simd_float4x4 {
    get {
      let r = simd_float3x3(rotation)
      return simd_float4x4(
        SIMD4(r.columns.0 * scale.x, 0), SIMD4(r.columns.1 * scale.y, 0), SIMD4(r.columns.2 * scale.z, 0),
        SIMD4(translation, 1))
    }
    set { self = Transform(matrix: newValue) }
  }

  /// `scale, rotation, translation` in a short form.
  public var description: String {
    let q = rotation.vector
    return
      "Transform(scale: \(scale), rotation: (\(q.x), \(q.y), \(q.z), \(q.w)), translation: \(translation))"
  }

  /// A rotation matrix near `m` (Gram–Schmidt on the columns, x first), so that a matrix with a small
  /// shear or rounding still gives a proper rotation.
  static func orthonormalized(_ m: simd_float3x3) -> simd_float3x3 {
    var x = m.columns.0
    var y = m.columns.1
    guard simd_length_squared(x) > 0, simd_length_squared(y) > 0 else { return .identity }
    x = simd_normalize(x)
    y = y - simd_dot(x, y) * x
    guard simd_length_squared(y) > 1e-12 else { return .identity }
    y = simd_normalize(y)
    let z = simd_cross(x, y)
    return simd_float3x3(x, y, z)
  }
}
