import Foundation

/// The depth maps a reconstruction keeps to fuse again when a loop closure bends the world: one per
/// viewpoint cell (a metre cube of camera positions in the volume's frame, one of eight headings and
/// three pitches), the latest fused there. Memory follows the space the camera moved through and how
/// it looked around, not the session's length.
struct MeshKeyframes {
  /// One fused frame: what ``SceneReconstructor/integrate`` was given, the pose in the volume's frame
  /// (which rigid world corrections do not change).
  struct Keyframe {
    var time: Double
    var depth: DepthImage
    var confidence: ConfidenceMap?
    var intrinsics: CameraIntrinsics
    var volumeFromCamera: RigidTransform
  }

  /// A viewpoint cell.
  struct Cell: Hashable {
    var x: Int32
    var y: Int32
    var z: Int32
    var heading: Int8
    var pitch: Int8
  }

  /// Cell side, metres.
  static let cellSize = 0.5

  private var keyframes: [Cell: Keyframe] = [:]

  /// Keeps `keyframe` as its viewpoint cell's (replacing an earlier one there).
  mutating func keep(_ keyframe: Keyframe) {
    let p = keyframe.volumeFromCamera.translation / Self.cellSize
    // The camera looks along its -z axis.
    let forward = keyframe.volumeFromCamera.rotate(SIMD3(0, 0, -1))
    let heading = Int8(((atan2(forward.x, -forward.z) / (2 * .pi) + 0.5) * 8).rounded(.down)) % 8
    let pitch: Int8 = forward.y < -0.5 ? 0 : forward.y > 0.5 ? 2 : 1
    let cell = Cell(
      x: Int32(p.x.rounded(.down)), y: Int32(p.y.rounded(.down)), z: Int32(p.z.rounded(.down)),
      heading: heading,
      pitch: pitch)
    keyframes[cell] = keyframe
  }

  /// The keyframes in time order.
  var inOrder: [Keyframe] { keyframes.values.sorted { $0.time < $1.time } }

  /// Replaces every keyframe's pose (time order is kept).
  mutating func movePoses(_ move: (Keyframe) -> RigidTransform) {
    for cell in keyframes.keys { keyframes[cell]!.volumeFromCamera = move(keyframes[cell]!) }
  }

  var count: Int { keyframes.count }

  mutating func removeAll() { keyframes.removeAll() }
}
