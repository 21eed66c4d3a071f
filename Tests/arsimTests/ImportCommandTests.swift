import ARSim
import ARSimTestSupport
import Foundation
import Testing

/// `arsim generate --format stray|r3d|...` and `arsim import` end to end through the executable.
@Suite struct ImportCommandTests {
  static let scene = Datasets.path("scenes") + "/tabletop.json"

  /// A phone-layout session of the tabletop at 256x192 (the phones' depth size).
  static func generate(_ format: String, frames: Int) throws -> String {
    let out = RecordingFixtures.temporaryFolder("gen-" + format)
    let result = try CLI.run(
      ["generate", scene, out, "--format", format, "--scale", "0.4", "--frames", "\(frames)", "--overwrite"])
    #expect(result.status == 0, "\(result.stderr)")
    return out
  }

  @Test func importsAGeneratedStrayExportWithProgress() throws {
    let stray = try Self.generate("stray", frames: 12)
    for name in ["rgb.mp4", "odometry.csv", "camera_matrix.csv", "imu.csv", "depth/000011.png"] {
      #expect(FileManager.default.fileExists(atPath: stray + "/" + name), "\(name)")
    }
    let out = RecordingFixtures.temporaryFolder("imported") + "/out"
    let result = try CLI.run(["import", stray, out])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("imported: \(stray) (stray) -> \(out)"))
    #expect(result.stdout.contains("frames: 12 in "))
    #expect(result.stdout.contains("note: accelerometer in g (from the magnitude of its readings)"))
    // Progress on stderr: not a terminal here, so plain lines, the last at 12/12.
    #expect(result.stderr.contains("import: 12/12 frames"))
    let session = try RecordingSession.load(folder: out)
    #expect(session.depthCamera?.width == 256 && session.groundTruth?.kind == .arkit)
  }

  @Test func importsAGeneratedR3DFile() throws {
    let folder = try Self.generate("r3d", frames: 5)
    let out = RecordingFixtures.temporaryFolder("imported-r3d") + "/out"
    let result = try CLI.run(["import", folder + "/recording.r3d", out])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("frames: 5 in "))
    #expect(FileManager.default.fileExists(atPath: out + "/depth/000004.exr"))
  }

  /// A video with fewer frames than odometry.csv lists: one line naming the video, and no output.
  @Test func aShortVideoIsOneLineAndLeavesNothing() throws {
    let stray = try Self.generate("stray", frames: 8)
    let short = try Self.generate("stray", frames: 4)
    try FileManager.default.removeItem(atPath: stray + "/rgb.mp4")
    try FileManager.default.copyItem(atPath: short + "/rgb.mp4", toPath: stray + "/rgb.mp4")
    let out = RecordingFixtures.temporaryFolder("imported-short") + "/out"
    let result = try CLI.run(["import", stray, out])
    #expect(result.status != 0)
    let last = result.stderr.split(separator: "\n").last.map(String.init) ?? ""
    #expect(last == "arsim import: \(stray)/rgb.mp4: video has fewer frames than the index lists")
    #expect(!FileManager.default.fileExists(atPath: out))
    #expect(!FileManager.default.fileExists(atPath: out + ".partial"))
  }

  @Test func phoneLayoutOptionsAreChecked() throws {
    let out = RecordingFixtures.temporaryFolder("gen-bad")
    let png = try CLI.run(["generate", Self.scene, out, "--format", "record3d", "--png", "--frames", "1"])
    #expect(png.status != 0)
    #expect(png.stderr.contains("Record3D stores colour as JPEG only (leave out --png)"))
    let float = try CLI.run(["generate", Self.scene, out, "--format", "stray", "--float-depth"])
    #expect(float.status != 0 && float.stderr.contains("--float-depth is for --format arsim only"))
  }
}
