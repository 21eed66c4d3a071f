/// The rotation between a camera's two frames: `opticalFromCamera` maps coordinates in ARKit's camera
/// frame (+x right, +y up, looking along −z) to the optical frame that recordings, TUM files, OpenCV
/// and the vision solvers use (+x right, +y down, +z forward, along the viewing direction).
///
/// It is the rotation by π about x, `(x, y, z) ↦ (x, −y, −z)`, with no translation (both frames share
/// the camera centre). It is its own inverse, so it also serves as `cameraFromOptical`; compose it to
/// convert poses: `worldFromOptical = worldFromCamera * opticalFromCamera` and
/// `worldFromCamera = worldFromOptical * opticalFromCamera`.
package let opticalFromCamera = RigidTransform(
  rotation: simd_quatd(ix: 1, iy: 0, iz: 0, r: 0), translation: .zero)

/// `cameraFromOptical`: the same rotation as ``opticalFromCamera`` (it is its own inverse), named for the
/// direction of use: optical frame (x right, y down, z forward) to ARKit's camera frame (x right, y up,
/// looking along −z).
package let cameraFromOptical = opticalFromCamera
