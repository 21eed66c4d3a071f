import ARSim
import Foundation
import Testing

@Suite("Raycasts against plane anchors")
struct PlaneRaycastTests {
  /// A frame holding `anchors`, with a camera at the origin.
  private func frame(_ anchors: [ARAnchor]) -> ARFrame {
    let camera = ARCamera(
      transform: matrix_identity_float4x4,
      intrinsics: simd_float3x3(simd_float3(525, 0, 0), simd_float3(0, 525, 0), simd_float3(319.5, 239.5, 1)),
      imageResolution: CGSize(width: 640, height: 480))
    return ARFrame(
      timestamp: 0, camera: camera, anchors: anchors, rawFeaturePoints: nil,
      capturedImage: .gray(GrayImage(width: 1, height: 1)), sceneDepth: nil, frameIndex: 0)
  }

  /// A horizontal anchor at height `y` whose square boundary (half side 1 m) lies on the anchor-space
  /// surface `surface(x, z)`, as the detector reports a plane refined after its transform was fixed.
  private func floor(y: Float, surface: (Float, Float) -> Float) -> ARPlaneAnchor {
    let corners: [(Float, Float)] = [(-1, 1), (1, 1), (1, -1), (-1, -1)]
    let boundary = corners.map { simd_float3($0.0, surface($0.0, $0.1), $0.1) }
    var transform = matrix_identity_float4x4
    transform.columns.3 = simd_float4(0, y, 0, 1)
    return ARPlaneAnchor(
      identifier: UUID(), transform: transform, alignment: .horizontal,
      center: simd_float3(0, surface(0, 0), 0),
      planeExtent: ARPlaneExtent(width: 2, height: 2, rotationOnYAxis: 0),
      geometry: ARPlaneGeometry(boundary: boundary), classification: .floor, sessionIdentifier: nil)
  }

  private func hit(
    _ anchor: ARPlaneAnchor, from origin: simd_float3, to target: simd_float3,
    _ kind: ARRaycastQuery.Target = .existingPlaneGeometry
  ) -> simd_float3? {
    let query = ARRaycastQuery(origin: origin, direction: target - origin, allowing: kind, alignment: .any)
    guard let result = ARSession().raycast(query, in: frame([anchor])).first else { return nil }
    let p = result.worldTransform.columns.3
    #expect(result.worldTransform.columns.1 == anchor.transform.columns.1, "y axis along the anchor's normal")
    return simd_float3(p.x, p.y, p.z)
  }

  @Test("A ray hits the surface the geometry lies on: refined height and tilt")
  func hitsTheRefinedSurface() throws {
    // The plane settled 6 mm above the anchor's y = 0 and tilts by 0.5° about z.
    let slope = Float(tan(0.5 * Double.pi / 180))
    let anchor = floor(y: -1.5, surface: { x, _ in 0.006 + slope * x })
    // A grazing ray (30° down) towards (0.5, -1.5, -0.3): it meets the refined surface where
    // y = -1.494 + slope·x, short of the anchor's y = 0 plane.
    let origin = simd_float3(0.5, 0, 0.3 + 1.5 * Float(3.0.squareRoot()))
    let point = try #require(hit(anchor, from: origin, to: simd_float3(0.5, -1.5, -0.3)))
    #expect(abs(point.y - (-1.5 + 0.006 + slope * point.x)) < 1e-5)
    #expect(abs(point.y - (-1.5)) > 0.005)
    // Infinite planes use the same surface.
    let far = try #require(hit(anchor, from: origin, to: simd_float3(0.5, -1.5, -3), .existingPlaneInfinite))
    #expect(abs(far.y - (-1.5 + 0.006 + slope * far.x)) < 1e-5)
    // The boundary still bounds it.
    #expect(hit(anchor, from: origin, to: simd_float3(0.5, -1.5, -3)) == nil)
  }

  @Test("Flat geometry is hit on the anchor's y = 0 plane; degenerate geometry gives no hit")
  func flatAndDegenerateGeometry() throws {
    let flat = floor(y: 0.75, surface: { _, _ in 0 })
    let point = try #require(hit(flat, from: simd_float3(0.2, 2, 0.1), to: simd_float3(0.3, 0.75, -0.2)))
    #expect(abs(point.y - 0.75) < 1e-6)
    #expect(abs(point.x - 0.3) < 1e-5 && abs(point.z - -0.2) < 1e-5)
    // Two vertices bound nothing.
    let sliver = ARPlaneAnchor(
      identifier: UUID(), transform: matrix_identity_float4x4, alignment: .horizontal, center: .zero,
      planeExtent: ARPlaneExtent(width: 1, height: 0, rotationOnYAxis: 0),
      geometry: ARPlaneGeometry(boundary: [simd_float3(-0.5, 0, 0), simd_float3(0.5, 0, 0)]),
      classification: .none(.unknown), sessionIdentifier: nil)
    #expect(hit(sliver, from: simd_float3(0, 1, 0), to: .zero) == nil)
    #expect(
      hit(sliver, from: simd_float3(0, 1, 0), to: simd_float3(0.1, 0, 0.1), .existingPlaneInfinite) != nil)
  }
}
