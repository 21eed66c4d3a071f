/// A rigid correction of the world (`newWorldFromOld`) made ready to move many points: a world
/// correction moves every voxel of the plane detector's map and every cell of its anchors, tens of
/// thousands of points, each through its own closure call, so the quaternion's squared length, which
/// ``RigidTransform/apply(to:)`` works out for every point, is worked out once here and handed to
/// `SIMDQuaternion.act(_:lengthSquared:)`, the function `apply` runs: the results are the same to the bit
/// (a test holds the two together).
struct PreparedCorrection {
  /// The correction's rotation and its squared length.
  private let rotation: simd_quatd
  private let lengthSquared: Double
  /// The correction's translation, metres.
  let translation: SIMD3<Double>

  /// `correction` made ready.
  init(_ correction: RigidTransform) {
    rotation = correction.rotation
    lengthSquared = simd_length_squared(correction.rotation.vector)
    translation = correction.translation
  }

  /// `v` rotated: `correction.rotation.act(v)`, bit for bit.
  @inline(__always)
  func rotate(_ v: SIMD3<Double>) -> SIMD3<Double> { rotation.act(v, lengthSquared: lengthSquared) }

  /// `point` moved: `correction.apply(to: point)`, bit for bit.
  @inline(__always)
  func apply(to point: SIMD3<Double>) -> SIMD3<Double> { rotate(point) + translation }
}
