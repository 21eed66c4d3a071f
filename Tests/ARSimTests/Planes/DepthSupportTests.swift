import ARSim
import ARSimTestSupport
import Foundation
import Testing

/// In a session with depth, a new plane needs voxels that depth points reached
/// (``PlaneDetectionOptions/minimumDepthShare``): feature points whose depth was read across a
/// silhouette float in free space and must not make an anchor there, while a monocular session's
/// feature points still make planes.
@Suite("Depth support of new planes")
struct DepthSupportTests {
  static let camera = SIMD3<Double>(0, 1.45, 0)
  /// The floor the depth sees, in front of the camera.
  static let floor = TestRectangle.horizontal(y: 0, x: -1.5...1.5, z: -4...(-1))
  /// A vertical sheet of feature points 5-40 cm above that floor, in the air behind a table's edge
  /// (as the phone-profile back-and-forth session made one: 20 voxels of feature points only).
  static let sheet = TestRectangle.wall(x: 0.8, y: 0.05...0.4, z: -3.2...(-2.2))

  /// Runs 30 frames: the sheet's feature points each frame, and the floor's depth points when
  /// `depth`; returns the anchors at the end.
  static func anchors(depth: Bool, options: PlaneDetectionOptions = PlaneDetectionOptions())
    -> [ARPlaneAnchor]
  {
    let detector = PlaneDetector(options: options, seed: 3)
    var random = SplitMix64(seed: 11)
    for k in 0..<30 {
      let features = sheet.points(spacing: 0.05, jitter: 0.01, noise: 0.002, random: &random)
        .enumerated().map { FeaturePoint(identifier: UInt64($0.offset), position: SIMD3<Double>($0.element)) }
      let floorPoints =
        depth ? floor.points(spacing: 0.04, jitter: 0.005, noise: 0.002, random: &random) : []
      _ = detector.process(
        PlaneDetectionInput(
          timestamp: Double(k) / 10, worldFromCamera: RigidTransform(translation: camera),
          featurePoints: features, depthPoints: floorPoints))
    }
    return detector.anchors
  }

  @Test("Feature points that no depth point supports make no anchor in a session with depth")
  func featureOnlySheetIsNoPlaneWithDepth() {
    let anchors = Self.anchors(depth: true)
    #expect(anchors.map(\.alignment) == [.horizontal], "\(anchors.map(\.alignment))")
  }

  @Test("Without the depth share the sheet is a vertical plane; so it is in a session without depth")
  func featureOnlySheetIsAPlaneWithoutTheGate() throws {
    var ungated = PlaneDetectionOptions()
    ungated.minimumDepthShare = 0
    for anchors in [Self.anchors(depth: true, options: ungated), Self.anchors(depth: false)] {
      try Self.expectSheet(in: anchors)
    }
  }

  /// Expects a vertical anchor facing ±x among `anchors` (the sheet).
  static func expectSheet(in anchors: [ARPlaneAnchor]) throws {
    let wall = try #require(anchors.first { $0.alignment == .vertical }, "no vertical anchor")
    let angle = WorldPlaneFacts(wall).angleDegrees(to: SIMD3(1, 0, 0))
    #expect(min(angle, 180 - angle) < 1, "normal \(WorldPlaneFacts(wall).normal)")
  }
}
