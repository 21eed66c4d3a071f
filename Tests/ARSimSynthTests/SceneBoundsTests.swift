import ARSim
import ARSimSynth
import Foundation
import Testing

/// The scene cases of issue 11: values that trapped or hung the generator are refused, naming the key.
@Suite struct SceneBoundsTests {
  func problem(_ change: (inout SyntheticScene) -> Void) -> SceneError? {
    var scene = SynthFixtures.scene()
    change(&scene)
    do {
      // Through JSON, as `arsim generate` reads it.
      _ = try SyntheticScene.decode(try JSONEncoder().encode(scene), source: "bad.json")
      return nil
    } catch let error as SceneError {
      #expect(!error.description.contains("\n"))
      return error
    } catch {
      Issue.record("unexpected \(error)")
      return nil
    }
  }

  @Test func valuesThatHungAreBounded() {
    #expect(problem { $0.materials[1].density = 1e12 }?.key == "materials[1].density")
    #expect(
      problem { $0.render.tapInterval = 1e-12 }?.description
        == "bad.json: render.tapInterval: must be in 0.01...3600.0, got 1e-12")
    #expect(
      problem { $0.materials[0].scale = 1e-9 }?.description
        == "bad.json: materials[0].scale: must be in 0.001...100.0, got 1e-09")
    #expect(problem { $0.materials[1].lineWidth = 2_147_483_648 }?.key == "materials[1].lineWidth")
    #expect(
      problem {
        $0.sensors.imu = .init()
        $0.sensors.imu?.rate = 1e12
      }?.description
        == "bad.json: sensors.imu.rate: must be in 100.0...10000.0, got 1000000000000.0")
    #expect(problem { $0.duration = 1e9 }?.key == "duration")
    #expect(problem { $0.frameRate = 1e9 }?.key == "frameRate")
  }

  @Test func valuesThatTrappedAreRefused() {
    #expect(
      problem { $0.surfaces[0].rectangle?.normal = SIMD3(1e308, 1, 0) }?.description
        == "bad.json: surfaces[0].rectangle.normal: must be three finite numbers of magnitude at most 1000000.0"
    )
    #expect(
      problem { $0.surfaces[0].rectangle?.normal = .zero }?.description
        == "bad.json: surfaces[0].rectangle.normal: must not be the zero vector (length at least 1e-6)")
    #expect(
      problem {
        $0.camera.width = 1 << 31
        $0.camera.cx = 1000
      }?.description
        == "bad.json: camera.width: must be at most 16384 pixels, got 2147483648")
    #expect(problem { $0.surfaces[0].rectangle?.width = 1e308 }?.key == "surfaces[0].rectangle.width")
  }
}
