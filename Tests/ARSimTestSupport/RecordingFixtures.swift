import ARSim
import Foundation
import Testing

/// Small recordings written to a temporary folder for tests, with known content.
public enum RecordingFixtures {
  /// A fresh temporary folder.
  public static func temporaryFolder(_ name: String = "arsim-test") -> String {
    let path = FileManager.default.temporaryDirectory.path + "/\(name)-\(UUID().uuidString)"
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }

  public static let intrinsics = CameraIntrinsics(fx: 40, fy: 40, cx: 15.5, cy: 11.5, width: 32, height: 24)

  /// A deterministic test image whose pixels encode the frame index.
  public static func image(frame: Int, width: Int = 32, height: Int = 24) -> RGBImage {
    var pixels = [UInt8](repeating: 0, count: width * height * 3)
    for y in 0..<height {
      for x in 0..<width {
        let i = (y * width + x) * 3
        pixels[i] = UInt8((x * 8 + frame * 3) & 0xff)
        pixels[i + 1] = UInt8((y * 10) & 0xff)
        pixels[i + 2] = UInt8((frame * 20) & 0xff)
      }
    }
    return RGBImage(width: width, height: height, pixels: pixels)
  }

  /// Depth in metres: a plane tilted along x, with a hole (NaN) at pixel (0, 0).
  public static func depth(frame: Int, width: Int = 32, height: Int = 24) -> DepthImage {
    var metres = [Float](repeating: 0, count: width * height)
    for y in 0..<height {
      for x in 0..<width { metres[y * width + x] = 1.0 + Float(x) * 0.01 + Float(frame) * 0.001 }
    }
    metres[0] = .nan
    return DepthImage(width: width, height: height, metres: metres)
  }

  /// Pose of frame i: moving along x by 1 cm per frame, turning 1 degree per frame about y.
  public static func pose(frame: Int) -> RigidTransform {
    RigidTransform(
      rotation: simd_quatd(angle: Double(frame) * .pi / 180, axis: SIMD3(0, 1, 0)),
      translation: SIMD3(0.01 * Double(frame), 0, 0))
  }

  /// Writes an ARSim recording with `frames` frames at 10 Hz, depth, IMU at 100 Hz and ground truth.
  @discardableResult
  public static func writeARSim(
    frames: Int = 5, to folder: String = temporaryFolder(), encoding: RecordingWriter.ImageEncoding = .png
  ) throws -> String {
    let session = RecordingSession(
      camera: intrinsics, frameRate: 10,
      sensors: .init(depth: true, accelerometer: true, gyroscope: true))
    let writer = try RecordingWriter(
      folder: folder, session: session, encoding: encoding, writesGroundTruth: true)
    for i in 0..<frames {
      let t = 1.0 + Double(i) * 0.1
      for k in 0..<10 {
        let ti = t - 0.09 + Double(k) * 0.01
        try writer.append(
          imu: IMUSample(timestamp: ti, acceleration: SIMD3(0, -9.81, 0), rotationRate: SIMD3(0, 0.1, 0)))
      }
      try writer.append(
        timestamp: t, image: .rgb(image(frame: i)), depth: depth(frame: i), groundTruth: pose(frame: i))
    }
    try writer.finish(gravity: SIMD3(0, -1, 0))
    return folder
  }

  /// Writes a TUM-layout folder with `frames` colour images at 10 Hz, depth 5 ms off, and
  /// ground truth at 100 Hz.
  @discardableResult
  public static func writeTUM(
    frames: Int = 5, to folder: String = temporaryFolder("rgbd_dataset_freiburg1_test"), sidecar: Bool = true
  )
    throws -> String
  {
    let fm = FileManager.default
    try fm.createDirectory(atPath: folder + "/rgb", withIntermediateDirectories: true)
    try fm.createDirectory(atPath: folder + "/depth", withIntermediateDirectories: true)
    var rgb = "# color images\n# timestamp filename\n"
    var depthIndex = "# depth maps\n"
    var truth = "# ground truth trajectory\n"
    var accel = "# accelerometer data\n"
    for i in 0..<frames {
      let t = 100.0 + Double(i) * 0.1
      let name = String(format: "%.6f", t)
      try ImageCodec.write(image(frame: i), to: folder + "/rgb/\(name).png", quality: 3)
      let values = depth(frame: i).metres.map { $0.isFinite ? UInt16(($0 * 5000).rounded()) : 0 }
      let dname = String(format: "%.6f", t + 0.005)
      try ImageCodec.writeDepth16(width: 32, height: 24, values: values, to: folder + "/depth/\(dname).png")
      rgb += "\(name) rgb/\(name).png\n"
      depthIndex += "\(dname) depth/\(dname).png\n"
      accel += "\(name) 0.0 -9.81 0.0\n"
    }
    for k in 0..<(frames * 10) {
      let t = 99.95 + Double(k) * 0.01
      let pose = pose(frame: 0)  // static camera for interpolation checks
      let v = pose.tumValues
      truth += String(format: "%.4f", t) + " " + v.map { String($0) }.joined(separator: " ") + "\n"
    }
    try rgb.write(toFile: folder + "/rgb.txt", atomically: true, encoding: .utf8)
    try depthIndex.write(toFile: folder + "/depth.txt", atomically: true, encoding: .utf8)
    try truth.write(toFile: folder + "/groundtruth.txt", atomically: true, encoding: .utf8)
    try accel.write(toFile: folder + "/accelerometer.txt", atomically: true, encoding: .utf8)
    if sidecar {
      try "40 40 15.5 11.5\n".write(toFile: folder + "/intrinsics.txt", atomically: true, encoding: .utf8)
    }
    return folder
  }

  /// Reads every frame of a recording.
  public static func readAll(_ folder: String, options: FrameSourceOptions = FrameSourceOptions()) throws
    -> [RecordedFrame]
  {
    var source = try Recording.open(folder: folder, options: options)
    var frames: [RecordedFrame] = []
    while let frame = try source.nextFrame() { frames.append(frame) }
    return frames
  }

  /// The error reading every frame of `folder` ends in, as its text (expected on one line), or nil
  /// when the recording reads to the end.
  public static func readFailure(_ folder: String) -> String? {
    do {
      _ = try readAll(folder)
      return nil
    } catch {
      #expect(!"\(error)".contains("\n"), "errors are one line")
      return "\(error)"
    }
  }
}
