import ARSim
import ARSimMath
import Foundation

/// How ``SessionGenerator`` writes a session.
public struct GenerationOptions: Sendable, Equatable {
  /// The layout: ARSim (`session.json`, via ``RecordingWriter``), TUM RGB-D, or a phone app's
  /// (Stray Scanner, Record3D, ARKitScenes, the 3D Scanner App: as the apps write them). Default `.arsim`.
  public var format: RecordingFormat = .arsim
  /// Record3D only: the `.r3d` file (`recording.r3d` in the folder) instead of the EXR+JPG folder.
  /// Default false.
  public var record3DArchive = false
  /// ARSim layout only: how depth is stored. Default 16-bit PNG millimetres; `.exrFloat` keeps the
  /// rendered float depth exact (as Record3D's exports do).
  public var depthEncoding: RecordingWriter.DepthEncoding = .png16
  /// Colour image files. Default JPEG quality 90.
  public var encoding: RecordingWriter.ImageEncoding = .jpeg(quality: 90)
  /// Render only the first `maxFrames` frames. Default nil (all).
  public var maxFrames: Int?

  /// The defaults.
  public init() {}
}

/// What ``SessionGenerator`` wrote.
public struct GenerationSummary: Sendable {
  /// The output folder.
  public var folder: String
  /// Its layout.
  public var format: RecordingFormat
  /// Frames written.
  public var frames: Int
  /// Timestamp of the last frame, seconds (the first is 0).
  public var lastTimestamp: Double
  /// IMU samples written.
  public var imuSamples: Int
  /// Ground-truth taps written.
  public var taps: Int
  /// The ground-truth planes written to `planes.json`.
  public var planes: [GroundTruthPlane]
  /// Wall-clock milliseconds spent rendering each frame (informative only).
  public var renderMilliseconds: [Double]
}

/// Renders a scene into a recorded session with ground truth.
///
/// ARSim layout: everything ``RecordingWriter`` writes (`session.json` with gravity (0, −1, 0),
/// `frames.txt`, `rgb/`, `depth/` in millimetres, `imu.txt`, `groundtruth.txt`) plus `planes.json`
/// and `taps.txt` (with a phone profile: `depthCamera` in `session.json`, `confidence/`; dropped frames
/// are left out). TUM layout: `rgb/`, `depth/` (1/5000 m), `rgb.txt`, `depth.txt`,
/// `groundtruth.txt`, `accelerometer.txt`, `intrinsics.txt` (`fx fy cx cy`), `planes.json`, `taps.txt`.
public enum SessionGenerator {
  /// Renders every frame of `renderer.scene` (or the first `options.maxFrames`) into `folder`,
  /// calling `progress(done, total)` after each frame.
  /// - Throws: ``RecordingError`` naming the file that could not be written.
  public static func generate(
    _ renderer: SceneRenderer, to folder: String, options: GenerationOptions = GenerationOptions(),
    progress: (Int, Int) -> Void = { _, _ in }
  ) throws(RecordingError) -> GenerationSummary {
    let scene = renderer.scene
    let frameCount = min(scene.frameCount, max(1, options.maxFrames ?? .max))
    var sink: any SessionSink =
      switch options.format {
      case .arsim:
        try ARSimSink(
          folder: folder, scene: scene, depthCamera: renderer.phoneDepthCamera, encoding: options.encoding,
          depthEncoding: options.depthEncoding)
      case .tum:
        // TUM depth is registered at the image's size.
        if scene.sensors.phone == nil {
          try TUMSink(folder: folder, scene: scene, encoding: options.encoding)
        } else {
          throw RecordingError(file: folder, "phone-profile sessions are written as arsim or a phone layout")
        }
      case .stray: try StraySink(folder: folder, scene: scene)
      case .record3d:
        try Record3DSink(
          folder: folder, scene: scene, encoding: options.encoding, archive: options.record3DArchive)
      case .arkitscenes: try ARKitScenesSink(folder: folder, scene: scene)
      case .scanner3d: try Scanner3DSink(folder: folder, scene: scene, encoding: options.encoding)
      }
    var recorder = GroundTruthRecorder(renderer: renderer, frameCount: frameCount)
    var milliseconds: [Double] = []
    for index in 0..<frameCount {
      if scene.sensors.phone?.drops(frame: index, of: frameCount, seed: scene.seed) == true { continue }
      let start = Date()
      let frame = renderer.render(frame: index)
      milliseconds.append(Date().timeIntervalSince(start) * 1000)
      recorder.add(frame)
      try sink.append(frame)
      progress(index + 1, frameCount)
    }
    let lastTimestamp = scene.time(ofFrame: frameCount - 1)
    let imu = renderer.imuSamples(through: lastTimestamp)
    for sample in imu { try sink.append(sample) }

    let planes = recorder.planes()
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    let planesFile = GroundTruthPlanesFile(gravity: SyntheticScene.gravityDirection, planes: planes)
    do {
      try encoder.encode(planesFile).write(to: URL(fileURLWithPath: folder + "/planes.json"))
    } catch {
      throw RecordingError(file: folder + "/planes.json", "cannot be written: \(error.localizedDescription)")
    }
    let tapLines = [GroundTruthTap.header] + recorder.taps.map(\.line)
    try writeText(tapLines.joined(separator: "\n") + "\n", to: folder + "/taps.txt")
    try sink.finish()
    return GenerationSummary(
      folder: folder, format: options.format, frames: frameCount, lastTimestamp: lastTimestamp,
      imuSamples: imu.count,
      taps: recorder.taps.count, planes: planes, renderMilliseconds: milliseconds)
  }
}

/// Writes `text` to `path`.
func writeText(_ text: String, to path: String) throws(RecordingError) {
  do {
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
  } catch {
    throw RecordingError(file: path, "cannot be written: \(error.localizedDescription)")
  }
}

/// Where rendered frames and IMU samples go.
protocol SessionSink {
  mutating func append(_ frame: RenderedFrame) throws(RecordingError)
  mutating func append(_ sample: IMUSample) throws(RecordingError)
  /// Called last, after `planes.json` and `taps.txt` are in the folder.
  mutating func finish() throws(RecordingError)
}

/// The ARSim layout through ``RecordingWriter``.
private struct ARSimSink: SessionSink {
  let writer: RecordingWriter

  init(
    folder: String, scene: SyntheticScene, depthCamera: CameraIntrinsics?,
    encoding: RecordingWriter.ImageEncoding, depthEncoding: RecordingWriter.DepthEncoding
  ) throws(RecordingError) {
    let hasIMU = scene.sensors.imu != nil
    var session = RecordingSession(
      camera: scene.camera, depthScale: 0.001, frameRate: scene.frameRate,
      sensors: .init(depth: scene.sensors.depth != nil, accelerometer: hasIMU, gyroscope: hasIMU))
    session.depthCamera = scene.sensors.depth == nil ? nil : depthCamera
    session.readoutTime = scene.sensors.phone.flatMap { $0.readoutTime > 0 ? $0.readoutTime : nil }
    writer = try RecordingWriter(
      folder: folder, session: session, encoding: encoding, depthEncoding: depthEncoding,
      writesGroundTruth: true)
  }

  func append(_ frame: RenderedFrame) throws(RecordingError) {
    try writer.append(
      timestamp: frame.timestamp, image: .rgb(frame.image), depth: frame.depth, groundTruth: frame.pose,
      confidence: frame.confidence)
  }

  func append(_ sample: IMUSample) throws(RecordingError) { try writer.append(imu: sample) }

  func finish() throws(RecordingError) {
    try writer.finish(planes: "planes.json", taps: "taps.txt", gravity: SyntheticScene.gravityDirection)
  }
}

/// The TUM RGB-D layout.
private struct TUMSink: SessionSink {
  let folder: String
  let camera: CameraIntrinsics
  let encoding: RecordingWriter.ImageEncoding
  var rgb = ["# color images", "# timestamp filename"]
  var depth = ["# depth maps (16-bit PNG, 1/5000 m, 0 = unknown)", "# timestamp filename"]
  var truth = ["# ground truth trajectory (optical frame to world)", "# timestamp tx ty tz qx qy qz qw"]
  var accelerometer = ["# accelerometer data (optical frame, m/s^2)", "# timestamp ax ay az"]
  let hasDepth: Bool
  let hasIMU: Bool
  var count = 0

  init(folder: String, scene: SyntheticScene, encoding: RecordingWriter.ImageEncoding) throws(RecordingError)
  {
    self.folder = folder
    camera = scene.camera
    self.encoding = encoding
    hasDepth = scene.sensors.depth != nil
    hasIMU = scene.sensors.imu != nil
    do {
      try FileManager.default.createDirectory(atPath: folder + "/rgb", withIntermediateDirectories: true)
      if hasDepth {
        try FileManager.default.createDirectory(atPath: folder + "/depth", withIntermediateDirectories: true)
      }
    } catch {
      throw RecordingError(file: folder, "cannot create the folder: \(error.localizedDescription)")
    }
  }

  mutating func append(_ frame: RenderedFrame) throws(RecordingError) {
    let stamp = String(format: "%.6f", frame.timestamp)
    let stem = String(format: "%06d", count)
    let (name, quality) = encoding.file(stem: stem)
    do {
      try ImageCodec.write(frame.image, to: folder + "/" + name, quality: quality)
    } catch {
      throw RecordingError(file: folder + "/" + name, error.message)
    }
    rgb.append("\(stamp) \(name)")
    if let map = frame.depth {
      let depthName = "depth/\(stem).png"
      let values = map.metres.map { metres -> UInt16 in
        let units = (Double(metres) * 5000).rounded()
        return units.isFinite && units > 0 && units <= 65535 ? UInt16(units) : 0
      }
      do {
        try ImageCodec.writeDepth16(
          width: map.width, height: map.height, values: values, to: folder + "/" + depthName)
      } catch {
        throw RecordingError(file: folder + "/" + depthName, error.message)
      }
      depth.append("\(stamp) \(depthName)")
    }
    truth.append(([stamp] + frame.pose.tumValues.map { String(format: "%.9f", $0) }).joined(separator: " "))
    count += 1
  }

  mutating func append(_ sample: IMUSample) throws(RecordingError) {
    guard let a = sample.acceleration else { return }
    accelerometer.append(String(format: "%.6f %.6f %.6f %.6f", sample.timestamp, a.x, a.y, a.z))
  }

  func finish() throws(RecordingError) {
    try writeText(rgb.joined(separator: "\n") + "\n", to: folder + "/rgb.txt")
    if hasDepth { try writeText(depth.joined(separator: "\n") + "\n", to: folder + "/depth.txt") }
    try writeText(truth.joined(separator: "\n") + "\n", to: folder + "/groundtruth.txt")
    if hasIMU {
      try writeText(accelerometer.joined(separator: "\n") + "\n", to: folder + "/accelerometer.txt")
    }
    try writeText("\(camera.fx) \(camera.fy) \(camera.cx) \(camera.cy)\n", to: folder + "/intrinsics.txt")
  }
}
