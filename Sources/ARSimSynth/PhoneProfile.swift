import ARSim
import ARSimMath
import Foundation

/// What a phone's sensors add to a scene's camera, depth and IMU models (an iPhone with LiDAR as
/// ARKit delivers its data): depth at its own low resolution with a confidence map and flying pixels
/// at depth edges, a rolling shutter, white-balance drift, frames dropped and captured at irregular
/// times. The scene's ``SyntheticScene/DepthSensor`` still gives the noise (growing with distance as
/// `noise · d²`), the range and the fraction of holes; its ``SyntheticScene/IMUSensor`` the IMU's rate,
/// noise and bias. Selected by the scene key `sensors.phone` or `arsim generate --profile phone`.
public struct PhoneProfile: Codable, Sendable, Equatable {
  /// Depth map width in pixels; the depth camera sees the colour camera's field of view
  /// (``SceneRenderer/phoneDepthCamera``). Default 256.
  public var depthWidth = 256
  /// Depth map height in pixels. Default 192.
  public var depthHeight = 192
  /// Relative depth step within one depth pixel's footprint above which the pixel mixes the two
  /// surfaces (a flying pixel, confidence low). Default 0.04.
  public var flyingPixelStep = 0.04
  /// Metres beyond which depth confidence is medium rather than high. Default 3.
  public var mediumConfidenceRange = 3.0
  /// The depth sensor's scale error: every recorded depth is the measured one (noise included) times
  /// this, while the ground truth stays exact (a LiDAR reading a few percent long, as a real iPhone
  /// session's does against ARKit's trajectory). Confidence and range are decided on the depth before
  /// it. Default 1 (none).
  public var depthScale = 1.0
  /// Rolling-shutter readout, seconds: image row y is exposed at `t + readoutTime · ((y + 0.5) / height − 0.5)`,
  /// `t` the frame's timestamp (the centre row's time). Default 0.02.
  public var readoutTime = 0.02
  /// Relative amplitude of each colour channel's slow white-balance gain change. Default 0.03.
  public var whiteBalanceDrift = 0.03
  /// Period of the white-balance change, seconds. Default 7.
  public var whiteBalancePeriod = 7.0
  /// Probability that a frame is dropped (never the first or the last). Default 0.01.
  public var droppedFrames = 0.01
  /// Standard deviation of the capture time around `index / frameRate`, seconds, cut at a quarter of
  /// a frame interval; timestamps record the capture time exactly. Default 0.0005.
  public var timestampJitter = 0.0005
  /// JPEG quality of the colour images unless `arsim generate --jpeg-quality` says otherwise. Default 80.
  public var jpegQuality = 80

  /// Bands of rows that share one set of camera poses when the shutter rolls (about 15 rows at 480).
  static let shutterBands = 32

  /// The defaults.
  public init() {}

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    depthWidth = try c.value(.depthWidth, default: depthWidth)
    depthHeight = try c.value(.depthHeight, default: depthHeight)
    flyingPixelStep = try c.value(.flyingPixelStep, default: flyingPixelStep)
    mediumConfidenceRange = try c.value(.mediumConfidenceRange, default: mediumConfidenceRange)
    depthScale = try c.value(.depthScale, default: depthScale)
    readoutTime = try c.value(.readoutTime, default: readoutTime)
    whiteBalanceDrift = try c.value(.whiteBalanceDrift, default: whiteBalanceDrift)
    whiteBalancePeriod = try c.value(.whiteBalancePeriod, default: whiteBalancePeriod)
    droppedFrames = try c.value(.droppedFrames, default: droppedFrames)
    timestampJitter = try c.value(.timestampJitter, default: timestampJitter)
    jpegQuality = try c.value(.jpegQuality, default: jpegQuality)
  }

  /// Checks every value; `frameRate` is the scene's (readout and jitter must fit in a frame).
  func validate(_ check: Checker, frameRate: Double) throws(SceneError) {
    let key = "sensors.phone."
    let side = 8...ImageCodec.maxDimension
    try check.that(
      side.contains(depthWidth), key + "depthWidth", "must be \(side.lowerBound)...\(side.upperBound)")
    try check.that(
      side.contains(depthHeight), key + "depthHeight", "must be \(side.lowerBound)...\(side.upperBound)")
    try check.range(flyingPixelStep, 0.001...10, key + "flyingPixelStep")
    try check.positive(mediumConfidenceRange, key + "mediumConfidenceRange")
    try check.range(depthScale, 0.5...2, key + "depthScale")
    try check.range(readoutTime, 0...(1 / frameRate), key + "readoutTime")
    try check.range(whiteBalanceDrift, 0...0.5, key + "whiteBalanceDrift")
    try check.positive(whiteBalancePeriod, key + "whiteBalancePeriod")
    try check.range(droppedFrames, 0...0.5, key + "droppedFrames")
    try check.range(timestampJitter, 0...(0.25 / frameRate), key + "timestampJitter")
    try check.that((1...100).contains(jpegQuality), key + "jpegQuality", "must be 1...100")
  }

  /// Seconds added to frame `index`'s nominal time (0 for the first frame).
  func captureOffset(ofFrame index: Int, seed: UInt64, frameRate: Double) -> Double {
    guard index > 0, timestampJitter > 0 else { return 0 }
    var random = SplitMix64(seed, stableHash("jitter"), UInt64(index))
    let limit = 0.25 / frameRate
    return min(limit, max(-limit, timestampJitter * random.gaussian()))
  }

  /// Whether frame `index` of `count` is dropped.
  func drops(frame index: Int, of count: Int, seed: UInt64) -> Bool {
    guard index > 0, index < count - 1, droppedFrames > 0 else { return false }
    var random = SplitMix64(seed, stableHash("drop"), UInt64(index))
    return random.uniform() < droppedFrames
  }

  /// Per-channel (red, green, blue) white-balance gains at `t` seconds, each within `1 ± whiteBalanceDrift`.
  func whiteBalance(at t: Double, seed: UInt64) -> SIMD3<Double> {
    var random = SplitMix64(seed, stableHash("white balance"))
    let phase = random.uniform(0, 2 * .pi)
    let angle = 2 * .pi * t / whiteBalancePeriod + phase
    return SIMD3(
      1 + whiteBalanceDrift * sin(angle), 1 + whiteBalanceDrift * sin(angle + 2 * .pi / 3),
      1 + whiteBalanceDrift * sin(angle + 4 * .pi / 3))
  }

  /// Seconds from the frame time to the exposure of rows in `band` (of ``shutterBands``).
  func rowTimeOffset(band: Int) -> Double {
    readoutTime * ((Double(band) + 0.5) / Double(Self.shutterBands) - 0.5)
  }
}

extension SceneRenderer {
  /// The depth camera's intrinsics: the colour camera's at the phone's depth resolution; nil
  /// without a phone profile (depth is then registered at the image's size).
  public var phoneDepthCamera: CameraIntrinsics? {
    guard let phone = scene.sensors.phone else { return nil }
    return scene.camera.scaled(toWidth: phone.depthWidth, height: phone.depthHeight)
  }

  /// The phone's depth map and confidence for frame `index` at time `t` from pose `pose`
  /// (`worldFromOptical`): each depth pixel averages the z-depths of four rays spread over its
  /// footprint when they disagree by more than ``PhoneProfile/flyingPixelStep`` (a flying pixel
  /// between two surfaces, confidence low), otherwise reads its centre ray; noise `noise · z²`,
  /// confidence medium beyond ``PhoneProfile/mediumConfidenceRange``; holes and depth beyond the
  /// range are NaN with confidence low; the depth written is scaled by ``PhoneProfile/depthScale``. Nil without a phone profile or a depth sensor.
  func phoneDepth(frame index: Int, pose: RigidTransform) -> (DepthImage, ConfidenceMap)? {
    guard let phone = scene.sensors.phone, let sensor = scene.sensors.depth, let camera = phoneDepthCamera
    else { return nil }
    let (width, height) = (camera.width, camera.height)
    let (sx, sy) = (Double(scene.camera.width) / Double(width), Double(scene.camera.height) / Double(height))
    var metres = [Float](repeating: .nan, count: width * height)
    var levels = [UInt8](repeating: 0, count: width * height)
    let footprint: [SIMD2<Double>] = [
      SIMD2(-0.25, -0.25), SIMD2(0.25, -0.25), SIMD2(-0.25, 0.25), SIMD2(0.25, 0.25),
    ]
    metres.withUnsafeMutableBufferPointer { depthBuffer in
      levels.withUnsafeMutableBufferPointer { levelBuffer in
        let out = DepthRowBuffers(depth: depthBuffer.baseAddress!, levels: levelBuffer.baseAddress!)
        DispatchQueue.concurrentPerform(iterations: height) { y in
          var random = SplitMix64(scene.seed, stableHash("phone depth"), UInt64(index), UInt64(y))
          for x in 0..<width {
            // Depth pixel centre (x, y) in image pixels, the same ray.
            func image(_ offset: SIMD2<Double>) -> (Double, Double) {
              ((Double(x) + 0.5 + offset.x) * sx - 0.5, (Double(y) + 0.5 + offset.y) * sy - 0.5)
            }
            let (u, v) = image(.zero)
            guard var z = raycast(from: pose, u: u, v: v)?.depth else { continue }
            var level: UInt8 = 2
            let corners = footprint.map { offset in
              let (u, v) = image(offset)
              return raycast(from: pose, u: u, v: v)?.depth
            }
            let seen = corners.compactMap { $0 }
            if let near = seen.min(), let far = seen.max(), far - near > phone.flyingPixelStep * near {
              z = seen.reduce(0, +) / Double(seen.count)
              level = 0
            }
            z += sensor.noise * z * z * random.gaussian()
            if z > phone.mediumConfidenceRange { level = min(level, 1) }
            let hole = sensor.holes > 0 && random.uniform() < sensor.holes
            guard z > 0, z <= sensor.maxRange, !hole else { continue }
            out.depth[y * width + x] = Float(z * phone.depthScale)
            out.levels[y * width + x] = level
          }
        }
      }
    }
    return (
      DepthImage(width: width, height: height, metres: metres),
      ConfidenceMap(width: width, height: height, levels: levels)
    )
  }
}

/// A depth frame's buffers, borrowed for one render; rows write disjoint parts.
private struct DepthRowBuffers: @unchecked Sendable {
  var depth: UnsafeMutablePointer<Float>
  var levels: UnsafeMutablePointer<UInt8>
}
