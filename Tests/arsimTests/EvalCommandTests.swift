import ARSim
import ARSimTestSupport
import Foundation
import Testing

@Suite struct EvalCommandTests {
  /// `arsim eval` over the committed tabletop session: the JSON holds every section with plausible
  /// values, the Markdown its tables, and no partial file is left behind. The thresholds are loose
  /// (the committed dataset is small) but a broken pipeline fails them: a lost or misaligned track,
  /// anchors not mapped into the ground-truth world, or taps scored against the wrong points.
  @Test(.enabled(if: Datasets.exists("tabletop")))
  func scoresTheTabletopSession() throws {
    let folder = RecordingFixtures.temporaryFolder("arsim-eval")
    let json = folder + "/report.json"
    let markdown = folder + "/report.md"
    let trace = folder + "/gravity.txt"
    let result = try CLI.run([
      "eval", Datasets.path("tabletop"), "--json", json, "--markdown", markdown, "--gravity-trace", trace,
    ])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("ATE (SE(3)): rmse"))
    #expect(result.stdout.contains("planes: precision"))
    #expect(result.stdout.contains("raycasts: "))
    #expect(result.stderr.contains("replay: "))
    let files = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
    #expect(files == ["gravity.txt", "report.json", "report.md"])

    let data = try #require(FileManager.default.contents(atPath: json))
    let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    #expect(root["format"] as? String == "arsim-eval")
    let recordings = try #require(root["recordings"] as? [[String: Any]])
    #expect(recordings.count == 1)
    let recording = recordings[0]
    #expect(recording["mode"] as? String == "rgbd")

    let tracking = try #require(recording["tracking"] as? [String: Any])
    let ate = try #require(tracking["ate"] as? [String: Any])
    let ateRMSE = try #require(ate["rmse"] as? Double)
    #expect(ateRMSE > 0 && ateRMSE < 0.02)
    #expect(tracking["alignment"] as? String == "se3")
    #expect((tracking["trackedFraction"] as? Double ?? 0) > 0.8)
    let states = try #require(tracking["states"] as? [[String: Any]])
    #expect(states.last?["state"] as? String == "normal")
    #expect(tracking["rpe"] is [String: Any])
    // The trace has a line per frame with a pose; the report's gravity median is over its frames
    // after the first second, as delivered.
    let gravity = try #require(tracking["gravityErrorDegrees"] as? [String: Any])
    let lines = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
    #expect(lines.first == "# timestamp delivered_degrees final_degrees")
    let rows = lines.dropFirst().map { $0.split(separator: " ").compactMap { Double($0) } }
    #expect(rows.allSatisfy { $0.count == 3 })
    let first = try #require(rows.first?.first)
    let delivered = rows.filter { $0[0] - first >= 1 }.map { $0[1] }.sorted()
    #expect(delivered.count == gravity["count"] as? Int)
    let median =
      delivered.count % 2 == 1
      ? delivered[delivered.count / 2]
      : (delivered[delivered.count / 2 - 1] + delivered[delivered.count / 2]) / 2
    #expect(abs(median - (gravity["median"] as? Double ?? -1)) < 2e-4, "\(median)")

    let planes = try #require(recording["planes"] as? [String: Any])
    #expect((planes["recall"] as? Double ?? 0) >= 0.5)
    #expect((planes["precision"] as? Double ?? 0) >= 0.5)
    let angle = try #require(planes["angleErrorDegrees"] as? [String: Any])
    #expect((angle["median"] as? Double ?? 99) < 5)
    let offset = try #require(planes["offsetError"] as? [String: Any])
    #expect((offset["median"] as? Double ?? 1) < 0.05)
    let references = try #require(planes["references"] as? [[String: Any]])
    #expect(references.map { $0["label"] as? String } == ["floor", "table"])
    // The table is seen whole; its best anchor covers most of it.
    let table = references[1]
    #expect(table["seenWhole"] as? Bool == true)
    #expect((table["iou"] as? Double ?? 0) > 0.5)
    #expect((table["timeToFirstDetection"] as? Double ?? 99) < 5)
    for key in [
      "iou", "unionIoU", "seenWholeIoU", "timeToFirstDetection", "classificationAccuracy", "detected",
    ] {
      #expect(planes[key] != nil, "planes.\(key)")
    }

    let raycasts = try #require(recording["raycasts"] as? [String: Any])
    #expect((raycasts["taps"] as? Int ?? 0) >= 10)
    #expect((raycasts["hitRate"] as? Double ?? 0) >= 0.5)
    let world = try #require(raycasts["worldError"] as? [String: Any])
    #expect((world["median"] as? Double ?? 1) < 0.05)
    #expect(world["p90"] is Double)
    #expect(raycasts["cameraError"] is [String: Any])

    let batch = try #require(root["batch"] as? [String: Any])
    let metrics = try #require(batch["metrics"] as? [[String: Any]])
    #expect(metrics.contains { $0["key"] as? String == "plane_recall" })

    let report = try String(contentsOfFile: markdown, encoding: .utf8)
    #expect(report.contains("## " + Datasets.path("tabletop")))
    #expect(report.contains("| plane | label |"))
    #expect(report.contains("### Raycasts"))
  }

  @Test func badInputIsReportedBeforeReplaying() throws {
    let missing = try CLI.run(["eval"])
    #expect(missing.status == 2)
    #expect(missing.stderr.contains("missing RECORDING"))

    let folder = try RecordingFixtures.writeARSim(frames: 2)
    let unwritable = try CLI.run(["eval", folder, "--json", folder + "/no/such/folder/report.json"])
    #expect(unwritable.status == 2)
    #expect(unwritable.stderr.contains("report.json: cannot be written"))
    #expect(!unwritable.stderr.contains("replay: "))

    try "# timestamp u v frame wx wy wz planeId\n0.1 2 3 0 1 2\n".write(
      toFile: folder + "/taps.txt", atomically: true, encoding: .utf8)
    let badTaps = try CLI.run(["eval", folder])
    #expect(badTaps.status == 1)
    #expect(
      badTaps.stderr.hasSuffix(
        "\(folder)/taps.txt:2: expected 'timestamp u v frame wx wy wz planeId', got 6 fields\n"))
  }

  @Test func aGravityTraceTakesOneRecording() throws {
    let folder = try RecordingFixtures.writeARSim(frames: 3)
    let result = try CLI.run(["eval", folder, folder, "--gravity-trace", folder + "/trace.txt"])
    #expect(result.status == 2)
    #expect(result.stderr.contains("--gravity-trace takes one RECORDING"))
  }

  @Test func aGlobOfDatasetsSkipsWhatIsNotARecording() throws {
    let folder = try RecordingFixtures.writeARSim(frames: 3)
    let result = try CLI.run(["eval", Datasets.path("README.md"), Datasets.path("scenes"), folder])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.contains("skipping \(Datasets.path("README.md")): is a file"))
    #expect(result.stderr.contains("skipping \(Datasets.path("scenes")): not a recording"))
    #expect(result.stdout.contains("recording: \(folder)"))
    let none = try CLI.run(["eval", Datasets.path("README.md"), Datasets.path("scenes")])
    #expect(none.status != 0)
    #expect(none.stderr.contains("none of the paths given is a recording"))
  }

  @Test func helpDocumentsTheReportOptions() throws {
    let result = try CLI.run(["eval", "--help"])
    #expect(result.status == 0)
    for option in [
      "--json FILE", "--markdown FILE", "--target", "--alignment", "--planes", "--trajectory",
      "--gravity-trace",
    ] {
      #expect(result.stdout.contains(option), "\(option)")
    }
  }
}
