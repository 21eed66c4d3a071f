/// The depth a frame's tracking and plane detection read: low-confidence pixels masked out, at the
/// depth map's own resolution.
extension RecordedFrame {
  /// The depth map with pixels whose confidence is below `minConfidence` set to NaN (unchanged
  /// without a confidence map or with `minConfidence` 0).
  func depth(minConfidence: UInt8) -> DepthImage? {
    guard var depth, let confidence, minConfidence > 0, confidence.levels.count == depth.metres.count else {
      return depth
    }
    for i in depth.metres.indices where confidence.levels[i] < minConfidence { depth.metres[i] = .nan }
    return depth
  }
}

/// A frame's depth as tracking reads it: the (masked) map at its own resolution, its
/// confidence, and the two cameras' intrinsics. Depth is registered to the colour camera (one optical
/// centre and orientation), so an image pixel's depth is read where its viewing ray meets the depth
/// image: `depthIntrinsics.project(imageIntrinsics.ray(pixel))`.
struct FrameDepth {
  /// The depth map, metres (NaN where unknown or masked).
  let map: DepthImage
  /// The depth pixels' confidence (ARKit's 0 low, 1 medium, 2 high), when recorded at the map's size.
  let confidence: ConfidenceMap?
  /// The depth map's intrinsics (its own size).
  let depthIntrinsics: CameraIntrinsics
  /// The colour image's intrinsics (the pixels features are found at).
  let imageIntrinsics: CameraIntrinsics

  /// The depth of `map` for an image with `imageIntrinsics`; `depthIntrinsics` nil or of another size
  /// than the map: the image's intrinsics scaled to the map's size.
  init(
    map: DepthImage, confidence: ConfidenceMap?, depthIntrinsics: CameraIntrinsics?,
    imageIntrinsics: CameraIntrinsics
  ) {
    self.map = map
    self.confidence =
      confidence.flatMap { $0.width == map.width && $0.height == map.height ? $0 : nil }
    let given = depthIntrinsics ?? imageIntrinsics
    self.depthIntrinsics =
      given.width == map.width && given.height == map.height
      ? given : imageIntrinsics.scaled(toWidth: map.width, height: map.height)
    self.imageIntrinsics = imageIntrinsics
  }

  /// One depth reading at an image pixel.
  struct Sample {
    /// z-depth, metres.
    var depth: Double
    /// Confidence of the nearest depth pixel (2, high, without a confidence map).
    var confidence: UInt8
  }

  /// The z-depth seen at an image pixel when it is on one surface: the nearest depth pixel and its
  /// 3x3 neighbours are all valid and span less than `edgeBase + edgeSlope · d` metres (flying pixels
  /// and depth edges give none); the value is interpolated bilinearly between the four depth pixels
  /// around the pixel's ray.
  func sample(atImagePixel pixel: SIMD2<Float>, edgeBase: Double, edgeSlope: Double) -> Sample? {
    let at = depthIntrinsics.project(imageIntrinsics.ray(SIMD2(Double(pixel.x), Double(pixel.y))))
    let x = Int(at.x.rounded())
    let y = Int(at.y.rounded())
    let width = map.width
    guard x >= 1, y >= 1, x < width - 1, y < map.height - 1 else { return nil }
    var low = Float.infinity
    var high = -Float.infinity
    for dy in -1...1 {
      for dx in -1...1 {
        let d = map.metres[(y + dy) * width + x + dx]
        guard d.isFinite, d > 0 else { return nil }
        low = min(low, d)
        high = max(high, d)
      }
    }
    // Bilinear between the four pixels around `at` (all within the checked 3x3 block).
    let x0 = min(max(Int(at.x.rounded(.down)), x - 1), x)
    let y0 = min(max(Int(at.y.rounded(.down)), y - 1), y)
    let fx = min(max(at.x - Double(x0), 0), 1)
    let fy = min(max(at.y - Double(y0), 0), 1)
    func value(_ u: Int, _ v: Int) -> Double { Double(map.metres[v * width + u]) }
    let top = value(x0, y0) * (1 - fx) + value(x0 + 1, y0) * fx
    let bottom = value(x0, y0 + 1) * (1 - fx) + value(x0 + 1, y0 + 1) * fx
    let d = top * (1 - fy) + bottom * fy
    guard Double(high - low) < edgeBase + edgeSlope * d else { return nil }
    return Sample(depth: d, confidence: confidence.map { $0.levels[y * width + x] } ?? 2)
  }
}
