import ARSimTestSupport
import Foundation
import Testing

@Suite struct EvalShardTests {
  /// The recordings of `Datasets/*` (as a shell glob gives them, non-recordings included).
  static var glob: [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: Datasets.path(""))) ?? []
    return names.sorted().map { Datasets.path($0) }
  }

  /// Runs the CLI calls at once (as many as the machine runs), results in call order.
  static func runAll(_ calls: [[String]]) -> [Result<CLI.Result, any Error>] {
    final class Box: @unchecked Sendable {
      let lock = NSLock()
      var results: [Int: Result<CLI.Result, any Error>] = [:]
    }
    let box = Box()
    DispatchQueue.concurrentPerform(iterations: calls.count) { k in
      let result = Result { try CLI.run(calls[k]) }
      box.lock.withLock { box.results[k] = result }
    }
    return calls.indices.map { box.results[$0]! }
  }

  /// 3 shards of `Datasets/*` merged give byte for byte the JSON, Markdown and tables one run over the
  /// whole list gives; a rerun with --resume evaluates nothing again; parts that do not belong
  /// together, or are missing or incomplete, are refused with a one-line error naming the part.
  @Test(.enabled(if: Datasets.exists("tabletop") && Datasets.exists("room")))
  func threeShardsMergeIntoTheSingleRunsReport() throws {
    let folder = RecordingFixtures.temporaryFolder("arsim-eval-shards")
    let single =
      ["eval"] + Self.glob + ["--json", folder + "/single.json", "--markdown", folder + "/single.md"]
    let shards = (0..<3).map { k in
      ["eval"] + Self.glob + ["--shard", "\(k)/3", "--json", folder + "/part-\(k).json"]
    }
    let results = try Self.runAll([single] + shards).map { try $0.get() }
    for result in results { #expect(result.status == 0, "\(result.stderr)") }
    #expect(results[1].stderr.contains("eval: shard 0/3 holds 2 of 6 recordings"))

    let parts = (0..<3).map { folder + "/part-\($0).json" }
    let merged = try CLI.run(
      ["eval", "merge"] + parts.reversed() + [
        "--json", folder + "/merged.json", "--markdown", folder + "/merged.md",
      ])
    #expect(merged.status == 0, "\(merged.stderr)")
    #expect(merged.stdout == results[0].stdout)
    for name in ["json", "md"] {
      let one = FileManager.default.contents(atPath: folder + "/single." + name)
      #expect(
        one != nil && one == FileManager.default.contents(atPath: folder + "/merged." + name), "\(name)")
    }

    // --resume: every recording of the part is there, nothing is replayed, the part is unchanged.
    let before = FileManager.default.contents(atPath: parts[1])
    let resumed = try CLI.run(["eval"] + Self.glob + ["--shard", "1/3", "--resume", "--json", parts[1]])
    #expect(resumed.status == 0, "\(resumed.stderr)")
    #expect(resumed.stderr.contains("eval: shard 1/3 holds 2 of 6 recordings, 2 already evaluated"))
    #expect(!resumed.stderr.contains("frames/s"))
    #expect(FileManager.default.contents(atPath: parts[1]) == before)

    func refusal(_ arguments: [String]) throws -> String {
      let result = try CLI.run(arguments)
      #expect(result.status != 0)
      #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
      return result.stderr
    }
    #expect(try refusal(["eval", "merge", parts[0], parts[1]]).contains("missing shard 2/3"))
    #expect(try refusal(["eval", "merge", parts[0], parts[1], parts[1]]).contains("shard 1/3 given twice"))

    // A part made with other options, and one cut short, as edited copies of part 2.
    let data = try #require(FileManager.default.contents(atPath: parts[2]))
    var root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    var options = try #require(root["options"] as? [String: String])
    options["mode"] = "mono"
    root["options"] = options
    let other = folder + "/other.json"
    try JSONSerialization.data(withJSONObject: root).write(to: URL(fileURLWithPath: other))
    #expect(
      try refusal(["eval", "merge", parts[0], parts[1], other]).contains(
        "\(other): belongs to another run than \(parts[0]) (other options)"))
    root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    root["evaluations"] = []
    let short = folder + "/short.json"
    try JSONSerialization.data(withJSONObject: root).write(to: URL(fileURLWithPath: short))
    #expect(
      try refusal(["eval", "merge", parts[0], parts[1], short]).contains("\(short): shard 2/3 is incomplete"))
    #expect(try refusal(["eval", "merge", folder + "/single.json"]).contains("not an arsim eval part"))
  }

  @Test func aShardOutOfRangeIsRefused() throws {
    let folder = try RecordingFixtures.writeARSim(frames: 2)
    for (shard, message) in [
      ("3/3", "--shard 3/3: K must be from 0 to 2"), ("1/0", "--shard 1/0: N must be at least 1"),
      ("x", "--shard must be K/N (part K of N, K from 0), got 'x'"),
    ] {
      let result = try CLI.run(["eval", folder, "--shard", shard])
      #expect(result.status == 2)
      #expect(result.stderr == "arsim eval: \(message)\n")
    }
    let resume = try CLI.run(["eval", folder, "--resume"])
    #expect(resume.status == 2)
    #expect(resume.stderr.contains("--resume goes with --shard and --json"))
  }
}
