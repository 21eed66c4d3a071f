import ARSim
import ARSimTestSupport
import Foundation
import Testing

/// Every real phone capture in `../shared/datasets`, replayed as a new user would: `arsim replay`
/// with no `--format` and no `--mode`, then `arsim import` into the ARSim format and a replay of the
/// import, which must give the same trajectory. Reported as skipped when `../shared` is absent.
@Suite(.serialized) struct RealCaptureTests {
  /// A capture: its path under `../shared/datasets`, the frames it holds, the tracking mode its
  /// files support, and the share of frames that must have a pose.
  struct Capture: CustomTestStringConvertible, Sendable {
    var path: String
    var frames: Int
    var mode: String
    var minPosed: Double
    var testDescription: String { path }
    var folder: String { Datasets.shared + "/" + path }
    var present: Bool { FileManager.default.fileExists(atPath: folder) }
  }

  static let captures = [
    Capture(path: "record3d-dance/dance.r3d", frames: 330, mode: "rgbd", minPosed: 0.95),
    Capture(path: "stray-early", frames: 580, mode: "depth", minPosed: 0.95),
    Capture(path: "stray-demo2", frames: 942, mode: "depth", minPosed: 0.95),
    Capture(path: "scanner3d-corridor", frames: 120, mode: "depth", minPosed: 0.95),
    Capture(path: "arkitscenes-40777063", frames: 680, mode: "rgbd", minPosed: 0.95),
  ]

  /// The TUM trajectory file's rows: timestamp and position.
  static func positions(_ path: String) throws -> [(time: Double, position: SIMD3<Double>)] {
    try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").compactMap { line in
      guard !line.hasPrefix("#") else { return nil }
      let v = line.split(separator: " ").compactMap { Double($0) }
      guard v.count == 8 else { throw RecordingError(file: path, "row '\(line)' is not TUM") }
      return (v[0], SIMD3(v[1], v[2], v[3]))
    }
  }

  @Test(
    .enabled(if: Datasets.sharedExists(""), "../shared/datasets is absent"),
    arguments: captures)
  func replaysWithDefaultOptionsAndImportsToTheSameTrajectory(_ capture: Capture) throws {
    try #require(capture.present, "\(capture.folder) is absent")
    let scratch = RecordingFixtures.temporaryFolder(
      "real-" + capture.path.replacingOccurrences(of: "/", with: "-"))
    defer { try? FileManager.default.removeItem(atPath: scratch) }
    let replayed = scratch + "/replayed.tum"
    let replay = try CLI.run(["replay", capture.folder, "--trajectory", replayed])
    try #require(replay.status == 0, "\(replay.stderr)")
    #expect(replay.stdout.contains("tracking: \(capture.mode) (chosen: "), "\(replay.stdout)")
    let framesLine = replay.stdout.split(separator: "\n").first { $0.hasPrefix("frames: ") }
    #expect(framesLine?.hasPrefix("frames: \(capture.frames) over ") == true, "\(framesLine ?? "")")
    let poses = try Self.positions(replayed)
    #expect(
      Double(poses.count) >= capture.minPosed * Double(capture.frames),
      "\(poses.count) of \(capture.frames) frames have a pose")

    let imported = scratch + "/imported"
    let conversion = try CLI.run(["import", capture.folder, imported])
    try #require(conversion.status == 0, "\(conversion.stderr)")
    let again = scratch + "/imported.tum"
    let second = try CLI.run(["replay", imported, "--trajectory", again])
    try #require(second.status == 0, "\(second.stderr)")
    #expect(second.stdout.contains("tracking: \(capture.mode) (chosen: "), "\(second.stdout)")
    let roundTrip = try Self.positions(again)
    try #require(
      roundTrip.count == poses.count, "\(roundTrip.count) poses after import, \(poses.count) before")
    var largest = 0.0
    for (a, b) in zip(poses, roundTrip) {
      #expect(abs(a.time - b.time) < 1e-6)
      largest = max(largest, simd_length(a.position - b.position))
    }
    #expect(largest < 1e-6, "the imported recording's trajectory is \(largest) m from the original's")
  }

  /// ARKitScenes 40777063's first depth map reads the room nearer than the next ones do (ARKit's depth
  /// still converging): the features' landmarks made from it put the second frame half a metre from
  /// the first, where ARKit moved it 3 cm. Without an IMU such a leap is taken as the measurement's
  /// error, not the camera's motion: the first second moves by centimetres from frame to frame.
  @Test(.enabled(if: Datasets.sharedExists("arkitscenes-40777063"), "../shared/datasets is absent"))
  func arkitScenesDoesNotLeapFromItsFirstDepth() throws {
    let scratch = RecordingFixtures.temporaryFolder("real-arkitscenes-start")
    defer { try? FileManager.default.removeItem(atPath: scratch) }
    let trajectory = scratch + "/start.tum"
    let replay = try CLI.run([
      "replay", Datasets.shared + "/arkitscenes-40777063", "--frames", "0-10", "--trajectory", trajectory,
    ])
    try #require(replay.status == 0, "\(replay.stderr)")
    let poses = try Self.positions(trajectory)
    #expect(poses.count == 11)
    let steps = zip(poses, poses.dropFirst()).map { simd_length($1.position - $0.position) }
    #expect(steps.allSatisfy { $0 < 0.1 }, "steps \(steps) m")
  }

  /// A real room gives more anchors than a summary can list: the ten largest are listed, largest
  /// first, and the rest counted.
  @Test(.enabled(if: Datasets.sharedExists("arkitscenes-40777063"), "../shared/datasets is absent"))
  func summaryListsTheTenLargestPlanesAndCountsTheRest() throws {
    let replay = try CLI.run(["replay", Datasets.shared + "/arkitscenes-40777063", "--frames", "0-100"])
    try #require(replay.status == 0, "\(replay.stderr)")
    let line = try #require(replay.stdout.split(separator: "\n").first { $0.hasPrefix("planes: ") })
    let count = try #require(Int(line.dropFirst("planes: ".count).prefix { $0.isNumber }))
    try #require(count > 10, "\(line)")
    #expect(line.contains("(the 10 largest: ") && line.hasSuffix("; \(count - 10) more)"), "\(line)")
    let areas = line.split(separator: ";").compactMap { item -> Double? in
      guard let extent = item.split(separator: " ").first(where: { $0.contains("x") && $0.first!.isNumber })
      else { return nil }
      let sides = extent.split(separator: "x").compactMap { Double($0) }
      return sides.count == 2 ? sides[0] * sides[1] : nil
    }
    #expect(areas.count == 10, "\(line)")
    #expect(zip(areas, areas.dropFirst()).allSatisfy { $0 >= $1 - 0.05 }, "\(line)")
  }
}
