/// A rigid correction of the world (`newWorldFromOld`) made ready to move many points: a world
/// correction moves every voxel of the plane detector's map and every cell of its anchors, tens of
/// thousands of points, and ``RigidTransform/apply(to:)`` (not inlined there) worked out the
/// quaternion's squared length again for each. Here it is worked out once, and each point goes through
/// `SIMDQuaternion.act`'s operations in the same order, so the results are the same to the bit (a test
/// holds the two together).
struct PreparedCorrection {
  /// The quaternion's imaginary part, real part and squared length.
  private let imag: SIMD3<Double>
  private let real: Double
  private let lengthSquared: Double
  /// The correction's translation, metres.
  let translation: SIMD3<Double>

  /// `correction` made ready.
  init(_ correction: RigidTransform) {
    imag = correction.rotation.imag
    real = correction.rotation.real
    lengthSquared = simd_length_squared(correction.rotation.vector)
    translation = correction.translation
  }

  /// `v` rotated: `correction.rotation.act(v)`, bit for bit.
  @inline(__always)
  func rotate(_ v: SIMD3<Double>) -> SIMD3<Double> {
    let t = 2 * simd_cross(imag, v)
    let correction = real * t + simd_cross(imag, t)
    return v + correction / lengthSquared
  }

  /// `point` moved: `correction.apply(to: point)`, bit for bit.
  @inline(__always)
  func apply(to point: SIMD3<Double>) -> SIMD3<Double> { rotate(point) + translation }
}
