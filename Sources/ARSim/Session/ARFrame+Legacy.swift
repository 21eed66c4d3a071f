import Foundation

extension ARFrame {
  /// How much of the world around the camera the session has mapped (ARKit's
  /// `ARFrame.WorldMappingStatus`).
  public enum WorldMappingStatus: Int, Sendable, Hashable {
    /// No map: tracking is not available or initialising.
    case notAvailable
    /// Tracking is limited (too few features, fast motion, relocalising): the map is unreliable here.
    case limited
    /// Tracking is normal and the map is still growing around the camera.
    case extending
    /// Tracking is normal with a well-populated map around the camera.
    case mapped
  }

  /// The number of tracked feature points from which the rule for trackers without keyframes calls
  /// the view ``WorldMappingStatus/mapped``.
  public static let mappedFeatureCount = 100

  /// The mapping status: `.notAvailable` when tracking is not available or initialising, `.limited`
  /// for other limited states; with normal tracking, from the map's coverage of the view where the
  /// tracker keeps keyframes (RGB-D: `isViewMapped`, a keyframe older than the two most recent within
  /// the keyframe distance and angle of the camera, as where the camera returns or a loaded world map
  /// covers: `.mapped`; exploring: `.extending`), otherwise `.mapped` when at least
  /// ``mappedFeatureCount`` feature points are tracked, `.extending` below.
  static func mappingStatus(camera: ARCamera, featureCount: Int, isViewMapped: Bool? = nil)
    -> WorldMappingStatus
  {
    switch camera.trackingState {
    case .notAvailable, .limited(.initializing): .notAvailable
    case .limited: .limited
    case .normal: (isViewMapped ?? (featureCount >= mappedFeatureCount)) ? .mapped : .extending
    }
  }
}

/// A hit of the legacy hit test (ARKit's `ARHitTestResult`, deprecated there in favour of raycasts).
public final class ARHitTestResult: Sendable {
  /// Kinds of surfaces a hit test looks for (ARKit's `ARHitTestResult.ResultType`).
  public struct ResultType: OptionSet, Sendable, Hashable {
    /// The bits of the set, as ARKit's.
    public let rawValue: UInt
    /// The set with these bits.
    public init(rawValue: UInt) { self.rawValue = rawValue }
    /// A tracked feature point within 2 cm of the ray (the hit is the nearest point of the ray).
    public static let featurePoint = ResultType(rawValue: 1 << 0)
    /// A horizontal surface fitted on the spot (a raycast with `.estimatedPlane`, horizontal).
    public static let estimatedHorizontalPlane = ResultType(rawValue: 1 << 1)
    /// A vertical surface fitted on the spot (`.estimatedPlane`, vertical).
    public static let estimatedVerticalPlane = ResultType(rawValue: 1 << 2)
    /// A detected plane, unbounded (`.existingPlaneInfinite`).
    public static let existingPlane = ResultType(rawValue: 1 << 3)
    /// A detected plane within its extent (ARSim: within its geometry, `.existingPlaneGeometry`).
    public static let existingPlaneUsingExtent = ResultType(rawValue: 1 << 4)
    /// A detected plane within its geometry (`.existingPlaneGeometry`).
    public static let existingPlaneUsingGeometry = ResultType(rawValue: 1 << 5)
  }

  /// What was hit.
  public let type: ResultType
  /// Metres from the camera along the ray.
  public let distance: CGFloat
  /// The hit's pose in world space (y along the surface normal for planes).
  public let worldTransform: simd_float4x4
  /// The hit's pose in the anchor's space (the world pose without an anchor).
  public let localTransform: simd_float4x4
  /// The plane anchor hit, or nil.
  public let anchor: ARAnchor?

  init(type: ResultType, distance: Float, worldTransform: simd_float4x4, anchor: ARAnchor?) {
    self.type = type
    self.distance = CGFloat(distance)
    self.worldTransform = worldTransform
    localTransform = anchor.map { $0.transform.inverse * worldTransform } ?? worldTransform
    self.anchor = anchor
  }
}

extension ARFrame {
  /// The legacy hit test (ARKit's `hitTest(_:types:)`): the surfaces of `types` on the camera ray
  /// through `point` (normalized image coordinates, (0, 0) top-left, (1, 1) bottom-right), nearest
  /// first, each type mapped onto the session's raycast (see ``ARHitTestResult/ResultType``). Empty for a
  /// frame that no session made.
  public func hitTest(_ point: CGPoint, types: ARHitTestResult.ResultType) -> [ARHitTestResult] {
    guard let raycaster else { return [] }
    var results: [ARHitTestResult] = []
    func cast(
      _ target: ARRaycastQuery.Target, _ alignment: ARRaycastQuery.TargetAlignment,
      as type: ARHitTestResult.ResultType
    ) {
      for hit in raycaster(raycastQuery(from: point, allowing: target, alignment: alignment), self) {
        results.append(
          ARHitTestResult(
            type: type, distance: hit.distance, worldTransform: hit.worldTransform, anchor: hit.anchor))
      }
    }
    if types.contains(.existingPlaneUsingGeometry) {
      cast(.existingPlaneGeometry, .any, as: .existingPlaneUsingGeometry)
    }
    if types.contains(.existingPlaneUsingExtent) {
      cast(.existingPlaneGeometry, .any, as: .existingPlaneUsingExtent)
    }
    if types.contains(.existingPlane) { cast(.existingPlaneInfinite, .any, as: .existingPlane) }
    if types.contains(.estimatedHorizontalPlane) {
      cast(.estimatedPlane, .horizontal, as: .estimatedHorizontalPlane)
    }
    if types.contains(.estimatedVerticalPlane) {
      cast(.estimatedPlane, .vertical, as: .estimatedVerticalPlane)
    }
    if types.contains(.featurePoint), let cloud = rawFeaturePoints {
      let query = raycastQuery(from: point, allowing: .estimatedPlane, alignment: .any)
      let direction = simd_normalize(query.direction)
      for p in cloud.points {
        let along = simd_dot(p - query.origin, direction)
        guard along > 0, simd_length(p - query.origin - along * direction) < 0.02 else { continue }
        var pose = simd_float4x4.identity
        pose.columns.3 = SIMD4(query.origin + along * direction, 1)
        results.append(
          ARHitTestResult(type: .featurePoint, distance: along, worldTransform: pose, anchor: nil))
      }
    }
    return results.enumerated().sorted { ($0.element.distance, $0.offset) < ($1.element.distance, $1.offset) }
      .map(\.element)
  }
}
