import ARSim
import ARSimTestSupport
import Foundation
import Testing

@testable import arsim

/// `arsim render --debug-options`: RealityKit's debug drawings over the frames, checked by pixel.
@Suite struct RenderDebugTests {
  let fixtures = RenderDrawingTests()
  let grey = RenderColor(100, 100, 100)

  /// An anchor 2 m in front of the camera (64 x 48 image, focal 40 px, principal point (31.5, 23.5)):
  /// its origin at pixel (31.5, 23.5), 10 cm axes 2 px long.
  func anchorAhead() -> ARPlaneAnchor {
    var transform = matrix_identity_float4x4
    transform.columns.3 = SIMD4(0, 0, -2, 1)
    return fixtures.plane(
      transform: transform,
      boundary: [SIMD3(-0.5, 0, -0.5), SIMD3(0.5, 0, -0.5), SIMD3(0.5, 0, 0.5), SIMD3(-0.5, 0, 0.5)],
      classification: .floor)
  }

  @Test func anchorOriginsDrawTheAnchorsAxes() throws {
    let frame = fixtures.frame([anchorAhead()], points: [SIMD3(0.5, -0.5, -2)])
    let axes = FrameOverlay.draw(frame, options: .anchorOrigins)
    // x to the right of the origin, y up; the point (41.5, 33.5) and the plane are not drawn.
    #expect(pixel(axes, 33, 24) == RenderPalette.axisX)
    #expect(pixel(axes, 32, 22) == RenderPalette.axisY)
    #expect(pixel(axes, 41, 33) == grey)
    #expect(pixel(axes, 40, 30) == grey)
    // The standard drawing has no axes but the point and (the plane seen edge-on) nothing at (33, 24).
    let standard = FrameOverlay.draw(frame)
    #expect(pixel(standard, 41, 33) == RenderPalette.featurePoint)
    #expect(![RenderPalette.axisX, RenderPalette.axisY].contains(pixel(standard, 33, 24)))
  }

  @Test func worldOriginIsDrawnWhereTheCameraSeesIt() throws {
    // The camera 2 m behind the world origin (+z), looking along −z at it: the origin at the centre,
    // the 25 cm x axis 5 px to the right, z pointing at the camera (behind its origin, a dot).
    var transform = matrix_identity_float4x4
    transform.columns.3 = SIMD4(0, 0, 2, 1)
    let frame = fixtures.frame([], transform: transform)
    let image = FrameOverlay.draw(frame, options: [.worldOrigin])
    #expect(pixel(image, 35, 24) == RenderPalette.axisX)
    #expect(pixel(image, 32, 19) == RenderPalette.axisY)
    #expect(pixel(FrameOverlay.draw(frame), 35, 24) == grey)
  }

  @Test func namesParseAsRealityKitsToo() throws {
    #expect(try RenderDebugOptions(parsing: "anchorOrigins,worldOrigin") == [.anchorOrigins, .worldOrigin])
    #expect(try RenderDebugOptions(parsing: "showAnchorGeometry,showFeaturePoints") == .standard)
    #expect(try RenderDebugOptions(parsing: "none") == [])
    let error = #expect(throws: Arguments.UsageError.self) { try RenderDebugOptions(parsing: "anchorOrigin") }
    #expect(
      error?.description.hasPrefix("--debug-options: unknown drawing 'anchorOrigin' (use anchorOrigins")
        == true)
  }

  @Test(.enabled(if: Datasets.exists("tabletop"), "Datasets/tabletop is absent"))
  func renderDrawsTheOriginsOfTheDetectedPlanes() throws {
    let out = RecordingFixtures.temporaryFolder("render-debug")
    defer { try? FileManager.default.removeItem(atPath: out) }
    let result = try CLI.run([
      "render", Datasets.path("tabletop"), "--out", out, "--every", "1000", "--debug-options",
      "anchorOrigins,worldOrigin",
    ])
    #expect(result.status == 0, "\(result.stderr)")
    let last = try #require(
      try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.hasPrefix("frame-") }.sorted().last
    )
    let image = try ImageCodec.decodeRGB(
      try [UInt8](Data(contentsOf: URL(fileURLWithPath: out + "/" + last))))
    let colours = (0..<image.width * image.height).map {
      RenderColor(image.pixels[3 * $0], image.pixels[3 * $0 + 1], image.pixels[3 * $0 + 2])
    }
    // Axes in pure red, green and blue, and no plane fill.
    #expect(colours.contains(RenderPalette.axisX) && colours.contains(RenderPalette.axisY))
    #expect(!colours.contains(RenderPalette.featurePoint))
  }
}
