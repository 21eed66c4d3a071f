/// A non-rigid correction of the session world, as a loop closure's pose graph makes it: the keyframes
/// since ``since`` each moved by their own correction, the older part of the map held. Whatever was
/// mapped at a time (a plane last updated then, an anchor placed then, a recorded camera pose) moves
/// with the keyframes made around that time, by their corrections interpolated in time (as the pose
/// graph spreads drift along the path between them), as ARKit's anchors follow the keyframes they
/// were attached to; what was mapped before ``since`` stays. The rigid world correction (``TrackedFrame/worldCorrection``) is the
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

  /// The correction of what was mapped at `time`: nil before ``since`` (it stays); between two
  /// corrections' times, their interpolation on SE(3) (`c₀ · exp(s · log(c₀⁻¹ c₁))`, `s` the fraction
  /// of the interval), so that the corrected trajectory and map have no step where the keyframe
  /// changes (a revisit makes no keyframes, so the last interval, up to the closing frame, can be
  /// long); before the first, the first; after the last, the last.
  package func correction(at time: Double) -> RigidTransform? {
    guard time >= since, let last = corrections.last else { return nil }
    guard let after = corrections.firstIndex(where: { $0.time >= time }) else { return last.newFromOld }
    guard after > 0 else { return corrections[0].newFromOld }
    let (start, from) = corrections[after - 1]
    let (end, to) = corrections[after]
    let fraction = (time - start) / (end - start)
    let step = (from.inverse * to).log
    return from * RigidTransform.exp(Twist(angular: step.angular * fraction, linear: step.linear * fraction))
  }

  /// The deformation in another frame: each correction conjugated, `frameFromO · c · frameFromO⁻¹`
  /// (a deformation measured in the odometry frame O, expressed in the session world).
  package func expressed(in frameFromO: RigidTransform) -> WorldDeformation {
    let inverse = frameFromO.inverse
    return WorldDeformation(
      since: since, corrections: corrections.map { ($0.time, frameFromO * $0.newFromOld * inverse) })
  }
}
