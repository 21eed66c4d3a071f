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
  ErrorStatistics(gravityErrorSeries(frames, gravity: gravity, after: after).map(\.degrees))
}

/// The gravity error of each frame with a pose and ground truth from `after` seconds past the first
/// frame (as ``gravityErrors(_:gravity:after:)`` measures it), in the frames' order: what `arsim eval
/// --gravity-trace` writes, to see which frames the median comes from. Empty without such frames.
public func gravityErrorSeries(_ frames: [EvaluatedFrame], gravity: SIMD3<Double>, after: Double = 0)
  -> [(timestamp: Double, degrees: Double)]
{
  guard let start = frames.first?.timestamp, simd_length(gravity) > 0 else { return [] }
  let up = -simd_normalize(gravity)
  return frames.compactMap { frame -> (timestamp: Double, degrees: Double)? in
    guard frame.hasPose, frame.timestamp - start >= after, let truth = frame.groundTruth else { return nil }
    // Both in the optical frame, which differs from ARKit's camera frame by a fixed rotation.
    let estimated = frame.estimate.inverse.rotate(SIMD3(0, 1, 0))
    let expected = truth.inverse.rotate(up)
    let degrees =
      atan2(simd_length(simd_cross(estimated, expected)), simd_dot(estimated, expected)) * 180 / .pi
    return (frame.timestamp, degrees)
  }
}
