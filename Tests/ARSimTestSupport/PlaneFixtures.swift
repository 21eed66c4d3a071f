import ARSim
import Foundation

/// A ground-truth rectangle in world space: `center ± halfU ± halfV` (metres); its normal is
/// `halfU × halfV` normalised.
public struct TestRectangle: Sendable {
  public var center: SIMD3<Double>
  public var halfU: SIMD3<Double>
  public var halfV: SIMD3<Double>

  public init(center: SIMD3<Double>, halfU: SIMD3<Double>, halfV: SIMD3<Double>) {
    self.center = center
    self.halfU = halfU
    self.halfV = halfV
  }

  /// A horizontal rectangle at height `y` spanning `x` and `z` ranges (normal +y).
  public static func horizontal(y: Double, x: ClosedRange<Double>, z: ClosedRange<Double>) -> TestRectangle {
    TestRectangle(
      center: SIMD3((x.lowerBound + x.upperBound) / 2, y, (z.lowerBound + z.upperBound) / 2),
      halfU: SIMD3(0, 0, (z.upperBound - z.lowerBound) / 2),
      halfV: SIMD3((x.upperBound - x.lowerBound) / 2, 0, 0))
  }

  /// A vertical rectangle in the plane `x = x0`, spanning `y` and `z` ranges (normal −x).
  public static func wall(x x0: Double, y: ClosedRange<Double>, z: ClosedRange<Double>) -> TestRectangle {
    TestRectangle(
      center: SIMD3(x0, (y.lowerBound + y.upperBound) / 2, (z.lowerBound + z.upperBound) / 2),
      halfU: SIMD3(0, (y.upperBound - y.lowerBound) / 2, 0),
      halfV: SIMD3(0, 0, (z.upperBound - z.lowerBound) / 2))
  }

  /// A vertical rectangle in the plane `z = z0`, spanning `x` and `y` ranges (normal +z).
  public static func facing(z z0: Double, x: ClosedRange<Double>, y: ClosedRange<Double>) -> TestRectangle {
    TestRectangle(
      center: SIMD3((x.lowerBound + x.upperBound) / 2, (y.lowerBound + y.upperBound) / 2, z0),
      halfU: SIMD3((x.upperBound - x.lowerBound) / 2, 0, 0),
      halfV: SIMD3(0, (y.upperBound - y.lowerBound) / 2, 0))
  }

  public var normal: SIMD3<Double> { simd_normalize(simd_cross(halfU, halfV)) }
  public var area: Double { 4 * simd_length(halfU) * simd_length(halfV) }

  /// The corners, in order around the rectangle.
  public var corners: [SIMD3<Double>] {
    [center - halfU - halfV, center + halfU - halfV, center + halfU + halfV, center - halfU + halfV]
  }

  /// Points on a grid of about `spacing` metres, jittered by up to `jitter` and with Gaussian noise of
  /// standard deviation `noise` in every coordinate; points for which `exclude` is true are left out.
  public func points(
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
public struct TestScene: Sendable {
  public var rectangles: [TestRectangle]
  /// Points inside these boxes (min, max) are not sampled (e.g. the floor under a table).
  public var holes: [(SIMD3<Double>, SIMD3<Double>)] = []
  public var spacing = 0.04
  public var jitter = 0.005
  public var noise = 0.003
  /// Outliers as a fraction of the plane points, uniform in `outlierBox`.
  public var outlierFraction = 0.1
  public var outlierBox = (SIMD3<Double>(-3, -0.5, -4), SIMD3<Double>(3, 3, 1))

  public init(
    rectangles: [TestRectangle], holes: [(SIMD3<Double>, SIMD3<Double>)] = [], spacing: Double = 0.04,
    jitter: Double = 0.005, noise: Double = 0.003, outlierFraction: Double = 0.1,
    outlierBox: (SIMD3<Double>, SIMD3<Double>) = (SIMD3<Double>(-3, -0.5, -4), SIMD3<Double>(3, 3, 1))
  ) {
    self.rectangles = rectangles
    self.holes = holes
    self.spacing = spacing
    self.jitter = jitter
    self.noise = noise
    self.outlierFraction = outlierFraction
    self.outlierBox = outlierBox
  }

  /// The depth points of one frame.
  public func frame(random: inout SplitMix64) -> [SIMD3<Float>] {
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
package func runFrames(
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
public struct WorldPlaneFacts: Sendable {
  /// The anchor's y axis (world).
  public var normal: SIMD3<Double>
  /// The world position of the anchor's `center`.
  public var center: SIMD3<Double>
  /// The boundary polygon in world coordinates.
  public var boundary: [SIMD3<Double>]

  public init(_ anchor: ARPlaneAnchor) {
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
  public func angleDegrees(to other: SIMD3<Double>) -> Double {
    atan2(simd_length(simd_cross(normal, other)), simd_dot(normal, other)) * 180 / .pi
  }

  /// The IoU of the boundary and `rectangle`, both projected on the rectangle's plane.
  public func intersectionOverUnion(with rectangle: TestRectangle) -> Double {
    let u = simd_normalize(rectangle.halfU)
    let v = simd_normalize(rectangle.halfV)
    func flat(_ p: SIMD3<Double>) -> SIMD2<Double> {
      SIMD2(simd_dot(p - rectangle.center, u), simd_dot(p - rectangle.center, v))
    }
    return Polygon2D.convexIntersectionOverUnion(boundary.map(flat), rectangle.corners.map(flat))
  }

  /// The angle between two lines along unit vectors `a` and `b`, degrees in `[0, 90]`.
  public static func unsignedAngleDegrees(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double {
    atan2(simd_length(simd_cross(a, b)), abs(simd_dot(a, b))) * 180 / .pi
  }
}

/// Everything an anchor reports, for exact comparisons.
public struct PlaneAnchorSignature: Equatable, Sendable {
  public var identifier: UUID
  public var transform: simd_float4x4
  public var center: simd_float3
  public var extent: [Float]
  public var boundary: [simd_float3]
  public var triangles: [Int16]
  public var classification: String
  public var alignment: ARPlaneAnchor.Alignment

  public static func of(_ anchors: [ARPlaneAnchor]) -> [PlaneAnchorSignature] {
    anchors.map {
      PlaneAnchorSignature(
        identifier: $0.identifier, transform: $0.transform, center: $0.center,
        extent: [$0.planeExtent.width, $0.planeExtent.height, $0.planeExtent.rotationOnYAxis],
        boundary: $0.geometry.boundaryVertices, triangles: $0.geometry.triangleIndices,
        classification: $0.classification.description, alignment: $0.alignment)
    }
  }
}
