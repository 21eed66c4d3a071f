/// The session's world correction stage: when the tracking stage moved the session world (a rigid
/// ``TrackedFrame/worldCorrection``, `newWorldFromOld`: a re-level as gravity is refined, or a
/// correction of the map; then a loop closure's non-rigid ``TrackedFrame/worldDeformation``),
/// everything else that lives in the world follows it in this frame: the plane detector's voxel map
/// and planes, and the app's anchors, each changed anchor reported in this frame's `didUpdate`, as
/// ARKit does when it refines its map. The tracker has corrected itself (its map lives in its own
/// odometry frame).
enum WorldCorrectionStage {
  /// Applies a frame's corrections (the rigid one first) to the app's anchors in `book` and to
  /// `detector`; returns the detected planes' updates.
  static func apply(
    _ correction: RigidTransform?, _ deformation: WorldDeformation?, book: inout AnchorBook,
    detector: (any PlaneDetecting)?
  ) -> PlaneAnchorChanges {
    var changes = PlaneAnchorChanges()
    if let correction {
      book.applyWorldCorrection(correction)
      changes = detector?.applyWorldCorrection(correction) ?? changes
    }
    guard let deformation else { return changes }
    book.applyWorldDeformation(deformation)
    changes.append(detector?.applyWorldDeformation(deformation) ?? PlaneAnchorChanges())
    return changes
  }
}
