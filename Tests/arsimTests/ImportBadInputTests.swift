import ARSim
import ARSimTestSupport
import Foundation
import Testing

/// `arsim import` on damaged phone exports: each is refused with one line on stderr naming the
/// file (and the line or member) and the problem, and neither OUT nor OUT.partial is left behind.
@Suite struct ImportBadInputTests {
  /// One damaged export: its path and the start of the error line expected after "arsim import: ".
  struct Damaged: CustomTestStringConvertible, Sendable {
    let name: String
    let make: @Sendable () throws -> (source: String, message: String)
    var testDescription: String { name }
  }

  static let record3DFixtures = Datasets.root + "/Tests/Fixtures/record3d"

  static let cases: [Damaged] = [
    Damaged(name: "truncated zip") {
      let bytes = try #require(FileManager.default.contents(atPath: record3DFixtures + "/tiny.r3d"))
      let cut = RecordingFixtures.temporaryFolder("bad-zip") + "/cut.r3d"
      try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: cut))
      return (cut, cut + ": not a readable zip archive")
    },
    Damaged(name: "corrupt LZFSE block") {
      let bad = record3DFixtures + "/bad-depth.r3d"
      return (bad, bad + ":rgbd/1.depth: corrupt LZFSE data at byte ")
    },
    Damaged(name: "EXR of the wrong type") {
      let folder = try ImportCommandTests.generate("record3d", frames: 3)
      let exr = folder + "/depth/1.exr"
      try retypeToUInt(exr)
      return (folder, exr + ": OpenEXR depth channel 'R' holds UINT samples, not HALF or FLOAT")
    },
    Damaged(name: "odometry row referencing a missing frame") {
      let folder = try ImportCommandTests.generate("stray", frames: 5)
      try FileManager.default.removeItem(atPath: folder + "/depth/000003.png")
      return (folder, folder + "/odometry.csv:5: frame 000003 has no depth map (depth/000003.png is missing)")
    },
    Damaged(name: "unknown accelerometer units") {
      let folder = try ImportCommandTests.generate("stray", frames: 5)
      let path = folder + "/imu.csv"
      let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
      // Every reading divided by 3: a magnitude of about 1/3 g, neither g nor m/s^2.
      let scaled =
        [String(lines[0])]
        + lines.dropFirst().map { line in
          let f = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
          return ([f[0]] + f[1...3].map { "\(Double($0)! / 3)" } + f[4...]).joined(separator: ", ")
        }
      try (scaled.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
      return (folder, path + ": unknown accelerometer units: median magnitude 0.3")
    },
  ]

  /// Rewrites a depth EXR (the app's HALF channel R) with the same values as UINT samples: depth
  /// that is not floating point, of the right size.
  static func retypeToUInt(_ path: String) throws {
    let decoded = try ImageCodec.decodeFloat32(
      [UInt8](try #require(FileManager.default.contents(atPath: path))))
    let bytes = try ImageCodec.encodeEXR(
      width: decoded.width, height: decoded.height, channels: [("R", decoded.values)], type: .uint)
    try Data(bytes).write(to: URL(fileURLWithPath: path))
  }

  /// OUT under a file (`rec/odometry.csv/out`): one line naming OUT and the file in the way, not the
  /// system's bare "NSCocoaErrorDomain error 512", and nothing written.
  @Test func anOutputUnderAFileIsOneLine() throws {
    let stray = try ImportCommandTests.generate("stray", frames: 2)
    for out in [stray + "/odometry.csv/out", stray + "/odometry.csv/deeper/out"] {
      let result = try CLI.run(["import", stray, out])
      #expect(result.status != 0)
      #expect(
        result.stderr
          == "arsim import: \(out): cannot be created: \(stray)/odometry.csv is a file, not a folder\n")
    }
  }

  @Test(arguments: cases) func damagedSourceIsOneLineAndLeavesNothing(_ damaged: Damaged) throws {
    let (source, message) = try damaged.make()
    let out = RecordingFixtures.temporaryFolder("imported-bad") + "/out"
    let result = try CLI.run(["import", source, out])
    #expect(result.status != 0)
    let last = result.stderr.split(separator: "\n").last.map(String.init) ?? ""
    #expect(last.hasPrefix("arsim import: " + message), "\(result.stderr)")
    // Only progress lines (if any) come before the error.
    #expect(result.stderr.split(separator: "\n").dropLast().allSatisfy { $0.hasPrefix("import: ") })
    #expect(!FileManager.default.fileExists(atPath: out))
    #expect(!FileManager.default.fileExists(atPath: out + ".partial"))
  }
}
