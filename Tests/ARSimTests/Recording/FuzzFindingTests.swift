import ARSimTestSupport
import Foundation
import Testing

@testable import ARSim

/// The recording cases of issue 11 (found by a mutation fuzzer): each is now a one-line error
/// naming the file (and line or key).
@Suite struct FuzzFindingTests {
  func failure(_ folder: String) -> String? { RecordingFixtures.readFailure(folder) }

  func edit(_ file: String, _ change: (String) -> String) throws {
    let text = try String(contentsOfFile: file, encoding: .utf8)
    try change(text).write(toFile: file, atomically: true, encoding: .utf8)
  }

  /// Replaces `name` in `folder` by a symbolic link to `target` (a device) or by a FIFO (nil).
  func replaceBySpecial(_ folder: String, _ name: String, _ target: String?) throws {
    let path = folder + "/" + name
    try FileManager.default.removeItem(atPath: path)
    if let target { #expect(symlink(target, path) == 0) } else { #expect(mkfifo(path, 0o644) == 0) }
  }

  @Test(arguments: ["frames.txt", "imu.txt", "groundtruth.txt"])
  func arsimTextInputsThatWouldHang(_ name: String) throws {
    for (target, problem) in [
      (nil, "is a FIFO (named pipe), expected a regular file"),
      ("/dev/zero", "is a device, expected a regular file"),
      ("/dev/urandom", "is a device, expected a regular file"),
    ] as [(String?, String)] {
      let folder = try RecordingFixtures.writeARSim(frames: 2)
      try replaceBySpecial(folder, name, target)
      #expect(failure(folder) == "\(folder)/\(name): \(problem)")
    }
  }

  @Test(arguments: ["rgb.txt", "depth.txt", "accelerometer.txt", "groundtruth.txt", "intrinsics.txt"])
  func tumTextInputsThatWouldHang(_ name: String) throws {
    for target in [nil, "/dev/zero", "/dev/urandom"] {
      let folder = try RecordingFixtures.writeTUM(frames: 2)
      try replaceBySpecial(folder, name, target)
      let error = try #require(failure(folder))
      #expect(error.hasPrefix("\(folder)/\(name): is a "), "\(error)")
    }
  }

  @Test func aVideoThatIsAFIFOIsRefused() throws {
    let folder = try RecordingFixtures.writeARSim(frames: 2)
    try edit(folder + "/session.json") {
      $0.replacingOccurrences(of: "\"version\"", with: "\"video\": \"video.mp4\", \"version\"")
    }
    #expect(mkfifo(folder + "/video.mp4", 0o644) == 0)
    #expect(failure(folder) == "\(folder)/video.mp4: video \(folder)/video.mp4 is not a regular file")
  }

  @Test func aSymlinkLoopOnAnOptionalTUMFileIsAnError() throws {
    let folder = try RecordingFixtures.writeTUM(frames: 2)
    try FileManager.default.removeItem(atPath: folder + "/groundtruth.txt")
    #expect(symlink("groundtruth.txt", folder + "/groundtruth.txt") == 0)
    #expect(failure(folder) == "\(folder)/groundtruth.txt: is a symbolic link loop")
  }

  @Test func emptyPathsInSessionJSONNameTheKey() throws {
    for key in ["frames", "imu"] {
      let folder = try RecordingFixtures.writeARSim(frames: 2)
      try edit(folder + "/session.json") {
        $0.replacingOccurrences(of: "\"\(key)\" : \"\(key).txt\"", with: "\"\(key)\" : \"\"")
      }
      #expect(failure(folder) == "\(folder)/session.json: '\(key)' must name a file, got \"\"")
    }
  }

  @Test func trailingCommaInSessionJSON() throws {
    let folder = try RecordingFixtures.writeARSim(frames: 2)
    try edit(folder + "/session.json") {
      $0.replacingOccurrences(of: "\"version\" : 1", with: "\"version\" : 1,")
    }
    let error = try #require(failure(folder))
    #expect(error.hasPrefix("\(folder)/session.json:"), "\(error)")
    #expect(error.hasSuffix(": not valid JSON: expected a key after ',' (trailing comma?)"), "\(error)")
  }

  @Test(arguments: ["1e308", "1e-300", "0", "-0.001"])
  func depthScaleOutOfBounds(_ value: String) throws {
    let folder = try RecordingFixtures.writeARSim(frames: 2)
    try edit(folder + "/session.json") {
      $0.replacingOccurrences(of: "\"depthScale\" : 0.001", with: "\"depthScale\" : \(value)")
    }
    let error = try #require(failure(folder))
    #expect(
      error.hasPrefix("\(folder)/session.json: depthScale must be in 1e-06...0.1 metres per unit, got "),
      "\(error)")
  }

  @Test func utf16IndexIsNamedAsSuch() throws {
    let folder = try RecordingFixtures.writeTUM(frames: 2)
    let text = try String(contentsOfFile: folder + "/rgb.txt", encoding: .utf8)
    try text.data(using: .utf16)!.write(to: URL(fileURLWithPath: folder + "/rgb.txt"))
    #expect(
      failure(folder) == "\(folder)/rgb.txt: is UTF-16 text; expected UTF-8 (convert it, e.g. with iconv)")
  }

  /// Lines after the last frame are read too: damage there fails the run instead of being ignored.
  @Test func streamsAreCheckedToTheEnd() throws {
    let folder = try RecordingFixtures.writeARSim(frames: 3)
    try edit(folder + "/imu.txt") { $0 + "9.5 1e308 0 0 0 0 0\n" }
    let huge = try #require(failure(folder))
    #expect(huge.hasPrefix("\(folder)/imu.txt:"), "\(huge)")
    #expect(huge.hasSuffix(": ax 1e+308 is out of range (at most 2000.0 in magnitude)"), "\(huge)")

    for name in ["imu.txt", "groundtruth.txt"] {
      let reversed = try RecordingFixtures.writeARSim(frames: 3)
      try edit(reversed + "/" + name) { text in
        let lines = text.split(separator: "\n")
        return ([lines[0]] + lines.dropFirst().reversed()).joined(separator: "\n") + "\n"
      }
      let error = try #require(failure(reversed), "reversed \(name) must fail")
      #expect(error.hasPrefix("\(reversed)/\(name):3: timestamp "), "\(error)")
      #expect(error.contains("is not after the previous"), "\(error)")
    }

    let tum = try RecordingFixtures.writeTUM(frames: 3)
    try edit(tum + "/depth.txt") { $0 + "200.5 depth/x.png\n100.0 depth/y.png\n" }
    #expect(
      failure(tum) == "\(tum)/depth.txt:6: timestamp 100.0 is not after the previous depth image's 200.5")
  }

  @Test(arguments: [("bmp", [0x42, 0x4D] as [UInt8], "BMP"), ("tiff", [0x49, 0x49, 0x2A, 0x00], "TIFF")])
  func otherFormatsNamedPNGAreRefused(_ name: String, _ magic: [UInt8], _ format: String) throws {
    let folder = try RecordingFixtures.writeARSim(frames: 2)
    let image = folder + "/rgb/000001.png"
    try Data(magic + [UInt8](repeating: 0, count: 200)).write(to: URL(fileURLWithPath: image))
    #expect(failure(folder) == "\(image): is not PNG data (its first bytes say otherwise)")
    #expect(throws: VisionError.self) { try ImageCodec.decodeGray(magic + [UInt8](repeating: 0, count: 200)) }
    do {
      _ = try ImageCodec.decodeGray(magic + [UInt8](repeating: 0, count: 200))
    } catch {
      #expect(error.message == "\(format) data; only PNG, JPEG and OpenEXR images are read")
    }
  }

  @Test func aJPEGNamedPNGIsRefused() throws {
    let folder = try RecordingFixtures.writeARSim(frames: 2, encoding: .jpeg(quality: 90))
    let jpeg = try Data(contentsOf: URL(fileURLWithPath: folder + "/rgb/000001.jpg"))
    let depth = folder + "/depth/000001.png"
    try jpeg.write(to: URL(fileURLWithPath: depth))
    #expect(failure(folder) == "\(depth): is JPEG data, but the name says PNG")
  }

  // Issue 48: Stray Scanner files and JSON.

  @Test func aStrayFolderWithoutItsCameraMatrixNamesIt() throws {
    let folder = try StrayLayout.write(from: Datasets.path("tabletop"), frames: 3)
    try FileManager.default.removeItem(atPath: folder + "/camera_matrix.csv")
    #expect(try Recording.detectFormat(folder: folder) == .stray)
    #expect(
      failure(folder)
        == "\(folder)/camera_matrix.csv: is missing: a Stray Scanner export (odometry.csv is there) needs its "
        + "3x3 camera matrix")
  }

  @Test(arguments: [
    (
      "camera_matrix.csv", 1, "1e308, 0.0, 159.5",
      ": focal lengths fx 1e+308, fy 262.5 are not within 0.05...50.0 times the 320x240 image's width and height"
    ),
    (
      "odometry.csv", 3, "1.1, 000001, 1e5, 0, 0, 0, 0, 0, 1",
      ":3: camera position 100000.0 m from the origin is beyond 10000.0 m"
    ),
    (
      "odometry.csv", 3, "1,1, 000001, 0, 0, 0, 0, 0, 0, 1",
      ":3: expected 9 comma-separated fields as the header has, got 10 (a decimal comma?)"
    ),
    ("imu.csv", 3, "0.92, 250, 0, 0, 0, 0, 0", ":3: acceleration 250 m/s^2 is beyond 20 g"),
    ("imu.csv", 3, "0.92, 0, 0, 9.8, 1000, 0, 0", ":3: rotation rate 1000 rad/s is beyond 100 rad/s"),
    ("imu.csv", 3, "-0.5, 0, 0, 9.8, 0, 0, 0", ":3: timestamp -0.5 is not in 0...100000000000.0 seconds"),
  ])
  func implausibleStrayValuesAreNamed(_ name: String, _ line: Int, _ row: String, _ problem: String) throws {
    let folder = try StrayLayout.write(from: Datasets.path("tabletop"), frames: 3)
    try edit(folder + "/" + name) { text in
      var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
      lines[line - 1] = row
      return lines.joined(separator: "\n")
    }
    #expect(failure(folder) == folder + "/" + name + problem)
  }

  /// Nesting far deeper than anything a recording holds, as a fuzzer's repeated bytes make it: one
  /// line naming the file, the line and the depth.
  @Test(arguments: ["[", "{\"a\":"])
  func deepNestingIsOneLine(_ opening: String) throws {
    let folder = try RecordingFixtures.writeARSim(frames: 2)
    let bytes = Array(String(repeating: opening + "\n", count: 200_000).utf8)
    try Data(bytes).write(to: URL(fileURLWithPath: folder + "/session.json"))
    #expect(
      failure(folder)
        == "\(folder)/session.json:\(StrictJSON.maxDepth + 1): not valid JSON: nested more than "
        + "\(StrictJSON.maxDepth) levels deep")
  }

  /// Record3D's metadata within what it holds (``ImporterFiles/record3DMetadataLimits``): 200 MB of
  /// arrays nested 250 deep made Foundation allocate 24 GB until the process was killed; now nesting
  /// past 4, more arrays than frames could need, or more bytes are one line before Foundation reads it.
  @Test func record3DMetadataIsBoundedByWhatItHolds() throws {
    let folder = RecordingFixtures.temporaryFolder("record3d")
    try FileManager.default.createDirectory(atPath: folder + "/rgb", withIntermediateDirectories: true)
    let metadata = folder + "/metadata.json"
    let head =
      #"{"w": 32, "h": 24, "dw": 16, "dh": 12, "fps": 60, "K": [30, 0, 0, 0, 30, 0, 15.5, 11.5, 1], "#
    try (head + #""poses": [[[[[0]]]]]}"#).write(toFile: metadata, atomically: true, encoding: .utf8)
    #expect(failure(folder) == "\(metadata):1: not valid JSON: nested more than 4 levels deep")
    let many = "[" + String(repeating: "[],", count: 500_000) + "[]]"
    try (head + #""poses": "# + many + "}").write(toFile: metadata, atomically: true, encoding: .utf8)
    #expect(failure(folder) == "\(metadata):1: not valid JSON: more than 500000 arrays and objects")
    let limits = StrictJSON.Limits(maxBytes: 10, maxDepth: 4, maxContainers: 10)
    #expect(throws: RecordingError(file: "m.json", "is 12 bytes, more than the 10 such a file may hold")) {
      try StrictJSON.check(Array("[1, 2, 3, 4]".utf8), path: "m.json", limits: limits)
    }
  }
}
