import ARSim
import ARSimSynth
import Foundation
import Testing

@Suite struct DeterminismTests {
  @Test func theSameSceneAndSeedRenderBitIdentically() throws {
    var scene = SynthFixtures.scene()
    scene.sensors.imageNoise = 2
    scene.sensors.depth?.noise = 0.002
    scene.sensors.depth?.holes = 0.05
    let first = try SceneRenderer(scene: scene).render(frame: 4)
    let second = try SceneRenderer(scene: scene).render(frame: 4)
    #expect(first.image == second.image)
    #expect(first.surfaceIndex == second.surfaceIndex)
    let a = try #require(first.depth).metres.map(\.bitPattern)
    let b = try #require(second.depth).metres.map(\.bitPattern)
    #expect(a == b)
    #expect(a.contains(Float.nan.bitPattern), "holes expected")

    scene.seed += 1
    let other = try SceneRenderer(scene: scene).render(frame: 4)
    let differing = zip(other.image.pixels, first.image.pixels).filter { $0 != $1 }.count
    #expect(differing > first.image.pixels.count / 2, "\(differing) bytes differ")
  }

  @Test func generatedFoldersAreByteIdentical() throws {
    let scene = SynthFixtures.scene()
    var folders: [String] = []
    for name in ["first", "second"] {
      let folder = try SynthFixtures.temporaryFolder("determinism-" + name)
      var options = GenerationOptions()
      options.maxFrames = 4
      _ = try SessionGenerator.generate(try SceneRenderer(scene: scene), to: folder, options: options)
      folders.append(folder)
    }
    let manager = FileManager.default
    let files = try #require(manager.subpaths(atPath: folders[0])).sorted()
    #expect(files == (try #require(manager.subpaths(atPath: folders[1]))).sorted())
    #expect(
      files.contains("rgb/000003.jpg") && files.contains("depth/000003.png") && files.contains("taps.txt"))
    for file in files {
      var isDirectory: ObjCBool = false
      guard manager.fileExists(atPath: folders[0] + "/" + file, isDirectory: &isDirectory),
        !isDirectory.boolValue
      else { continue }
      #expect(
        manager.contents(atPath: folders[0] + "/" + file)
          == manager.contents(atPath: folders[1] + "/" + file), "\(file)")
    }
  }
}
