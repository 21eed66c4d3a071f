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
    /// The gradient of the inverse depth along the image's x and y, 1/m per image pixel, where a
    /// plane was fitted (``fittedSample(atImagePixel:edgeBase:edgeSlope:radius:spanFactor:)``): the
    /// surface's slant.
    var inverseDepthSlope: SIMD2<Double>? = nil
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

  /// The z-depth seen at an image pixel, less noisy than ``sample(atImagePixel:edgeBase:edgeSlope:)``'s
  /// reading: a plane in inverse depth (exact on a planar surface, whose 1/z is linear in the pixel
  /// coordinates) fitted by least squares to the (2·`radius` + 1)² depth pixels around the nearest one
  /// and read at the pixel's ray, which averages the sensor's independent per-pixel noise (by about
  /// 2·`radius` + 1 in standard deviation). The block is used when every pixel of it is valid and it
  /// spans less than `spanFactor · (edgeBase + edgeSlope · d)` metres (a wider block spans more of a
  /// slanted surface); otherwise the 3x3 block under ``sample(atImagePixel:edgeBase:edgeSlope:)``'s
  /// test, and nil where that fails. `radius` 0: the bilinear ``sample(atImagePixel:edgeBase:edgeSlope:)``.
  func fittedSample(
    atImagePixel pixel: SIMD2<Float>, edgeBase: Double, edgeSlope: Double, radius: Int, spanFactor: Double
  ) -> Sample? {
    guard let near = sample(atImagePixel: pixel, edgeBase: edgeBase, edgeSlope: edgeSlope) else { return nil }
    guard radius >= 1 else { return near }
    let at = depthIntrinsics.project(imageIntrinsics.ray(SIMD2(Double(pixel.x), Double(pixel.y))))
    let centre = SIMD2(Int(at.x.rounded()), Int(at.y.rounded()))
    let offset = at - SIMD2(Double(centre.x), Double(centre.y))
    // Depth pixels per image pixel: the slope per depth pixel in the image's.
    let scale = SIMD2(depthIntrinsics.fx / imageIntrinsics.fx, depthIntrinsics.fy / imageIntrinsics.fy)
    if radius > 1,
      let (d, slope) = planeDepth(
        around: centre, radius: radius, at: offset, edge: { spanFactor * (edgeBase + edgeSlope * $0) })
    {
      return Sample(depth: d, confidence: near.confidence, inverseDepthSlope: slope * scale)
    }
    // The 3x3 block is valid and within the edge test (``sample(atImagePixel:edgeBase:edgeSlope:)``).
    return planeDepth(around: centre, radius: 1, at: offset, edge: { edgeBase + edgeSlope * $0 }).map {
      Sample(depth: $0.depth, confidence: near.confidence, inverseDepthSlope: $0.slope * scale)
    }
  }

  /// The depth at `offset` (depth pixels) from depth pixel `centre` of the inverse-depth plane fitted to
  /// the (2·`radius` + 1)² block around it, and the plane's slope (1/m per depth pixel), or nil when
  /// the block leaves the map, holds an invalid pixel or spans `edge(d)` metres or more.
  private func planeDepth(
    around centre: SIMD2<Int>, radius: Int, at offset: SIMD2<Double>, edge: (Double) -> Double
  )
    -> (depth: Double, slope: SIMD2<Double>)?
  {
    let width = map.width
    guard centre.x >= radius, centre.y >= radius, centre.x < width - radius, centre.y < map.height - radius
    else { return nil }
    // On the square grid the least-squares plane a + b·dx + c·dy has a = mean, b = Σ dx·w / Σ dx², c likewise.
    var sum = 0.0
    var sumX = 0.0
    var sumY = 0.0
    var low = Float.infinity
    var high = -Float.infinity
    for dy in -radius...radius {
      for dx in -radius...radius {
        let d = map.metres[(centre.y + dy) * width + centre.x + dx]
        guard d.isFinite, d > 0 else { return nil }
        low = min(low, d)
        high = max(high, d)
        let inverse = 1 / Double(d)
        sum += inverse
        sumX += Double(dx) * inverse
        sumY += Double(dy) * inverse
      }
    }
    let side = Double(2 * radius + 1)
    let count = side * side
    // Σ dx² over the block: side · Σ_{k=-r}^{r} k² = side · r(r + 1)(2r + 1)/3.
    let moment = side * Double(radius * (radius + 1)) * side / 3
    let inverse = sum / count + (sumX * offset.x + sumY * offset.y) / moment
    guard inverse > 0 else { return nil }
    let d = 1 / inverse
    return Double(high - low) < edge(d) ? (d, SIMD2(sumX, sumY) / moment) : nil
  }
}
