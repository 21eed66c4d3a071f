import ARSim
import Foundation
import Testing

@Suite struct VideoTests {
  typealias Support = VisionTestSupport

  /// Frame i: a smooth colour gradient that drifts right by 4 px per frame.
  static func frame(_ index: Int, width: Int, height: Int) -> RGBImage {
    var pixels = [UInt8]()
    pixels.reserveCapacity(3 * width * height)
    for y in 0..<height {
      for x in 0..<width {
        let phase = Double(x - 4 * index) / 40
        pixels += [
          UInt8(128 + 100 * sin(phase)), UInt8(40 + y), UInt8(128 + 90 * cos(Double(y) / 25 + phase / 2)),
        ]
      }
    }
    return RGBImage(width: width, height: height, pixels: pixels)
  }

  static func meanAbsoluteDifference(_ a: [UInt8], _ b: [UInt8]) -> Double {
    Double(zip(a, b).map { abs(Int($0) - Int($1)) }.reduce(0, +)) / Double(a.count)
  }

  @Test func mp4RoundTripKeepsFramesTimestampsAndContent() throws {
    let path = Support.temporaryPath(extension: "mp4")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let width = 160
    let height = 120
    let frames = (0..<10).map { Self.frame($0, width: width, height: height) }

    let writer: VideoWriter
    do {
      writer = try VideoWriter(path: path, width: width, height: height, framesPerSecond: 10)
    } catch {
      Issue.record(
        "this OpenCV build cannot write MPEG-4 (mp4v) video; it needs the FFmpeg backend: \(error)")
      return
    }
    for frame in frames { try writer.write(frame) }
    try writer.finish()
    let late = #expect(throws: VisionError.self) { try writer.write(frames[0]) }
    #expect(late?.code == VisionError.invalidArgument.code)

    let reader = try VideoReader(path: path)
    #expect(reader.width == width && reader.height == height)
    #expect(abs(reader.framesPerSecond - 10) < 1e-6)
    var timestamps = [Double]()
    var index = 0
    while let (image, timestamp) = try reader.nextRGBFrame() {
      #expect(image.width == width && image.height == height)
      if index < frames.count {
        #expect(Self.meanAbsoluteDifference(image.pixels, frames[index].pixels) < 10)
      }
      timestamps.append(timestamp)
      index += 1
    }
    #expect(timestamps.count == 10)
    #expect(zip(timestamps, timestamps.dropFirst()).allSatisfy { $0 < $1 })
    for (i, t) in timestamps.enumerated() { #expect(abs(t - Double(i) / 10) < 1e-3) }
    #expect(try reader.nextRGBFrame() == nil)  // stays at the end

    let grayReader = try VideoReader(path: path)
    let first = try #require(try grayReader.nextGrayFrame())
    #expect(first.timestamp == 0)
    #expect(Self.meanAbsoluteDifference(first.image.pixels, frames[0].gray.pixels) < 10)
  }

  /// HEVC (Stray's video) against mp4v on the same frames: both read back with their timestamps,
  /// HEVC closer to what was written.
  @Test func hevcIsCloserToTheFramesThanMPEG4() throws {
    let (width, height) = (160, 120)
    let frames = (0..<10).map { Self.frame($0, width: width, height: height) }
    var errors: [Double] = []
    for codec in [VideoWriter.Codec.mpeg4, .hevc] {
      let path = Support.temporaryPath(extension: "mp4")
      defer { try? FileManager.default.removeItem(atPath: path) }
      let writer = try VideoWriter(
        path: path, width: width, height: height, framesPerSecond: 10, codec: codec)
      for frame in frames { try writer.write(frame) }
      try writer.finish()
      let reader = try VideoReader(path: path)
      var total = 0.0
      var count = 0
      while let (image, timestamp) = try reader.nextGrayFrame() {
        #expect(abs(timestamp - Double(count) / 10) < 1e-3)
        total += Self.meanAbsoluteDifference(image.pixels, frames[count].gray.pixels)
        count += 1
      }
      #expect(count == frames.count, "\(codec)")
      errors.append(total / Double(max(count, 1)))
    }
    #expect(errors[1] < errors[0], "mean gray error: mp4v \(errors[0]), HEVC \(errors[1])")
  }

  /// Grey frames are the decoded luma plane, expanded from the limited range: closer to the
  /// written frames' BT.601 luma than the grey of the decoded RGB (a YUV -> RGB -> grey round trip
  /// that rounds three times and clips), and within about a grey level of it at this quality.
  @Test func grayIsTheLumaPlaneNotARoundTripThroughRGB() throws {
    let (width, height) = (160, 120)
    let frames = (0..<10).map { Self.frame($0, width: width, height: height) }
    let path = Support.temporaryPath(extension: "mp4")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let writer = try VideoWriter(path: path, width: width, height: height, framesPerSecond: 10, codec: .hevc)
    for frame in frames { try writer.write(frame) }
    try writer.finish()
    let grayReader = try VideoReader(path: path)
    let rgbReader = try VideoReader(path: path)
    var (luma, roundTrip) = (0.0, 0.0)
    for frame in frames {
      let gray = try #require(try grayReader.nextGrayFrame()).image
      let rgb = try #require(try rgbReader.nextRGBFrame()).image
      luma += Self.meanAbsoluteDifference(gray.pixels, frame.gray.pixels) / Double(frames.count)
      roundTrip += Self.meanAbsoluteDifference(rgb.gray.pixels, frame.gray.pixels) / Double(frames.count)
    }
    #expect(try grayReader.nextGrayFrame() == nil)
    #expect(luma < roundTrip, "mean grey error: luma plane \(luma), through RGB \(roundTrip)")
    #expect(luma < 1.5, "mean grey error of the luma plane: \(luma)")
    print("video grey error (HEVC CRF 18): luma plane \(luma), through RGB \(roundTrip)")
  }

  @Test func errorsAreReported() throws {
    let missing = #expect(throws: VisionError.self) {
      try VideoReader(path: Support.temporaryPath(extension: "mp4"))
    }
    #expect(missing?.code == VisionError.io.code)

    let path = Support.temporaryPath(extension: "mp4")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let writer = try VideoWriter(path: path, width: 64, height: 48, framesPerSecond: 30)
    let wrongSize = #expect(throws: VisionError.self) { try writer.write(RGBImage(width: 32, height: 48)) }
    #expect(wrongSize?.code == VisionError.invalidArgument.code)

    let badRate = #expect(throws: VisionError.self) {
      try VideoWriter(path: path, width: 64, height: 48, framesPerSecond: 0)
    }
    #expect(badRate?.message.contains("fps") == true)
  }
}
