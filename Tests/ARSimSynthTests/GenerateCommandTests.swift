import ARSim
import ARSimSynth
import ARSimTestSupport
import Foundation
import Testing

@Suite struct GenerateCommandTests {
  /// The tiny scene written for the calling test, in a folder of its own: the suite's tests run in
  /// parallel, and a shared folder was emptied by one while another generated from it.
  func sceneFile(for test: String = #function) throws -> String {
    let folder = try SynthFixtures.temporaryFolder("cli-scene-" + test.filter { $0.isLetter })
    let path = folder + "/tiny.json"
    try JSONEncoder().encode(SynthFixtures.scene()).write(to: URL(fileURLWithPath: path))
    return path
  }

  @Test func generatesAnARSimRecordingThatReadsBack() throws {
    let scene = try sceneFile()
    let out = try SynthFixtures.temporaryFolder("cli-arsim") + "/out"
    let result = try CLI.run(["generate", scene, out, "--frames", "5"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("frames: 5 over 0.400 s"))
    #expect(result.stdout.contains("camera: 64x48"))
    #expect(result.stderr.contains("generate: 5/5 frames"))

    var source = try Recording.open(folder: out)
    #expect(source.info.format == .arsim)
    #expect(source.info.frameCount == 5)
    #expect(source.info.hasDepth && source.info.hasAccelerometer && source.info.hasGyroscope)
    #expect(source.info.groundTruthGravity == SIMD3(0, -1, 0))
    var frames = 0
    var imu = 0
    while let frame = try source.nextFrame() {
      #expect(frame.groundTruth != nil)
      #expect(frame.depth?.width == 64)
      #expect(abs(frame.timestamp - Double(frame.index) * 0.1) < 1e-9)
      imu += frame.imu.count
      frames += 1
    }
    #expect(frames == 5)
    #expect(imu == 81)  // 200 Hz from 0 s through 0.4 s
  }

  @Test func generatesATUMFolderThatReadsBack() throws {
    let scene = try sceneFile()
    let out = try SynthFixtures.temporaryFolder("cli-tum") + "/out"
    let result = try CLI.run(["generate", scene, out, "--frames", "5", "--format", "tum", "--png"])
    #expect(result.status == 0, "\(result.stderr)")
    var source = try Recording.open(folder: out)
    #expect(source.info.format == .tum)
    #expect(source.info.intrinsics == SynthFixtures.camera)
    var frames = 0
    while let frame = try source.nextFrame() {
      #expect(frame.groundTruth != nil && frame.depth != nil)
      #expect(!frame.imu.isEmpty)
      frames += 1
    }
    #expect(frames == 5)
    #expect(FileManager.default.fileExists(atPath: out + "/planes.json"))
    #expect(FileManager.default.fileExists(atPath: out + "/taps.txt"))
  }

  @Test func badInputGivesAOneLineErrorNamingTheFile() throws {
    let folder = try SynthFixtures.temporaryFolder("cli-bad")
    let path = folder + "/bad.json"
    try Data(#"{"duration": 1}"#.utf8).write(to: URL(fileURLWithPath: path))
    let result = try CLI.run(["generate", path, folder + "/out"])
    #expect(result.status != 0)
    #expect(result.stderr == "arsim generate: \(path): camera: missing\n")

    let scene = try sceneFile()
    let occupied = try SynthFixtures.temporaryFolder("cli-occupied")
    try Data("x".utf8).write(to: URL(fileURLWithPath: occupied + "/notes.txt"))
    let refused = try CLI.run(["generate", scene, occupied])
    #expect(refused.status != 0)
    #expect(refused.stderr.contains("\(occupied): is not empty"))
  }
}
