import Foundation

extension RigidTransform {
  /// This transform as CVision's pose type (rotation row-major).
  var poseCW: PoseCW {
    let m = simd_double3x3(rotation)
    // simd matrices are column-major: m[column][row].
    return PoseCW(
      r: [
        m[0][0], m[1][0], m[2][0],
        m[0][1], m[1][1], m[2][1],
        m[0][2], m[1][2], m[2][2],
      ], t: translation)
  }

  /// A transform from CVision's pose type.
  init(_ pose: PoseCW) {
    let r = pose.r
    let m = simd_double3x3(
      rows: [SIMD3(r[0], r[1], r[2]), SIMD3(r[3], r[4], r[5]), SIMD3(r[6], r[7], r[8])])
    self.init(rotation: simd_quatd(m).normalized, translation: pose.t)
  }

  /// Rotation angle in radians.
  var angle: Double {
    let w = min(1, abs(rotation.normalized.real))
    return 2 * acos(w)
  }
}
