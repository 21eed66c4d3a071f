import ARSim
import Foundation

/// The fixed colours of `arsim render` (documented in its `--help`).
enum RenderPalette {
  /// Opacity of plane fills over the camera image.
  static let planeAlpha = 0.4
  /// Horizontal floors.
  static let floor = RenderColor(30, 136, 229)
  /// Table tops.
  static let table = RenderColor(255, 140, 0)
  /// Walls.
  static let wall = RenderColor(171, 71, 188)
  /// Ceilings.
  static let ceiling = RenderColor(0, 188, 212)
  /// Seats.
  static let seat = RenderColor(233, 30, 99)
  /// Windows (ARSim never reports them).
  static let window = RenderColor(129, 212, 250)
  /// Doors (ARSim never reports them).
  static let door = RenderColor(141, 110, 99)
  /// Planes without a classification (and ground-truth planes labelled `other`).
  static let none = RenderColor(224, 224, 224)
  /// Tracked feature points.
  static let featurePoint = RenderColor(255, 235, 59)
  /// Tracking state badge: normal.
  static let normal = RenderColor(67, 160, 71)
  /// Tracking state badge: limited (any reason).
  static let limited = RenderColor(253, 216, 53)
  /// Tracking state badge: not available.
  static let notAvailable = RenderColor(229, 57, 53)
  /// Ground-truth trajectory in the SVG.
  static let groundTruth = RenderColor(66, 66, 66)
  /// Estimated trajectory in the SVG.
  static let estimate = RenderColor(211, 47, 47)
  /// Origin axes (`--debug-options anchorOrigins,worldOrigin`): x, y and z.
  static let axisX = RenderColor(255, 0, 0)
  static let axisY = RenderColor(0, 255, 0)
  static let axisZ = RenderColor(0, 0, 255)

  /// The classes in legend order, with their colours.
  static let classes: [(name: String, color: RenderColor)] = [
    ("floor", floor), ("table", table), ("wall", wall), ("ceiling", ceiling), ("seat", seat), ("none", none),
  ]

  /// The colour of a plane's classification.
  static func color(_ classification: ARPlaneAnchor.Classification) -> RenderColor {
    switch classification {
    case .floor: floor
    case .table: table
    case .wall: wall
    case .ceiling: ceiling
    case .seat: seat
    case .window: window
    case .door: door
    case .none: none
    }
  }

  /// The colour of a class by its name (`"floor"`, ...; the labels of `planes.json`); `none` for
  /// any other name.
  static func color(named name: String) -> RenderColor {
    switch name {
    case "floor": floor
    case "table": table
    case "wall": wall
    case "ceiling": ceiling
    case "seat": seat
    case "window": window
    case "door": door
    default: none
    }
  }

  /// The badge colour of a tracking state.
  static func color(_ state: ARCamera.TrackingState) -> RenderColor {
    switch state {
    case .normal: normal
    case .limited: limited
    case .notAvailable: notAvailable
    }
  }
}

/// A polygon vertex after clipping, with whether the edge from it to the next vertex lies on the
/// original polygon's boundary (and not along the clipping plane).
struct ClippedVertex: Equatable {
  var point: SIMD3<Double>
  var startsOriginalEdge: Bool
}

/// Draws what a frame holds over its image: planes, feature points and the tracking state.
enum FrameOverlay {
  /// Polygons are clipped against this distance in front of the camera before projection, metres.
  static let nearDistance = 0.02

  /// Clips a polygon given in ARKit's camera frame (the camera looks along −z) to the half-space at
  /// least `near` metres in front of the camera (Sutherland–Hodgman against one plane). The result is
  /// empty when nothing is in front; each vertex says whether its outgoing edge is part of the
  /// original boundary.
  static func clipInFront(_ polygon: [SIMD3<Double>], near: Double = nearDistance) -> [ClippedVertex] {
    var out: [ClippedVertex] = []
    for i in polygon.indices {
      let a = polygon[i]
      let b = polygon[(i + 1) % polygon.count]
      let aIn = -a.z >= near
      let bIn = -b.z >= near
      if aIn { out.append(ClippedVertex(point: a, startsOriginalEdge: true)) }
      if aIn != bIn {
        let t = (-near - a.z) / (b.z - a.z)
        var crossing = a + t * (b - a)
        crossing.z = -near
        // Leaving: the next edge runs along the near plane. Entering: it continues the original edge.
        out.append(ClippedVertex(point: crossing, startsOriginalEdge: !aIn))
      }
    }
    return out.count >= 3 ? out : []
  }

  /// The pixel of a point in ARKit's camera frame in front of the camera, by the pinhole model.
  static func project(_ p: SIMD3<Double>, _ k: CameraIntrinsics) -> SIMD2<Double> {
    let depth = -p.z
    return SIMD2(k.fx * p.x / depth + k.cx, -k.fy * p.y / depth + k.cy)
  }

  /// The frame's image with what `options` ask for: the scene mesh (``MeshDrawing``), planes (filled at ``RenderPalette/planeAlpha``
  /// and outlined, nearest plane in front where they overlap), feature points, anchor and world
  /// origins; then a tracking-state badge in the top-left corner.
  static func draw(_ frame: ARFrame, options: RenderDebugOptions = .standard) -> RGBImage {
    let camera = frame.camera
    // Recordings without images (depth-only replays) are drawn over black.
    let blank = GrayImage(
      width: Int(camera.imageResolution.width), height: Int(camera.imageResolution.height), fill: 0)
    var canvas = Canvas(frame.capturedImage ?? .gray(blank))
    let k = camera.cameraIntrinsics
    let width = canvas.width
    let height = canvas.height
    let scale = max(1, width / 320)
    let planes = options.contains(.anchorGeometry) ? frame.anchors.compactMap { $0 as? ARPlaneAnchor } : []
    if options.contains(.sceneUnderstanding) { MeshDrawing.draw(frame, on: &canvas) }

    // Fills, with a depth buffer so that the nearest plane shows where planes overlap.
    var depth = [Double](repeating: .infinity, count: width * height)
    var owner = [Int](repeating: -1, count: width * height)
    var outlines:
      [(plane: Int, points: [SIMD2<Double>], original: [Bool], normal: SIMD3<Double>, offset: Double)] =
        []
    /// Distance along the ray through pixel `(x, y)` to the plane `normal · p = offset` (camera frame),
    /// or nil when the ray is parallel to it or the plane is behind.
    func depthOfPlane(_ normal: SIMD3<Double>, _ offset: Double, x: Int, y: Int) -> Double? {
      // The ray's z component is −1, so the distance along it is the depth in front of the camera.
      let ray = SIMD3((Double(x) - k.cx) / k.fx, -(Double(y) - k.cy) / k.fy, -1)
      let denominator = simd_dot(normal, ray)
      guard abs(denominator) > 1e-9 else { return nil }
      let t = offset / denominator
      return t > 0 ? t : nil
    }
    for (index, plane) in planes.enumerated() {
      let cameraFromAnchor = camera.cameraFromWorld * RigidTransform(matrix: plane.transform)
      let boundary = plane.geometry.boundaryVertices.map { cameraFromAnchor.apply(to: SIMD3<Double>($0)) }
      guard boundary.count >= 3 else { continue }
      let clipped = clipInFront(boundary)
      guard !clipped.isEmpty else { continue }
      let normal = cameraFromAnchor.rotate(SIMD3(0, 1, 0))
      let onPlane = boundary.reduce(SIMD3<Double>.zero, +) / Double(boundary.count)
      let offset = simd_dot(normal, onPlane)
      let pixels = clipped.map { project($0.point, k) }
      Scanline.cover(pixels, width: width, height: height) { x, y in
        guard let t = depthOfPlane(normal, offset, x: x, y: y) else { return }
        let i = y * width + x
        if t < depth[i] {
          depth[i] = t
          owner[i] = index
        }
      }
      outlines.append((index, pixels, clipped.map(\.startsOriginalEdge), normal, offset))
    }
    let colors = planes.map { RenderPalette.color($0.classification) }
    for i in owner.indices where owner[i] >= 0 {
      canvas.blend(x: i % width, y: i / width, colors[owner[i]], alpha: RenderPalette.planeAlpha)
    }
    // Outlines, hidden where a nearer plane covers them (3% depth tolerance).
    for outline in outlines {
      let visible = { (x: Int, y: Int) -> Bool in
        guard x >= 0, y >= 0, x < width, y < height else { return false }
        let i = y * width + x
        if owner[i] == outline.plane || owner[i] < 0 { return true }
        guard let t = depthOfPlane(outline.normal, outline.offset, x: x, y: y) else { return true }
        return t <= depth[i] * 1.03
      }
      for i in outline.points.indices where outline.original[i] {
        canvas.line(
          from: outline.points[i], to: outline.points[(i + 1) % outline.points.count], colors[outline.plane],
          thickness: 2 * scale, where: visible)
      }
    }

    // Feature points, then origins.
    for point in options.contains(.featurePoints) ? frame.rawFeaturePoints?.points ?? [] : [] {
      guard let pixel = camera.projectToImage(SIMD3<Double>(point)) else { continue }
      canvas.dot(at: pixel, RenderPalette.featurePoint, size: 2 * scale, rim: true)
    }
    if options.contains(.worldOrigin) {
      drawAxes(
        .identity, length: RenderDebugOptions.worldAxisLength, camera: camera, thickness: scale, on: &canvas)
    }
    for anchor in options.contains(.anchorOrigins) ? frame.anchors : [] {
      drawAxes(
        RigidTransform(matrix: anchor.transform), length: RenderDebugOptions.anchorAxisLength, camera: camera,
        thickness: scale, on: &canvas)
    }

    // Tracking state badge, then a label: frame index, time and state.
    let margin = 4 * scale
    let badgeHeight = 10 * scale
    let badgeWidth = 2 * badgeHeight
    canvas.fillRect(
      x: margin - 1, y: margin - 1, width: badgeWidth + 2, height: badgeHeight + 2, RenderColor(0, 0, 0))
    canvas.fillRect(
      x: margin, y: margin, width: badgeWidth, height: badgeHeight, RenderPalette.color(camera.trackingState))
    let label = label(frame)
    let labelX = margin + badgeWidth + 3 * scale
    canvas.fillRect(
      x: labelX - scale, y: margin - 1, width: RenderFont.width(of: label, scale: scale) + 2 * scale,
      height: badgeHeight + 2, RenderColor(0, 0, 0), alpha: 0.55)
    RenderFont.draw(
      label, x: labelX, y: margin + (badgeHeight - RenderFont.height * scale) / 2, scale: scale,
      color: RenderColor(255, 255, 255), on: &canvas)
    return canvas.image
  }

  /// `#12 0.80S NORMAL`, `#3 0.20S LIMITED: INITIALIZING`: the frame's index, time in seconds and
  /// tracking state, for the frame's label.
  static func label(_ frame: ARFrame) -> String {
    let state =
      switch frame.camera.trackingState {
      case .normal: "normal"
      case .notAvailable: "not available"
      case .limited(let reason):
        switch reason {
        case .initializing: "limited: initializing"
        case .excessiveMotion: "limited: excessive motion"
        case .insufficientFeatures: "limited: insufficient features"
        case .relocalizing: "limited: relocalizing"
        }
      }
    return "#\(frame.frameIndex) " + String(format: "%.2fs ", frame.timestamp) + state
  }
}
