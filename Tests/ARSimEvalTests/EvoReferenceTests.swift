import Foundation
import Testing

@testable import ARSimEval

/// evo's test data in the shared folder beside the repository (`../shared/datasets/evo-reference`);
/// absent in a fresh clone, where these tests are skipped.
enum EvoReference {
  /// `…/evo-reference/test/data`, found from this file's path: Tests/ARSimEvalTests/ → repository root
  /// → `../shared`.
  static let dataDirectory: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()  // ARSimEvalTests
    .deletingLastPathComponent()  // Tests
    .deletingLastPathComponent()  // repository root
    .deletingLastPathComponent()
    .appendingPathComponent("shared/datasets/evo-reference/test/data")

  /// True when the trajectories are there.
  static let isAvailable = FileManager.default.fileExists(
    atPath: dataDirectory.appendingPathComponent("KITTI_00_gt.txt").path)

  /// The unzip tool that opens evo's stored result archives.
  static let unzip = "/usr/bin/unzip"

  /// True when the stored result archives can be opened.
  static let archivesAvailable =
    isAvailable && FileManager.default.isExecutableFile(atPath: unzip)
    && FileManager.default.fileExists(
      atPath: dataDirectory.appendingPathComponent("res_files/orb_ape.zip").path)

  /// The files used here and their formats (KITTI files get the KITTI 00 times file).
  private static let files: [String: TrajectoryFormat] = [
    "KITTI_00_gt.txt": .kitti, "KITTI_00_ORB.txt": .kitti, "KITTI_00_SPTAM.txt": .kitti,
    "V102_groundtruth.csv": .euroc, "V102.txt": .tum, "fr2_desk_groundtruth.txt": .tum,
    "fr2_desk_ORB.txt": .tum, "fr2_desk_ORB_kf_mono.txt": .tum, "freiburg1_xyz-groundtruth.txt": .tum,
    "freiburg1_xyz-rgbdslam.txt": .tum, "freiburg1_xyz-rgbdslam_drift.txt": .tum,
    "freiburg1_xyz-ORB_kf_mono.txt": .tum,
  ]

  /// Every file read once (parsing is slow in debug builds), on first use.
  private static let loaded: [String: Result<Trajectory, any Error>] = {
    var result: [String: Result<Trajectory, any Error>] = [:]
    let times = dataDirectory.appendingPathComponent("KITTI_00_gt_times.txt")
    for (name, format) in files {
      result[name] = Result {
        try Trajectory(
          contentsOf: dataDirectory.appendingPathComponent(name), format: format,
          timesURL: format == .kitti ? times : nil)
      }
    }
    return result
  }()

  /// The trajectory in the file `name` (one of `files`).
  static func trajectory(_ name: String) throws -> Trajectory {
    try #require(loaded[name], "\(name) is not in the list of files").get()
  }

  /// The files of the zip archive `res_files/<name>.zip`, extracted into a fresh temporary directory
  /// that is removed after `body` returns.
  static func withArchive<T>(_ name: String, _ body: (URL) throws -> T) throws -> T {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "evo-\(name)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: unzip)
    process.arguments = [
      "-q", "-o", dataDirectory.appendingPathComponent("res_files/\(name).zip").path, "-d", directory.path,
    ]
    try process.run()
    process.waitUntilExit()
    try #require(process.terminationStatus == 0, "unzip failed on \(name).zip")
    return try body(directory)
  }

  /// The doubles of a NumPy `.npy` file holding a one-dimensional little-endian float64 array (what evo
  /// stores as `error_array.npz`).
  static func readNumPyDoubles(_ url: URL) throws -> [Double] {
    let data = try Data(contentsOf: url)
    let bytes = [UInt8](data)
    try #require(bytes.count > 10 && bytes[0] == 0x93 && Array(bytes[1...5]) == Array("NUMPY".utf8))
    let major = bytes[6]
    let headerLength: Int
    let headerStart: Int
    if major == 1 {
      headerLength = Int(bytes[8]) | Int(bytes[9]) << 8
      headerStart = 10
    } else {
      headerLength = Int(bytes[8]) | Int(bytes[9]) << 8 | Int(bytes[10]) << 16 | Int(bytes[11]) << 24
      headerStart = 12
    }
    let header = String(decoding: bytes[headerStart..<(headerStart + headerLength)], as: UTF8.self)
    try #require(header.contains("'<f8'") && header.contains("'fortran_order': False"), "\(header)")
    let payload = bytes[(headerStart + headerLength)...]
    try #require(payload.count % 8 == 0)
    return stride(from: payload.startIndex, to: payload.endIndex, by: 8).map { start in
      var bits: UInt64 = 0
      for k in 0..<8 { bits |= UInt64(payload[start + k]) << (8 * UInt64(k)) }
      return Double(bitPattern: bits)
    }
  }
}

/// evo's statistics of one result, with the number of errors.
struct EvoStatistics: Sendable {
  var rmse, mean, median, std, min, max, sse: Double
  var count: Int

  /// The largest absolute difference between these figures and ours (the counts must be equal).
  func maxDifference(to ours: ErrorStatistics) -> Double {
    let pairs = [
      (rmse, ours.rmse), (mean, ours.mean), (median, ours.median), (std, ours.std), (min, ours.min),
      (max, ours.max),
    ]
    return pairs.map { abs($0 - $1) }.max()!
  }
}

/// Which metric a figure is, with its settings.
enum EvoMetric: Sendable {
  case ape(AbsoluteErrorOptions)
  case rpe(RelativeErrorOptions)

  func statistics(reference: Trajectory, estimate: Trajectory) throws -> (ErrorStatistics, [Double]) {
    switch self {
    case .ape(let options):
      let result = try absoluteTrajectoryError(reference: reference, estimate: estimate, options: options)
      return (result.statistics, result.errors)
    case .rpe(let options):
      let result = try relativePoseError(reference: reference, estimate: estimate, options: options)
      return (result.statistics, result.errors)
    }
  }
}

/// One evo result to reproduce.
struct EvoFigure: Sendable, CustomTestStringConvertible {
  var command: String
  var reference: String
  var format: TrajectoryFormat
  var estimate: String
  var metric: EvoMetric
  var expected: EvoStatistics

  var testDescription: String { command }

  /// Our statistics for the same files and settings: TUM and EuRoC estimates are associated by time
  /// first (evo's defaults, 0.01 s), KITTI files correspond line by line.
  func reproduce() throws -> (ErrorStatistics, [Double]) {
    var reference = try EvoReference.trajectory(self.reference)
    var estimate = try EvoReference.trajectory(self.estimate)
    if format != .kitti {
      let associated = try associate(reference: reference, estimate: estimate)
      reference = associated.reference
      estimate = associated.estimate
    }
    return try metric.statistics(reference: reference, estimate: estimate)
  }
}

/// The requirement: our figures agree with evo's within 1e-4 (metres, or degrees for angles).
private let tolerance = 1e-4

@Suite(
  .enabled(
    if: EvoReference.isAvailable,
    "needs evo's test data in ../shared/datasets/evo-reference beside the repository"))
struct EvoReferenceTests {
  /// evo's stored KITTI 00 results (res_files/*.zip, made by evo in February 2018), with the settings
  /// their info.json states.
  struct StoredResult: Sendable, CustomTestStringConvertible {
    var archive: String
    var estimate: String
    var metric: EvoMetric
    /// Words the archive's info.json title must contain: they state the settings used.
    var title: [String]

    var testDescription: String { archive }
  }

  static let storedResults: [StoredResult] = [
    StoredResult(
      archive: "orb_ape", estimate: "KITTI_00_ORB.txt", metric: .ape(.init(alignment: .se3)),
      title: ["APE w.r.t. translation part (m)", "(with SE(3) Umeyama alignment)"]),
    StoredResult(
      archive: "sptam_ape", estimate: "KITTI_00_SPTAM.txt", metric: .ape(.init(alignment: .se3)),
      title: ["APE w.r.t. translation part (m)", "(with SE(3) Umeyama alignment)"]),
    // evo of 2018 measured the path on the estimate and started the first pair at the first pose
    // 10 m along it (353 and 355 pairs); current evo starts at pose 0.
    StoredResult(
      archive: "orb_rpe", estimate: "KITTI_00_ORB.txt",
      metric: .rpe(.init(delta: 10, deltaUnit: .metres, pathPairsStartAtFirstPose: false)),
      title: ["RPE w.r.t. translation part (m)", "delta = 10.0 (m) using consecutive pairs", "(not aligned)"]),
    StoredResult(
      archive: "sptam_rpe", estimate: "KITTI_00_SPTAM.txt",
      metric: .rpe(.init(delta: 10, deltaUnit: .metres, pathPairsStartAtFirstPose: false)),
      title: ["RPE w.r.t. translation part (m)", "delta = 10.0 (m) using consecutive pairs", "(not aligned)"]),
  ]

  @Test(
    .enabled(if: EvoReference.archivesAvailable, "needs /usr/bin/unzip and evo's res_files/*.zip"),
    arguments: storedResults)
  func reproducesStoredResult(_ stored: StoredResult) throws {
    let reference = try EvoReference.trajectory("KITTI_00_gt.txt")
    let estimate = try EvoReference.trajectory(stored.estimate)
    let (ours, errors) = try stored.metric.statistics(reference: reference, estimate: estimate)
    try EvoReference.withArchive(stored.archive) { directory in
      let info = try JSONDecoder().decode(
        [String: String].self, from: Data(contentsOf: directory.appendingPathComponent("info.json")))
      let title = try #require(info["title"])
      for words in stored.title { #expect(title.contains(words), "\(title)") }
      #expect(info["est_name"]?.hasSuffix(stored.estimate) == true)
      let stats = try JSONDecoder().decode(
        [String: Double].self, from: Data(contentsOf: directory.appendingPathComponent("stats.json")))
      let evoErrors = try EvoReference.readNumPyDoubles(directory.appendingPathComponent("error_array.npz"))
      let expected = EvoStatistics(
        rmse: try #require(stats["rmse"]), mean: try #require(stats["mean"]),
        median: try #require(stats["median"]), std: try #require(stats["std"]),
        min: try #require(stats["min"]),
        max: try #require(stats["max"]), sse: try #require(stats["sse"]), count: evoErrors.count)
      #expect(ours.count == expected.count)
      #expect(expected.maxDifference(to: ours) < tolerance)
      #expect(abs(ours.sse - expected.sse) < tolerance * Double(expected.count))
      // Pose by pose (pair by pair), too.
      try #require(errors.count == evoErrors.count)
      let worst = zip(errors, evoErrors).map { abs($0 - $1) }.max() ?? 0
      #expect(worst < tolerance)
    }
  }

  @Test(arguments: evoFigures)
  func reproducesEvo(_ figure: EvoFigure) throws {
    let (ours, _) = try figure.reproduce()
    #expect(ours.count == figure.expected.count)
    #expect(figure.expected.maxDifference(to: ours) < tolerance)
    #expect(abs(ours.sse - figure.expected.sse) < tolerance * Double(figure.expected.count))
  }

  @Test func realAssociationsReuseAReferencePoseOnlyForRepeatedStamps() throws {
    // As evo, a reference pose is matched twice only when two estimated poses are nearest to it; in
    // these files that happens only where V102.txt repeats a timestamp (4 lines), and evo's counts
    // above (798 for V102) include those repeats.
    let cases: [(String, String, Int)] = [
      ("fr2_desk_groundtruth.txt", "fr2_desk_ORB.txt", 0),
      ("freiburg1_xyz-groundtruth.txt", "freiburg1_xyz-rgbdslam.txt", 0),
      ("V102_groundtruth.csv", "V102.txt", 4),
    ]
    for (referenceName, estimateName, repeats) in cases {
      let estimate = try EvoReference.trajectory(estimateName)
      let repeated = zip(estimate.timestamps, estimate.timestamps.dropFirst()).filter { $0 == $1 }.count
      #expect(repeated == repeats)
      let result = try associate(
        reference: EvoReference.trajectory(referenceName), estimate: estimate)
      #expect(result.matches.count - Set(result.matches.map(\.first)).count == repeats)
      #expect(Set(result.matches.map(\.second)).count == result.matches.count)
      #expect(
        zip(result.reference.timestamps, result.estimate.timestamps).allSatisfy { abs($0 - $1) <= 0.01 })
    }
  }

  @Test func kittiPathLength() throws {
    // evo 1.38.1: `read_kitti_poses_file("KITTI_00_gt.txt").path_length` is 3724.186990597451 m.
    let gt = try EvoReference.trajectory("KITTI_00_gt.txt")
    #expect(gt.count == 4541)
    #expect(abs(gt.pathLength - 3724.186990597451) < 1e-9)
  }
}
