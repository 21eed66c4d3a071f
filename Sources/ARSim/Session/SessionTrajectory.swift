/// One pose of the trajectory a session records (ARSim's addition; ARKit keeps none), in the
/// session's world now.
public struct ARTrajectoryPose: Sendable, Equatable {
  /// The recorded frame's index (``ARFrame/frameIndex``).
  public let frameIndex: Int
  /// The frame's timestamp, seconds.
  public let timestamp: Double
  /// World from the camera (ARKit's camera frame: x right, y up, looking along -z), metres, in the
  /// session's world now: the pose the frame delivered (``ARCamera/transform``, which never changes)
  /// moved by every world correction that came after it (``nowFromDelivered``).
  public let worldFromCamera: RigidTransform
  /// The session's world now from the world the frame was delivered in: the composition of every
  /// world correction (a re-level as gravity is refined, a map correction) since the frame; identity
  /// when none came. A loop closure's deformation (``WorldDeformation``) is not in it: it moves the
  /// poses of the frames since its held part (``worldFromCamera``) each by its own correction. Corrections never cross a tracking reset: a frame before one stays in the last
  /// world of its own run.
  public let nowFromDelivered: RigidTransform
}

/// The session's world epochs and the poses recorded in them: what the session's trajectory is made
/// of, as SLAM systems save their final trajectory. A world correction or a reset starts a new epoch
/// in O(1); each recorded pose keeps the epoch it was delivered in, and the corrections since are
/// composed only when the trajectory is read. Not thread-safe: the session calls it under its lock.
package struct WorldEpochs: Sendable {
  /// One recorded pose, as delivered, with its epoch.
  private struct Entry: Sendable {
    var frameIndex: Int
    var timestamp: Double
    var worldFromCamera: RigidTransform
    var epoch: Int
  }

  /// `steps[k]` takes the world of epoch k to that of epoch k + 1 (`newWorldFromOld`); nil where a
  /// reset started a new, unrelated world.
  private var steps: [RigidTransform?] = []
  private var entries: [Entry] = []

  /// No epochs passed, no poses.
  package init() {}

  /// The epoch the session's world is in now (0 until the first correction or reset).
  package var current: Int { steps.count }

  /// The session world moved by `newWorldFromOld`: poses recorded from now on are in the new world.
  package mutating func correct(by newWorldFromOld: RigidTransform) { steps.append(newWorldFromOld) }

  /// A loop closure deformed the session world (``WorldDeformation``, in the current world): each pose
  /// recorded since the deformation's held part moves by the correction of its time (conjugated into
  /// its epoch's world, so that the corrections after it still compose). Linear in those poses.
  package mutating func deform(by deformation: WorldDeformation) {
    let nowFrom = nowFromEpoch()
    for i in entries.indices.reversed() {
      guard entries[i].timestamp >= deformation.since else { break }
      guard let correction = deformation.correction(at: entries[i].timestamp) else { continue }
      let epoch = nowFrom[entries[i].epoch]
      entries[i].worldFromCamera = epoch.inverse * correction * epoch * entries[i].worldFromCamera
    }
  }

  /// Tracking restarted in a new world (`.resetTracking`, or no relocalisation after an interruption).
  package mutating func reset() { steps.append(nil) }

  /// Records a delivered pose (world from camera) in the current epoch.
  package mutating func record(frameIndex: Int, timestamp: Double, worldFromCamera: RigidTransform) {
    entries.append(
      Entry(frameIndex: frameIndex, timestamp: timestamp, worldFromCamera: worldFromCamera, epoch: current))
  }

  /// For each epoch 0...``current``, the world now (the last world of its run) from that epoch's world.
  package func nowFromEpoch() -> [RigidTransform] {
    var result = [RigidTransform](repeating: .identity, count: steps.count + 1)
    var index = steps.count - 1
    while index >= 0 {
      result[index] = steps[index].map { result[index + 1] * $0 } ?? .identity
      index -= 1
    }
    return result
  }

  /// Every recorded pose, in the order recorded, re-expressed in the world now.
  package func poses() -> [ARTrajectoryPose] {
    var result: [ARTrajectoryPose] = []
    result.reserveCapacity(entries.count)
    visitPoses { result.append($0) }
    return result
  }

  /// Calls `body` with every recorded pose, in the order recorded, re-expressed in the world now,
  /// without building the whole trajectory (what reads it once needs no copy of it).
  package func visitPoses(_ body: (ARTrajectoryPose) -> Void) {
    let nowFrom = nowFromEpoch()
    for entry in entries {
      let correction = nowFrom[entry.epoch]
      body(
        ARTrajectoryPose(
          frameIndex: entry.frameIndex, timestamp: entry.timestamp,
          worldFromCamera: correction * entry.worldFromCamera, nowFromDelivered: correction))
    }
  }
}
