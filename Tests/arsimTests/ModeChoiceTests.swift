import ARSimTestSupport
import Foundation
import Testing

/// `--mode` left out: the recording's files decide, and the summary says so.
@Suite struct ModeChoiceTests {
  /// A Stray export of the tabletop whose video is absent: depth and IMU only.
  static func strayWithoutVideo() throws -> String {
    let out = RecordingFixtures.temporaryFolder("stray-novideo")
    let scene = Datasets.path("scenes") + "/tabletop.json"
    let generated = try CLI.run(
      ["generate", scene, out, "--format", "stray", "--scale", "0.4", "--frames", "12", "--overwrite"])
    try #require(generated.status == 0, "\(generated.stderr)")
    try FileManager.default.removeItem(atPath: out + "/rgb.mp4")
    return out
  }

  @Test func depthWithoutImagesIsTrackedDepthOnly() throws {
    let folder = try Self.strayWithoutVideo()
    let replay = try CLI.run(["replay", folder])
    #expect(replay.status == 0, "\(replay.stderr)")
    #expect(replay.stdout.contains("tracking: depth (chosen: the recording has depth and no images)"))
    #expect(replay.stdout.contains("note: no rgb.mp4"))
  }

  @Test func aModeThatReadsImagesIsOneLineWhenThereAreNone() throws {
    let folder = try Self.strayWithoutVideo()
    let replay = try CLI.run(["replay", folder, "--mode", "rgbd"])
    #expect(replay.status != 0)
    let lines = replay.stderr.split(separator: "\n").filter { !$0.hasPrefix("replay:") }
    #expect(lines.count == 1, "\(replay.stderr)")
    #expect(
      lines.first?.contains("--mode rgbd reads images, and \(folder) has none") == true, "\(replay.stderr)")
  }

  @Test func theModeAskedForIsSaidAsAsked() throws {
    let replay = try CLI.run(["replay", Datasets.path("tabletop"), "--mode", "rgbd", "--frames", "0-5"])
    #expect(replay.status == 0, "\(replay.stderr)")
    #expect(replay.stdout.contains("tracking: rgbd (--mode)"))
  }
}
