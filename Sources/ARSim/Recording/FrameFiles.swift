import Foundation

/// Loading of the per-frame files every reader shares: images and depth maps, with errors
/// that name the file.
enum FrameFiles {
  /// Reads a whole file's bytes.
  static func bytes(_ path: String, listedIn index: String, line: Int) throws(RecordingError) -> [UInt8] {
    let data: [UInt8]
    do {
      data = try InputFile.contents(path)
    } catch {
      throw RecordingError(file: path, "\(error.message) (listed in \(index) line \(line))")
    }
    guard !data.isEmpty else { throw RecordingError(file: path, "is empty") }
    do {
      try ImageCodec.checkFormat(data, path: path)
    } catch {
      throw RecordingError(file: path, error.message)
    }
    return data
  }

  /// Reads an image file (PNG or JPEG) for a frame and checks its size against the intrinsics: in
  /// grey, and with `color` its colour decoded when first read. With ``FrameSourceOptions/trackingMaxSide``
  /// `maxSide`, a JPEG that tracking reduces, with sides the reduction divides, is decoded reduced
  /// (libjpeg's DCT scaling, ``ImageCodec/decodeGray(_:reduction:)``: far less work than the whole
  /// image) for the frame's tracking image, and in full only when the frame's image is first read. A
  /// file that does not decode, or does not match the intrinsics, is an error here either way.
  static func image(
    _ path: String, color: Bool, intrinsics: CameraIntrinsics, maxSide: Int? = nil, listedIn index: String,
    line: Int
  ) throws(RecordingError) -> FileImage {
    let data = try bytes(path, listedIn: index, line: line)
    return try image(data, path: path, color: color, intrinsics: intrinsics, maxSide: maxSide)
  }

  /// ``image(_:color:intrinsics:maxSide:listedIn:line:)`` for a file's bytes.
  static func image(
    _ data: [UInt8], path: String, color: Bool, intrinsics: CameraIntrinsics, maxSide: Int?
  ) throws(RecordingError) -> FileImage {
    let deferredColor = color ? DeferredColorImage(path: path, bytes: data) : nil
    let reduction = TrackerOptions.reduction(
      width: intrinsics.width, height: intrinsics.height, maxSide: maxSide ?? 0)
    guard reduction > 1, intrinsics.width % reduction == 0, intrinsics.height % reduction == 0,
      data.starts(with: [0xFF, 0xD8, 0xFF])
    else {
      return FileImage(image: try grayImage(data, path: path, intrinsics: intrinsics), color: deferredColor)
    }
    let reduced: GrayImage
    do {
      reduced = try ImageCodec.decodeGray(data, reduction: reduction)
    } catch {
      throw RecordingError(file: path, error.message)
    }
    guard reduced.width * reduction == intrinsics.width, reduced.height * reduction == intrinsics.height
    else {
      throw RecordingError(
        file: path,
        "image is about \(reduced.width * reduction)x\(reduced.height * reduction) but the intrinsics are for \(intrinsics.width)x\(intrinsics.height)"
      )
    }
    return FileImage(
      image: nil, color: deferredColor, reduced: (reduced, DeferredGrayImage(path: path, bytes: data)))
  }

  /// Decodes an image file's bytes as grey and checks the size against the intrinsics.
  static func grayImage(_ data: [UInt8], path: String, intrinsics: CameraIntrinsics) throws(RecordingError)
    -> CapturedImage
  {
    let image: GrayImage
    do {
      image = try ImageCodec.decodeGray(data)
    } catch {
      throw RecordingError(file: path, error.message)
    }
    guard image.width == intrinsics.width, image.height == intrinsics.height else {
      throw RecordingError(
        file: path,
        "image is \(image.width)x\(image.height) but the intrinsics are for \(intrinsics.width)x\(intrinsics.height)"
      )
    }
    return .gray(image)
  }

  /// Decodes a 16-bit depth PNG (or a float EXR in metres) into metres (`metresPerUnit` per stored unit; 0 means unknown and
  /// becomes NaN) and checks its size against the colour image.
  static func depth(
    _ path: String, metresPerUnit: Double, intrinsics: CameraIntrinsics, listedIn index: String, line: Int
  ) throws(RecordingError) -> DepthImage {
    try depthFile(path, metresPerUnit: metresPerUnit, intrinsics: intrinsics, listedIn: index, line: line)
      .depth
  }

  /// ``depth(_:metresPerUnit:intrinsics:listedIn:line:)`` with the file's bytes.
  static func depthFile(
    _ path: String, metresPerUnit: Double, intrinsics: CameraIntrinsics, listedIn index: String, line: Int
  ) throws(RecordingError) -> (depth: DepthImage, bytes: [UInt8]) {
    let data = try bytes(path, listedIn: index, line: line)
    let depth: DepthImage
    do {
      if path.lowercased().hasSuffix(".exr") {
        // Metres as 32-bit floats (lossless depth from phone apps); 0, negative or NaN = unknown.
        let raw = try ImageCodec.decodeFloat32(data)
        depth = DepthImage(
          width: raw.width, height: raw.height, metres: converted(raw.values) { $0 > 0 ? $0 : .nan })
      } else {
        let raw = try ImageCodec.decodeDepth16(data)
        let scale = Float(metresPerUnit)
        depth = DepthImage(
          width: raw.width, height: raw.height,
          metres: converted(raw.values) { $0 == 0 ? Float.nan : Float($0) * scale })
      }
    } catch {
      throw RecordingError(file: path, error.message)
    }
    guard depth.width == intrinsics.width, depth.height == intrinsics.height else {
      throw RecordingError(
        file: path,
        "depth image is \(depth.width)x\(depth.height) but the colour image is \(intrinsics.width)x\(intrinsics.height)"
      )
    }
    return (depth, data)
  }

  /// `values` converted one by one into a new array: `map`'s result, in a loop over raw buffers that
  /// the compiler vectorises (a tenth of `map`'s time on a 640x480 depth map, on the reading thread).
  @inline(__always)
  private static func converted<T>(_ values: [T], _ convert: (T) -> Float) -> [Float] {
    [Float](unsafeUninitializedCapacity: values.count) { output, count in
      values.withUnsafeBufferPointer { input in
        for i in input.indices { output[i] = convert(input[i]) }
      }
      count = values.count
    }
  }

  /// Resolves a path listed in an index file against the recording folder.
  static func resolve(_ listed: Substring, in folder: String) -> String {
    listed.hasPrefix("/") ? String(listed) : folder + "/" + listed
  }

  /// The next frame of a video, or an error naming the video when it has ended early.
  static func videoFrame(_ video: (reader: VideoReader, path: String), color: Bool)
    throws(RecordingError) -> CapturedImage
  {
    let image: CapturedImage?
    do {
      image =
        color
        ? try video.reader.nextRGBFrame().map { .rgb($0.image) }
        : try video.reader.nextGrayFrame().map { .gray($0.image) }
    } catch {
      throw RecordingError(file: video.path, error.message)
    }
    guard let image else {
      throw RecordingError(file: video.path, "video has fewer frames than the index lists")
    }
    return image
  }
}

/// An image file as a reader read it for a frame (``FrameFiles/image(_:color:intrinsics:maxSide:listedIn:line:)``):
/// decoded in grey, or decoded reduced for tracking with the full grey image deferred; and its colour,
/// deferred, when asked for.
struct FileImage {
  /// The grey image, when decoded in full.
  var image: CapturedImage?
  var color: DeferredColorImage?
  /// The image reduced for tracking and the full grey image, decoded when first read.
  var reduced: (image: GrayImage, full: DeferredGrayImage)?

  /// Gives `frame` this image (and its colour).
  func apply(to frame: inout RecordedFrame) {
    if let reduced {
      frame.setImage(reducedForTracking: reduced.image, full: reduced.full)
    } else {
      frame.image = image
    }
    frame.deferredColor = color
  }
}
