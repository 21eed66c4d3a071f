import Foundation
import Testing

@testable import ARSim

/// Readers decode a JPEG that tracking reduces at the size it is tracked at, and the full image only
/// when something reads it (``FrameSourceOptions/trackingMaxSide``).
@Suite struct TrackingSizeDecodeTests {
  typealias Support = VisionTestSupport

  static let (width, height) = (200, 160)
  static let intrinsics = CameraIntrinsics(fx: 180, fy: 180, cx: 99.5, cy: 79.5, width: width, height: height)

  static func jpeg() throws -> [UInt8] {
    let texture = Support.Texture(width: width, height: height, seed: 5).render(width: width, height: height)
    let path = Support.temporaryPath(extension: "jpg")
    defer { try? FileManager.default.removeItem(atPath: path) }
    try ImageCodec.write(texture, to: path, quality: 95)
    return try Support.bytes(at: path)
  }

  static func frame(_ image: FileImage) -> RecordedFrame {
    var frame = RecordedFrame(index: 0, timestamp: 0, image: nil, depth: nil, imu: [], groundTruth: nil)
    image.apply(to: &frame)
    return frame
  }

  @Test func aJPEGTrackingReducesIsDecodedReducedAndInFullWhenRead() throws {
    let data = try Self.jpeg()
    // Sides of 200 and 160 with at most 100 tracked: half size.
    let read = try FrameFiles.image(
      data, path: "f.jpg", color: false, intrinsics: Self.intrinsics, maxSide: 100)
    let frame = Self.frame(read)
    #expect(frame.hasImage)
    #expect(frame.storedImage == nil)
    let full = try #require(frame.deferredGray)
    #expect(!full.isDecoded)
    let reduced = try #require(frame.trackingImage)
    #expect(reduced == (try ImageCodec.decodeGray(data, reduction: 2)))
    #expect(frame.trackingImage(size: (100, 80), reduction: 2) == reduced)
    // The full image, decoded when read: the file's own full decode.
    #expect(frame.image == .gray(try ImageCodec.decodeGray(data)))
    #expect(full.isDecoded)
    // A tracker at another size reduces the full image itself.
    #expect(
      frame.trackingImage(size: (50, 40), reduction: 4) == (try ImageCodec.decodeGray(data)).reduced(by: 4))
  }

  @Test func otherImagesAreDecodedInFull() throws {
    let data = try Self.jpeg()
    // No tracking size, or one that needs no reduction: the full image, as before.
    for maxSide in [nil, 0, 200] {
      let frame = Self.frame(
        try FrameFiles.image(data, path: "f.jpg", color: false, intrinsics: Self.intrinsics, maxSide: maxSide)
      )
      #expect(frame.storedImage == .gray(try ImageCodec.decodeGray(data)))
      #expect(frame.deferredGray == nil && frame.trackingImage == nil)
    }
    // A PNG has no reduced decode.
    let path = Support.temporaryPath(extension: "png")
    defer { try? FileManager.default.removeItem(atPath: path) }
    try ImageCodec.write(try ImageCodec.decodeGray(data), to: path)
    let png = try Support.bytes(at: path)
    let frame = Self.frame(
      try FrameFiles.image(png, path: "f.png", color: false, intrinsics: Self.intrinsics, maxSide: 100))
    #expect(frame.storedImage != nil && frame.trackingImage == nil)
  }

  @Test func aBadJPEGIsAnErrorWhenReadNotWhenTracked() throws {
    let data = try Self.jpeg()
    let truncated = Array(data.prefix(data.count / 3))
    let error = #expect(throws: RecordingError.self) {
      try FrameFiles.image(
        truncated, path: "rgb/7.jpg", color: false, intrinsics: Self.intrinsics, maxSide: 100)
    }
    #expect(error?.description.hasPrefix("rgb/7.jpg: ") == true, "\(String(describing: error))")
    // A JPEG of another size than the intrinsics say.
    let small = CameraIntrinsics(fx: 90, fy: 90, cx: 49.5, cy: 39.5, width: 100, height: 80)
    let wrongSize = #expect(throws: RecordingError.self) {
      try FrameFiles.image(data, path: "rgb/8.jpg", color: false, intrinsics: small, maxSide: 50)
    }
    #expect(wrongSize?.description.contains("but the intrinsics are for 100x80") == true)
  }
}
