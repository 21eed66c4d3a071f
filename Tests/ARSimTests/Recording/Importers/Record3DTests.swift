import ARSim
import ARSimTestSupport
import Foundation
import Testing

/// Record3D exports: the `.r3d` zip made by Tools/make_record3d_fixture.py (LZFSE depth and
/// confidence from Apple's reference encoder) and the EXR+JPG folder built here from the same numbers.
@Suite struct Record3DTests {
  static let folder = Datasets.root + "/Tests/Fixtures/record3d"

  /// The depth the fixture holds: (1000 + 10 x + 5 y + frame) mm as float32, NaN at (0, 0).
  static func expectedDepth(frame: Int) -> [Float] {
    (0..<12).flatMap { y in
      (0..<16).map { x in x == 0 && y == 0 ? .nan : Float(1000 + 10 * x + 5 * y + frame) * Float(0.001) }
    }
  }

  @Test func readsTheR3DFile() throws {
    let path = Self.folder + "/tiny.r3d"
    #expect(try Recording.detectFormat(folder: path) == .record3d)
    var source = try Recording.open(folder: path)
    #expect(source.info.referenceKind == .arkit && source.info.notes.isEmpty && source.info.frameCount == 3)
    #expect(
      source.info.intrinsics == CameraIntrinsics(fx: 30, fy: 30, cx: 15.5, cy: 11.5, width: 32, height: 24))
    let depthK = try #require(source.info.depthIntrinsics)
    #expect(depthK.width == 16 && depthK.height == 12 && depthK.fx == 15 && depthK.cx == 7.5)
    for i in 0..<3 {
      let frame = try #require(try source.nextFrame())
      #expect(abs(frame.timestamp - Double(i) / 60) < 1e-12)
      let depth = try #require(frame.depth)
      #expect(depth.metres.map(\.bitPattern) == Self.expectedDepth(frame: i).map(\.bitPattern))
      let levels = (0..<12).flatMap { y in (0..<16).map { x in UInt8((x + y + i) % 3) } }
      #expect(frame.confidence?.levels == levels)
      // Camera-to-world in OpenGL axes with the identity rotation: the optical y axis points down.
      let pose = try #require(frame.groundTruth)
      #expect(simd_length(pose.translation - SIMD3(0.1 * Double(i), 1.5, 0.2)) < 1e-12)
      #expect(simd_length(pose.rotate(SIMD3(0, 1, 0)) - SIMD3(0, -1, 0)) < 1e-12)
    }
    #expect(try source.nextFrame() == nil)
  }

  @Test func readsTheEXRFolderWithAGap() throws {
    var r3d = try Recording.open(
      folder: Self.folder + "/tiny.r3d",
      options: {
        var o = FrameSourceOptions()
        o.decodeColor = true
        return o
      }())
    let out = RecordingFixtures.temporaryFolder("record3d")
    try FileManager.default.createDirectory(atPath: out + "/rgb", withIntermediateDirectories: true)
    try FileManager.default.createDirectory(atPath: out + "/depth", withIntermediateDirectories: true)
    let metadata = """
      {"w": 32, "h": 24, "dw": 16, "dh": 12, "fps": 60, "K": [30, 0, 0, 0, 30, 0, 15.5, 11.5, 1],
       "poses": [[0, 0, 0, 1, 0, 1.5, 0.2], [0, 0, 0, 1, 0.1, 1.5, 0.2], [0, 0, 0, 1, 0.2, 1.5, 0.2]],
       "frameTimestamps": [0, 0.0166666, 0.0333333]}
      """
    try metadata.write(toFile: out + "/metadata.json", atomically: true, encoding: .utf8)
    for i in 0..<3 {
      let frame = try #require(try r3d.nextFrame())
      guard i != 1, case .rgb(let rgb) = frame.capturedImage else { continue }
      try ImageCodec.write(rgb, to: out + "/rgb/\(i).jpg", quality: 95)
      let depth = try #require(frame.depth)
      try ImageCodec.writeFloat32(width: 16, height: 12, values: depth.metres, to: out + "/depth/\(i).exr")
    }
    #expect(try Recording.detectFormat(folder: out) == .record3d)
    var source = try Recording.open(folder: out)
    #expect(source.info.frameCount == 2)
    #expect(source.info.notes == ["1 of 3 frames missing from the export (gaps at 1)"])
    let first = try #require(try source.nextFrame())
    let second = try #require(try source.nextFrame())
    #expect(try source.nextFrame() == nil)
    #expect(first.depth?.metres.map(\.bitPattern) == Self.expectedDepth(frame: 0).map(\.bitPattern))
    #expect(second.depth?.metres.map(\.bitPattern) == Self.expectedDepth(frame: 2).map(\.bitPattern))
    #expect(second.timestamp == 0.0333333 && first.confidence == nil)

    // A depth EXR of the wrong type: a PNG under the name is refused with the file named.
    try ImageCodec.write(GrayImage(width: 16, height: 12, fill: 3), to: out + "/depth/wrong.png")
    try FileManager.default.removeItem(atPath: out + "/depth/2.exr")
    try FileManager.default.moveItem(atPath: out + "/depth/wrong.png", toPath: out + "/depth/2.exr")
    var damaged = try Recording.open(folder: out)
    _ = try damaged.nextFrame()
    #expect {
      _ = try damaged.nextFrame()
    } throws: { "\($0)".hasPrefix(out + "/depth/2.exr: ") && !"\($0)".contains("\n") }
  }

  @Test func damagedArchivesAreOneLineErrors() throws {
    let bytes = try #require(FileManager.default.contents(atPath: Self.folder + "/tiny.r3d"))
    let truncated = RecordingFixtures.temporaryFolder("r3d") + "/cut.r3d"
    try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: truncated))
    #expect {
      _ = try Recording.open(folder: truncated)
    } throws: { "\($0)".hasPrefix(truncated + ": not a readable zip archive") && !"\($0)".contains("\n") }

    let bad = Self.folder + "/bad-depth.r3d"
    var source = try Recording.open(folder: bad)
    _ = try source.nextFrame()
    #expect {
      _ = try source.nextFrame()
    } throws: {
      "\($0)".hasPrefix(bad + ":rgbd/1.depth: corrupt LZFSE data at byte ") && !"\($0)".contains("\n")
    }
  }

  /// The 2022 app's metadata (no dw/dh, no frameTimestamps, poses relative to initPose) over
  /// tiny.r3d's frames: depth size from the first depth member, times from fps, poses composed.
  @Test func readsThe2022Metadata() throws {
    let path = Self.folder + "/old-2022.r3d"
    var source = try Recording.open(folder: path)
    #expect(
      source.info.notes == [
        "frame times from 'fps' (60.0): the metadata has no 'frameTimestamps'",
        "poses are relative to the first camera (pose 0 is the identity): composed with 'initPose'",
        "depth size 16x12 inferred from rgbd/0.depth and the colour's aspect: the metadata has no 'dw'/'dh'",
      ])
    let depthK = try #require(source.info.depthIntrinsics)
    #expect(depthK.width == 16 && depthK.height == 12 && depthK.fx == 15 && depthK.cx == 7.5)
    let initPose = RigidTransform(
      rotation: simd_quatd(vector: SIMD4(0.08418598, 0.25783416, -0.02255757, 0.96225019)),
      translation: SIMD3(0.5, 1.4, -0.3))
    for (i, microseconds) in [0, 16667, 33333].enumerated() {
      let frame = try #require(try source.nextFrame())
      #expect(frame.timestamp == Double(microseconds) / 1e6)
      #expect(frame.depth?.metres.map(\.bitPattern) == Self.expectedDepth(frame: i).map(\.bitPattern))
      // World from the optical frame: initPose * (GL camera i) * (optical to GL: y and z flipped).
      let expected =
        initPose
        * RigidTransform(
          rotation: simd_quatd(ix: 0, iy: 0, iz: 0, r: 1), translation: SIMD3(0.1 * Double(i), 0, 0))
      let pose = try #require(frame.groundTruth)
      #expect(simd_length(pose.translation - expected.translation) < 1e-9)
      #expect(simd_length(pose.rotate(SIMD3(0, -1, 0)) - expected.rotate(SIMD3(0, 1, 0))) < 1e-9)
      #expect(simd_length(pose.rotate(SIMD3(0, 0, -1)) - expected.rotate(SIMD3(0, 0, 1))) < 1e-9)
    }
    #expect(try source.nextFrame() == nil)
  }

  /// The real 2022 export (viser's record3d_dance): refused before for its missing dw/dh; its
  /// depth size is 192x256 under 720x960 colour, frame 0 is initPose, and confidence decodes.
  @Test(.enabled(if: Datasets.sharedExists("record3d-dance"))) func readsTheDance2022Export() throws {
    var source = try Recording.open(folder: Datasets.shared + "/record3d-dance/dance.r3d")
    #expect(source.info.frameCount == 330 && source.info.frameRate == 30 && source.info.notes.count == 3)
    let depthK = try #require(source.info.depthIntrinsics)
    #expect(depthK.width == 192 && depthK.height == 256)
    for i in 0..<3 {
      let frame = try #require(try source.nextFrame())
      #expect(frame.timestamp == [0, 0.033333, 0.066667][i])
      let depth = try #require(frame.depth)
      #expect(depth.width == 192 && depth.height == 256)
      #expect(depth.metres.filter(\.isFinite).count > 192 * 256 * 9 / 10)
      let levels = try #require(frame.confidence).levels
      #expect(levels.count == 192 * 256 && levels.allSatisfy { $0 <= 2 })
      if i == 0 {
        let pose = try #require(frame.groundTruth)
        #expect(
          simd_length(pose.translation - SIMD3(0.15852826833724976, 0.528523862361908, -0.33219146728515625))
            < 1e-9)
      }
    }
  }

  /// The fuzzer's finding: a metadata member that inflates to gigabytes. Each member is refused
  /// from the size its central directory declares, before anything is inflated.
  @Test func membersLargerThanTheirContentsCanBeAreRefused() throws {
    let metadata = Self.folder + "/metadata-bomb.r3d"
    #expect((try FileManager.default.attributesOfItem(atPath: metadata)[.size] as? Int ?? .max) < 16_000)
    #expect {
      _ = try Recording.open(folder: metadata)
    } throws: {
      "\($0)" == metadata + ":metadata: declares 4194601 bytes uncompressed, more than the 1069056 that the"
        + " metadata of its 10 members can take"
    }
    let depth = Self.folder + "/depth-bomb.r3d"
    var source = try Recording.open(folder: depth)
    _ = try source.nextFrame()
    #expect {
      _ = try source.nextFrame()
    } throws: {
      "\($0)" == depth + ":rgbd/1.depth: declares 4194304 bytes uncompressed, more than the 1793 that"
        + " 16x12 float32 depth can take"
    }
  }

  /// Record3D's EXR+JPG export as the app writes it (one HALF channel named R), and the other
  /// single-channel shapes: the depth channel is read whatever its name and type.
  @Test(arguments: [
    ("R", ImageCodec.EXRSampleType.half), ("Z", .float), ("depth", .half), ("Y", .float), ("A", .half),
  ])
  func readsEXRDepthOfAnyChannelName(_ channel: String, _ type: ImageCodec.EXRSampleType) throws {
    let out = try Self.exrFolder(type: type) { _, depth in [(channel, depth)] }
    defer { try? FileManager.default.removeItem(atPath: out) }
    var source = try Recording.open(folder: out)
    for i in 0..<3 {
      let frame = try #require(try source.nextFrame())
      let expected = Self.expectedDepth(frame: i).map { type == .half && !$0.isNaN ? Float(Float16($0)) : $0 }
      #expect(frame.depth?.metres.map(\.bitPattern) == expected.map(\.bitPattern), "\(channel) frame \(i)")
    }
    #expect(try source.nextFrame() == nil)
  }

  /// Several channels: a channel named Z, D or depth wins when it is the only one; otherwise
  /// which one is depth is ambiguous, and that is one line naming the file.
  @Test func severalEXRChannelsNeedOneNamedDepth() throws {
    let named = try Self.exrFolder { _, depth in
      [("R", depth.map { $0 * 2 }), ("G", depth.map { $0 * 3 }), ("Z", depth)]
    }
    defer { try? FileManager.default.removeItem(atPath: named) }
    var source = try Recording.open(folder: named)
    let first = try #require(try source.nextFrame())
    #expect(
      first.depth?.metres.map(\.bitPattern)
        == Self.expectedDepth(frame: 0).map { $0.isNaN ? $0 : Float(Float16($0)) }.map(\.bitPattern))

    let ambiguous = try Self.exrFolder { _, depth in [("R", depth), ("G", depth)] }
    defer { try? FileManager.default.removeItem(atPath: ambiguous) }
    var both = try Recording.open(folder: ambiguous)
    #expect {
      _ = try both.nextFrame()
    } throws: {
      "\($0)" == ambiguous + "/depth/0.exr: OpenEXR image has 2 channels (G, R) and none is named Z, D or"
        + " depth: which one is depth is ambiguous (expected one channel, or one named Z, D or depth)"
    }
  }

  /// Sizes beyond what the decoders take are one line, before any size is multiplied.
  @Test func sizesBeyondTheDecodersAreRefused() throws {
    let out = try Self.exrFolder { _, depth in [("R", depth)] }
    defer { try? FileManager.default.removeItem(atPath: out) }
    let metadata = """
      {"w": 32, "h": 24, "dw": 4611686018427387904, "dh": 12, "K": [30, 0, 0, 0, 30, 0, 15.5, 11.5, 1],
       "fps": 60, "poses": [[0, 0, 0, 1, 0, 1.5, 0.2]]}
      """
    try metadata.write(toFile: out + "/metadata.json", atomically: true, encoding: .utf8)
    #expect {
      _ = try Recording.open(folder: out)
    } throws: {
      "\($0)" == out + "/metadata.json: 'dw' x 'dh' is 4611686018427387904x12, more than the 16384-pixel side"
        + " or 67108864 pixels accepted"
    }
  }

  /// An EXR+JPG folder of tiny.r3d's frames (no frameTimestamps) whose depth EXRs hold the
  /// channels `channels(frame, depth)` returns, as `type`.
  static func exrFolder(
    type: ImageCodec.EXRSampleType = .half, _ channels: (Int, [Float]) -> [(String, [Float])]
  ) throws -> String {
    var r3d = try Recording.open(
      folder: folder + "/tiny.r3d",
      options: {
        var o = FrameSourceOptions()
        o.decodeColor = true
        return o
      }())
    let out = RecordingFixtures.temporaryFolder("record3d-exr")
    try FileManager.default.createDirectory(atPath: out + "/rgb", withIntermediateDirectories: true)
    try FileManager.default.createDirectory(atPath: out + "/depth", withIntermediateDirectories: true)
    let metadata = """
      {"w": 32, "h": 24, "dw": 16, "dh": 12, "fps": 60, "K": [30, 0, 0, 0, 30, 0, 15.5, 11.5, 1],
       "poses": [[0, 0, 0, 1, 0, 1.5, 0.2], [0, 0, 0, 1, 0.1, 1.5, 0.2], [0, 0, 0, 1, 0.2, 1.5, 0.2]]}
      """
    try metadata.write(toFile: out + "/metadata.json", atomically: true, encoding: .utf8)
    for i in 0..<3 {
      let frame = try #require(try r3d.nextFrame())
      guard case .rgb(let rgb) = frame.capturedImage else { continue }
      try ImageCodec.write(rgb, to: out + "/rgb/\(i).jpg", quality: 95)
      // The app writes 0 where there is no depth.
      let depth = try #require(frame.depth).metres.map { $0.isFinite ? $0 : 0 }
      let bytes = try ImageCodec.encodeEXR(width: 16, height: 12, channels: channels(i, depth), type: type)
      try Data(bytes).write(to: URL(fileURLWithPath: out + "/depth/\(i).exr"))
    }
    return out
  }
}
