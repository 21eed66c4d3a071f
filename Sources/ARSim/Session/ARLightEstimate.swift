/// The light of the scene estimated from a captured image, as ARKit's `ARLightEstimate`.
///
/// Computed from the image alone (ARKit also uses the camera's exposure, which recordings do not
/// carry): pixels are decoded from sRGB to linear light, sampled on a grid of about 10 000 points, and
/// averaged. ``ambientIntensity`` is the mean linear luminance scaled so that a scene whose mean is
/// sRGB mid grey (128 of 255) gives 1000 lumens, ARKit's value for a well-lit neutral scene; it is
/// linear in the light (half the light, half the intensity), 0 for black. ``ambientColorTemperature``
/// is the correlated colour temperature of the mean colour (CIE 1931 chromaticity through McCamy's
/// formula), in kelvin, clamped to 2000...12 000: 6500 for neutral grey (D65 white), lower for warm
/// (reddish) light, higher for cool. A grey image has no colour: its temperature is 6500.
public final class ARLightEstimate: Sendable {
  /// Lumens: about 1000 for a well-lit neutral scene, 0 for darkness.
  public let ambientIntensity: Double
  /// Kelvin: 6500 for neutral white light.
  public let ambientColorTemperature: Double

  /// An estimate with these values.
  public init(ambientIntensity: Double, ambientColorTemperature: Double) {
    self.ambientIntensity = ambientIntensity
    self.ambientColorTemperature = ambientColorTemperature
  }

  /// The estimate of `image` (see the type's notes); nil for an empty image.
  public convenience init?(image: CapturedImage) {
    let width = image.width
    let height = image.height
    guard width > 0, height > 0 else { return nil }
    let step = max(1, Int((Double(width * height) / 10_000).squareRoot()))
    var sum = SIMD3<Double>.zero
    var count = 0.0
    for y in stride(from: step / 2, to: height, by: step) {
      for x in stride(from: step / 2, to: width, by: step) {
        switch image {
        case .gray(let gray):
          let v = Self.linear[Int(gray.pixels[y * width + x])]
          sum += SIMD3(repeating: v)
        case .rgb(let rgb):
          let i = 3 * (y * width + x)
          sum += SIMD3(
            Self.linear[Int(rgb.pixels[i])], Self.linear[Int(rgb.pixels[i + 1])],
            Self.linear[Int(rgb.pixels[i + 2])])
        }
        count += 1
      }
    }
    let mean = sum / count
    // Linear sRGB (D65) to CIE XYZ.
    let X = 0.4124 * mean.x + 0.3576 * mean.y + 0.1805 * mean.z
    let Y = 0.2126 * mean.x + 0.7152 * mean.y + 0.0722 * mean.z
    let Z = 0.0193 * mean.x + 0.1192 * mean.y + 0.9505 * mean.z
    var kelvin = 6500.0
    if case .rgb = image, X + Y + Z > 1e-9 {
      let cx = X / (X + Y + Z)
      let cy = Y / (X + Y + Z)
      let n = (cx - 0.3320) / (0.1858 - cy)
      kelvin = 449 * n * n * n + 3525 * n * n + 6823.3 * n + 5520.33
      if !kelvin.isFinite { kelvin = 6500 }
    }
    self.init(
      ambientIntensity: 1000 * Y / Self.linear[128], ambientColorTemperature: min(max(kelvin, 2000), 12_000))
  }

  /// sRGB-encoded byte to linear light, 0...1.
  private static let linear: [Double] = (0..<256).map { byte in
    let c = Double(byte) / 255
    return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
  }
}
