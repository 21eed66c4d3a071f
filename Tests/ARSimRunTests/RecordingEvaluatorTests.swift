import ARSim
import ARSimEval
import ARSimTestSupport
import Foundation
import Testing

@testable import ARSimRun

@Suite struct RecordingEvaluatorTests {
  /// The library does what `arsim replay` and `arsim eval` do, without the CLI: a replay records every
  /// frame with its ground truth, and an evaluation is deterministic (equal values, exactly, twice).
  @Test func replayAndEvaluationRunWithoutTheCLI() throws {
    let folder = try RecordingFixtures.writeARSim(frames: 6)
    var options = ReplayOptions()
    options.planeDetection = []
    let run = try ReplayRun(folder: folder, options: options)
    try run.run()
    #expect(run.frames.map(\.index) == Array(0..<6))
    #expect(run.frames.allSatisfy { $0.groundTruth != nil })
    #expect(run.summary.frames == 6)
    #expect(run.mode == .rgbd)

    let first = try RecordingEvaluator.evaluate(
      folder, options: options, target: .existingPlaneGeometry, alignment: .any)
    let second = try RecordingEvaluator.evaluate(
      folder, options: options, target: .existingPlaneGeometry, alignment: .any)
    #expect(first == second)
    #expect(first.recording == folder)
    #expect(first.tracking.frameCount == 6)
    #expect(first.notes.contains("no ground-truth planes (planes.json): planes not scored"))
  }

  @Test func rgbdModeNeedsDepth() throws {
    let folder = try RecordingFixtures.writeTUM(frames: 3, sidecar: false)
    try FileManager.default.removeItem(atPath: folder + "/depth.txt")
    var options = ReplayOptions()
    options.mode = .rgbd
    options.intrinsics = try CameraIntrinsics.parse("40,40,15.5,11.5", source: "test")
    let error = #expect(throws: UsageError.self) { try ReplayRun(folder: folder, options: options) }
    #expect(error?.description == "--mode rgbd needs depth, and \(folder) has none (use --mode mono)")
  }
}
