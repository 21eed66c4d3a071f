import ARSimTestSupport
import Foundation
import Testing

@testable import ARSim

/// The recording cases of issue 11 (found by a mutation fuzzer): each is now a one-line error
/// naming the file (and line or key).
@Suite struct FuzzFindingTests {
  func failure(_ folder: String) -> String? {
    do {
      _ = try RecordingFixtures.readAll(folder)
      return nil
    } catch {
      #expect(!"\(error)".contains("\n"), "errors are one line")
      return "\(error)"
    }
  }

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
}
