import ARSim
import ARSimTestSupport
import Foundation
import Testing

@testable import arsim

/// A mesh anchor (identity transform) of one quad `a b c d` (counter-clockwise seen from the side its
/// normal points to), both faces of class `label`.
private func quad(
  _ a: SIMD3<Float>, _ b: SIMD3<Float>, _ c: SIMD3<Float>, _ d: SIMD3<Float>, _ label: ARMeshClassification
) -> ARMeshAnchor {
  let vertices = [a, b, c, d].flatMap { [$0.x, $0.y, $0.z] }
  let n = simd_normalize(simd_cross(b - a, c - a))
  let geometry = ARMeshGeometry(
    vertices: ARGeometrySource(float3: vertices),
    normals: ARGeometrySource(float3: (0..<4).flatMap { _ in [n.x, n.y, n.z] }),
    faces: ARGeometryElement(triangles: [0, 1, 2, 0, 2, 3]),
    classification: ARGeometrySource(bytes: [UInt8(label.rawValue), UInt8(label.rawValue)]))
  return ARMeshAnchor(
    identifier: UUID(), transform: matrix_identity_float4x4, geometry: geometry, sessionIdentifier: nil)
}

/// Whether `a` and `b` differ by at most `tolerance` in every channel.
private func near(_ a: RenderColor, _ b: RenderColor, tolerance: Int) -> Bool {
  abs(Int(a.red) - Int(b.red)) <= tolerance && abs(Int(a.green) - Int(b.green)) <= tolerance
    && abs(Int(a.blue) - Int(b.blue)) <= tolerance
}

@Suite struct RenderMeshTests {
  /// A 64 x 48 grey frame from a camera at the origin looking along −z.
  func frame(_ anchors: [ARAnchor]) -> ARFrame {
    let camera = ARCamera(
      transform: matrix_identity_float4x4,
      intrinsics: simd_float3x3(SIMD3(40, 0, 0), SIMD3(0, 40, 0), SIMD3(31.5, 23.5, 1)),
      imageResolution: CGSize(width: 64, height: 48))
    return ARFrame(
      timestamp: 1, camera: camera, anchors: anchors, rawFeaturePoints: nil,
      capturedImage: .gray(GrayImage(width: 64, height: 48, fill: 100)), sceneDepth: nil, frameIndex: 7)
  }

  @Test func theMeshIsDrawnByClassificationNearestInFront() throws {
    // A wall 4 m ahead and a table-classified patch 2 m ahead in front of its middle, both facing the
    // camera; either order of anchors.
    let wall = quad(SIMD3(-2, -2, -4), SIMD3(2, -2, -4), SIMD3(2, 2, -4), SIMD3(-2, 2, -4), .wall)
    let patch = quad(
      SIMD3(-0.25, -0.25, -2), SIMD3(0.25, -0.25, -2), SIMD3(0.25, 0.25, -2), SIMD3(-0.25, 0.25, -2), .table)
    let grey = RenderColor(100, 100, 100)
    for anchors in [[wall, patch], [patch, wall]] {
      let image = FrameOverlay.draw(frame(anchors), options: [.sceneUnderstanding])
      // Facing the camera: full colour, up to a few percent darker off-axis.
      let table = RenderPalette.table.blended(over: grey, alpha: MeshDrawing.alpha)
      let wallColor = RenderPalette.wall.blended(over: grey, alpha: MeshDrawing.alpha)
      #expect(near(pixel(image, 31, 23), table, tolerance: 3))
      #expect(near(pixel(image, 31, 40), wallColor, tolerance: 6))
    }
    // Without the option the mesh is not drawn.
    let plain = FrameOverlay.draw(frame([wall, patch]), options: [.anchorGeometry])
    #expect(pixel(plain, 31, 40) == grey)
    #expect(try RenderDebugOptions(parsing: "showSceneUnderstanding") == .sceneUnderstanding)
  }

  @Test func seenFromAboveTheFloorAndTableShowAndTheCeilingIsLeftOut() throws {
    // A 2 x 1 m floor, a 0.5 m table top 0.75 m over its middle, a ceiling over everything.
    let floor = quad(SIMD3(-1, 0, 0.5), SIMD3(1, 0, 0.5), SIMD3(1, 0, -0.5), SIMD3(-1, 0, -0.5), .floor)
    let table = quad(
      SIMD3(-0.25, 0.75, 0.25), SIMD3(0.25, 0.75, 0.25), SIMD3(0.25, 0.75, -0.25), SIMD3(-0.25, 0.75, -0.25),
      .table)
    let ceiling = quad(
      SIMD3(-1, 2.5, -0.5), SIMD3(1, 2.5, -0.5), SIMD3(1, 2.5, 0.5), SIMD3(-1, 2.5, 0.5), .ceiling)
    let image = try #require(MeshDrawing.topDown([floor, table, ceiling], size: 220))
    // 2.2 m (with 10 cm margins) across 220 pixels: 1 cm a pixel; x to the right, z down.
    #expect(image.width == 220 && image.height == 120)
    func at(_ x: Double, _ z: Double) -> RenderColor {
      pixel(image, Int((x + 1.1) * 100), Int((z + 0.6) * 100))
    }
    let tablePixels = (0..<(image.width * image.height)).filter {
      pixel(image, $0 % image.width, $0 / image.width) == RenderPalette.table
    }
    // The table's 0.5 m square, pixel centres on its edges included, and no crack along its diagonal.
    #expect((50 * 50...51 * 51).contains(tablePixels.count), "\(tablePixels.count) table pixels")
    #expect(at(0, 0) == RenderPalette.table)
    #expect(at(0.7, 0.3) == RenderPalette.floor)
    #expect(at(-0.7, -0.3) == RenderPalette.floor)
    #expect(at(1.05, 0.55) == RenderColor(255, 255, 255), "the margin stays white")
    #expect(MeshDrawing.topDown([ceiling]) == nil, "faces turned down are left out")
  }
}
