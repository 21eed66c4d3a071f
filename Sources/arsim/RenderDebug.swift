import ARSim

/// What `arsim render --debug-options` draws over each frame: the drawings of RealityKit's
/// `ARView.debugOptions` (`.showAnchorOrigins`, `.showAnchorGeometry`, `.showFeaturePoints`,
/// `.showWorldOrigin`), so that what an app sets on its view can be seen on a recording.
struct RenderDebugOptions: OptionSet, Sendable {
  let rawValue: Int
  /// Each anchor's origin with its axes (x red, y green, z blue; ``anchorAxisLength`` long).
  static let anchorOrigins = RenderDebugOptions(rawValue: 1 << 0)
  /// Each plane anchor's geometry: the boundary polygon filled and outlined by classification.
  static let anchorGeometry = RenderDebugOptions(rawValue: 1 << 1)
  /// The tracked feature points, as yellow dots.
  static let featurePoints = RenderDebugOptions(rawValue: 1 << 2)
  /// The session world's origin with its axes (``worldAxisLength`` long).
  static let worldOrigin = RenderDebugOptions(rawValue: 1 << 3)
  /// The reconstructed mesh, its triangles filled by classification (the session reconstructs the
  /// scene for it; the recording needs depth).
  static let sceneUnderstanding = RenderDebugOptions(rawValue: 1 << 4)
  /// What `arsim render` draws without `--debug-options`: planes and feature points.
  static let standard: RenderDebugOptions = [.anchorGeometry, .featurePoints]

  /// Axis length at an anchor's origin, metres.
  static let anchorAxisLength = 0.1
  /// Axis length at the world origin, metres.
  static let worldAxisLength = 0.25

  /// The names `--debug-options` takes, with RealityKit's for the same drawings.
  static let names: [(name: String, realityKit: String, option: RenderDebugOptions)] = [
    ("anchorOrigins", "showAnchorOrigins", .anchorOrigins),
    ("anchorGeometry", "showAnchorGeometry", .anchorGeometry),
    ("featurePoints", "showFeaturePoints", .featurePoints), ("worldOrigin", "showWorldOrigin", .worldOrigin),
    ("sceneUnderstanding", "showSceneUnderstanding", .sceneUnderstanding),
  ]

  init(rawValue: Int) { self.rawValue = rawValue }

  /// Parses a comma-separated list (`anchorOrigins,worldOrigin`, or RealityKit's
  /// `showAnchorOrigins,...`; `none` for the camera image and state badge alone).
  init(parsing text: String) throws {
    self = []
    guard text != "none" else { return }
    for item in text.split(separator: ",", omittingEmptySubsequences: false) {
      guard let entry = Self.names.first(where: { $0.name == item || $0.realityKit == item }) else {
        throw Arguments.UsageError(
          "--debug-options: unknown drawing '\(item)' (use " + Self.names.map(\.name).joined(separator: ", ")
            + " or none)")
      }
      insert(entry.option)
    }
  }
}

extension FrameOverlay {
  /// Draws the axes of `worldFromLocal` (x red, y green, z blue, `length` metres) as seen by
  /// `camera`, each clipped to what is in front of the camera.
  static func drawAxes(
    _ worldFromLocal: RigidTransform, length: Double, camera: ARCamera, thickness: Int,
    on canvas: inout Canvas
  ) {
    let cameraFromLocal = camera.cameraFromWorld * worldFromLocal
    let origin = cameraFromLocal.apply(to: .zero)
    let axes: [(SIMD3<Double>, RenderColor)] = [
      (SIMD3(length, 0, 0), RenderPalette.axisX), (SIMD3(0, length, 0), RenderPalette.axisY),
      (SIMD3(0, 0, length), RenderPalette.axisZ),
    ]
    for (tip, color) in axes {
      var a = origin
      var b = cameraFromLocal.apply(to: tip)
      // Clip the segment to the half-space `near` metres in front of the camera (it looks along −z).
      let aIn = -a.z >= nearDistance
      let bIn = -b.z >= nearDistance
      guard aIn || bIn else { continue }
      if aIn != bIn {
        let crossing = a + (-nearDistance - a.z) / (b.z - a.z) * (b - a)
        if aIn { b = crossing } else { a = crossing }
      }
      let k = camera.cameraIntrinsics
      canvas.line(from: project(a, k), to: project(b, k), color, thickness: thickness)
    }
  }
}
