import ARSim
import Foundation

/// Drawing the reconstructed mesh (`--debug-options sceneUnderstanding`, RealityKit's
/// `.showSceneUnderstanding`): its triangles filled by classification (``RenderPalette``'s colours,
/// `none` grey), shaded by how squarely they face the viewer, nearest triangle in front.
enum MeshDrawing {
  /// Opacity of the mesh over the camera image.
  static let alpha = 0.6

  /// One triangle in world space with its class and unit normal (towards free space).
  struct Triangle {
    var corners: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>)
    var normal: SIMD3<Double>
    var color: RenderColor
  }

  /// The mesh anchors' triangles among `anchors`, in the world, in anchor then face order.
  static func triangles(of anchors: [ARAnchor]) -> [Triangle] {
    var out: [Triangle] = []
    for case let mesh as ARMeshAnchor in anchors {
      let g = mesh.geometry
      let worldFromAnchor = RigidTransform(matrix: mesh.transform)
      let vertices = (0..<g.vertices.count).map {
        worldFromAnchor.apply(to: SIMD3<Double>(g.vertices.float3(at: $0)))
      }
      for f in 0..<g.faces.count {
        let index = g.faces.indices(of: f).map(Int.init)
        guard index.allSatisfy({ $0 < vertices.count }) else { continue }
        let (a, b, c) = (vertices[index[0]], vertices[index[1]], vertices[index[2]])
        let cross = simd_cross(b - a, c - a)
        guard simd_length(cross) > 0 else { continue }
        let label = g.classification.flatMap { f < $0.count ? Int($0.uchar(at: f)) : nil } ?? 0
        out.append(
          Triangle(
            corners: (a, b, c), normal: simd_normalize(cross),
            color: color(ARMeshClassification(rawValue: label) ?? .none)))
      }
    }
    return out
  }

  /// The colour of a face's class.
  static func color(_ classification: ARMeshClassification) -> RenderColor {
    switch classification {
    case .floor: RenderPalette.floor
    case .table: RenderPalette.table
    case .wall: RenderPalette.wall
    case .ceiling: RenderPalette.ceiling
    case .seat: RenderPalette.seat
    case .window: RenderPalette.window
    case .door: RenderPalette.door
    case .none: RenderPalette.none
    }
  }

  /// `color` darkened by the angle between the face's normal and the direction to the viewer
  /// (`toViewer`, unit): full colour facing it, 35% edge-on.
  static func shaded(_ color: RenderColor, normal: SIMD3<Double>, toViewer: SIMD3<Double>) -> RenderColor {
    let light = 0.35 + 0.65 * abs(simd_dot(normal, toViewer))
    func scale(_ v: UInt8) -> UInt8 { UInt8((Double(v) * light).rounded()) }
    return RenderColor(scale(color.red), scale(color.green), scale(color.blue))
  }

  /// Fills the pixels of `triangles` on a `width` x `height` raster, nearest first: `place` maps a
  /// world point to a pixel and a depth (smaller is nearer), or nil when it cannot be drawn (behind a
  /// camera); `toViewer` gives the unit direction from a point to the viewer. Returns each pixel's
  /// colour, nil where no triangle is.
  static func raster(
    _ triangles: [Triangle], width: Int, height: Int,
    place: (SIMD3<Double>) -> (pixel: SIMD2<Double>, depth: Double)?,
    toViewer: (SIMD3<Double>) -> SIMD3<Double>
  ) -> [RenderColor?] {
    var depth = [Double](repeating: .infinity, count: width * height)
    var colors = [RenderColor?](repeating: nil, count: width * height)
    for triangle in triangles {
      let (a, b, c) = triangle.corners
      guard let pa = place(a), let pb = place(b), let pc = place(c) else { continue }
      let centre = (a + b + c) / 3
      let color = shaded(triangle.color, normal: triangle.normal, toViewer: toViewer(centre))
      // Depth interpolated linearly in the raster (exact for orthographic views, close enough for
      // triangles of a few centimetres in a camera view).
      let p0 = pa.pixel
      let e1 = pb.pixel - p0
      let e2 = pc.pixel - p0
      let area = e1.x * e2.y - e1.y * e2.x
      guard abs(area) > 1e-12 else { continue }
      // Pixel centres inside the triangle or on its edges (a hair's tolerance, so that neighbouring
      // triangles leave no cracks between them; the depth test settles pixels both cover).
      let low = simd_min(p0, simd_min(pb.pixel, pc.pixel))
      let high = simd_max(p0, simd_max(pb.pixel, pc.pixel))
      guard low.x.isFinite, low.y.isFinite, high.x.isFinite, high.y.isFinite else { continue }
      let columns = max(0, Int(low.x.rounded(.up)))...min(width - 1, Int(high.x.rounded(.down)))
      let rows = max(0, Int(low.y.rounded(.up)))...min(height - 1, Int(high.y.rounded(.down)))
      guard !columns.isEmpty, !rows.isEmpty else { continue }
      let edge = -1e-9
      for y in rows {
        for x in columns {
          let d = SIMD2(Double(x), Double(y)) - p0
          let u = (d.x * e2.y - d.y * e2.x) / area
          let v = (e1.x * d.y - e1.y * d.x) / area
          guard u >= edge, v >= edge, u + v <= 1 - edge else { continue }
          let z = pa.depth + u * (pb.depth - pa.depth) + v * (pc.depth - pa.depth)
          let i = y * width + x
          if z < depth[i] {
            depth[i] = z
            colors[i] = color
          }
        }
      }
    }
    return colors
  }

  /// Draws the frame's mesh anchors over `canvas`, seen by the frame's camera.
  static func draw(_ frame: ARFrame, on canvas: inout Canvas) {
    let triangles = triangles(of: frame.anchors)
    guard !triangles.isEmpty else { return }
    let camera = frame.camera
    let k = camera.cameraIntrinsics
    let eye = camera.worldFromCamera.translation
    let colors = raster(
      triangles, width: canvas.width, height: canvas.height,
      place: { p in
        let q = camera.cameraFromWorld.apply(to: p)
        guard -q.z >= FrameOverlay.nearDistance else { return nil }
        return (FrameOverlay.project(q, k), -q.z)
      },
      toViewer: { simd_normalize(eye - $0) })
    for (i, color) in colors.enumerated() {
      guard let color else { continue }
      canvas.blend(x: i % canvas.width, y: i / canvas.width, color, alpha: alpha)
    }
  }

  /// The mesh seen from above (orthographic, looking down the session world's −y; x to the right,
  /// z down the image), at most `size` pixels on its longer side, over a white background; faces
  /// turned downwards (ceilings, undersides) are left out so that the room shows. Nil without mesh.
  static func topDown(_ anchors: [ARAnchor], size: Int = 1024) -> RGBImage? {
    let triangles = triangles(of: anchors).filter { $0.normal.y > -0.3 }
    guard !triangles.isEmpty else { return nil }
    var low = SIMD2<Double>(repeating: .infinity)
    var high = SIMD2<Double>(repeating: -.infinity)
    for t in triangles {
      for p in [t.corners.0, t.corners.1, t.corners.2] {
        low = simd_min(low, SIMD2(p.x, p.z))
        high = simd_max(high, SIMD2(p.x, p.z))
      }
    }
    let margin = 0.1
    low -= margin
    high += margin
    let metresPerPixel = max(high.x - low.x, high.y - low.y) / Double(size)
    let width = max(1, Int(((high.x - low.x) / metresPerPixel).rounded(.up)))
    let height = max(1, Int(((high.y - low.y) / metresPerPixel).rounded(.up)))
    let colors = raster(
      triangles, width: width, height: height,
      place: { p in (SIMD2((p.x - low.x) / metresPerPixel, (p.z - low.y) / metresPerPixel), -p.y) },
      toViewer: { _ in SIMD3(0, 1, 0) })
    var canvas = Canvas(RGBImage(width: width, height: height, fill: (255, 255, 255)))
    for (i, color) in colors.enumerated() {
      guard let color else { continue }
      canvas.blend(x: i % width, y: i / width, color)
    }
    return canvas.image
  }
}
