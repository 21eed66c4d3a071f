import ARSim
import ARSimMath
import Foundation

/// Files the phone-layout writers share.
enum PhoneFiles {
  /// Creates `folder/name` for each name.
  static func makeFolders(_ folder: String, _ names: [String]) throws(RecordingError) {
    for name in names {
      do {
        try FileManager.default.createDirectory(
          atPath: folder + "/" + name, withIntermediateDirectories: true)
      } catch {
        throw RecordingError(file: folder + "/" + name, "cannot be created: \(error.localizedDescription)")
      }
    }
  }

  /// The frame's confidence as an image: the phone profile's, or else high (2) where there is
  /// depth and low (0) where not.
  static func confidence(_ frame: RenderedFrame, _ depth: DepthImage) -> GrayImage {
    GrayImage(
      width: depth.width, height: depth.height,
      pixels: frame.confidence?.levels ?? depth.metres.map { $0.isFinite && $0 > 0 ? 2 : 0 })
  }

  /// Writes a depth map as a 16-bit PNG of millimetres (0 = none) and its confidence as an 8-bit PNG.
  static func writeDepth(
    _ frame: RenderedFrame, _ depth: DepthImage, to depthPath: String, confidence confidencePath: String
  ) throws(RecordingError) {
    do {
      try ImageCodec.writeDepth16(
        width: depth.width, height: depth.height, values: depth.units(metresPerUnit: 0.001), to: depthPath)
    } catch {
      throw RecordingError(file: depthPath, error.message)
    }
    do {
      try ImageCodec.write(confidence(frame, depth), to: confidencePath)
    } catch {
      throw RecordingError(file: confidencePath, error.message)
    }
  }

  /// A number as Swift prints it: the shortest text that reads back as the same `Double`.
  static func exact(_ values: [Double]) -> [String] { values.map { "\($0)" } }
}

/// Stray Scanner's layout, as the app writes it: `rgb.mp4` (HEVC as iPhones record it, through
/// FFmpeg's libraries and libx265 at CRF 18, so colour is lossy), `depth/NNNNNN.png` (uint16 mm), `confidence/NNNNNN.png`,
/// `camera_matrix.csv`, `odometry.csv` (the optical frame's pose in the world: ARKit's
/// `camera.transform` turned 180 degrees about x) and `imu.csv` (CoreMotion's raw accelerometer in
/// g and the gyroscope in rad/s, device axes, as newer versions of the app write them). Depth is
/// at its rendered size (the phone profile's 256x192, or the image's).
struct StraySink: SessionSink {
  let folder: String
  let camera: CameraIntrinsics
  let video: VideoWriter
  let hasDepth: Bool
  var odometry = ["timestamp, frame, x, y, z, qx, qy, qz, qw"]
  var imu = ["timestamp, a_x, a_y, a_z, alpha_x, alpha_y, alpha_z"]
  var count = 0

  init(folder: String, scene: SyntheticScene) throws(RecordingError) {
    guard scene.sensors.depth != nil else {
      throw RecordingError(file: folder, "a Stray Scanner export needs depth: the scene has no depth sensor")
    }
    self.folder = folder
    camera = scene.camera
    hasDepth = true
    try PhoneFiles.makeFolders(folder, ["depth", "confidence"])
    do {
      video = try VideoWriter(
        path: folder + "/rgb.mp4", width: camera.width, height: camera.height,
        framesPerSecond: scene.frameRate, codec: .hevc)
    } catch {
      throw RecordingError(file: folder + "/rgb.mp4", error.message)
    }
  }

  mutating func append(_ frame: RenderedFrame) throws(RecordingError) {
    do {
      try video.write(frame.image)
    } catch {
      throw RecordingError(file: folder + "/rgb.mp4", error.message)
    }
    let stem = String(format: "%06d", count)
    if let depth = frame.depth {
      try PhoneFiles.writeDepth(
        frame, depth, to: folder + "/depth/\(stem).png", confidence: folder + "/confidence/\(stem).png")
    }
    let pose = frame.pose.tumValues.map { String(format: "%.9f", $0) }
    odometry.append(([String(format: "%.6f", frame.timestamp), "\(count)"] + pose).joined(separator: ", "))
    count += 1
  }

  mutating func append(_ sample: IMUSample) throws(RecordingError) {
    let f = sample.acceleration ?? .zero
    let w = sample.rotationRate ?? .zero
    // The inverse of PhoneAxes: CoreMotion reads minus the specific force, in g, device axes.
    let g = standardGravity
    let device = [f.y / g, f.x / g, f.z / g, -w.y, -w.x, -w.z]
    imu.append(
      ([String(format: "%.6f", sample.timestamp)] + PhoneFiles.exact(device)).joined(separator: ", "))
  }

  func finish() throws(RecordingError) {
    do {
      try video.finish()
    } catch {
      throw RecordingError(file: folder + "/rgb.mp4", error.message)
    }
    let k = camera
    try writeText(
      PhoneFiles.exact([k.fx, 0, k.cx]).joined(separator: ", ") + "\n"
        + PhoneFiles.exact([0, k.fy, k.cy]).joined(separator: ", ") + "\n0.0, 0.0, 1.0\n",
      to: folder + "/camera_matrix.csv")
    try writeText(odometry.joined(separator: "\n") + "\n", to: folder + "/odometry.csv")
    if imu.count > 1 { try writeText(imu.joined(separator: "\n") + "\n", to: folder + "/imu.csv") }
  }
}

/// One ARKitScenes video folder, as the dataset lays it out: `lowres_wide/{video}_{t}.png`
/// (colour, PNG, lossless), `lowres_depth/` (uint16 mm), `confidence/`,
/// `lowres_wide_intrinsics/{video}_{t}.pincam` (`w h fx fy cx cy`) and `lowres_wide.traj`
/// (`t ax ay az tx ty tz`: world to camera, axis-angle in radians, metres), in the dataset's z-up
/// world (the session's y-up world turned a quarter turn about x). `t` is the frame's timestamp with
/// 3 decimals in the names (the dataset's), exact in the trajectory. No IMU: the dataset has none, so
/// IMU samples are dropped.
struct ARKitScenesSink: SessionSink {
  /// The video id in the file names.
  static let video = "synthetic"
  let folder: String
  let camera: CameraIntrinsics
  var trajectory: [String] = []

  init(folder: String, scene: SyntheticScene) throws(RecordingError) {
    self.folder = folder
    camera = scene.camera
    try PhoneFiles.makeFolders(
      folder,
      ["lowres_wide", "lowres_wide_intrinsics"]
        + (scene.sensors.depth != nil ? ["lowres_depth", "confidence"] : []))
  }

  mutating func append(_ frame: RenderedFrame) throws(RecordingError) {
    let stem = Self.video + "_" + String(format: "%.3f", frame.timestamp)
    let imagePath = folder + "/lowres_wide/\(stem).png"
    do {
      try ImageCodec.write(frame.image, to: imagePath)
    } catch {
      throw RecordingError(file: imagePath, error.message)
    }
    if let depth = frame.depth {
      guard depth.width == camera.width, depth.height == camera.height else {
        throw RecordingError(
          file: folder,
          "ARKitScenes keeps depth at the image's size; this depth is \(depth.width)x\(depth.height)")
      }
      try PhoneFiles.writeDepth(
        frame, depth, to: folder + "/lowres_depth/\(stem).png", confidence: folder + "/confidence/\(stem).png"
      )
    }
    let k = camera
    try writeText(
      "\(k.width) \(k.height) " + PhoneFiles.exact([k.fx, k.fy, k.cx, k.cy]).joined(separator: " ") + "\n",
      to: folder + "/lowres_wide_intrinsics/\(stem).pincam")
    let zUpFromYUp = RigidTransform(
      rotation: simd_quatd(angle: .pi / 2, axis: SIMD3(1, 0, 0)), translation: .zero)
    let cameraFromWorld = (zUpFromYUp * frame.pose).inverse
    let q = cameraFromWorld.rotation
    // Axis-angle of the shorter rotation (w >= 0): angle 2 atan2(|v|, w) about v / |v|.
    let sign: Double = q.real < 0 ? -1 : 1
    let v = q.imag * sign
    let norm = simd_length(v)
    let axisAngle = norm < 1e-15 ? SIMD3<Double>.zero : v / norm * (2 * atan2(norm, q.real * sign))
    let t = cameraFromWorld.translation
    trajectory.append(
      PhoneFiles.exact([frame.timestamp, axisAngle.x, axisAngle.y, axisAngle.z, t.x, t.y, t.z]).joined(
        separator: " "))
  }

  mutating func append(_: IMUSample) throws(RecordingError) {}

  func finish() throws(RecordingError) {
    try writeText(trajectory.joined(separator: "\n") + "\n", to: folder + "/lowres_wide.traj")
  }
}
