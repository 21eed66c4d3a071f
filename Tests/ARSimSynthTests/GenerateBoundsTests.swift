import ARSim
import ARSimSynth
import ARSimTestSupport
import Foundation
import Testing

/// `arsim generate` blames options for what they break, and leaves no half recording (issue 11).
@Suite struct GenerateBoundsTests {
  func sceneFile(_ name: String, _ change: (inout SyntheticScene) -> Void = { _ in }) throws -> String {
    var scene = SynthFixtures.scene()
    change(&scene)
    let path = try SynthFixtures.temporaryFolder("bounds-\(name)-scene") + "/scene.json"
    try JSONEncoder().encode(scene).write(to: URL(fileURLWithPath: path))
    return path
  }

  @Test func optionsAreBlamedForWhatTheyBreak() throws {
    let scene = try sceneFile("options")
    let out = try SynthFixtures.temporaryFolder("bounds-options") + "/out"
    let scaled = try CLI.run(["generate", scene, out, "--scale", "1e-6"])
    #expect(scaled.status == 2)
    #expect(
      scaled.stderr.hasPrefix("arsim generate: --scale 1e-6: with these options \(scene)'s camera "),
      "\(scaled.stderr)")
    let fps = try CLI.run(["generate", scene, out, "--fps", "1e12"])
    #expect(fps.stderr == "arsim generate: --fps must be a number in 1...1000, got '1e12'\n")
    #expect(!FileManager.default.fileExists(atPath: out))
  }

  @Test func aHugeSurfaceNamesItsKeyAndWritesNothing() throws {
    let scene = try sceneFile("huge") { $0.surfaces[0].rectangle?.width = 1e308 }
    let out = try SynthFixtures.temporaryFolder("bounds-huge") + "/out"
    let result = try CLI.run(["generate", scene, out])
    #expect(result.status == 1)
    #expect(
      result.stderr
        == "arsim generate: \(scene): surfaces[0].rectangle.width: must be a positive number (metres) of at most 1000000.0, got 1e+308\n"
    )
    #expect(!FileManager.default.fileExists(atPath: out))
  }
}
