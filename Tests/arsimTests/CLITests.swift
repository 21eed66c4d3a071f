import ARSim
import ARSimTestSupport
import Foundation
import Testing

@Suite struct ReplayCommandTests {
  @Test func replaysAnARSimFolder() throws {
    let folder = try RecordingFixtures.writeARSim(frames: 4)
    let result = try CLI.run(["replay", folder, "--planes", "none"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("recording: \(folder) (arsim)"))
    #expect(result.stdout.contains("frames: 4 over 0.300 s"))
    #expect(result.stdout.contains("depth: 4 frames, 99.9% valid pixels"))
    #expect(result.stdout.contains("imu: 40 samples"))
    #expect(result.stdout.contains("ground truth: 4 poses"))
    #expect(result.stderr.contains("replay: 4/4 frames"))
  }

  /// Progress on a stderr that is not a terminal: a plain line at every tenth of the frames with the
  /// rate and the time left, the last with the time taken; no bar, no carriage returns.
  @Test func progressIsPlainLinesWhenStderrIsNotATerminal() throws {
    let folder = try RecordingFixtures.writeARSim(frames: 20)
    let result = try CLI.run(["replay", folder, "--planes", "none"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(!result.stderr.contains("\r"))
    let lines = result.stderr.split(separator: "\n").filter { $0.hasPrefix("replay: ") }
    #expect(lines.map { $0.split(separator: " ")[1] } == (1...10).map { "\($0 * 2)/20" })
    let rate = #/^replay: \d+/20 frames, \d+(\.\d)? frames/s, (ETA|in) (\d+ s|\d+:\d\d|\?)$/#
    for line in lines { #expect(line.wholeMatch(of: rate) != nil, "\(line)") }
    #expect(lines.last?.contains(", in ") == true)
    #expect(lines.dropLast().allSatisfy { $0.contains(", ETA ") })
  }

  @Test func replaysATUMFolder() throws {
    let folder = try RecordingFixtures.writeTUM(frames: 3, sidecar: false)
    let result = try CLI.run(["replay", folder, "--intrinsics", "40,40,15.5,11.5", "--planes", "none"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("(tum)"))
    #expect(result.stdout.contains("camera: 32x24, fx 40.0 fy 40.0 cx 15.5 cy 11.5 (from --intrinsics)"))
    #expect(result.stdout.contains("frames: 3 over 0.200 s"))
    #expect(result.stdout.contains("depth: 3 frames"))
  }

  @Test func replayIsDeterministic() throws {
    let folder = try RecordingFixtures.writeARSim(frames: 3)
    let a = try CLI.run(["replay", folder])
    let b = try CLI.run(["replay", folder])
    #expect(a.status == 0)
    #expect(a.stdout == b.stdout)
  }

  @Test(.enabled(if: Datasets.exists("tabletop"))) func eventsAreIdenticalAcrossReplays() throws {
    let folder = RecordingFixtures.temporaryFolder()
    var logs: [String] = []
    for name in ["a", "b"] {
      let path = folder + "/\(name).jsonl"
      let result = try CLI.run(["replay", Datasets.path("tabletop"), "--events", path])
      #expect(result.status == 0, "\(result.stderr)")
      logs.append(try String(contentsOfFile: path, encoding: .utf8))
    }
    #expect(logs[0] == logs[1])
    let lines = logs[0].split(separator: "\n")
    #expect(lines.first == #"{"t":0.0,"frame":0,"event":"trackingState","state":"limited:initializing"}"#)
    let added = try #require(lines.first { $0.contains(#""event":"didAdd""#) })
    for key in [
      #""alignment":"horizontal""#, #""transform":["#, #""center":["#, #""extent":{"width":"#,
      #""boundary":[["#,
    ] {
      #expect(added.contains(key), "didAdd carries \(key)")
    }
  }

  @Test func badInputGivesOneLineNamingTheFile() throws {
    let folder = try RecordingFixtures.writeARSim(frames: 2)
    try FileManager.default.removeItem(atPath: folder + "/depth/000001.png")
    let result = try CLI.run(["replay", folder])
    #expect(result.status == 1)
    #expect(
      result.stderr.hasSuffix(
        "\(folder)/depth/000001.png: no such file (listed in \(folder)/frames.txt line 3)\n"))
  }

  @Test func optionsAreValidated() throws {
    let folder = try RecordingFixtures.writeARSim(frames: 1)
    let cases: [([String], String)] = [
      (
        ["replay", folder, "--format", "zip"],
        "--format must be one of auto, arsim, tum, stray, record3d, arkitscenes, scanner3d, got 'zip'"
      ),
      (
        ["replay", folder, "--intrinsics", "1,2,3"], "--intrinsics: intrinsics must be four positive numbers"
      ),
      (["replay", folder, "--bogus"], "unknown option --bogus"),
      (["replay"], "missing RECORDING"),
      (["replay", folder, "--planes", "diagonal"], "--planes must be one of"),
      (["replay", folder, "--taps", "x.txt"], "--taps and --hits go together"),
      (["replay", folder, "--format", "tum"], "rgb.txt: no such file"),
      (["replay", folder, "--mode", "rgbd", "--scale", "-1"], "--scale must be a positive number of metres"),
    ]
    for (arguments, message) in cases {
      let result = try CLI.run(arguments)
      #expect(result.status != 0, "\(arguments)")
      #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
      #expect(result.stderr.split(separator: "\n").count == 1, "\(arguments): one line")
    }
  }

  @Test func helpDocumentsEveryOption() throws {
    let result = try CLI.run(["replay", "--help"])
    #expect(result.status == 0)
    for option in [
      "--format", "--intrinsics", "--mode", "--planes", "--trajectory", "--events", "--taps", "--hits",
    ] {
      #expect(result.stdout.contains(option))
    }
  }
}
