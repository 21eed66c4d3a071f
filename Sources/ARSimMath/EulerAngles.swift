// ARKit's Euler angle convention (ARCamera.eulerAngles, SCNNode.eulerAngles): the vector is
// (pitch, yaw, roll), radians, rotations about the x, y and z axes; they are applied roll first, then
// pitch, then yaw, about the fixed axes, so R = Ry(yaw) · Rx(pitch) · Rz(roll).
//
// With R = Ry·Rx·Rz (rRC: row R, column C):
//   r02 = sin(yaw)·cos(pitch),  r12 = −sin(pitch),  r22 = cos(yaw)·cos(pitch)
//   r10 = cos(pitch)·sin(roll), r11 = cos(pitch)·cos(roll)
// and at cos(pitch) = 0 (gimbal lock) only yaw ± roll is defined; roll is then reported as 0 and
// r00 = cos(yaw), r20 = −sin(yaw).

extension SIMDMatrix3x3 {
  /// ARSim: the rotation with ARKit's Euler angles `(pitch, yaw, roll)` in radians, `Ry(yaw)·Rx(pitch)·
  /// Rz(roll)` (roll applied first, then pitch, then yaw, about fixed axes).
  @inlinable
  public init(eulerAngles: SIMD3<Scalar>) {
    let (sp, cp) = (_sin(eulerAngles.x), _cos(eulerAngles.x))
    let (sy, cy) = (_sin(eulerAngles.y), _cos(eulerAngles.y))
    let (sr, cr) = (_sin(eulerAngles.z), _cos(eulerAngles.z))
    let rx = SIMDMatrix3x3(SIMD3(1, 0, 0), SIMD3(0, cp, sp), SIMD3(0, -sp, cp))
    let ry = SIMDMatrix3x3(SIMD3(cy, 0, -sy), SIMD3(0, 1, 0), SIMD3(sy, 0, cy))
    let rz = SIMDMatrix3x3(SIMD3(cr, sr, 0), SIMD3(-sr, cr, 0), SIMD3(0, 0, 1))
    self = ry * rx * rz
  }

  /// ARSim: ARKit's Euler angles `(pitch, yaw, roll)` in radians of this rotation matrix, as
  /// `ARCamera.eulerAngles` reports them: pitch in `[−π/2, π/2]`, yaw and roll in `(−π, π]`. At gimbal
  /// lock (pitch = ±π/2) roll is reported as 0. The matrix must be a rotation.
  @inlinable
  public var eulerAngles: SIMD3<Scalar> {
    let (c0, c1, c2) = columns
    let cosPitch = (c2.x * c2.x + c2.z * c2.z).squareRoot()
    let pitch = _atan2(-c2.y, cosPitch)
    if cosPitch > 16 * Scalar.ulpOfOne {
      return SIMD3(pitch, _atan2(c2.x, c2.z), _atan2(c0.y, c1.y))
    }
    return SIMD3(pitch, _atan2(-c0.z, c0.x), 0)
  }
}

extension SIMDMatrix4x4 {
  /// ARSim: the transform rotating by ARKit's Euler angles `(pitch, yaw, roll)` (radians), with no
  /// translation; see `SIMDMatrix3x3.init(eulerAngles:)`.
  @inlinable
  public init(eulerAngles: SIMD3<Scalar>) {
    let r = SIMDMatrix3x3(eulerAngles: eulerAngles)
    self.init(SIMD4(r.columns.0, 0), SIMD4(r.columns.1, 0), SIMD4(r.columns.2, 0), SIMD4(0, 0, 0, 1))
  }

  /// ARSim: ARKit's Euler angles `(pitch, yaw, roll)` in radians of the upper-left rotation block (the
  /// convention of `ARCamera.eulerAngles`); see `SIMDMatrix3x3.eulerAngles`.
  @inlinable
  public var eulerAngles: SIMD3<Scalar> {
    let (c0, c1, c2, _) = columns
    let block = SIMDMatrix3x3(
      SIMD3(c0.x, c0.y, c0.z), SIMD3(c1.x, c1.y, c1.z), SIMD3(c2.x, c2.y, c2.z))
    return block.eulerAngles
  }
}
