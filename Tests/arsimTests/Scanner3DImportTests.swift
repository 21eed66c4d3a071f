import ARSim
import ARSimTestSupport
import Foundation
import Testing

/// `arsim generate --format scanner3d`, `arsim replay` and `arsim import` of the 3D Scanner App's
/// "All Data" layout end to end through the executable, with no --format and no --mode.
@Suite struct Scanner3DImportTests {
  /// The trajectory file's lines as numbers.
  static func trajectory(_ path: String) throws -> [[Double]] {
    try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }
      .map { $0.split(separator: " ").map { Double($0)! } }
  }

  /// The export's folder (the parent of `All_Data`) replays depth-only by default; imported into the
  /// ARSim format it keeps the frames without colour as such and replays to the same trajectory.
  @Test func importedExportReplaysToTheSameTrajectory() throws {
    let out = RecordingFixtures.temporaryFolder("gen-scanner3d")
    let generated = try CLI.run([
      "generate", Datasets.path("scenes") + "/room.json", out, "--format", "scanner3d", "--scale", "0.4",
      "--frames", "12", "--overwrite",
    ])
    #expect(generated.status == 0, "\(generated.stderr)")
    #expect(generated.stdout.contains("generated: \(out) (scanner3d)"))
    let original = out + "/original.txt"
    let replay = try CLI.run(["replay", out, "--planes", "none", "--trajectory", original])
    #expect(replay.status == 0, "\(replay.stderr)")
    #expect(replay.stdout.contains("tracking: depth"))
    #expect(replay.stdout.contains("note: colour on 4 of 12 frames"))

    let imported = RecordingFixtures.temporaryFolder("imported-scanner3d") + "/out"
    let result = try CLI.run(["import", out, imported])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("imported: \(out)/All_Data (scanner3d) -> \(imported)"))
    let frames = try String(contentsOfFile: imported + "/frames.txt", encoding: .utf8).split(separator: "\n")
      .filter { !$0.hasPrefix("#") }
    #expect(frames.count == 12)
    #expect(frames.enumerated().allSatisfy { ($1.split(separator: " ")[1] == "-") == ($0 % 3 != 0) })
    let copy = out + "/imported.txt"
    let again = try CLI.run(["replay", imported, "--planes", "none", "--trajectory", copy])
    #expect(again.status == 0, "\(again.stderr)")
    let a = try Self.trajectory(original)
    let b = try Self.trajectory(copy)
    #expect(a.count == 12 && b.count == 12)
    for (x, y) in zip(a, b) {
      #expect(x[0] == y[0])
      #expect(simd_length(SIMD3(x[1], x[2], x[3]) - SIMD3(y[1], y[2], y[3])) <= 1e-6)
    }

    // --overwrite replaces the whole export (All_Data/ is the layout's marker and its one entry).
    let shorter = try CLI.run([
      "generate", Datasets.path("scenes") + "/room.json", out, "--format", "scanner3d", "--scale", "0.4",
      "--frames", "4", "--overwrite",
    ])
    #expect(shorter.status == 0, "\(shorter.stderr)")
    let files = try FileManager.default.contentsOfDirectory(atPath: out + "/All_Data")
    #expect(files.filter { $0.hasSuffix(".json") }.count == 5)  // 4 frames and info.json
  }
}
