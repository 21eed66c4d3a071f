import ARSim
import Foundation

/// Checks a recording's up axis against the surface its depth sees below the camera, independently
/// of ARSim's plane detection: every `stride`-th frame's depth is lifted into the reference world
/// with the frame's reference pose, each point with the normal of its depth neighbourhood. Among the
/// points below every camera whose normal lies within ``candidateAngle`` of the claimed up, the most
/// populated height (2 cm bins) is the supporting surface (the floor, or a table where the camera
/// looked down at one); its points' least-squares normal is compared with the claimed up.
///
/// A world read with the wrong up (a z-up world read as y-up) has no such surface: what lies "below"
/// along a horizontal axis is a wall, whose points, seen from a walking camera, spread over many
/// heights; so the check reports the surface's distance under the cameras and how many points it holds.
public struct FloorCheck: Sendable {
  /// Degrees between the surface's normal and the claimed up.
  public var angleDegrees: Double
  /// The cameras' median height above the surface, metres, along the claimed up.
  public var medianCameraHeight: Double
  /// The surface's height along the claimed up in the reference world (`up · p` of its points),
  /// metres: a camera at `t` is `up · t - surfaceHeight` above it.
  public var surfaceHeight: Double
  /// The points on the surface (within 4 cm of its height, with a normal near up).
  public var points: Int

  /// The largest angle between the claimed up and a point's normal for the point to count.
  public static let candidateAngle = 15.0

  /// Measures `source`'s supporting surface against `up` (a unit vector in the reference world;
  /// minus ``RecordingInfo/groundTruthGravity``), reading every `stride`-th frame that has depth and
  /// a reference pose; depth beyond 4 m, and low-confidence depth where the recording has
  /// confidence, is left out. Nil when no point below the cameras has a normal near up.
  public static func measure(_ source: inout any FrameSource, up: SIMD3<Double>, stride: Int = 10)
    throws -> FloorCheck?
  {
    let intrinsics = source.info.depthIntrinsics ?? source.info.intrinsics
    var points: [(position: SIMD3<Double>, height: Double)] = []
    var cameras: [Double] = []
    let cosine = cos(candidateAngle * .pi / 180)
    var index = 0
    while let frame = try source.nextFrame() {
      defer { index += 1 }
      guard index % stride == 0, let depth = frame.depth, let pose = frame.groundTruth else { continue }
      cameras.append(simd_dot(pose.translation, up))
      let k = intrinsics.scaled(toWidth: depth.width, height: depth.height)
      let lift = { (u: Int, v: Int) -> SIMD3<Double>? in
        let i = v * depth.width + u
        let z = Double(depth.metres[i])
        guard z.isFinite, z > 0.1, z < 4 else { return nil }
        if let confidence = frame.confidence, confidence.levels[i] < 1 { return nil }
        return SIMD3((Double(u) - k.cx) / k.fx * z, (Double(v) - k.cy) / k.fy * z, z)
      }
      let reach = 3
      for v in Swift.stride(from: reach, to: depth.height - reach, by: 4) {
        for u in Swift.stride(from: reach, to: depth.width - reach, by: 4) {
          guard let p = lift(u, v), let right = lift(u + reach, v), let left = lift(u - reach, v),
            let down = lift(u, v + reach), let upper = lift(u, v - reach)
          else { continue }
          let cross = simd_cross(right - left, down - upper)
          guard simd_length(cross) > 0 else { continue }
          let normal = pose.rotate(cross / simd_length(cross))
          guard abs(simd_dot(normal, up)) >= cosine else { continue }
          let world = pose.apply(to: p)
          points.append((world, simd_dot(world, up)))
        }
      }
    }
    guard let lowestCamera = cameras.min() else { return nil }
    let below = points.filter { $0.height < lowestCamera - 0.1 }
    guard !below.isEmpty else { return nil }
    // The most populated 2 cm height bin, then every point within 4 cm of its middle.
    var bins: [Int: Int] = [:]
    for p in below { bins[Int((p.height / 0.02).rounded(.down)), default: 0] += 1 }
    let peak = bins.max { $0.value != $1.value ? $0.value < $1.value : $0.key > $1.key }!.key
    let height = (Double(peak) + 0.5) * 0.02
    let surface = below.filter { abs($0.height - height) < 0.04 }.map(\.position)
    let mean = surface.reduce(SIMD3<Double>.zero, +) / Double(surface.count)
    var covariance = simd_double3x3()
    for p in surface {
      let d = p - mean
      covariance += simd_double3x3(d * d.x, d * d.y, d * d.z)
    }
    var normal = symmetricEigenDecomposition(covariance).eigenvectors.columns.0
    if simd_dot(normal, up) < 0 { normal = -normal }
    let offset = simd_dot(up, mean)
    let sorted = cameras.sorted()
    return FloorCheck(
      angleDegrees: acos(min(1, simd_dot(normal, up))) * 180 / .pi,
      medianCameraHeight: sorted[sorted.count / 2] - offset,
      surfaceHeight: offset, points: surface.count)
  }
}
