import Foundation
import Testing

@testable import ARSimEval

@Suite struct TrajectoryFormatTests {
  @Test func readsTUMWithCommentsAndNormalisesQuaternions() throws {
    let text = """
      # ground truth trajectory
      # timestamp tx ty tz qx qy qz qw

      1305031102.1758 1.3405 0.6266 1.6575 0.6574 0.6126 -0.2949 -0.3248
      1305031102.2 1 2 3 0 0 0 2
      """
    let t = try Trajectory(tumText: text, source: "gt.txt")
    #expect(t.count == 2)
    #expect(t.timestamps == [1_305_031_102.1758, 1_305_031_102.2])
    #expect(t.poses[1].translation == SIMD3(1, 2, 3))
    #expect(t.poses[1].rotation.vector == SIMD4(0, 0, 0, 1))
    #expect(abs(t.poses[0].rotation.length - 1) < 1e-15)
  }

  @Test func malformedLinesNameFileAndLine() {
    let cases: [(String, String)] = [
      (
        "# c\n1 2 3 4 5 6 7 8\n1 2 3\n",
        "gt.txt:3: expected 8 numbers (timestamp tx ty tz qx qy qz qw), found 3"
      ),
      ("1 2 3 4 5 6 7 x\n", "gt.txt:1: 'x' is not a finite number"),
      ("1 2 3 4 0 0 0 0\n", "gt.txt:1: the quaternion is zero"),
      ("1 2 3 4 5 6 7 nan\n", "gt.txt:1: 'nan' is not a finite number"),
    ]
    for (text, message) in cases {
      #expect {
        try Trajectory(tumText: text, source: "gt.txt")
      } throws: { error in
        (error as? EvaluationError)?.description == message
          && (error as? EvaluationError)?.code == .malformedInput
      }
    }
    #expect {
      try Trajectory(kittiText: "1 0 0 0 0 1 0 0 0 0 1 0\n1 0 0 0 0 1 0 0 0 0 1\n", source: "poses.txt")
    } throws: { error in
      (error as? EvaluationError)?.description
        == "poses.txt:2: expected 12 numbers (a 3x4 pose matrix, row-major), found 11"
    }
    #expect {
      try Trajectory(kittiText: "2 0 0 0 0 1 0 0 0 0 1 0\n", source: "poses.txt")
    } throws: { error in
      (error as? EvaluationError)?.line == 1
    }
    #expect {
      try Trajectory(eurocText: "#timestamp,p\n1403715524907143168,0.5,1.9,0.9,1,0,0\n", source: "data.csv")
    } throws: { error in
      (error as? EvaluationError)?.file == "data.csv" && (error as? EvaluationError)?.line == 2
    }
  }

  @Test func readsKITTIWithAndWithoutTimes() throws {
    // A 90° turn about y (camera yaw in KITTI's y-down frame) and a translation of (1, 2, 3).
    let text = """
      1 0 0 0 0 1 0 0 0 0 1 0
      0 0 1 1 0 1 0 2 -1 0 0 3
      """
    let indexed = try Trajectory(kittiText: text)
    #expect(indexed.timestamps == [0, 1])
    #expect(indexed.poses[1].translation == SIMD3(1, 2, 3))
    // The rotation maps the camera's z axis (forward) to world x.
    #expect(simd_length(indexed.poses[1].rotate(SIMD3(0, 0, 1)) - SIMD3(1, 0, 0)) < 1e-15)
    let times = try Trajectory.parseTimestamps("0.0\n1.037359e-01\n", source: "times.txt")
    let timed = try Trajectory(kittiText: text, timestamps: times)
    #expect(timed.timestamps == [0, 0.1037359])
    #expect(throws: EvaluationError.self) { try Trajectory(kittiText: text, timestamps: [0]) }
    // The 13-column variant with a leading timestamp.
    let leading = try Trajectory(kittiText: "0.5 1 0 0 4 0 1 0 5 0 0 1 6\n")
    #expect(leading.timestamps == [0.5])
    #expect(leading.poses[0].translation == SIMD3(4, 5, 6))
  }

  @Test func readsEuRoCConvertingNanoseconds() throws {
    let text = """
      #timestamp, p_RS_R_x [m], p_RS_R_y [m], p_RS_R_z [m], q_RS_w [], q_RS_x [], q_RS_y [], q_RS_z []
      1403715524907143168,0.515356,1.996773,0.971104,0.161996,0.789985,-0.205376,0.554528,-0.002276
      1403715524912143104,0.515342,1.996723,0.971077,1,0,0,0
      """
    let t = try Trajectory(eurocText: text)
    #expect(t.count == 2)
    #expect(abs(t.timestamps[0] - 1_403_715_524.907_143_168) < 1e-6)
    #expect(abs((t.timestamps[1] - t.timestamps[0]) - 0.005) < 1e-6)
    #expect(t.poses[0].translation == SIMD3(0.515356, 1.996773, 0.971104))
    // q_w first in the file; real part last in memory.
    let q = simd_quatd(ix: 0.789985, iy: -0.205376, iz: 0.554528, r: 0.161996).normalized
    #expect(simd_length(t.poses[0].rotation.vector - q.vector) < 1e-15)
    #expect(t.poses[1].rotation.vector == SIMD4(0, 0, 0, 1))
  }

  @Test func tumAndKITTITextRoundTrip() throws {
    let original = wanderingTrajectory(count: 25, start: 1_305_031_102.160407)
    let tum = try Trajectory(tumText: original.tumText)
    #expect(tum.timestamps == original.timestamps)
    #expect(tum.positions == original.positions)
    for (a, b) in zip(tum.poses, original.poses) {
      #expect(simd_length(a.rotation.vector - b.rotation.vector) < 1e-15)
    }
    let kitti = try Trajectory(kittiText: original.kittiText, timestamps: original.timestamps)
    #expect(kitti.positions == original.positions)
    for (a, b) in zip(kitti.poses, original.poses) {
      #expect(abs(abs(simd_dot(a.rotation.vector, b.rotation.vector)) - 1) < 1e-14)
    }
  }

  @Test func filesRoundTripAndMissingFilesNameThePath() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "ARSimEvalTests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let original = wanderingTrajectory(count: 10)
    let tumURL = directory.appendingPathComponent("estimate.txt")
    try original.writeTUM(to: tumURL)
    let read = try Trajectory(contentsOf: tumURL, format: .tum)
    #expect(read.timestamps == original.timestamps)
    #expect(read.positions == original.positions)
    let kittiURL = directory.appendingPathComponent("poses.txt")
    let timesURL = directory.appendingPathComponent("times.txt")
    try original.writeKITTI(to: kittiURL, timesURL: timesURL)
    let kitti = try Trajectory(contentsOf: kittiURL, format: .kitti, timesURL: timesURL)
    #expect(kitti.timestamps == original.timestamps)
    #expect(kitti.positions == original.positions)
    let missing = directory.appendingPathComponent("missing.txt")
    #expect {
      try Trajectory(contentsOf: missing, format: .tum)
    } throws: { error in
      (error as? EvaluationError)?.code == .fileAccess && (error as? EvaluationError)?.file == missing.path
    }
  }
}
