import ARSim
import ARSimSynth
import ARSimTestSupport
import Foundation
import Testing

/// `arsim generate --format scanner3d`: the 3D Scanner App's "All Data" layout of a synthetic
/// session reads back with the rendered ground truth, colour on every third frame only, and replays
/// (depth-only, the mode it follows) like the same session in the ARSim format.
@Suite(.serialized) struct Scanner3DLayoutTests {
  @Test func readsBackTheRenderedSessionAndReplaysLikeTheARSimFormat() throws {
    let scene = try PhoneLayoutTests.scene("room", imu: false)
    let out = try PhoneLayoutTests.generate(scene, .scanner3d)
    let arsim = try PhoneLayoutTests.generate(scene, .arsim)
    #expect(FileManager.default.fileExists(atPath: out + "/All_Data/frame_00000.jpg"))
    #expect(!FileManager.default.fileExists(atPath: out + "/All_Data/frame_00001.jpg"))
    #expect(FileManager.default.fileExists(atPath: out + "/planes.json"))
    #expect(try Recording.detectFormat(folder: out) == .scanner3d)
    var source = try Recording.open(folder: out)
    let info = source.info
    #expect(info.path == out + "/All_Data" && info.frameCount == 31)
    #expect(!info.hasImages && info.hasDepth && info.referenceKind == .arkit && !info.hasAccelerometer)
    #expect(info.intrinsics == scene.camera)
    #expect(TrackerOptions.Mode.following(info) == .depth)
    var reference = try Recording.open(folder: arsim)
    var count = 0
    while let frame = try source.nextFrame() {
      let truth = try #require(try reference.nextFrame())
      #expect(frame.timestamp == truth.timestamp)
      #expect((frame.image != nil) == (count % 3 == 0))
      // The same JPEG encoder and quality: the same pixels.
      if let image = frame.image { #expect(image == truth.image) }
      let p = try #require(frame.groundTruth)
      let q = try #require(truth.groundTruth)
      #expect(simd_length(p.translation - q.translation) < 1e-8)
      #expect(simd_length((p.inverse * q).rotation.imag) < 1e-8)
      #expect(frame.depth?.metres.map(\.bitPattern) == truth.depth?.metres.map(\.bitPattern))
      count += 1
    }
    #expect(count == 31)
    #expect(try reference.nextFrame() == nil)
    let depth = ReplayLog.difference(
      try ReplayLog.replay(out, mode: .depth), try ReplayLog.replay(arsim, mode: .depth), tolerance: 1e-6)
    #expect(depth <= 1e-6)
  }

  @Test func needsDepthAndJPEG() throws {
    var scene = try PhoneLayoutTests.scene(imu: false)
    #expect(throws: RecordingError.self) { try PhoneLayoutTests.generate(scene, .scanner3d, encoding: .png) }
    scene.sensors.depth = nil
    #expect(throws: RecordingError.self) { try PhoneLayoutTests.generate(scene, .scanner3d) }
  }
}
