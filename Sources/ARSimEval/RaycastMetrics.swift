import Foundation

/// One ground-truth tap and what the session's raycast gave for it, with every point and pose in the
/// ground-truth world (metres; the session's values mapped there by the trajectory alignment).
public struct RaycastSample: Sendable, Hashable {
  /// The tap's timestamp, seconds.
  public var timestamp: Double
  /// The identifier of the reference plane the tap's ray meets, when known.
  public var referenceId: Int?
  /// Where the tap's ray meets the scene, ground-truth world.
  public var groundTruthPoint: SIMD3<Double>
  /// The ground-truth camera (`worldFromOptical`) of the frame the tap was cast at, when known.
  public var groundTruthCamera: RigidTransform?
  /// The estimated camera (`worldFromOptical`, aligned into the ground-truth world) of that frame.
  public var estimatedCamera: RigidTransform?
  /// The nearest hit, ground-truth world; nil when the raycast hit nothing.
  public var hit: SIMD3<Double>?
  /// The identifier of the plane hit, when the hit is on a detected plane.
  public var hitIdentifier: String?
  /// Whether the ground-truth point lies on a plane detected at that frame (see
  /// ``pointLiesOnDetectedPlane(_:reference:planes:options:)``).
  public var isOnDetectedPlane: Bool

  /// A sample from its values (see the properties for units and frames).
  public init(
    timestamp: Double, referenceId: Int?, groundTruthPoint: SIMD3<Double>, groundTruthCamera: RigidTransform?,
    estimatedCamera: RigidTransform?, hit: SIMD3<Double>?, hitIdentifier: String?, isOnDetectedPlane: Bool
  ) {
    self.timestamp = timestamp
    self.referenceId = referenceId
    self.groundTruthPoint = groundTruthPoint
    self.groundTruthCamera = groundTruthCamera
    self.estimatedCamera = estimatedCamera
    self.hit = hit
    self.hitIdentifier = hitIdentifier
    self.isOnDetectedPlane = isOnDetectedPlane
  }
}

/// The errors of one tap.
public struct RaycastTapResult: Sendable, Hashable, Codable {
  /// The tap's timestamp, seconds.
  public var timestamp: Double
  /// The reference plane it lands on, when known.
  public var referenceId: Int?
  /// Whether the ground-truth point lies on a detected plane.
  public var isOnDetectedPlane: Bool
  /// Whether the raycast hit anything.
  public var isHit: Bool
  /// The plane hit, when any.
  public var hitIdentifier: String?
  /// Distance between the hit and the ground-truth point, metres, ground-truth world.
  public var worldError: Double?
  /// Distance between the hit in the estimated camera's frame and the ground-truth point in the
  /// ground-truth camera's frame, metres: the error as seen from the camera, free of the camera's own
  /// position error.
  public var cameraError: Double?
  /// The hit's distance from the estimated camera minus the ground-truth point's distance from the
  /// ground-truth camera, metres (the error along the ray; positive when the hit is too far).
  public var rangeError: Double?
}

/// Raycasting scored against ground-truth taps.
public struct RaycastEvaluation: Sendable, Hashable, Codable {
  /// One result per sample, in the order given.
  public var taps: [RaycastTapResult]
  /// The number of taps.
  public var tapCount: Int
  /// The number of taps with a hit.
  public var hitCount: Int
  /// `hitCount / tapCount`; nil without taps.
  public var hitRate: Double?
  /// The number of taps whose ground-truth point lies on a detected plane.
  public var onPlaneCount: Int
  /// The number of those with a hit.
  public var onPlaneHitCount: Int
  /// `onPlaneHitCount / onPlaneCount`; nil when no tap lies on a detected plane.
  public var onPlaneHitRate: Double?
  /// World errors of the taps with a hit, metres.
  public var worldError: ErrorStatistics?
  /// The 90th percentile of those, metres.
  public var worldErrorP90: Double?
  /// World errors of the taps on a detected plane with a hit, metres.
  public var onPlaneWorldError: ErrorStatistics?
  /// The 90th percentile of those, metres.
  public var onPlaneWorldErrorP90: Double?
  /// Camera-relative errors of the taps with a hit, metres.
  public var cameraError: ErrorStatistics?
  /// The 90th percentile of those, metres.
  public var cameraErrorP90: Double?
  /// Absolute range errors (along the ray) of the taps with a hit, metres.
  public var rangeError: ErrorStatistics?
  /// The 90th percentile of those, metres.
  public var rangeErrorP90: Double?
  /// The mean signed range error, metres (positive: hits beyond the true surface).
  public var rangeBias: Double?
}

/// Scores raycast samples: hit rates (over all taps, and over the taps whose ground-truth point lies on
/// a detected plane) and the errors of the hits (world, camera-relative, along the ray), each with its
/// median (in the statistics) and 90th percentile. Pure.
public func evaluateRaycasts(_ samples: [RaycastSample]) -> RaycastEvaluation {
  let taps = samples.map { sample in
    var result = RaycastTapResult(
      timestamp: sample.timestamp, referenceId: sample.referenceId,
      isOnDetectedPlane: sample.isOnDetectedPlane,
      isHit: sample.hit != nil, hitIdentifier: sample.hitIdentifier)
    if let hit = sample.hit {
      result.worldError = simd_distance(hit, sample.groundTruthPoint)
      if let estimated = sample.estimatedCamera, let truth = sample.groundTruthCamera {
        result.cameraError = simd_distance(
          estimated.inverse.apply(to: hit), truth.inverse.apply(to: sample.groundTruthPoint))
        result.rangeError =
          simd_distance(hit, estimated.translation)
          - simd_distance(sample.groundTruthPoint, truth.translation)
      }
    }
    return result
  }
  let hits = taps.filter(\.isHit)
  let onPlane = taps.filter(\.isOnDetectedPlane)
  let onPlaneHits = onPlane.filter(\.isHit)
  let world = hits.compactMap(\.worldError)
  let onPlaneWorld = onPlaneHits.compactMap(\.worldError)
  let camera = hits.compactMap(\.cameraError)
  let range = hits.compactMap(\.rangeError)
  return RaycastEvaluation(
    taps: taps, tapCount: taps.count, hitCount: hits.count,
    hitRate: taps.isEmpty ? nil : Double(hits.count) / Double(taps.count), onPlaneCount: onPlane.count,
    onPlaneHitCount: onPlaneHits.count,
    onPlaneHitRate: onPlane.isEmpty ? nil : Double(onPlaneHits.count) / Double(onPlane.count),
    worldError: ErrorStatistics(world), worldErrorP90: percentile(world, 0.9),
    onPlaneWorldError: ErrorStatistics(onPlaneWorld), onPlaneWorldErrorP90: percentile(onPlaneWorld, 0.9),
    cameraError: ErrorStatistics(camera), cameraErrorP90: percentile(camera, 0.9),
    rangeError: ErrorStatistics(range.map(\.magnitude)),
    rangeErrorP90: percentile(range.map(\.magnitude), 0.9),
    rangeBias: range.isEmpty ? nil : range.reduce(0, +) / Double(range.count))
}

/// Whether `point` (world, metres) lies on one of `planes` (same world): within `options.maximumOffset`
/// of the plane through its centre, inside its polygon (projected onto that plane), and, when the
/// reference plane the point belongs to is given, on a plane that matches it in angle
/// (`options.maximumAngleDegrees`).
public func pointLiesOnDetectedPlane(
  _ point: SIMD3<Double>, reference: ReferencePlane?, planes: [DetectedPlane],
  options: PlaneEvaluationOptions = PlaneEvaluationOptions()
) -> Bool {
  planes.contains { plane in
    let frame = PlaneFrame(normal: plane.normal, origin: plane.center)
    guard abs(simd_dot(point - plane.center, frame.normal)) <= options.maximumOffset else { return false }
    if let reference {
      let n = reference.plane.normal
      let angle = atan2(simd_length(simd_cross(n, frame.normal)), abs(simd_dot(n, frame.normal)))
      guard angle * 180 / Double.pi <= options.maximumAngleDegrees else { return false }
    }
    let hull = Polygon2D.convexHull(plane.polygon.map { frame.project($0) })
    return Polygon2D.contains(frame.project(point), in: hull)
  }
}

/// The `fraction` quantile (`0...1`) of `values` by linear interpolation between the two nearest ranks
/// (NumPy's default `percentile`); nil for no values.
public func percentile(_ values: [Double], _ fraction: Double) -> Double? {
  guard !values.isEmpty else { return nil }
  let sorted = values.sorted()
  let position = min(max(fraction, 0), 1) * Double(sorted.count - 1)
  let lower = Int(position.rounded(.down))
  let upper = min(lower + 1, sorted.count - 1)
  let weight = position - Double(lower)
  return sorted[lower] + (sorted[upper] - sorted[lower]) * weight
}
