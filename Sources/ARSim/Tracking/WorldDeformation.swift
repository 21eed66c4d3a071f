/// A non-rigid correction of the session world, as a loop closure's pose graph makes it: the keyframes
/// since ``since`` each moved by their own correction, the older part of the map held. Whatever was
/// mapped at a time (a plane last updated then, an anchor placed then) moves with the keyframe made
/// nearest that time, as ARKit's anchors follow the keyframe they were attached to; what was mapped
/// before ``since`` stays. The rigid world correction (``TrackedFrame/worldCorrection``) is the
/// special case of one correction for all times.
package struct WorldDeformation: Sendable {
  /// Things mapped before this time (seconds, the recording's clock) stay where they are.
  package var since: Double
  /// Corrections (`newFromOld`) by time, ascending: the corrected keyframes' times, the current
  /// frame's last. Never empty.
  package var corrections: [(time: Double, newFromOld: RigidTransform)]

  /// A deformation; `corrections` must be sorted by time and not empty.
  package init(since: Double, corrections: [(time: Double, newFromOld: RigidTransform)]) {
    self.since = since
    self.corrections = corrections
  }

  /// The correction of what was mapped at `time`: nil before ``since`` (it stays), else the correction
  /// of the nearest time (the later on a tie; after the last, the last).
  package func correction(at time: Double) -> RigidTransform? {
    guard time >= since, let last = corrections.last else { return nil }
    guard let after = corrections.firstIndex(where: { $0.time >= time }) else { return last.newFromOld }
    guard after > 0 else { return corrections[0].newFromOld }
    let before = corrections[after - 1]
    return time - before.time < corrections[after].time - time
      ? before.newFromOld : corrections[after].newFromOld
  }

  /// The deformation in another frame: each correction conjugated, `frameFromO · c · frameFromO⁻¹`
  /// (a deformation measured in the odometry frame O, expressed in the session world).
  package func expressed(in frameFromO: RigidTransform) -> WorldDeformation {
    let inverse = frameFromO.inverse
    return WorldDeformation(
      since: since, corrections: corrections.map { ($0.time, frameFromO * $0.newFromOld * inverse) })
  }
}
