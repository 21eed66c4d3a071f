internal import CVision

/// Reads the frames of a video file in order (FFmpeg's libavformat and libavcodec).
///
/// Owns the decoder and closes it when released. Not `Sendable`: use one reader from one
/// task at a time.
package final class VideoReader {
  /// Frame width in pixels.
  package let width: Int
  /// Frame height in pixels.
  package let height: Int
  /// Nominal frame rate in frames per second as the container states it; 0 when unknown.
  package let framesPerSecond: Double
  /// Frame count as the container reports it; may be 0 or approximate.
  package let reportedFrameCount: Int

  private let handle: OpaquePointer

  /// Opens `path`; throws `.io` when it cannot be opened.
  package init(path: String) throws(VisionError) {
    var info = cv_video_info()
    var status = cv_status()
    guard let handle = cv_video_open(path, &info, &status) else {
      throw VisionError(status)
    }
    self.handle = handle
    width = Int(info.width)
    height = Int(info.height)
    framesPerSecond = info.fps
    reportedFrameCount = Int(info.frame_count)
  }

  deinit {
    cv_video_close(handle)
  }

  /// The next frame as a gray image and its presentation time in seconds from the start of
  /// the stream (the container's timestamp, or frame index / frame rate when it has none);
  /// `nil` at the end of the stream. The grey is the decoded luma plane itself (Y' in the
  /// stream's colour matrix: BT.601 for the videos ``VideoWriter`` writes, BT.709 for an
  /// iPhone's), expanded from the limited range 16-235 when the stream uses it: no round trip
  /// through RGB.
  package func nextGrayFrame() throws(VisionError) -> (image: GrayImage, timestamp: Double)? {
    guard let (pixels, timestamp) = try read(mode: Int32(CV_DECODE_GRAY8), channels: 1) else { return nil }
    return (GrayImage(width: width, height: height, pixels: pixels), timestamp)
  }

  /// The next frame in R, G, B order (converted with the colour matrix and range the stream is
  /// tagged with; BT.601 limited range when untagged) and its presentation time in seconds;
  /// `nil` at the end.
  package func nextRGBFrame() throws(VisionError) -> (image: RGBImage, timestamp: Double)? {
    guard let (pixels, timestamp) = try read(mode: Int32(CV_DECODE_RGB8), channels: 3) else { return nil }
    return (RGBImage(width: width, height: height, pixels: pixels), timestamp)
  }

  private func read(mode: Int32, channels: Int) throws(VisionError) -> ([UInt8], Double)? {
    let count = width * height * channels
    var status = cv_status()
    var timestamp = 0.0
    var outcome: Int32 = -1
    let pixels = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
      outcome = cv_video_read(handle, mode, buffer.baseAddress, buffer.count, &timestamp, &status)
      initialized = outcome == 1 ? count : 0
    }
    switch outcome {
    case 1: return (pixels, timestamp)
    case 0: return nil
    default: throw VisionError(status)
    }
  }
}

/// Writes RGB frames to an MP4 video file: MPEG-4 Part 2 (`mp4v`) or HEVC (see ``Codec``),
/// through FFmpeg's libraries, as 8-bit 4:2:0 YUV (BT.601, limited range, tagged so).
///
/// Owns the encoder; the file is complete after `finish()` returns (or, errors unseen, when the
/// writer is released).
/// Not `Sendable`: use one writer from one task at a time.
package final class VideoWriter {
  /// Frame width in pixels.
  package let width: Int
  /// Frame height in pixels.
  package let height: Int
  /// Frame rate in frames per second; frame i is stamped i / framesPerSecond seconds.
  package let framesPerSecond: Double

  private var handle: OpaquePointer?

  /// The compression of a video. Both are lossy (8-bit 4:2:0 colour).
  package enum Codec: Sendable {
    /// MPEG-4 Part 2 (`mp4v`, a fixed quantiser of 3): fast.
    case mpeg4
    /// HEVC (`hvc1`, libx265 at constant rate factor 18), as iPhones record (H.264 `avc1` at CRF
    /// 18 where this FFmpeg has no HEVC encoder): slower than `mpeg4`, closer to the frames written.
    case hevc
  }

  /// Creates (or replaces) the video at `path`; width and height must be even. Throws `.io` when
  /// the encoder cannot be opened.
  package init(path: String, width: Int, height: Int, framesPerSecond: Double, codec: Codec = .mpeg4)
    throws(VisionError)
  {
    let w = try VisionError.int32(width, "width")
    let h = try VisionError.int32(height, "height")
    var status = cv_status()
    let c = Int32(codec == .hevc ? CV_VIDEO_CODEC_HEVC : CV_VIDEO_CODEC_MPEG4)
    guard let handle = cv_video_writer_open(path, w, h, framesPerSecond, c, &status) else {
      throw VisionError(status)
    }
    self.handle = handle
    self.width = width
    self.height = height
    self.framesPerSecond = framesPerSecond
  }

  deinit {
    if let handle { cv_video_writer_close(handle) }
  }

  /// Appends a frame; it must have the writer's size.
  package func write(_ frame: RGBImage) throws(VisionError) {
    guard let handle else { throw .invalidArgument("the video writer has already finished") }
    guard frame.width == width, frame.height == height else {
      throw .invalidArgument(
        "frame is \(frame.width) x \(frame.height) but the video is \(width) x \(height)")
    }
    var status = cv_status()
    let code = frame.pixels.withUnsafeBufferPointer { cv_video_writer_write(handle, $0.baseAddress, &status) }
    try VisionError.check(code, status)
  }

  /// Flushes the encoder and writes the file's index: the video is complete when this returns.
  /// Later writes throw; calling it again does nothing.
  package func finish() throws(VisionError) {
    guard let handle else { return }
    self.handle = nil
    var status = cv_status()
    let code = cv_video_writer_finish(handle, &status)
    cv_video_writer_close(handle)
    try VisionError.check(code, status)
  }
}
