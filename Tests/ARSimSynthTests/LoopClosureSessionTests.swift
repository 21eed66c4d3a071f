import ARSim
import ARSimSynth
import ARSimTestSupport
import Foundation
import Testing

/// The back-and-forth session of issue 16 (Datasets/scenes/backforth.json), its first 45 s at 320x240
/// and 5 fps: out along the 200° sweep around the table and back over the places the way out mapped.
@Suite struct LoopClosureSessionTests {
  /// Every callback of a replay as text, poses and anchor transforms bit for bit.
  final class Log: ARSessionDelegate {
    var lines: [String] = []
    var loops = 0
    var planes: [ARPlaneAnchor] = []

    func session(_ session: ARSession, didUpdate frame: ARFrame) {
      if frame.closedLoop { loops += 1 }
      planes = frame.anchors.compactMap { $0 as? ARPlaneAnchor }
      lines.append(
        "frame \(frame.frameIndex) \(frame.camera.trackingState) \(Self.bits(frame.camera.transform))")
    }
    func session(_ session: ARSession, didAdd anchors: [ARAnchor]) { note("add", anchors) }
    func session(_ session: ARSession, didUpdate anchors: [ARAnchor]) { note("update", anchors) }
    func session(_ session: ARSession, didRemove anchors: [ARAnchor]) { note("remove", anchors) }

    private func note(_ kind: String, _ anchors: [ARAnchor]) {
      for anchor in anchors { lines.append("\(kind) \(anchor.identifier) \(Self.bits(anchor.transform))") }
    }

    static func bits(_ m: simd_float4x4) -> String {
      [m.columns.0, m.columns.1, m.columns.2, m.columns.3].flatMap { [$0.x, $0.y, $0.z, $0.w] }
        .map { String($0.bitPattern, radix: 16) }.joined(separator: ",")
    }
  }

  static func generate() throws -> String {
    let path = SynthFixtures.repositoryRoot + "/Datasets/scenes/backforth.json"
    var scene = try SyntheticScene.load(path: path).scaled(by: 0.5)
    scene.frameRate = 5
    scene.duration = 45
    scene.render.supersamples = 1
    let folder = try SynthFixtures.temporaryFolder("backforth")
    _ = try SessionGenerator.generate(
      try SceneRenderer(scene: scene), to: folder, options: GenerationOptions())
    return folder
  }

  static func replay(_ folder: String) throws -> Log {
    let configuration = ARWorldTrackingConfiguration()
    configuration.planeDetection = [.horizontal, .vertical]
    // The tracker drifts less than the default smallest correction (1 cm, 0.5°) over these 45 s; the
    // way back still recognises the way out, and closes its loops from 3 mm or 0.2°.
    configuration.tracking.loopClosure.minCorrection = 0.003
    configuration.tracking.loopClosure.minCorrectionDegrees = 0.2
    let session = ARSession()
    let log = Log()
    session.delegate = log
    session.run(configuration)
    let replay = ARReplay(session: session, source: try Recording.open(folder: folder))
    while try replay.step() != nil {}
    return log
  }

  @Test func loopsCloseDeterministicallyAndTheTwoSurfacesStayTwoAnchors() throws {
    let folder = try Self.generate()
    let first = try Self.replay(folder)
    let second = try Self.replay(folder)
    #expect(first.loops >= 1, "the way back recognises the way out")
    #expect(first.lines == second.lines, "the same events bit for bit")
    #expect(
      first.planes.count >= 2 && first.planes.count <= 3, "\(first.planes.count) anchors for 2 surfaces")
  }
}
