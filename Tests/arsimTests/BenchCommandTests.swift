import ARSimTestSupport
import Foundation
import Testing

@Suite struct BenchCommandTests {
  /// The number in `text` between `prefix` and `suffix`, if any.
  private static func figure(in text: String, after prefix: String, before suffix: String) -> Double? {
    guard let start = text.range(of: prefix) else { return nil }
    let rest = text[start.upperBound...]
    guard let end = rest.range(of: suffix) else { return nil }
    return Double(rest[..<end.lowerBound].trimmingCharacters(in: .whitespaces))
  }

  @Test func raycastBenchmarkPrintsMicrosecondsPerRaycast() throws {
    let json = RecordingFixtures.temporaryFolder("arsim-bench") + "/raycast.json"
    let result = try CLI.run(["bench", "--raycast", "--queries", "2000", "--json", json])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("raycast: 50 plane anchors (20-vertex boundaries;"))
    for target in ["existingPlaneGeometry", "existingPlaneInfinite"] {
      let micros = try #require(
        Self.figure(in: result.stdout, after: "\(target), any: ", before: " µs/raycast"), "\(result.stdout)")
      #expect(micros.isFinite && micros > 0)
    }
    let report = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any])
    #expect(report["anchors"] as? Int == 50)
    let targets = try #require(report["targets"] as? [[String: Any]])
    #expect(targets.map { $0["target"] as? String } == ["existingPlaneGeometry", "existingPlaneInfinite"])
    #expect(targets.allSatisfy { ($0["medianMicroseconds"] as? Double).map { $0 > 0 } ?? false })
  }

  @Test func raycastBenchmarkOptionsAreValidated() throws {
    let withRecording = try CLI.run(["bench", "--raycast", "somewhere"])
    #expect(withRecording.status == 2)
    #expect(withRecording.stderr.contains("--raycast reads no RECORDING"))
    let badCount = try CLI.run(["bench", "--raycast", "--anchors", "-1"])
    #expect(badCount.status == 2)
    #expect(badCount.stderr.contains("--anchors must be an integer of at least 0, got '-1'"))
    let stray = try CLI.run(["bench", "somewhere", "--queries", "10"])
    #expect(stray.status == 2)
    #expect(stray.stderr.contains("--queries goes with --raycast"))
  }

  /// The header and payload of a `.npy` file written by `--dump-points`: (rows, float32 values).
  private static func readNPY(_ path: String) throws -> (rows: Int, values: [Float]) {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    let bytes = [UInt8](data)
    try #require(bytes.count >= 10 && bytes[0] == 0x93 && Array(bytes[1..<6]) == Array("NUMPY".utf8))
    #expect(bytes[6] == 1 && bytes[7] == 0)
    let headerLength = Int(bytes[8]) | Int(bytes[9]) << 8
    #expect((10 + headerLength) % 64 == 0)
    let header = String(decoding: bytes[10..<(10 + headerLength)], as: UTF8.self)
    #expect(header.hasPrefix("{'descr': '<f4', 'fortran_order': False, 'shape': ("))
    #expect(header.hasSuffix("\n"))
    let shape = try #require(header.split(separator: "(").last?.split(separator: ")").first)
    let dimensions = shape.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
    #expect(dimensions.count == 2 && dimensions[1] == 3)
    let rows = try #require(dimensions.first ?? nil)
    let payload = bytes[(10 + headerLength)...]
    #expect(payload.count == rows * 3 * 4)
    var values: [Float] = []
    var index = payload.startIndex
    while index + 4 <= payload.endIndex {
      let bits =
        UInt32(payload[index]) | UInt32(payload[index + 1]) << 8 | UInt32(payload[index + 2]) << 16
        | UInt32(payload[index + 3]) << 24
      values.append(Float(bitPattern: bits))
      index += 4
    }
    return (rows, values)
  }

  /// The timeline line and its JSON: means of the replay thread's parts that add up to the wall time
  /// (planes beside the next frame's tracking count by the wait for them), and the ratio over the
  /// slower of the reader's decoding and tracking + planes.
  @Test(.enabled(if: Datasets.exists("tabletop")))
  func timelineComparesTheWallTimeWithTheSlowestStage() throws {
    let json = RecordingFixtures.temporaryFolder("arsim-bench") + "/bench.json"
    let result = try CLI.run(["bench", Datasets.path("tabletop"), "--json", json])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("  timeline (ms/frame, means): read (reader thread) "), "\(result.stdout)")
    let reports = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [[String: Any]]
    )
    let report = try #require(reports.first)
    func number(_ key: String) throws -> Double { try #require(report[key] as? Double, "\(key)") }
    let read = try number("readMeanMilliseconds")
    let wait = try number("waitMeanMilliseconds")
    let tracking = try number("trackingMeanMilliseconds")
    let planes = try number("planesMeanMilliseconds")
    let other = try number("otherMeanMilliseconds")
    let wall = try number("wallMilliseconds")
    let planesOnReplayThread = try number("planesOnReplayThreadMeanMilliseconds")
    #expect(read > 0 && tracking > 0 && planes > 0 && wait >= 0 && planesOnReplayThread >= 0)
    #expect(abs(wait + tracking + planesOnReplayThread + other - wall) < 1e-9 * wall)
    // The parts are disjoint spans of the replay thread: what is left is positive.
    #expect(other > 0)
    // Two threads by default: nearly every frame's planes run beside the next frame's tracking.
    #expect(try number("planesOverlappedShare") > 0.5)
    #expect(result.stdout.contains("% of frames, waited for: "), "\(result.stdout)")
    let slowest = max(read, tracking + planes)
    #expect(report["slowestStage"] as? String == (read > tracking + planes ? "read" : "tracking + planes"))
    // JSONSerialization may parse the last digit differently: relative tolerances.
    #expect(abs(try number("slowestMeanMilliseconds") - slowest) < 1e-9 * slowest)
    #expect(abs(try number("wallOverSlowest") - wall / slowest) < 1e-9 * wall / slowest)
    let printed = try #require(Self.figure(in: result.stdout, after: "= ", before: " x slowest"))
    #expect(abs(printed - wall / slowest) <= 0.005 + 1e-9)
    // The fifths: five rates whose frames add up to the run's over its wall time, five plane medians.
    #expect(result.stdout.contains("  over the run (fifths): frames/s "), "\(result.stdout)")
    let rates = try #require(report["fifthsFramesPerSecond"] as? [Double])
    let planeMedians = try #require(report["fifthsPlanesMilliseconds"] as? [Double])
    #expect(rates.count == 5 && planeMedians.count == 5)
    #expect(rates.allSatisfy { $0 > 0 } && planeMedians.allSatisfy { $0 >= 0 })
    let frames = try #require((report["frames"] as? NSNumber)?.doubleValue)
    let seconds = (0..<5).reduce(0.0) { total, part in
      total + Double(Int(frames) * (part + 1) / 5 - Int(frames) * part / 5) / rates[part]
    }
    // The run's rate over the first fifth's: the frames over the fifths' summed spans.
    let runRate = frames / seconds
    #expect(abs(try number("runRateOverFirstFifth") - runRate / rates[0]) < 1e-6 * runRate / rates[0])
  }

  @Test(.enabled(if: Datasets.exists("tabletop")))
  func dumpPointsWritesTheDetectorInputOfEveryNthFrame() throws {
    let folder = RecordingFixtures.temporaryFolder("arsim-bench") + "/points"
    let result = try CLI.run(["bench", Datasets.path("tabletop"), "--dump-points", folder, "--every", "50"])
    #expect(result.status == 0, "\(result.stderr)")
    let index = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/index.json")))
        as? [[String: Any]])
    // 151 frames at 15 Hz, tracked from the start: detection runs on frames 50, 100 and 150.
    #expect(index.map { $0["frame"] as? Int } == [50, 100, 150])
    for entry in index {
      let frame = try #require(entry["frame"] as? Int)
      #expect(entry["file"] as? String == String(format: "frame_%06d.npy", frame))
      let features = try #require(entry["featurePoints"] as? Int)
      let depth = try #require(entry["depthPoints"] as? Int)
      // 320 x 240 sampled every 4 pixels: at most 80 x 60 depth points.
      #expect(features > 0 && depth > 0 && depth <= 80 * 60)
      #expect((entry["planeMilliseconds"] as? Double).map { $0 > 0 } ?? false)
      let (rows, values) = try Self.readNPY(folder + "/" + String(format: "frame_%06d.npy", frame))
      #expect(rows == features + depth)
      #expect(values.allSatisfy { $0.isFinite })
      // The synthetic tabletop scene lies within a few metres of its origin.
      #expect(values.allSatisfy { abs($0) < 20 })
    }
  }

  @Test(.enabled(if: Datasets.exists("tabletop")))
  func framesLimitsTheBenchToThatRangeOfTheRecording() throws {
    let folder = RecordingFixtures.temporaryFolder("arsim-bench")
    let result = try CLI.run([
      "bench", Datasets.path("tabletop"), "--frames", "10-39", "--json", folder + "/bench.json",
      "--trajectory", folder + "/trajectory.txt",
    ])
    #expect(result.status == 0, "\(result.stderr)")
    let reports = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/bench.json")))
        as? [[String: Any]])
    #expect(reports.first?["frames"] as? Int == 30)
    // The trajectory's poses are those of frames 10 to 39 (15 Hz: 0.667 s to 2.6 s).
    let stamps = try String(contentsOfFile: folder + "/trajectory.txt", encoding: .utf8)
      .split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: " ").first }
      .compactMap { Double($0) }
    let first = try #require(stamps.first)
    let last = try #require(stamps.last)
    #expect(stamps.count <= 30 && abs(first - 10.0 / 15) < 1e-4 && abs(last - 39.0 / 15) < 1e-4, "\(stamps)")
    let bad = try CLI.run(["bench", Datasets.path("tabletop"), "--frames", "9-3"])
    #expect(bad.status != 0 && bad.stderr.contains("--frames must be FIRST-LAST"), "\(bad.stderr)")
  }
}
