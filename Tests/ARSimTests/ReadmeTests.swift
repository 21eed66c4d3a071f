import ARSim
import ARSimTestSupport
import Foundation
import Testing

/// The README's API example, as written there (kept in step by hand), run on the bundled recording.
@Suite struct ReadmeTests {
  final class Placer: ARSessionDelegate {
    var planes = 0
    func session(_ session: ARSession, didAdd anchors: [ARAnchor]) {
      for case let plane as ARPlaneAnchor in anchors {
        _ = (plane.classification, plane.planeExtent)
        planes += 1
      }
    }
  }

  @Test(.enabled(if: Datasets.exists("tabletop"))) func apiExampleRuns() throws {
    let session = ARSession()
    let placer = Placer()
    session.delegate = placer
    let configuration = ARWorldTrackingConfiguration()
    configuration.planeDetection = [.horizontal, .vertical]
    session.run(configuration)

    let replay = try ARReplay(session: session, recording: Datasets.path("tabletop"))
    try replay.step(through: 3.0)

    var placed = false
    if let frame = session.currentFrame,
      let hit = session.raycast(
        frame.raycastQuery(
          from: CGPoint(x: 0.5, y: 0.5), allowing: .existingPlaneGeometry, alignment: .horizontal)
      ).first
    {
      let column = hit.worldTransform.columns.3
      _ = SIMD3<Float>(column.x, column.y, column.z)
      session.add(anchor: ARAnchor(name: "cup", transform: hit.worldTransform))
      placed = true
    }
    try replay.runToEnd()
    #expect(placer.planes >= 2)
    #expect(placed)
    #expect(session.anchors.contains { $0.name == "cup" })
  }
}
