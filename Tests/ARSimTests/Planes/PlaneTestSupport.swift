import ARSim
import Foundation

/// A ground-truth rectangle in world space: `center ± halfU ± halfV` (metres); its normal is
/// `halfU × halfV` normalised.
struct TestRectangle {
  var center: SIMD3<Double>
  var halfU: SIMD3<Double>
  var halfV: SIMD3<Double>

  /// A horizontal rectangle at height `y` spanning `x` and `z` ranges (normal +y).
  static func horizontal(y: Double, x: ClosedRange<Double>, z: ClosedRange<Double>) -> TestRectangle {
    TestRectangle(
      center: SIMD3((x.lowerBound + x.upperBound) / 2, y, (z.lowerBound + z.upperBound) / 2),
      halfU: SIMD3(0, 0, (z.upperBound - z.lowerBound) / 2),
      halfV: SIMD3((x.upperBound - x.lowerBound) / 2, 0, 0))
  }

  /// A vertical rectangle in the plane `x = x0`, spanning `y` and `z` ranges (normal −x).
  static func wall(x x0: Double, y: ClosedRange<Double>, z: ClosedRange<Double>) -> TestRectangle {
    TestRectangle(
      center: SIMD3(x0, (y.lowerBound + y.upperBound) / 2, (z.lowerBound + z.upperBound) / 2),
      halfU: SIMD3(0, (y.upperBound - y.lowerBound) / 2, 0),
      halfV: SIMD3(0, 0, (z.upperBound - z.lowerBound) / 2))
  }

  var normal: SIMD3<Double> { simd_normalize(simd_cross(halfU, halfV)) }
  var area: Double { 4 * simd_length(halfU) * simd_length(halfV) }

  /// The corners, in order around the rectangle.
  var corners: [SIMD3<Double>] {
    [center - halfU - halfV, center + halfU - halfV, center + halfU + halfV, center - halfU + halfV]
  }

  /// Points on a grid of about `spacing` metres, jittered by up to `jitter` and with Gaussian noise of
  /// standard deviation `noise` in every coordinate; points for which `exclude` is true are left out.
  func points(
    spacing: Double, jitter: Double, noise: Double, random: inout SplitMix64,
    exclude: (SIMD3<Double>) -> Bool = { _ in false }
  ) -> [SIMD3<Float>] {
    let lengthU = 2 * simd_length(halfU)
    let lengthV = 2 * simd_length(halfV)
    let nu = max(Int((lengthU / spacing).rounded(.down)), 1)
    let nv = max(Int((lengthV / spacing).rounded(.down)), 1)
    let u = simd_normalize(halfU)
    let v = simd_normalize(halfV)
    let start = center - halfU - halfV
    var result: [SIMD3<Float>] = []
    for i in 0..<nu {
      for j in 0..<nv {
        let a = min(
          max((Double(i) + 0.5) * lengthU / Double(nu) + random.uniform(-jitter, jitter), 0), lengthU)
        let b = min(
          max((Double(j) + 0.5) * lengthV / Double(nv) + random.uniform(-jitter, jitter), 0), lengthV)
        let exact = start + u * a + v * b
        if exclude(exact) { continue }
        let noisy = exact + noise * SIMD3(random.gaussian(), random.gaussian(), random.gaussian())
        result.append(SIMD3<Float>(noisy))
      }
    }
    return result
  }
}

/// Synthetic frames of a static scene of rectangles with noise and outliers.
struct TestScene {
  var rectangles: [TestRectangle]
  /// Points inside these boxes (min, max) are not sampled (e.g. the floor under a table).
  var holes: [(SIMD3<Double>, SIMD3<Double>)] = []
  var spacing = 0.04
  var jitter = 0.005
  var noise = 0.003
  /// Outliers as a fraction of the plane points, uniform in `outlierBox`.
  var outlierFraction = 0.1
  var outlierBox = (SIMD3<Double>(-3, -0.5, -4), SIMD3<Double>(3, 3, 1))

  /// The depth points of one frame.
  func frame(random: inout SplitMix64) -> [SIMD3<Float>] {
    var points: [SIMD3<Float>] = []
    for rectangle in rectangles {
      points += rectangle.points(spacing: spacing, jitter: jitter, noise: noise, random: &random) { p in
        holes.contains {
          p.x >= $0.0.x && p.y >= $0.0.y && p.z >= $0.0.z && p.x <= $0.1.x && p.y <= $0.1.y && p.z <= $0.1.z
        }
      }
    }
    let outliers = Int(Double(points.count) * outlierFraction)
    let (low, high) = outlierBox
    for _ in 0..<outliers {
      let p = SIMD3(
        random.uniform(low.x, high.x), random.uniform(low.y, high.y), random.uniform(low.z, high.z))
      points.append(SIMD3<Float>(p))
    }
    return points
  }
}

/// Runs `frames` frames of `scene` through `detector` with the camera at `camera`; returns the changes.
@discardableResult
func runFrames(
  _ detector: PlaneDetector, scene: TestScene, frames: Int, camera: SIMD3<Double>, seed: UInt64 = 7,
  firstFrame: Int = 0
) -> [PlaneAnchorChanges] {
  var random = SplitMix64(seed: seed)
  var result: [PlaneAnchorChanges] = []
  for k in 0..<frames {
    let input = PlaneDetectionInput(
      timestamp: Double(firstFrame + k) / 30,
      worldFromCamera: RigidTransform(translation: camera), featurePoints: [],
      depthPoints: scene.frame(random: &random))
    result.append(detector.process(input))
  }
  return result
}

/// Facts about an anchor in world coordinates.
struct WorldPlaneFacts {
  /// The anchor's y axis (world).
  var normal: SIMD3<Double>
  /// The world position of the anchor's `center`.
  var center: SIMD3<Double>
  /// The boundary polygon in world coordinates.
  var boundary: [SIMD3<Double>]

  init(_ anchor: ARPlaneAnchor) {
    let m = simd_double4x4(anchor.transform)
    func world(_ p: simd_float3) -> SIMD3<Double> {
      let w = m * SIMD4(SIMD3<Double>(p), 1)
      return SIMD3(w.x, w.y, w.z)
    }
    normal = simd_normalize(SIMD3(m.columns.1.x, m.columns.1.y, m.columns.1.z))
    center = world(anchor.center)
    boundary = anchor.geometry.boundaryVertices.map(world)
  }

  /// The angle in degrees between the anchor's normal and `normal`.
  func angleDegrees(to other: SIMD3<Double>) -> Double {
    atan2(simd_length(simd_cross(normal, other)), simd_dot(normal, other)) * 180 / .pi
  }

  /// The IoU of the boundary and `rectangle`, both projected on the rectangle's plane.
  func intersectionOverUnion(with rectangle: TestRectangle) -> Double {
    let u = simd_normalize(rectangle.halfU)
    let v = simd_normalize(rectangle.halfV)
    func flat(_ p: SIMD3<Double>) -> SIMD2<Double> {
      SIMD2(simd_dot(p - rectangle.center, u), simd_dot(p - rectangle.center, v))
    }
    return Polygon2D.convexIntersectionOverUnion(boundary.map(flat), rectangle.corners.map(flat))
  }
}
