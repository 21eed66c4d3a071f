import ARSim
import Foundation

/// A ray-cast depth camera over axis-aligned rectangles (known ground truth for the surface detector).
public struct DepthScene: Sendable {
  /// A rectangle on the plane `axis = value` (0 x, 1 y, 2 z) spanning `low...high` in the other two
  /// coordinates (in x, y, z order).
  public struct Rectangle: Sendable {
    public var axis: Int
    public var value: Double
    public var low: SIMD2<Double>
    public var high: SIMD2<Double>

    public init(axis: Int, value: Double, low: SIMD2<Double>, high: SIMD2<Double>) {
      self.axis = axis
      self.value = value
      self.low = low
      self.high = high
    }
  }
  public var rectangles: [Rectangle]
  public static let intrinsics = CameraIntrinsics(
    fx: 212, fy: 212, cx: 127.5, cy: 95.5, width: 256, height: 192)

  public init(rectangles: [Rectangle]) { self.rectangles = rectangles }

  /// The depth map (z-depth, metres) that a camera at `pose` (ARKit's camera frame to world) sees.
  public func depth(from pose: RigidTransform, noise: Double = 0, random: inout SplitMix64) -> DepthImage {
    let k = Self.intrinsics
    var metres = [Float](repeating: .nan, count: k.width * k.height)
    for v in 0..<k.height {
      for u in 0..<k.width {
        let cameraRay = SIMD3((Double(u) - k.cx) / k.fx, -(Double(v) - k.cy) / k.fy, -1)
        let ray = pose.rotate(cameraRay)
        var nearest = Double.infinity
        for r in rectangles {
          let d = ray[r.axis]
          guard d.magnitude > 1e-12 else { continue }
          let s = (r.value - pose.translation[r.axis]) / d
          guard s > 0, s < nearest else { continue }
          let p = pose.translation + s * ray
          let others = [0, 1, 2].filter { $0 != r.axis }
          let q = SIMD2(p[others[0]], p[others[1]])
          if q.x >= r.low.x && q.x <= r.high.x && q.y >= r.low.y && q.y <= r.high.y { nearest = s }
        }
        if nearest.isFinite {
          let jitter = noise > 0 ? noise * (Double(random.next() % 2001) / 1000 - 1) : 0
          metres[v * k.width + u] = Float(nearest + jitter)
        }
      }
    }
    return DepthImage(width: k.width, height: k.height, metres: metres)
  }

  /// A camera at `position` looking towards `target` (y up).
  public static func pose(at position: SIMD3<Double>, lookingAt target: SIMD3<Double>) -> RigidTransform {
    let back = simd_normalize(position - target)
    let right = simd_normalize(simd_cross(SIMD3(0, 1, 0), back))
    let up = simd_cross(back, right)
    var m = matrix_identity_double4x4
    m.columns.0 = SIMD4(right, 0)
    m.columns.1 = SIMD4(up, 0)
    m.columns.2 = SIMD4(back, 0)
    m.columns.3 = SIMD4(position, 1)
    return RigidTransform(matrix: m)
  }
}
