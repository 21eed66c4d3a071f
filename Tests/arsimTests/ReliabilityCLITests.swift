import ARSim
import ARSimTestSupport
import Foundation
import Testing

/// The command-line cases of issue 11: outputs never clobber special files or leave temporaries,
/// library diagnostics never reach stderr raw, and option errors blame the option.
@Suite struct ReliabilityCLITests {
  /// The stderr lines that are not progress (`replay: 3/5 frames`, `timing: ...`).
  func errorLines(_ result: CLI.Result) -> [Substring] {
    result.stderr.split(separator: "\n").filter { !$0.hasPrefix("replay: ") && !$0.hasPrefix("generate: ") }
  }

  func leftovers(_ folder: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.contains("partial") }
  }

  @Test func outputsThatAreNotRegularFilesAreRefused() throws {
    let folder = try RecordingFixtures.writeARSim(frames: 2)
    let fifo = folder + "/out.fifo"
    #expect(mkfifo(fifo, 0o644) == 0)
    let result = try CLI.run(["replay", folder, "--planes", "none", "--trajectory", fifo])
    #expect(result.status == 2)
    #expect(
      errorLines(result) == ["arsim replay: \(fifo): is a FIFO (named pipe); outputs must be regular files"])
    var info = stat()
    #expect(stat(fifo, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO, "the FIFO is still a FIFO")

    let directory = try CLI.run(["replay", folder, "--planes", "none", "--events", folder + "/rgb"])
    #expect(directory.status == 2)
    #expect(
      errorLines(directory) == ["arsim replay: \(folder)/rgb: is a directory; outputs must be regular files"])
    #expect(try leftovers(folder).isEmpty)
  }

  @Test func aDeviceIsRefusedAsAnOutput() throws {
    // /dev/full is refused before anything is written (never replaced by a regular file).
    var before = stat()
    guard stat("/dev/full", &before) == 0, before.st_mode & S_IFMT == S_IFCHR else { return }
    let folder = try RecordingFixtures.writeARSim(frames: 1)
    let result = try CLI.run(["replay", folder, "--planes", "none", "--trajectory", "/dev/full"])
    #expect(result.status == 2)
    #expect(errorLines(result) == ["arsim replay: /dev/full: is a device; outputs must be regular files"])
    var after = stat()
    #expect(stat("/dev/full", &after) == 0 && after.st_mode & S_IFMT == S_IFCHR)
  }

  @Test func anErrorMidReplayLeavesNoTemporaryFiles() throws {
    let folder = try RecordingFixtures.writeARSim(frames: 4)
    try Data([0x89, 0x50, 0x4E, 0x47]).write(to: URL(fileURLWithPath: folder + "/rgb/000002.png"))
    let out = RecordingFixtures.temporaryFolder()
    try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
    let result = try CLI.run([
      "replay", folder, "--planes", "none", "--trajectory", out + "/t.txt", "--events", out + "/e.jsonl",
    ])
    #expect(result.status == 1)
    #expect(errorLines(result).count == 1, "\(result.stderr)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: out).isEmpty)
  }

  @Test(.enabled(if: Datasets.exists("tabletop"), "Datasets/tabletop is absent"))
  func sigintRemovesTemporaryFiles() throws {
    let out = RecordingFixtures.temporaryFolder()
    try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
    let process = Process()
    process.executableURL = CLI.executable
    process.arguments = [
      "replay", Datasets.path("tabletop"), "--events", out + "/e.jsonl", "--trajectory", out + "/t.txt",
    ]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    // Wait until the temporary files exist (the replay is under way), then interrupt.
    let deadline = Date().addingTimeInterval(60)
    while try leftovers(out).count < 2, Date() < deadline, process.isRunning { usleep(20_000) }
    #expect(try leftovers(out).count == 2)
    process.interrupt()
    process.waitUntilExit()
    #expect(process.terminationReason == .uncaughtSignal)
    #expect(process.terminationStatus == SIGINT)
    #expect(try FileManager.default.contentsOfDirectory(atPath: out).isEmpty)
  }

  @Test func aDamagedImageIsOneLine() throws {
    let folder = try RecordingFixtures.writeARSim(frames: 3)
    // A PNG with a valid header and a broken IDAT chunk (its CRC no longer matches).
    let image = folder + "/depth/000001.png"
    var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: image)))
    let idat = try #require(
      bytes.indices.first { bytes[$0..<min($0 + 4, bytes.count)].elementsEqual(Array("IDAT".utf8)) })
    bytes[idat + 4] = 0x00
    try Data(bytes).write(to: URL(fileURLWithPath: image))
    let result = try CLI.run(["replay", folder, "--planes", "none"])
    #expect(result.status == 1)
    let lines = errorLines(result)
    #expect(lines.count == 1, "\(result.stderr)")
    #expect(
      lines.first?.hasPrefix("arsim replay: \(image): PNG IDAT chunk at byte ") == true,
      "\(lines)")
  }

  @Test func evalRefusesADamagedPlanesFile() throws {
    let folder = try RecordingFixtures.writeARSim(frames: 3)
    try """
    {"format": "arsim-planes", "version": 1, "gravity": [0, -1, 0], "planes": [{"id": 1, "label": "floor",
     "material": "m", "alignment": "horizontal", "normal": [0, 0, 0], "offset": 0, "area": 1,
     "polygon": [[0, 0, 0], [1, 0, 0], [1, 0, 1]], "center": [0.6, 0, 0.3],
     "visibility": {"firstSeen": 0, "secondsSeen": 1, "maxPixels": 10}}]}
    """.write(toFile: folder + "/planes.json", atomically: true, encoding: .utf8)
    let session = folder + "/session.json"
    let text = try String(contentsOfFile: session, encoding: .utf8)
    try text.replacingOccurrences(of: "\"gravity\"", with: "\"planes\" : \"planes.json\", \"gravity\"").write(
      toFile: session, atomically: true, encoding: .utf8)
    let result = try CLI.run(["eval", folder])
    #expect(result.status == 1)
    #expect(
      errorLines(result) == [
        "arsim eval: \(folder)/planes.json: planes[0].normal: must be a unit vector, got length 0.0"
      ], "\(result.stderr)")
  }
}
