import ARSim
import ARSimTestSupport
import Foundation
import Testing

@Suite struct ARSimRecordingTests {
  @Test func roundTripKeepsEveryFrame() throws {
    let folder = try RecordingFixtures.writeARSim(frames: 5)
    var options = FrameSourceOptions()
    options.decodeColor = true
    let frames = try RecordingFixtures.readAll(folder, options: options)
    let grayOnly = try RecordingFixtures.readAll(folder, options: FrameSourceOptions())
    #expect(frames.count == 5)
    for (i, frame) in frames.enumerated() {
      // Tracking reads the same grey image whether or not colour is asked for; the colour is
      // decoded only when first read, and then exactly.
      #expect(frame.image == grayOnly[i].image)
      if case .rgb = frame.image { Issue.record("frame \(i) was decoded in colour before it was read") }
      #expect(frame.deferredColor?.isDecoded == false)
      // PNG is lossless: the colour image comes back exactly (compared without printing pixels).
      let exact = frame.capturedImage == .rgb(RecordingFixtures.image(frame: i))
      #expect(frame.index == i)
      #expect(abs(frame.timestamp - (1.0 + Double(i) * 0.1)) < 1e-6)
      #expect(exact)
      #expect(frame.deferredColor?.isDecoded == true)
      let depth = try #require(frame.depth)
      let expected = RecordingFixtures.depth(frame: i)
      #expect(depth.metres[0].isNaN)
      for k in 1..<depth.metres.count { #expect(abs(depth.metres[k] - expected.metres[k]) <= 0.0005) }
      #expect(frame.imu.count == 10)
      #expect(
        frame.imu.allSatisfy { $0.timestamp <= frame.timestamp && $0.timestamp > frame.timestamp - 0.1 })
      let truth = try #require(frame.groundTruth)
      let known = RecordingFixtures.pose(frame: i)
      #expect(simd_length(truth.translation - known.translation) < 1e-6)
      #expect(abs(simd_dot(truth.rotation.vector, known.rotation.vector)) > 1 - 1e-9)
    }
  }

  @Test func infoDescribesTheRecording() throws {
    let folder = try RecordingFixtures.writeARSim(frames: 3)
    let source = try Recording.open(folder: folder)
    #expect(source.info.format == .arsim)
    #expect(source.info.frameCount == 3)
    #expect(source.info.intrinsics == RecordingFixtures.intrinsics)
    #expect(
      source.info.hasDepth && source.info.hasAccelerometer && source.info.hasGyroscope
        && source.info.hasGroundTruth)
    #expect(source.info.groundTruthGravity == SIMD3(0, -1, 0))
  }

  @Test func grayDecodingIsTheDefault() throws {
    let folder = try RecordingFixtures.writeARSim(frames: 1)
    let frame = try #require(try RecordingFixtures.readAll(folder).first)
    guard case .gray(let gray) = frame.image else {
      Issue.record("expected a grey image")
      return
    }
    #expect(maxDifference(gray, RecordingFixtures.image(frame: 0).gray) <= 1)
  }

  @Test func jpegFramesDecode() throws {
    let folder = try RecordingFixtures.writeARSim(frames: 2, encoding: .jpeg(quality: 95))
    let frames = try RecordingFixtures.readAll(folder)
    #expect(frames.count == 2)
    let expected = RecordingFixtures.image(frame: 1).gray.pixels
    let got = try #require(frames[1].image).gray.pixels
    let meanError = zip(expected, got).map { abs(Int($0) - Int($1)) }.reduce(0, +) / expected.count
    #expect(meanError < 6)
  }

  @Test func intrinsicsOverrideKeepsTheImageSize() throws {
    let folder = try RecordingFixtures.writeARSim(frames: 1)
    var options = FrameSourceOptions()
    options.intrinsicsOverride = try CameraIntrinsics.parse("50,51,16,12", source: "--intrinsics")
    let source = try Recording.open(folder: folder, options: options)
    #expect(source.info.intrinsics == CameraIntrinsics(fx: 50, fy: 51, cx: 16, cy: 12, width: 32, height: 24))
    #expect(source.info.intrinsicsSource == "--intrinsics")
  }
}

@Suite struct TUMRecordingTests {
  @Test func readsTheLayoutAsIs() throws {
    let folder = try RecordingFixtures.writeTUM(frames: 4)
    let frames = try RecordingFixtures.readAll(folder)
    #expect(frames.count == 4)
    for (i, frame) in frames.enumerated() {
      #expect(abs(frame.timestamp - (100.0 + Double(i) * 0.1)) < 1e-9)
      #expect(maxDifference(try #require(frame.image).gray, RecordingFixtures.image(frame: i).gray) <= 1)
      let depth = try #require(frame.depth, "depth 5 ms away is associated")
      #expect(abs(depth.metres[5] - RecordingFixtures.depth(frame: i).metres[5]) < 0.0003)
      #expect(depth.metres[0].isNaN)
      #expect(frame.imu.count == 1)
      #expect(frame.imu.first?.acceleration == SIMD3(0, -9.81, 0))
      #expect(frame.groundTruth != nil)
    }
    let source = try Recording.open(folder: folder)
    #expect(source.info.format == .tum)
    #expect(source.info.intrinsicsSource == "intrinsics.txt")
  }

  @Test func depthOutsideTheWindowIsNotAssociated() throws {
    let folder = try RecordingFixtures.writeTUM(frames: 2)
    var index = try String(contentsOfFile: folder + "/depth.txt", encoding: .utf8)
    // Move the second depth image 30 ms away from its colour image.
    index = index.replacingOccurrences(of: "100.105000 depth", with: "100.130000 depth")
    try index.write(toFile: folder + "/depth.txt", atomically: true, encoding: .utf8)
    let frames = try RecordingFixtures.readAll(folder)
    #expect(frames[0].depth != nil)
    #expect(frames[1].depth == nil)
  }

  @Test func presetIntrinsicsMustFitTheImages() throws {
    let folder = try RecordingFixtures.writeTUM(frames: 1, sidecar: false)
    #expect {
      try Recording.open(folder: folder)
    } throws: { error in
      "\(error)".contains("freiburg1 preset is for 640x480")
    }
    var options = FrameSourceOptions()
    options.intrinsicsOverride = try CameraIntrinsics.parse("40,40,15.5,11.5", source: "--intrinsics")
    #expect(try Recording.open(folder: folder, options: options).info.intrinsics.width == 32)
  }

  @Test func publishedPresets() {
    #expect(CameraIntrinsics.tumPreset("freiburg1")?.fx == 517.3)
    #expect(CameraIntrinsics.tumPreset("freiburg2")?.cy == 249.7)
    #expect(CameraIntrinsics.tumPreset("freiburg3")?.fy == 539.2)
    #expect(CameraIntrinsics.tumPreset("freiburg4") == nil)
  }
}

/// Every kind of bad input gets a one-line error naming the file (and line) and the problem.
@Suite struct BadRecordingTests {
  /// Opens and reads all of `folder`, returning the error's text.
  func failure(_ folder: String, options: FrameSourceOptions = FrameSourceOptions()) -> String? {
    do {
      _ = try RecordingFixtures.readAll(folder, options: options)
      return nil
    } catch {
      let text = "\(error)"
      #expect(!text.contains("\n"), "errors are one line")
      return text
    }
  }

  func replace(_ file: String, _ old: String, _ new: String) throws {
    let text = try String(contentsOfFile: file, encoding: .utf8)
    #expect(text.contains(old))
    try text.replacingOccurrences(of: old, with: new).write(toFile: file, atomically: true, encoding: .utf8)
  }

  @Test func missingFrameFile() throws {
    let folder = try RecordingFixtures.writeARSim(frames: 3)
    try FileManager.default.removeItem(atPath: folder + "/rgb/000001.png")
    let error = try #require(failure(folder))
    #expect(error.hasSuffix("rgb/000001.png: no such file (listed in \(folder)/frames.txt line 3)"))
  }

  @Test func corruptImage() throws {
    let folder = try RecordingFixtures.writeARSim(frames: 2)
    try Data((0..<500).map { UInt8(truncatingIfNeeded: $0 &* 37) }).write(
      to: URL(fileURLWithPath: folder + "/rgb/000001.png"))
    let error = try #require(failure(folder))
    #expect(error.hasPrefix(folder + "/rgb/000001.png: "))
  }

  @Test func truncatedPNG() throws {
    let folder = try RecordingFixtures.writeARSim(frames: 2)
    let path = folder + "/rgb/000001.png"
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    try data.prefix(data.count - 30).write(to: URL(fileURLWithPath: path))
    let error = try #require(failure(folder))
    #expect(error.hasPrefix(path + ": "))
    #expect(error.contains("truncated"))
  }

  @Test func truncatedJPEG() throws {
    let folder = try RecordingFixtures.writeARSim(frames: 2, encoding: .jpeg(quality: 90))
    let path = folder + "/rgb/000001.jpg"
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: path))
    let error = try #require(failure(folder))
    #expect(error.hasPrefix(path + ": "))
    #expect(error.contains("truncated"))
  }

  @Test func malformedIndexLine() throws {
    let folder = try RecordingFixtures.writeARSim(frames: 3)
    try replace(folder + "/frames.txt", "1.100000 rgb/000001.png", "1.100000rgb/000001.png")
    let error = try #require(failure(folder))
    #expect(error == "\(folder)/frames.txt:3: expected 'timestamp image depth [confidence]', got 2 fields")
  }

  @Test func badTimestampField() throws {
    let folder = try RecordingFixtures.writeARSim(frames: 3)
    try replace(folder + "/frames.txt", "1.100000 rgb", "1.1x rgb")
    #expect(failure(folder) == "\(folder)/frames.txt:3: timestamp '1.1x' is not a finite number")
  }

  @Test func nonMonotonicTimestamps() throws {
    let folder = try RecordingFixtures.writeARSim(frames: 3)
    try replace(folder + "/frames.txt", "1.200000 rgb", "1.050000 rgb")
    #expect(failure(folder) == "\(folder)/frames.txt:4: timestamp 1.05 is not after the previous frame's 1.1")
  }

  @Test func repeatedFrame() throws {
    let folder = try RecordingFixtures.writeTUM(frames: 3)
    try replace(folder + "/rgb.txt", "100.200000 rgb/100.200000.png", "100.100000 rgb/100.100000.png")
    let error = try #require(failure(folder))
    #expect(error.hasPrefix("\(folder)/rgb.txt:5: timestamp 100.1 is not after"))
  }

  @Test func depthOfTheWrongSize() throws {
    let folder = try RecordingFixtures.writeARSim(frames: 2)
    try ImageCodec.writeDepth16(
      width: 16, height: 12, values: [UInt16](repeating: 1000, count: 16 * 12),
      to: folder + "/depth/000001.png")
    #expect(
      failure(folder) == "\(folder)/depth/000001.png: depth image is 16x12 but the colour image is 32x24")
  }

  @Test func imageOfTheWrongSize() throws {
    let folder = try RecordingFixtures.writeARSim(frames: 2)
    try ImageCodec.write(
      RecordingFixtures.image(frame: 1, width: 20, height: 10), to: folder + "/rgb/000001.png", quality: 3)
    #expect(failure(folder) == "\(folder)/rgb/000001.png: image is 20x10 but the intrinsics are for 32x24")
  }

  @Test func intrinsicsThatAreNotFourPositiveNumbers() throws {
    for text in ["1,2,3", "500,500,-1,240", "a,b,c,d", "500,nan,320,240", ""] {
      #expect(throws: RecordingError.self) { try CameraIntrinsics.parse(text, source: "--intrinsics") }
    }
    let folder = try RecordingFixtures.writeARSim(frames: 1)
    try replace(folder + "/session.json", "\"fx\" : 40", "\"fx\" : -40")
    #expect(
      failure(folder)?.hasPrefix("\(folder)/session.json: intrinsics must be four finite numbers") == true)
  }

  @Test func intrinsicsThatDoNotFitTheImage() throws {
    let folder = try RecordingFixtures.writeARSim(frames: 1)
    var options = FrameSourceOptions()
    options.intrinsicsOverride = try CameraIntrinsics.parse("525,525,319.5,239.5", source: "--intrinsics")
    #expect(
      failure(folder, options: options)
        == "--intrinsics: principal point (319.5, 239.5) lies outside the 32x24 image")
  }

  @Test func emptyRecording() throws {
    let folder = try RecordingFixtures.writeARSim(frames: 1)
    try "# timestamp image depth\n".write(toFile: folder + "/frames.txt", atomically: true, encoding: .utf8)
    #expect(failure(folder) == "\(folder)/frames.txt: the recording has no frames")
    let tum = try RecordingFixtures.writeTUM(frames: 1)
    try "# nothing\n\n".write(toFile: tum + "/rgb.txt", atomically: true, encoding: .utf8)
    #expect(failure(tum) == "\(tum)/rgb.txt: the recording has no frames")
  }

  @Test func brokenSessionDescription() throws {
    let folder = try RecordingFixtures.writeARSim(frames: 1)
    try replace(folder + "/session.json", "\"depthScale\"", "\"depthScal\"")
    #expect(failure(folder) == "\(folder)/session.json: missing key 'depthScale'")
    try "{ not json".write(toFile: folder + "/session.json", atomically: true, encoding: .utf8)
    #expect(failure(folder) == "\(folder)/session.json:1: not valid JSON: expected a key")
  }

  @Test func readoutTimeIsReadAndChecked() throws {
    let folder = try RecordingFixtures.writeARSim(frames: 1)
    #expect(try Recording.open(folder: folder).info.readoutTime == nil, "a global shutter unless stated")
    try replace(folder + "/session.json", "\"depthScale\"", "\"readoutTime\": 0.02, \"depthScale\"")
    #expect(try Recording.open(folder: folder).info.readoutTime == 0.02)
    try replace(folder + "/session.json", "\"readoutTime\": 0.02", "\"readoutTime\": 0.5")
    #expect(failure(folder) == "\(folder)/session.json: readoutTime 0.5 s is outside 0...0.1")
  }

  @Test func notARecording() throws {
    let folder = RecordingFixtures.temporaryFolder()
    #expect(
      failure(folder)?.hasSuffix(
        "not a recording: none of session.json (ARSim), rgb.txt (TUM), odometry.csv (Stray Scanner), "
          + "metadata.json (Record3D), lowres_wide.traj (ARKitScenes), frame_00000.json (3D Scanner App) "
          + "is there")
        == true)
    #expect(failure(folder + "/absent") == "\(folder)/absent: no such folder")
  }

  @Test func nonMonotonicIMU() throws {
    let folder = try RecordingFixtures.writeARSim(frames: 2)
    try replace(folder + "/imu.txt", "0.920000 ", "0.900000 ")
    let error = try #require(failure(folder))
    #expect(error.hasPrefix("\(folder)/imu.txt:3: timestamp 0.9 is not after"))
  }
}

/// Largest absolute pixel difference of two grey images of the same size (Int.max if sizes differ).
func maxDifference(_ a: GrayImage, _ b: GrayImage) -> Int {
  guard a.width == b.width, a.height == b.height else { return .max }
  return zip(a.pixels, b.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 0
}

@Suite struct VideoRecordingTests {
  /// An ARSim recording of `frames` frames whose images come from a video of `videoFrames` frames
  /// (`"video"` in session.json, `-` in the index's image column).
  func videoRecording(frames: Int, videoFrames: Int) throws -> String {
    let folder = try RecordingFixtures.writeARSim(frames: frames)
    let writer = try VideoWriter(path: folder + "/video.mp4", width: 32, height: 24, framesPerSecond: 10)
    for i in 0..<videoFrames { try writer.write(RecordingFixtures.image(frame: i)) }
    try writer.finish()
    let index = try String(contentsOfFile: folder + "/frames.txt", encoding: .utf8)
    let rewritten = index.split(separator: "\n").map { line -> String in
      guard !line.hasPrefix("#") else { return String(line) }
      let fields = line.split(separator: " ")
      return "\(fields[0]) - \(fields[2])"
    }
    try (rewritten.joined(separator: "\n") + "\n").write(
      toFile: folder + "/frames.txt", atomically: true, encoding: .utf8)
    let sessionPath = folder + "/session.json"
    var json = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: sessionPath)))
        as? [String: Any])
    json["video"] = "video.mp4"
    try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: sessionPath))
    return folder
  }

  @Test func readsImagesFromTheVideo() throws {
    let frames = try RecordingFixtures.readAll(try videoRecording(frames: 4, videoFrames: 4))
    #expect(frames.count == 4)
    for (i, frame) in frames.enumerated() {
      #expect(abs(frame.timestamp - (1.0 + Double(i) * 0.1)) < 1e-6)
      #expect(frame.depth != nil)
      // mp4v is lossy: compare with the written image on average.
      let expected = RecordingFixtures.image(frame: i).gray.pixels
      let got = try #require(frame.image).gray.pixels
      let meanError = zip(expected, got).map { abs(Int($0) - Int($1)) }.reduce(0, +) / expected.count
      #expect(meanError < 12, "frame \(i): mean difference \(meanError)")
    }
  }

  @Test func aVideoShorterThanTheIndexIsAnError() throws {
    let folder = try videoRecording(frames: 3, videoFrames: 1)
    #expect {
      try RecordingFixtures.readAll(folder)
    } throws: { error in
      "\(error)" == "\(folder)/video.mp4: video has fewer frames than the index lists"
    }
  }
}
