internal import CVision
import Foundation

/// Decodes and writes image files through OpenCV.
///
/// Decoding rejects truncated PNG (no IEND chunk) and JPEG (no end-of-image marker)
/// data with a `.decode` error, instead of returning grey rows. EXIF orientation
/// is ignored: pixels come out as stored, so that they match the camera intrinsics.
package enum ImageCodec {
  /// The largest image side decoded, in pixels (checked from the header before any allocation).
  package static let maxDimension = Int(CV_IMAGE_MAX_DIMENSION)
  /// The largest pixel count decoded (64 Mi).
  package static let maxPixels = Int(CV_IMAGE_MAX_PIXELS)

  /// An encoded image format, recognised by its first bytes.
  package enum Format: String, Sendable {
    case png = "PNG"
    case jpeg = "JPEG"
    case exr = "OpenEXR"

    /// The format whose magic bytes start `data`, or nil.
    package init?(magic data: [UInt8]) {
      if data.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
        self = .png
      } else if data.starts(with: [0xFF, 0xD8, 0xFF]) {
        self = .jpeg
      } else if data.starts(with: [0x76, 0x2F, 0x31, 0x01]) {
        self = .exr
      } else {
        return nil
      }
    }

    /// The format a file name's extension promises (`.png`, `.jpg`/`.jpeg`, `.exr`), or nil.
    package init?(extensionOf path: String) {
      let name = path.lowercased()
      if name.hasSuffix(".png") {
        self = .png
      } else if name.hasSuffix(".jpg") || name.hasSuffix(".jpeg") {
        self = .jpeg
      } else if name.hasSuffix(".exr") {
        self = .exr
      } else {
        return nil
      }
    }
  }

  /// Throws unless `data` is in the format the extension of `path` names (when it names one): a BMP,
  /// TIFF or WebP file called `.png` is an error, not decoded.
  package static func checkFormat(_ data: [UInt8], path: String) throws(VisionError) {
    guard let promised = Format(extensionOf: path) else { return }
    guard let actual = Format(magic: data) else {
      throw VisionError(
        code: Int32(CV_ERR_DECODE),
        message: "is not \(promised.rawValue) data (its first bytes say otherwise)")
    }
    guard actual == promised else {
      throw VisionError(
        code: Int32(CV_ERR_DECODE),
        message: "is \(actual.rawValue) data, but the name says \(promised.rawValue)")
    }
  }

  /// Decodes PNG, JPEG or OpenEXR (at most ``maxDimension`` per side, ``maxPixels`` in all) into an 8-bit gray image
  /// (colour input is converted with OpenCV's BT.601 weights; 16-bit input is scaled to 8 bits).
  package static func decodeGray(_ data: [UInt8]) throws(VisionError) -> GrayImage {
    let decoded = try decode(data, mode: Int32(CV_DECODE_GRAY8), as: UInt8.self)
    return GrayImage(width: decoded.width, height: decoded.height, pixels: decoded.values)
  }

  /// Decodes a JPEG into 8-bit grey reduced by `reduction` (1, 2, 4 or 8) in each direction as it is
  /// decoded (libjpeg-turbo's DCT scaling: each 8x8 block yields 8/`reduction` pixels a side, about
  /// the means of the pixels they stand for), to ceil(width / `reduction`) x ceil(height / `reduction`)
  /// pixels: a quarter of the pixels at 2, and far less decoding work than the whole image. Pixel
  /// centre (x, y) of the result lies at ((x + 0.5) · `reduction` − 0.5, ...) in the stored image.
  /// Reduction 1 is ``decodeGray(_:)``; other formats than JPEG are rejected unless it is 1.
  package static func decodeGray(_ data: [UInt8], reduction: Int) throws(VisionError) -> GrayImage {
    let decoded = try decode(data, mode: Int32(CV_DECODE_GRAY8), reduction: reduction, as: UInt8.self)
    return GrayImage(width: decoded.width, height: decoded.height, pixels: decoded.values)
  }

  /// Decodes an image into 8-bit R, G, B (gray input is replicated into the three channels).
  package static func decodeRGB(_ data: [UInt8]) throws(VisionError) -> RGBImage {
    let decoded = try decode(data, mode: Int32(CV_DECODE_RGB8), as: UInt8.self)
    return RGBImage(width: decoded.width, height: decoded.height, pixels: decoded.values)
  }

  /// Decodes a single-channel 16-bit image (normally a depth PNG) without any conversion:
  /// `values` holds `width * height` raw values, row-major. Anything that is not
  /// single-channel 16-bit is rejected with a `.decode` error naming its type.
  package static func decodeDepth16(_ data: [UInt8]) throws(VisionError) -> (
    width: Int, height: Int, values: [UInt16]
  ) {
    try decode(data, mode: Int32(CV_DECODE_DEPTH16), as: UInt16.self)
  }

  /// Decodes the depth channel of an OpenEXR image (HALF or FLOAT samples) into 32-bit floats,
  /// row-major, with OpenEXR's own library. The depth channel is a lone channel whatever its name
  /// (Record3D writes `R`), or among several the one named `Z`, `D` or `depth` (any case) when
  /// exactly one is. Several candidates, UINT samples or PNG/JPEG data are a `.decode` error
  /// naming what was found.
  package static func decodeFloat32(_ data: [UInt8]) throws(VisionError) -> (
    width: Int, height: Int, values: [Float]
  ) {
    let raw = try decode(data, mode: Int32(CV_DECODE_FLOAT32), as: UInt32.self)
    return (raw.width, raw.height, raw.values.map { Float(bitPattern: $0) })
  }

  /// What a decode produces: 8-bit grey, 8-bit R, G, B, or 16-bit values as stored.
  package enum DecodeMode: Sendable {
    case gray, rgb, depth16
  }

  /// Decodes `data` as `mode` asks into its raw bytes (16-bit values in native byte order), with
  /// CVision's own PNG and JPEG decoders or, `withOpenCV`, with OpenCV's (the reference they are
  /// checked against; slower).
  package static func decodeBytes(_ data: [UInt8], mode: DecodeMode, withOpenCV: Bool = false)
    throws(VisionError) -> (width: Int, height: Int, bytes: [UInt8])
  {
    let code: Int32
    switch mode {
    case .gray: code = Int32(CV_DECODE_GRAY8)
    case .rgb: code = Int32(CV_DECODE_RGB8)
    case .depth16: code = Int32(CV_DECODE_DEPTH16)
    }
    let decoded = try decode(data, mode: code, reference: withOpenCV, as: UInt8.self)
    return (decoded.width, decoded.height, decoded.values)
  }

  /// Writes a gray image; the format follows the extension of `path` (`.png`, `.jpg`, `.jpeg`).
  /// `quality` is the JPEG quality (1...100, default 95) or the PNG compression level
  /// (0...9, default 3; PNG is lossless at every level).
  package static func write(_ image: GrayImage, to path: String, quality: Int? = nil) throws(VisionError) {
    try write(
      pixels: image.pixels, width: image.width, height: image.height, channels: 1, bytesPerChannel: 1,
      path: path, quality: quality)
  }

  /// Writes a colour image (R, G, B); format and `quality` as for the gray overload.
  package static func write(_ image: RGBImage, to path: String, quality: Int? = nil) throws(VisionError) {
    try write(
      pixels: image.pixels, width: image.width, height: image.height, channels: 3, bytesPerChannel: 1,
      path: path, quality: quality)
  }

  /// Writes raw 16-bit single-channel values (row-major, `width * height` of them) as a
  /// 16-bit PNG; `path` must end in `.png`. `compression` is the PNG level 0...9.
  package static func writeDepth16(
    width: Int, height: Int, values: [UInt16], to path: String, compression: Int = 3
  ) throws(VisionError) {
    guard width > 0, height > 0, values.count == width * height else {
      throw .invalidArgument("values.count (\(values.count)) must be width * height (\(width) x \(height))")
    }
    let bytes = values.withUnsafeBytes { [UInt8]($0) }
    try write(
      pixels: bytes, width: width, height: height, channels: 1, bytesPerChannel: 2, path: path,
      quality: compression)
  }

  /// Writes single-channel 32-bit floats (row-major, `width * height` of them) losslessly as an
  /// OpenEXR file (FLOAT channel); `path` must end in `.exr`.
  package static func writeFloat32(width: Int, height: Int, values: [Float], to path: String)
    throws(VisionError)
  {
    guard width > 0, height > 0, values.count == width * height else {
      throw .invalidArgument("values.count (\(values.count)) must be width * height (\(width) x \(height))")
    }
    let bytes = values.withUnsafeBytes { [UInt8]($0) }
    try write(
      pixels: bytes, width: width, height: height, channels: 1, bytesPerChannel: 4, path: path, quality: 0)
  }

  /// How OpenEXR stores a channel's samples.
  package enum EXRSampleType: Int32, Sendable {
    /// 32-bit unsigned integers (not depth: the decoder refuses them).
    case uint = 0
    /// 16-bit IEEE half floats, as Record3D's EXR export writes depth.
    case half = 1
    /// 32-bit IEEE floats.
    case float = 2
  }

  /// OpenEXR's lossless compressions that ``encodeEXR(width:height:channels:type:compression:)``
  /// writes.
  package enum EXRCompression: Int32, Sendable {
    /// Stored as is.
    case none = 0
    /// Run-length encoding.
    case rle = 1
    /// Deflate, one scanline per chunk.
    case zips = 2
    /// Deflate, 16 scanlines per chunk.
    case zip = 3
    /// Wavelet and Huffman coding, 32 scanlines per chunk.
    case piz = 4
  }

  /// Encodes channels of `width * height` samples each (row-major) as single-part scanline OpenEXR
  /// data, with OpenEXR's own library. Every channel is stored as `type`: `.half` rounds to the
  /// nearest half float (beyond 65504: infinity), `.uint` truncates (NaN and negatives: 0). OpenEXR
  /// lists channels sorted by name.
  package static func encodeEXR(
    width: Int, height: Int, channels: [(name: String, values: [Float])], type: EXRSampleType,
    compression: EXRCompression = .zip
  ) throws(VisionError) -> [UInt8] {
    guard !channels.isEmpty, channels.allSatisfy({ $0.values.count == width * height }) else {
      throw .invalidArgument(
        "each of the \(channels.count) channels must hold width * height (\(width) x \(height)) values")
    }
    let w = try VisionError.int32(width, "width")
    let h = try VisionError.int32(height, "height")
    let values = channels.flatMap(\.values)
    let names = channels.map { strdup($0.name) }
    defer { for name in names { free(name) } }
    var status = cv_status()
    var size = 0
    // Pixels, a chunk header per scanline, the offset table and the header: enough for the stored
    // form, which OpenEXR falls back to when compression does not help.
    var capacity = values.count * (type == .half ? 2 : 4) + height * 16 + 4096 + 300 * channels.count
    for _ in 0..<2 {
      var code = Int32(CV_OK)
      let bytes = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
        code = values.withUnsafeBufferPointer { input in
          names.map { UnsafePointer($0) }.withUnsafeBufferPointer { nameList in
            cv_exr_encode(
              input.baseAddress, w, h, nameList.baseAddress, Int32(channels.count), type.rawValue,
              compression.rawValue, buffer.baseAddress, buffer.count, &size, &status)
          }
        }
        initialized = code == Int32(CV_OK) ? size : 0
      }
      if code == Int32(CV_ERR_BUFFER_TOO_SMALL) {
        capacity = size
        continue
      }
      try VisionError.check(code, status)
      return bytes
    }
    throw VisionError(code: Int32(CV_ERR_INTERNAL), message: "OpenEXR encoder size changed between calls")
  }

  /// Writes one depth channel named `channel` as an OpenEXR file, the way Record3D's EXR export
  /// does by default (one HALF channel named `R`, ZIP compression).
  package static func writeEXRDepth(
    width: Int, height: Int, values: [Float], channel: String = "R", type: EXRSampleType = .half,
    to path: String
  ) throws(VisionError) {
    let bytes = try encodeEXR(width: width, height: height, channels: [(channel, values)], type: type)
    guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
      throw VisionError(code: Int32(CV_ERR_IO), message: "could not write image to \(path)")
    }
  }

  // MARK: Implementation

  private static func write(
    pixels: [UInt8], width: Int, height: Int, channels: Int32, bytesPerChannel: Int32, path: String,
    quality: Int?
  ) throws(VisionError) {
    let lowercased = path.lowercased()
    let level = quality ?? (lowercased.hasSuffix(".png") ? 3 : 95)
    let w = try VisionError.int32(width, "width")
    let h = try VisionError.int32(height, "height")
    let q = try VisionError.int32(level, "quality")
    var status = cv_status()
    let code = pixels.withUnsafeBufferPointer { buffer in
      cv_image_write(path, buffer.baseAddress, w, h, channels, bytesPerChannel, q, &status)
    }
    try VisionError.check(code, status)
  }

  /// Decodes in two calls: a size query (answered from the header for PNG and JPEG),
  /// then the decode into a buffer of the reported size.
  private static func decode<Element: FixedWidthInteger>(
    _ data: [UInt8], mode: Int32, reduction: Int = 1, reference: Bool = false, as _: Element.Type
  ) throws(VisionError) -> (width: Int, height: Int, values: [Element]) {
    var info = cv_image_info()
    var status = cv_status()
    let factor = try VisionError.int32(reduction, "reduction")
    let call = { (input: UnsafeBufferPointer<UInt8>, out: UnsafeMutablePointer<UInt8>?, capacity: Int) in
      reference
        ? cv_image_decode_reference(input.baseAddress, input.count, mode, out, capacity, &info, &status)
        : cv_image_decode_reduced(input.baseAddress, input.count, mode, factor, out, capacity, &info, &status)
    }
    let probe = data.withUnsafeBufferPointer { input in call(input, nil, 0) }
    guard probe == Int32(CV_ERR_BUFFER_TOO_SMALL) else {
      try VisionError.check(probe, status)
      // A zero-byte image cannot decode successfully into a zero-byte buffer.
      throw VisionError(code: Int32(CV_ERR_INTERNAL), message: "image decoder returned no size")
    }
    let byteCount = Int(info.byte_count)
    let stride = MemoryLayout<Element>.stride
    guard byteCount > 0, byteCount % stride == 0 else {
      throw VisionError(code: Int32(CV_ERR_INTERNAL), message: "image decoder reported \(byteCount) bytes")
    }
    var code = Int32(CV_OK)
    let values = [Element](unsafeUninitializedCapacity: byteCount / stride) { buffer, initialized in
      code = data.withUnsafeBufferPointer { input in
        call(
          input, UnsafeMutableRawPointer(buffer.baseAddress)?.assumingMemoryBound(to: UInt8.self), byteCount)
      }
      initialized = code == Int32(CV_OK) ? buffer.count : 0
    }
    try VisionError.check(code, status)
    guard Int(info.byte_count) == byteCount else {
      throw VisionError(code: Int32(CV_ERR_INTERNAL), message: "image size changed between calls")
    }
    return (Int(info.width), Int(info.height), values)
  }
}
