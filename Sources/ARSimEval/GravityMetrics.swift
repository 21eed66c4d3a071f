import ARSimMath
import Foundation

/// Gravity error per frame: the angle in degrees between the estimated up direction and the true one,
/// both in the camera frame, over the frames with a pose and ground truth from `after` seconds past the
/// first frame. The estimate's up is the session world's +y; the truth's is `-gravity` (a unit vector
/// in the ground-truth world). The angle does not depend on the alignment of the two worlds. Nil
/// without such frames.
public func gravityErrors(_ frames: [EvaluatedFrame], gravity: SIMD3<Double>, after: Double = 1)
  -> ErrorStatistics?
{
  guard let start = frames.first?.timestamp, simd_length(gravity) > 0 else { return nil }
  let up = -simd_normalize(gravity)
  let angles = frames.compactMap { frame -> Double? in
    guard frame.hasPose, frame.timestamp - start >= after, let truth = frame.groundTruth else { return nil }
    // Both in the optical frame, which differs from ARKit's camera frame by a fixed rotation.
    let estimated = frame.estimate.inverse.rotate(SIMD3(0, 1, 0))
    let expected = truth.inverse.rotate(up)
    return atan2(simd_length(simd_cross(estimated, expected)), simd_dot(estimated, expected)) * 180 / .pi
  }
  return ErrorStatistics(angles)
}
