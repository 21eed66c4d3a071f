import ARSim
import ARSimTestSupport
import Foundation
import Testing

@testable import ARSimRun

/// Decoding overlapped on a second thread changes nothing a replay gives: events, trajectory and
/// hits are the same bytes as with `--threads 1`, and the summary (counted on the reading thread) is
/// the same text.
@Suite struct ReplayRunThreadsTests {
  /// The events, trajectory and hits files of one replay of `folder` with `threads`.
  func outputs(_ folder: String, threads: Int) throws -> (
    events: Data, trajectory: Data, hits: Data, frames: Int, summary: String
  ) {
    let out = RecordingFixtures.temporaryFolder("replay-threads")
    defer { try? FileManager.default.removeItem(atPath: out) }
    var options = ReplayOptions()
    options.threads = threads
    let run = try ReplayRun(folder: folder, options: options)
    #expect(run.threads == threads)
    try run.logEvents(to: out + "/events.jsonl")
    try run.writeTrajectory(to: out + "/trajectory.tum")
    try run.castTaps(
      from: folder + "/taps.txt", to: out + "/hits.jsonl", target: .existingPlaneGeometry, alignment: .any)
    try run.run()
    #expect(run.wallSeconds > 0)
    #expect(run.frames.allSatisfy { $0.readSeconds > 0 })
    let read = { (name: String) in try Data(contentsOf: URL(fileURLWithPath: out + "/" + name)) }
    #expect(run.summary.frames == run.frames.count)
    return (
      try read("events.jsonl"), try read("trajectory.tum"), try read("hits.jsonl"), run.frames.count,
      run.summary.report(info: run.info)
    )
  }

  @Test(.enabled(if: Datasets.exists("tabletop"), "Datasets/tabletop is absent"))
  func overlappedDecodingGivesTheSequentialOutputs() throws {
    let folder = Datasets.path("tabletop")
    let sequential = try outputs(folder, threads: 1)
    let overlapped = try outputs(folder, threads: 2)
    #expect(sequential.frames > 100 && overlapped.frames == sequential.frames)
    #expect(sequential.events.count > 10_000 && sequential.hits.count > 100)
    #expect(overlapped.events == sequential.events)
    #expect(overlapped.trajectory == sequential.trajectory)
    #expect(overlapped.hits == sequential.hits)
    #expect(sequential.summary.contains("depth: \(sequential.frames) frames, "))
    #expect(overlapped.summary == sequential.summary)
  }

  @Test func threadsMustBePositive() throws {
    let folder = try RecordingFixtures.writeARSim(frames: 2)
    var options = ReplayOptions()
    options.threads = 0
    let error = #expect(throws: UsageError.self) { try ReplayRun(folder: folder, options: options) }
    #expect(error?.description == "--threads must be at least 1, got 0")
  }
}
