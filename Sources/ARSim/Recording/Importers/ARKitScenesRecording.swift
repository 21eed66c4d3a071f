import Foundation

/// Reads one ARKitScenes video folder, streaming:
///
/// - `lowres_wide/{video}_{timestamp}.png`: colour, 256x192 at 60 Hz; the timestamps (seconds,
///   3 decimals) in the names order the frames.
/// - `lowres_depth/{video}_{timestamp}.png`: uint16 millimetres, same size; 0 = none.
/// - `confidence/{video}_{timestamp}.png` (optional): ARKit's confidence, 0/1/2.
/// - `lowres_wide_intrinsics/{video}_{timestamp}.pincam`: one line `w h fx fy cx cy`; the first
///   frame's is used for the recording.
/// - `lowres_wide.traj`: lines `timestamp ax ay az tx ty tz`, world to camera (axis-angle in
///   radians, metres; camera in the optical convention, world ARKit's y-up one). Frames are
///   matched to poses by timestamps within 5 ms; a frame without one has no reference pose.
///
/// No IMU. The reference trajectory is ARKit's.
public struct ARKitScenesRecordingSource: FrameSource {
  public let info: RecordingInfo
  private let options: FrameSourceOptions
  private let frames: [(stem: String, time: Double)]
  private let trajectory: LineReader
  private var pending: (time: Double, pose: RigidTransform)?
  private var trajectoryDone = false
  private var next = 0

  /// Whether `folder` is an ARKitScenes video folder.
  public static func recognizes(folder: String) -> Bool {
    FileManager.default.fileExists(atPath: folder + "/lowres_wide.traj")
      && ImporterFiles.isDirectory(folder + "/lowres_wide")
  }

  /// Lists the frames and reads the first frame's intrinsics.
  /// - Throws: ``RecordingError`` naming the file and the problem.
  public init(folder: String, options: FrameSourceOptions = FrameSourceOptions()) throws(RecordingError) {
    self.options = options
    let listing: [String]
    do {
      listing = try FileManager.default.contentsOfDirectory(atPath: folder + "/lowres_wide")
    } catch {
      throw RecordingError(file: folder + "/lowres_wide", "cannot be listed")
    }
    var frames: [(stem: String, time: Double)] = []
    for name in listing where name.hasSuffix(".png") {
      let stem = String(name.dropLast(4))
      guard let underscore = stem.lastIndex(of: "_"),
        let time = Double(stem[stem.index(after: underscore)...])
      else {
        throw RecordingError(file: folder + "/lowres_wide/" + name, "name is not '{video}_{timestamp}.png'")
      }
      frames.append((stem, time))
    }
    frames.sort { $0.time < $1.time }
    guard let first = frames.first else {
      throw RecordingError(file: folder + "/lowres_wide", "holds no frames")
    }
    self.frames = frames
    trajectory = try LineReader(path: folder + "/lowres_wide.traj")
    let pincamPath = folder + "/lowres_wide_intrinsics/" + first.stem + ".pincam"
    let pincam = try LineReader(path: pincamPath)
    guard let fields = try pincam.nextRecord() else { throw RecordingError(file: pincamPath, "is empty") }
    let v = try ImporterFiles.numbers(fields[...], ["w", "h", "fx", "fy", "cx", "cy"], pincam)
    guard let width = Int(exactly: v[0]), let height = Int(exactly: v[1]) else {
      throw pincam.error("image size \(v[0])x\(v[1]) is not whole pixels")
    }
    var intrinsics = try CameraIntrinsics(
      fx: v[2], fy: v[3], cx: v[4], cy: v[5], width: width, height: height
    )
    .validated(source: pincamPath)
    if let override = options.intrinsicsOverride {
      intrinsics = try override.resized(width: width, height: height, source: "--intrinsics")
    }
    var info = RecordingInfo(
      path: folder, format: .arkitscenes, intrinsics: intrinsics,
      intrinsicsSource: options.intrinsicsOverride == nil ? "lowres_wide_intrinsics" : "--intrinsics",
      hasDepth: ImporterFiles.isDirectory(folder + "/lowres_depth"), hasAccelerometer: false,
      hasGyroscope: false,
      hasGroundTruth: true, frameRate: 60, frameCount: frames.count, groundTruthGravity: SIMD3(0, -1, 0))
    info.referenceKind = .arkit
    self.info = info
  }

  /// The trajectory's pose for `time`, when one lies within 5 ms (times asked in increasing order).
  private mutating func pose(at time: Double) throws(RecordingError) -> RigidTransform? {
    while !trajectoryDone {
      if let pending, pending.time > time + 0.005 { break }
      if let pending, abs(pending.time - time) <= 0.005 { return pending.pose }
      guard let fields = try trajectory.nextRecord() else {
        trajectoryDone = true
        break
      }
      let v = try ImporterFiles.numbers(
        fields[...], ["timestamp", "ax", "ay", "az", "tx", "ty", "tz"], trajectory)
      if let pending, v[0] <= pending.time {
        throw trajectory.error("timestamp \(v[0]) is not after the previous pose's \(pending.time)")
      }
      let axisAngle = SIMD3(v[1], v[2], v[3])
      let angle = simd_length(axisAngle)
      let rotation =
        angle < 1e-12
        ? simd_quatd(ix: 0, iy: 0, iz: 0, r: 1) : simd_quatd(angle: angle, axis: axisAngle / angle)
      let cameraFromWorld = RigidTransform(rotation: rotation, translation: SIMD3(v[4], v[5], v[6]))
      pending = (v[0], cameraFromWorld.inverse)
    }
    if let pending, abs(pending.time - time) <= 0.005 { return pending.pose }
    return nil
  }

  public mutating func nextFrame() throws(RecordingError) -> RecordedFrame? {
    guard next < frames.count else { return nil }
    let (stem, time) = frames[next]
    let listed = info.path + "/lowres_wide"
    let imagePath = info.path + "/lowres_wide/" + stem + ".png"
    let imageBytes = try FrameFiles.bytes(imagePath, listedIn: listed, line: next + 1)
    var frame = RecordedFrame(
      index: next, timestamp: time,
      image: try FrameFiles.grayImage(imageBytes, path: imagePath, intrinsics: info.intrinsics), depth: nil,
      imu: [], groundTruth: try pose(at: time), confidence: nil)
    if options.decodeColor { frame.deferredColor = DeferredColorImage(path: imagePath, bytes: imageBytes) }
    if options.loadDepth, info.hasDepth {
      try ImporterFiles.loadDepth(
        into: &frame, depth: info.path + "/lowres_depth/" + stem + ".png",
        confidence: info.path + "/confidence/" + stem + ".png", intrinsics: info.intrinsics,
        keep: options.keepEncodedImages, listedIn: listed, line: next + 1)
    }
    if options.keepEncodedImages {
      frame.encodedImage = (imageBytes, "png")
    }
    next += 1
    return frame
  }
}
