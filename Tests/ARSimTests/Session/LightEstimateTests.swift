import ARSim
import ARSimTestSupport
import Foundation
import Testing

/// Renders of a textured scene under lights of known brightness and colour temperature: each pixel is
/// a Lambertian albedo (linear, uniform in 0.1...0.328, mean 0.214 = sRGB 128) times the light's linear
/// sRGB colour (a blackbody of `kelvin` from the CIE Planckian locus, luminance `brightness`), encoded
/// to sRGB bytes.
private func render(kelvin: Double, brightness: Double, width: Int = 160, height: Int = 120) -> CapturedImage
{
  let t = kelvin
  let x =
    t <= 4000
    ? -0.2661239e9 / (t * t * t) - 0.2343589e6 / (t * t) + 0.8776956e3 / t + 0.179910
    : -3.0258469e9 / (t * t * t) + 2.1070379e6 / (t * t) + 0.2226347e3 / t + 0.240390
  let y =
    t <= 2222
    ? -1.1063814 * x * x * x - 1.34811020 * x * x + 2.18555832 * x - 0.20219683
    : t <= 4000
      ? -0.9549476 * x * x * x - 1.37418593 * x * x + 2.09137015 * x - 0.16748867
      : 3.0817580 * x * x * x - 5.87338670 * x * x + 3.75112997 * x - 0.37001483
  let (X, Y, Z) = (x / y, 1.0, (1 - x - y) / y)
  let light =
    SIMD3(
      3.2406 * X - 1.5372 * Y - 0.4986 * Z, -0.9689 * X + 1.8758 * Y + 0.0415 * Z,
      0.0557 * X - 0.2040 * Y + 1.0570 * Z) * brightness
  func encode(_ v: Double) -> UInt8 {
    let c = min(max(v, 0), 1)
    let s = c <= 0.0031308 ? 12.92 * c : 1.055 * pow(c, 1 / 2.4) - 0.055
    return UInt8((s * 255).rounded())
  }
  var generator = SplitMix64(seed: 7)
  var pixels: [UInt8] = []
  pixels.reserveCapacity(3 * width * height)
  for _ in 0..<(width * height) {
    let albedo = 0.1 + 0.228 * Double(generator.next() >> 11) / Double(1 << 53)
    let colour = light * albedo
    pixels += [encode(colour.x), encode(colour.y), encode(colour.z)]
  }
  return .rgb(RGBImage(width: width, height: height, pixels: pixels))
}

@Suite struct LightEstimateTests {
  @Test func neutralSceneIsAboutAThousandLumensAtD65() throws {
    let estimate = try #require(ARLightEstimate(image: render(kelvin: 6504, brightness: 1)))
    #expect(abs(estimate.ambientIntensity - 1000) < 30)
    #expect(abs(estimate.ambientColorTemperature - 6504) < 150)
  }

  @Test func intensityIsLinearInTheLight() throws {
    let full = try #require(ARLightEstimate(image: render(kelvin: 5000, brightness: 1)))
    let half = try #require(ARLightEstimate(image: render(kelvin: 5000, brightness: 0.5)))
    let dark = try #require(ARLightEstimate(image: render(kelvin: 5000, brightness: 0)))
    #expect(abs(half.ambientIntensity / full.ambientIntensity - 0.5) < 0.02)
    #expect(dark.ambientIntensity == 0)
  }

  @Test func colourTemperatureFollowsTheLight() throws {
    for kelvin in [2700.0, 3500, 4500, 6500, 9000] {
      let estimate = try #require(ARLightEstimate(image: render(kelvin: kelvin, brightness: 0.8)))
      #expect(
        abs(estimate.ambientColorTemperature / kelvin - 1) < 0.04,
        "\(kelvin) K gave \(estimate.ambientColorTemperature)")
    }
    let grey = try #require(ARLightEstimate(image: .gray(GrayImage(width: 8, height: 8, fill: 128))))
    #expect(grey.ambientColorTemperature == 6500 && abs(grey.ambientIntensity - 1000) < 1)
    #expect(ARLightEstimate(image: .gray(GrayImage(width: 0, height: 0))) == nil)
  }

  @Test(.enabled(if: Datasets.exists("tabletop"))) func framesCarryAnEstimateOnlyWhenEnabled() throws {
    for enabled in [true, false] {
      let session = ARSession()
      let configuration = ARWorldTrackingConfiguration()
      configuration.isLightEstimationEnabled = enabled
      session.run(configuration)
      let replay = try ARReplay(session: session, recording: Datasets.path("tabletop"))
      try replay.step(frames: 2)
      let estimate = session.currentFrame?.lightEstimate
      #expect((estimate != nil) == enabled)
      if let estimate { #expect(estimate.ambientIntensity > 50 && estimate.ambientIntensity < 3000) }
    }
  }

  @Test(.enabled(if: Datasets.exists("tabletop"))) func colourIsDecodedOnlyWhenTheAppReadsIt() throws {
    let session = ARSession()
    session.run(ARWorldTrackingConfiguration())
    var options = FrameSourceOptions()
    options.decodeColor = true
    let replay = try ARReplay(session: session, recording: Datasets.path("tabletop"), options: options)
    try replay.step(frames: 2)
    let recorded = try #require(replay.lastFrame)
    let color = try #require(recorded.deferredColor)
    // Tracking, plane detection and the frame's making read only the grey image.
    #expect(!color.isDecoded)
    let frame = try #require(session.currentFrame)
    guard case .rgb(let image) = frame.capturedImage else {
      Issue.record("the app sees a grey image although colour was asked for")
      return
    }
    #expect(color.isDecoded)
    #expect(image.width == recorded.image?.width && image.height == recorded.image?.height)
  }
}
