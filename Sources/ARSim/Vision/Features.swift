internal import CVision

/// A detected image feature.
package struct Keypoint: Sendable, Equatable {
  /// Column of the feature in pixels (origin at the centre of the top-left pixel).
  package var x: Float
  /// Row of the feature in pixels (origin at the centre of the top-left pixel, +y down).
  package var y: Float
  /// Detector response (FAST score, ORB Harris score, or GFTT minimum eigenvalue); larger is stronger.
  package var response: Float
  /// Diameter of the meaningful neighbourhood in pixels (at the base level).
  package var size: Float
  /// Orientation in degrees (ORB), or -1 when not computed.
  package var angle: Float
  /// Pyramid level the feature was found on (0 = full resolution).
  package var octave: Int

  /// Creates a keypoint.
  package init(x: Float, y: Float, response: Float, size: Float, angle: Float, octave: Int) {
    self.x = x
    self.y = y
    self.response = response
    self.size = size
    self.angle = angle
    self.octave = octave
  }

  /// The position (x, y) in pixels.
  package var position: SIMD2<Float> { SIMD2(x, y) }
}

/// A 256-bit ORB (rBRIEF) descriptor; bytes 8k...8k+7 are word k, little-endian.
package struct ORBDescriptor: Sendable, Hashable {
  /// The 256 bits as four 64-bit words.
  package var words: SIMD4<UInt64>

  /// Creates a descriptor from its words.
  package init(words: SIMD4<UInt64>) {
    self.words = words
  }

  /// Creates a descriptor from its 32 bytes (checked).
  package init<Bytes: Collection>(bytes: Bytes) where Bytes.Element == UInt8 {
    precondition(bytes.count == 32, "an ORB descriptor has 32 bytes")
    var words = SIMD4<UInt64>()
    for (i, byte) in bytes.enumerated() {
      words[i / 8] |= UInt64(byte) << UInt64(8 * (i % 8))
    }
    self.words = words
  }

  /// The 32 bytes of the descriptor.
  package var bytes: [UInt8] {
    (0..<32).map { UInt8(truncatingIfNeeded: words[$0 / 8] >> UInt64(8 * ($0 % 8))) }
  }

  /// The Hamming distance (number of differing bits, 0...256) to `other`.
  package func distance(to other: ORBDescriptor) -> Int {
    let difference = words ^ other.words
    return difference[0].nonzeroBitCount + difference[1].nonzeroBitCount + difference[2].nonzeroBitCount
      + difference[3].nonzeroBitCount
  }
}

/// Detects corner features in gray images (OpenCV's FAST, ORB or Shi-Tomasi "good features to track").
///
/// Results are deterministic: strongest response first, ties broken by y, then x.
package struct FeatureDetector: Sendable, Equatable, Codable {
  /// The detection method.
  package enum Method: String, Sendable, Equatable, Codable {
    /// FAST-9 corners with non-maximum suppression, at full resolution.
    case fast
    /// ORB: FAST corners on an image pyramid, ranked by Harris score, with orientation and descriptors.
    case orb
    /// Shi-Tomasi corners (minimum eigenvalue), with a minimum spacing.
    case gftt
  }

  /// The detection method (default `.fast`).
  package var method: Method
  /// Upper bound on the number of features returned (default 1000).
  package var maxFeatures: Int
  /// FAST intensity threshold (0...255, default 20) for `.fast` and `.orb`; for `.gftt` the quality
  /// level in (0, 1) relative to the strongest corner (default 0.01).
  package var threshold: Float
  /// Minimum distance between `.gftt` features in pixels (default 10); ignored otherwise.
  package var minDistance: Float
  /// `.gftt` only: absolute minimum corner strength (min eigenvalue of the structure tensor as
  /// OpenCV scales it for 8-bit images; textured surfaces about 0.005...0.1, noise on a blank wall
  /// about 1e-4). Default 0 (off).
  package var minResponse: Float = 0
  /// Number of ORB pyramid levels (default 8); ignored otherwise.
  package var pyramidLevels: Int
  /// Scale between ORB pyramid levels, > 1 (default 1.2); ignored otherwise.
  package var scaleFactor: Float

  /// Creates a detector; `threshold` defaults to 20 for `.fast` and `.orb` and to 0.01 for `.gftt`.
  package init(
    method: Method = .fast, maxFeatures: Int = 1000, threshold: Float? = nil, minDistance: Float = 10,
    pyramidLevels: Int = 8, scaleFactor: Float = 1.2
  ) {
    self.method = method
    self.maxFeatures = maxFeatures
    self.threshold = threshold ?? (method == .gftt ? 0.01 : 20)
    self.minDistance = minDistance
    self.pyramidLevels = pyramidLevels
    self.scaleFactor = scaleFactor
  }

  /// Detects features in `image`, strongest first. `mask` (optional, `width * height` bytes,
  /// row-major) keeps only features on non-zero pixels.
  package func detect(in image: GrayImage, mask: [UInt8]? = nil) throws(VisionError) -> [Keypoint] {
    try run(image: image, mask: mask, describe: false).keypoints
  }

  /// Detects ORB features and computes their descriptors (`descriptors[i]` belongs to
  /// `keypoints[i]`). Throws `.invalidArgument` unless `method` is `.orb`.
  package func detectAndDescribe(
    in image: GrayImage, mask: [UInt8]? = nil
  ) throws(VisionError) -> (keypoints: [Keypoint], descriptors: [ORBDescriptor]) {
    guard method == .orb else { throw .invalidArgument("descriptors are only computed by the ORB method") }
    return try run(image: image, mask: mask, describe: true)
  }

  private func run(
    image: GrayImage, mask: [UInt8]?, describe: Bool
  ) throws(VisionError) -> (keypoints: [Keypoint], descriptors: [ORBDescriptor]) {
    if let mask, mask.count != image.pixels.count {
      throw .invalidArgument("mask has \(mask.count) bytes; the image has \(image.pixels.count) pixels")
    }
    let capacity = max(0, maxFeatures)
    let cMethod: Int32
    switch method {
    case .fast: cMethod = Int32(CV_FEATURE_FAST)
    case .orb: cMethod = Int32(CV_FEATURE_ORB)
    case .gftt: cMethod = Int32(CV_FEATURE_GFTT)
    }
    let params = cv_feature_params(
      method: cMethod, max_features: try VisionError.int32(maxFeatures, "maxFeatures"), threshold: threshold,
      min_distance: minDistance, pyramid_levels: try VisionError.int32(pyramidLevels, "pyramidLevels"),
      scale_factor: scaleFactor, min_response: minResponse)
    let width = try VisionError.int32(image.width, "image.width")
    let height = try VisionError.int32(image.height, "image.height")
    let cCapacity = try VisionError.int32(capacity, "maxFeatures")
    var keypoints = [cv_keypoint](repeating: cv_keypoint(), count: capacity)
    var descriptorBytes = [UInt8](repeating: 0, count: describe ? 32 * capacity : 0)
    var count: Int32 = 0
    var status = cv_status()
    let code = image.pixels.withUnsafeBufferPointer { pixels in
      withOptionalBuffer(mask) { maskPointer in
        keypoints.withUnsafeMutableBufferPointer { keypointBuffer in
          descriptorBytes.withUnsafeMutableBufferPointer { descriptorBuffer in
            let gray = cv_gray_image(pixels: pixels.baseAddress, width: width, height: height, stride: width)
            return cv_detect_features(
              gray, maskPointer, params, keypointBuffer.baseAddress,
              describe ? descriptorBuffer.baseAddress : nil, cCapacity, &count, &status)
          }
        }
      }
    }
    try VisionError.check(code, status)
    let n = Int(count)
    let result = keypoints.prefix(n).map {
      Keypoint(
        x: $0.x, y: $0.y, response: $0.response, size: $0.size, angle: $0.angle, octave: Int($0.octave))
    }
    let descriptors =
      describe ? (0..<n).map { ORBDescriptor(bytes: descriptorBytes[32 * $0..<32 * $0 + 32]) } : []
    return (result, descriptors)
  }
}

/// Calls `body` with the base address of `array`, or with `nil` when `array` is `nil`.
private func withOptionalBuffer<Result>(
  _ array: [UInt8]?, _ body: (UnsafePointer<UInt8>?) -> Result
) -> Result {
  guard let array else { return body(nil) }
  return array.withUnsafeBufferPointer { body($0.baseAddress) }
}

extension GrayImage {
  /// The image `factor` times smaller in each direction: each pixel the mean of a `factor` x `factor`
  /// block, rounded to nearest; columns and rows past the last whole block are left out. Pixel centre
  /// `u` of the result lies at `(u + 0.5)·factor − 0.5` in this image. `factor` 1 returns the image.
  package func reduced(by factor: Int) -> GrayImage {
    guard factor > 1 else { return self }
    let (w, h) = (width / factor, height / factor)
    var status = cv_status()
    let done = [UInt8](unsafeUninitializedCapacity: w * h) { output, count in
      let ok = pixels.withUnsafeBufferPointer { input in
        cv_gray_reduce(
          cv_gray_image(
            pixels: input.baseAddress, width: Int32(width), height: Int32(height), stride: Int32(width)),
          Int32(factor), output.baseAddress, output.count, &status) == CV_OK
      }
      count = ok ? w * h : 0
    }
    // Only an image too large for Int32 sizes can fail, which no reader delivers.
    precondition(done.count == w * h, VisionError(status).message)
    return GrayImage(width: w, height: h, pixels: done)
  }
}
