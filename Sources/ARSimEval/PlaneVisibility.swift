import Foundation

/// The intrinsics of a pinhole camera in the optical frame (x right, y down, z forward), pixels, with
/// pixel centres at integer coordinates and the origin at the image's top-left corner.
public struct PinholeIntrinsics: Sendable, Hashable, Codable {
  /// Focal lengths, pixels.
  public var fx: Double
  /// Focal lengths, pixels.
  public var fy: Double
  /// Principal point, pixels.
  public var cx: Double
  /// Principal point, pixels.
  public var cy: Double
  /// Image size, pixels.
  public var width: Int
  /// Image size, pixels.
  public var height: Int

  /// Intrinsics from focal lengths, principal point and image size (pixels).
  public init(fx: Double, fy: Double, cx: Double, cy: Double, width: Int, height: Int) {
    self.fx = fx
    self.fy = fy
    self.cx = cx
    self.cy = cy
    self.width = width
    self.height = height
  }

  /// Whether a point in the optical frame (metres) is in front of the camera and projects inside the
  /// image (within half a pixel of the outermost pixel centres).
  public func sees(_ point: SIMD3<Double>) -> Bool {
    guard point.z > 1e-6 else { return false }
    let u = fx * point.x / point.z + cx
    let v = fy * point.y / point.z + cy
    return u >= -0.5 && u <= Double(width) - 0.5 && v >= -0.5 && v <= Double(height) - 0.5
  }
}

/// For each polygon (convex, in the world, metres), the fraction of its area that some camera saw: the
/// polygon is sampled on a grid of at most `gridSize × gridSize` cells over its bounding rectangle in
/// its plane, and a sample counts as seen when, for some pose, it is in front of the camera, inside
/// the image, within `maximumDistance` of the camera, and the segment from the camera to it does not
/// cross another of the polygons more than 1 cm before reaching it. Geometry only: no texture or
/// lighting is considered. A polygon without area gives 0.
///
/// - Parameters:
///   - polygons: the ground-truth outlines, also the occluders of one another.
///   - cameraPoses: `worldFromOptical` poses (optical frame: x right, y down, z forward).
///   - intrinsics: the camera's pinhole intrinsics.
///   - maximumDistance: metres (default 5, the depth range of the synthetic sessions).
///   - gridSize: cells along the longer side of the bounding rectangle (default 20).
public func seenFractions(
  ofPolygons polygons: [[SIMD3<Double>]], cameraPoses: [RigidTransform], intrinsics: PinholeIntrinsics,
  maximumDistance: Double = 5, gridSize: Int = 20
) -> [Double] {
  let occluders = polygons.map(Occluder.init)
  let views = cameraPoses.map { (opticalFromWorld: $0.inverse, centre: $0.translation) }
  return polygons.indices.map { index in
    guard let occluder = occluders[index] else { return 0 }
    let samples = occluder.gridSamples(gridSize: max(gridSize, 1))
    guard !samples.isEmpty else { return 0 }
    var seen = 0
    for sample in samples {
      for view in views {
        let distance = simd_distance(view.centre, sample)
        guard distance <= maximumDistance, intrinsics.sees(view.opticalFromWorld.apply(to: sample)) else {
          continue
        }
        let hidden = occluders.indices.contains { other in
          other != index && occluders[other]?.blocks(from: view.centre, to: sample, margin: 0.01) == true
        }
        if !hidden {
          seen += 1
          break
        }
      }
    }
    return Double(seen) / Double(samples.count)
  }
}

/// A convex polygon that can hide points behind it.
struct Occluder {
  let frame: PlaneFrame
  let hull: [SIMD2<Double>]

  init?(_ polygon: [SIMD3<Double>]) {
    let normal = newellNormal(polygon)
    guard simd_length(normal) > 1e-12 else { return nil }
    let frame = PlaneFrame(normal: normal, origin: polygon.reduce(.zero, +) / Double(polygon.count))
    self.frame = frame
    hull = Polygon2D.convexHull(polygon.map { frame.project($0) })
    guard hull.count >= 3 else { return nil }
  }

  /// Cell centres of a grid over the hull's bounding rectangle that fall inside the hull (3-D points).
  func gridSamples(gridSize: Int) -> [SIMD3<Double>] {
    var low = hull[0]
    var high = hull[0]
    for p in hull {
      low = pointwiseMin(low, p)
      high = pointwiseMax(high, p)
    }
    let size = high - low
    let step = max(size.x, size.y) / Double(gridSize)
    guard step > 0 else { return [] }
    var samples: [SIMD3<Double>] = []
    let columns = max(Int((size.x / step).rounded(.up)), 1)
    let rows = max(Int((size.y / step).rounded(.up)), 1)
    for row in 0..<rows {
      for column in 0..<columns {
        let p = low + SIMD2(Double(column) + 0.5, Double(row) + 0.5) * step
        if p.x <= high.x, p.y <= high.y, Polygon2D.contains(p, in: hull) { samples.append(frame.point(p)) }
      }
    }
    return samples
  }

  /// Whether the segment from `start` to `end` crosses this polygon more than `margin` metres before
  /// `end`.
  func blocks(from start: SIMD3<Double>, to end: SIMD3<Double>, margin: Double) -> Bool {
    let direction = end - start
    let length = simd_length(direction)
    let denominator = simd_dot(frame.normal, direction)
    guard length > 0, abs(denominator) > 1e-12 * length else { return false }
    let t = simd_dot(frame.normal, frame.origin - start) / denominator
    guard t > 0, (1 - t) * length > margin else { return false }
    return Polygon2D.contains(frame.project(start + t * direction), in: hull)
  }
}
