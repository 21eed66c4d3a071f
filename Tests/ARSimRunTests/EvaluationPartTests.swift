import ARSim
import ARSimEval
import ARSimTestSupport
import Foundation
import Testing

@testable import ARSimRun

@Suite struct ShardTests {
  @Test func shardsPartitionTheListInOrder() throws {
    let items = Array(0..<10)
    for count in 1...12 {
      let parts = (0..<count).map { Shard(index: $0, count: count).select(items) }
      #expect(parts.flatMap { $0 }.sorted() == items, "\(count)")
      #expect(parts.allSatisfy { $0 == $0.sorted() })
      let sizes = parts.map(\.count)
      #expect((sizes.max() ?? 0) - (sizes.min() ?? 0) <= 1)
    }
    #expect(Shard(index: 1, count: 3).select(items) == [1, 4, 7])
  }

  @Test func parsingRefusesWhatIsNotAShard() throws {
    #expect(try Shard(parsing: "2/3") == Shard(index: 2, count: 3))
    for text in ["3/3", "-1/3", "0/0", "1", "a/b", "1/2/3", ""] {
      #expect(throws: UsageError.self, "\(text)") { try Shard(parsing: text) }
    }
  }
}

@Suite struct EvaluationPartTests {
  /// A small evaluation named `recording`, its figures depending on `seed`.
  static func evaluation(_ recording: String, seed: Double) throws -> RecordingEvaluation {
    let frames = (0..<6).map { k in
      let t = Double(k) * 0.1
      let truth = RigidTransform(
        rotation: simd_quatd(angle: t * seed, axis: SIMD3(0, 1, 0)), translation: SIMD3(t, 0.1 * seed, 0))
      let estimate = RigidTransform(
        rotation: truth.rotation,
        translation: truth.translation + SIMD3(0.001 * seed * Double(k % 2), 0, 1 / 3))
      return TrackedFrame(
        timestamp: t, state: "normal", isTracked: true, hasPose: true, estimate: estimate, groundTruth: truth)
    }
    return RecordingEvaluation(
      recording: recording, mode: "rgbd", gravitySource: "imu", notes: ["note \(seed)"],
      tracking: try evaluateTracking(frames, withScale: seed > 1), planes: nil, raycasts: nil)
  }

  static let recordings = ["a", "b", "c", "d", "e"]

  static func parts(count: Int) throws -> [(path: String, part: EvaluationPart)] {
    try (0..<count).map { k in
      var part = EvaluationPart(
        recordings: recordings, options: ["mode": "auto"], shard: Shard(index: k, count: count))
      for name in part.shardRecordings.reversed() {
        part.add(try evaluation(name, seed: Double(recordings.firstIndex(of: name)!) + 0.5))
      }
      return (path: "part-\(k).json", part: part)
    }
  }

  @Test func partsMergeIntoTheRunsOrder() throws {
    let whole = try Self.recordings.enumerated().map { try Self.evaluation($1, seed: Double($0) + 0.5) }
    for count in [1, 2, 3, 7] {
      let parts = try Self.parts(count: count)
      #expect(parts.allSatisfy { $0.part.isComplete })
      #expect(try EvaluationPart.merge(parts.reversed()) == whole, "\(count)")
    }
  }

  /// Written and read back, a part is equal to what was written, every number exactly.
  @Test func aPartRoundTripsExactly() throws {
    let folder = RecordingFixtures.temporaryFolder("arsim-part")
    for (path, part) in try Self.parts(count: 2) {
      try part.write(to: folder + "/" + path)
      #expect(try EvaluationPart.load(path: folder + "/" + path) == part)
    }
  }

  @Test func partsThatDoNotBelongTogetherAreRefused() throws {
    let parts = try Self.parts(count: 3)
    func message(_ parts: [(path: String, part: EvaluationPart)]) -> String {
      do {
        _ = try EvaluationPart.merge(parts)
        return "merged"
      } catch {
        return "\(error)"
      }
    }
    #expect(message([parts[0], parts[2]]) == "merge: missing shard 1/3")
    #expect(message(parts + [parts[1]]) == "part-1.json: shard 1/3 given twice (also part-1.json)")
    var other = parts[2]
    other.part.options["mode"] = "mono"
    #expect(
      message([parts[0], parts[1], other])
        == "part-2.json: belongs to another run than part-0.json (other options)")
    other = parts[2]
    other.part.recordings.append("f")
    #expect(message([parts[0], parts[1], other]).hasSuffix("(other recordings)"))
    other = parts[2]
    other.part.evaluations.removeLast()
    #expect(
      message([parts[0], parts[1], other])
        == "part-2.json: shard 2/3 is incomplete (0 of 1 recordings; finish it with --resume)")
    let two = try Self.parts(count: 2)
    #expect(message([parts[0], two[1]]).hasSuffix("(another number of shards)"))
  }

  @Test func resumingTakesOverOnlyTheSameShardsResults() throws {
    let parts = try Self.parts(count: 2)
    var fresh = EvaluationPart(
      recordings: Self.recordings, options: ["mode": "auto"], shard: Shard(index: 0, count: 2))
    var earlier = parts[0].part
    earlier.evaluations.removeLast()
    try fresh.resume(from: earlier, path: "p.json")
    #expect(fresh.evaluations == earlier.evaluations)
    #expect(fresh.remainingRecordings == ["e"])
    #expect(throws: UsageError.self) { try fresh.resume(from: parts[1].part, path: "p.json") }
  }

  @Test func aFileThatIsNotAPartIsNamed() throws {
    let folder = RecordingFixtures.temporaryFolder("arsim-part")
    let path = folder + "/report.json"
    try #"{"format":"arsim-eval","version":1}"#.write(toFile: path, atomically: true, encoding: .utf8)
    #expect(throws: RecordingError.self) { try EvaluationPart.load(path: path) }
    do {
      _ = try EvaluationPart.load(path: path)
    } catch {
      #expect("\(error)".hasPrefix("\(path): not an arsim eval part"))
    }
  }
}

@Suite struct ProgressBarTests {
  /// Not on a terminal: a line at every tenth, with rate and time left, the last with the time taken.
  @Test func plainLinesAtEveryTenth() {
    final class Lines: @unchecked Sendable { var text = "" }
    let lines = Lines()
    let bar = ProgressBar(label: "work", total: 50, unit: "items", isTerminal: false) { lines.text += $0 }
    for done in 1...50 { bar.update(done) }
    bar.finish()
    let output = lines.text.split(separator: "\n")
    #expect(output.map { $0.split(separator: " ")[1] } == (1...10).map { "\($0 * 5)/50" })
    #expect(output.last?.contains(" items/s, in ") == true)
  }

  @Test func durationsRead() {
    #expect(ProgressBar.duration(12.4) == "12 s")
    #expect(ProgressBar.duration(245) == "4:05")
    #expect(ProgressBar.duration(3723) == "1:02:03")
    #expect(ProgressBar.duration(.infinity) == "?")
    #expect(ProgressBar.rate(42.06, "frames") == "42.1 frames/s")
  }
}
