import Foundation

/// The contents of an ARSim recording's `session.json` (format documented in Datasets/README.md).
public struct RecordingSession: Codable, Sendable, Equatable {
  /// The format version this library writes and reads.
  public static let currentVersion = 1

  /// Always "arsim-recording".
  public var format: String
  /// The format version, ``currentVersion`` when written by this library.
  public var version: Int
  /// Camera intrinsics and image size.
  public var camera: CameraIntrinsics
  /// The depth maps' intrinsics and size when depth has its own resolution (phone recordings);
  /// nil when depth is registered at the image's size.
  public var depthCamera: CameraIntrinsics?
  /// Metres per unit of the 16-bit depth PNGs (0.001 for millimetres), in ``depthScaleRange``.
  public var depthScale: Double
  /// The accepted `depthScale` values: a micrometre to 10 cm per unit.
  public static let depthScaleRange = 1e-6...0.1
  /// Nominal frame rate in Hz.
  public var frameRate: Double?
  /// Rolling shutter: seconds from the exposure of the image's first row to its last (rows top to
  /// bottom, the middle row at the frame's timestamp); nil for a global shutter or when unknown.
  public var readoutTime: Double?
  /// The sensors recorded.
  public var sensors: Sensors
  /// The frame index, relative to the folder: lines `timestamp image depth` (`-` for none).
  public var frames: String
  /// The IMU file, relative to the folder: lines `timestamp ax ay az gx gy gz` in the camera's
  /// optical frame (m/s², rad/s); nil without IMU.
  public var imu: String?
  /// A video file holding the images in index order, used when the index's image column is `-`.
  public var video: String?
  /// Ground truth, when known.
  public var groundTruth: GroundTruthFiles?

  /// The sensors of a recording.
  public struct Sensors: Codable, Sendable, Equatable {
    public var color: Bool
    public var depth: Bool
    public var accelerometer: Bool
    public var gyroscope: Bool

    /// Creates a sensor list.
    public init(color: Bool = true, depth: Bool, accelerometer: Bool, gyroscope: Bool) {
      self.color = color
      self.depth = depth
      self.accelerometer = accelerometer
      self.gyroscope = gyroscope
    }
  }

  /// Ground-truth files, relative to the folder.
  public struct GroundTruthFiles: Codable, Sendable, Equatable {
    /// TUM-format trajectory of the camera's optical frame in the ground-truth world.
    public var trajectory: String?
    /// Plane list (`planes.json`).
    public var planes: String?
    /// Tap list (`taps.txt`).
    public var taps: String?
    /// Gravity's direction (unit vector) in the ground-truth world.
    public var gravity: [Double]?
    /// What the trajectory is: exact ground truth (nil means this) or ARKit's estimate.
    public var kind: ReferenceKind?

    /// Creates a ground-truth file list.
    public init(
      trajectory: String?, planes: String?, taps: String?, gravity: [Double]?, kind: ReferenceKind? = nil
    ) {
      self.trajectory = trajectory
      self.planes = planes
      self.taps = taps
      self.gravity = gravity
      self.kind = kind
    }
  }

  /// Creates a session description with the standard file names.
  public init(
    camera: CameraIntrinsics, depthScale: Double = 0.001, frameRate: Double?, sensors: Sensors,
    groundTruth: GroundTruthFiles? = nil
  ) {
    format = "arsim-recording"
    version = Self.currentVersion
    self.camera = camera
    self.depthScale = depthScale
    self.frameRate = frameRate
    self.sensors = sensors
    frames = "frames.txt"
    imu = sensors.accelerometer || sensors.gyroscope ? "imu.txt" : nil
    video = nil
    self.groundTruth = groundTruth
  }

  /// Reads and checks `session.json` in `folder`.
  public static func load(folder: String) throws(RecordingError) -> RecordingSession {
    let path = folder + "/session.json"
    let data = Data(try StrictJSON.contents(path))
    let session: RecordingSession
    do {
      session = try JSONDecoder().decode(RecordingSession.self, from: data)
    } catch let DecodingError.keyNotFound(key, context) {
      throw RecordingError(
        file: path, "missing key '\((context.codingPath + [key]).map(\.stringValue).joined(separator: "."))'")
    } catch let DecodingError.typeMismatch(_, context) {
      throw RecordingError(
        file: path, "wrong type at '\(context.codingPath.map(\.stringValue).joined(separator: "."))'")
    } catch let DecodingError.valueNotFound(_, context) {
      throw RecordingError(
        file: path, "null at '\(context.codingPath.map(\.stringValue).joined(separator: "."))'")
    } catch {
      throw RecordingError(file: path, "not valid JSON")
    }
    guard session.format == "arsim-recording" else {
      throw RecordingError(file: path, "format is '\(session.format)', expected 'arsim-recording'")
    }
    guard session.version == currentVersion else {
      throw RecordingError(
        file: path, "format version \(session.version) is not supported (this build reads \(currentVersion))")
    }
    _ = try session.camera.validated(source: path)
    _ = try session.depthCamera?.validated(source: path + " (depthCamera)")
    let camera = session.camera
    guard camera.width <= ImageCodec.maxDimension, camera.height <= ImageCodec.maxDimension,
      camera.width * camera.height <= ImageCodec.maxPixels
    else {
      throw RecordingError(
        file: path,
        "camera is \(camera.width)x\(camera.height), more than the \(ImageCodec.maxDimension) pixels a side (\(ImageCodec.maxPixels) in all) images may have"
      )
    }
    if let readout = session.readoutTime, !(0...0.1).contains(readout) {
      throw RecordingError(file: path, "readoutTime \(readout) s is outside 0...0.1")
    }
    guard depthScaleRange.contains(session.depthScale) else {
      throw RecordingError(
        file: path,
        "depthScale must be in \(depthScaleRange.lowerBound)...\(depthScaleRange.upperBound) metres per unit, got \(session.depthScale)"
      )
    }
    let named: [(String, String?)] = [
      ("frames", session.frames), ("imu", session.imu), ("video", session.video),
      ("groundTruth.trajectory", session.groundTruth?.trajectory),
      ("groundTruth.planes", session.groundTruth?.planes), ("groundTruth.taps", session.groundTruth?.taps),
    ]
    for case let (key, name?) in named where name.isEmpty || name.contains("\0") {
      throw RecordingError(file: path, "'\(key)' must name a file, got \"\(name)\"")
    }
    if let rate = session.frameRate, !(rate.isFinite && rate > 0) {
      throw RecordingError(file: path, "frameRate must be a positive number, got \(rate)")
    }
    if let gravity = session.groundTruth?.gravity {
      let norm = gravity.map { $0 * $0 }.reduce(0, +).squareRoot()
      guard gravity.count == 3, gravity.allSatisfy(\.isFinite), abs(norm - 1) < 1e-3 else {
        throw RecordingError(file: path, "groundTruth.gravity must be a unit 3-vector, got \(gravity)")
      }
    }
    return session
  }
}

/// Reads an ARSim recording folder frame by frame.
public struct ARSimRecordingSource: FrameSource {
  public let info: RecordingInfo
  /// The session description.
  public let session: RecordingSession
  private let options: FrameSourceOptions
  private let index: LineReader
  private let imu: IMUStream?
  private let trajectory: TrajectoryStream?
  private let video: (reader: VideoReader, path: String)?
  private var nextIndex = 0
  private var lastTimestamp = -Double.infinity

  /// Opens the recording in `folder` and checks its description and index.
  /// - Throws: ``RecordingError`` naming the file and the problem.
  public init(folder: String, options: FrameSourceOptions = FrameSourceOptions()) throws(RecordingError) {
    let session = try RecordingSession.load(folder: folder)
    self.session = session
    self.options = options
    let (intrinsics, intrinsicsSource) = try options.intrinsics(session.camera, recordedIn: "session.json")
    let indexPath = folder + "/" + session.frames
    let frameCount = try Self.countFrames(indexPath)
    index = try LineReader(path: indexPath)
    imu = try session.imu.map { name throws(RecordingError) in
      try IMUStream(path: folder + "/" + name) { reader, fields throws(RecordingError) in
        guard fields.count == 7 else {
          throw reader.error("expected 'timestamp ax ay az gx gy gz', got \(fields.count) fields")
        }
        var v = [try reader.timestamp(fields[0])]
        for (field, name) in zip(fields[1...], ["ax", "ay", "az", "gx", "gy", "gz"]) {
          let bound = name.hasPrefix("a") ? LineReader.maxAcceleration : LineReader.maxRotationRate
          v.append(try reader.number(field, name, within: bound))
        }
        return IMUSample(
          timestamp: v[0], acceleration: SIMD3(v[1], v[2], v[3]), rotationRate: SIMD3(v[4], v[5], v[6]))
      }
    }
    trajectory = try session.groundTruth?.trajectory.map { name throws(RecordingError) in
      try TrajectoryStream(path: folder + "/" + name, maxGap: 0.1)
    }
    if let name = session.video {
      do {
        video = (try VideoReader(path: folder + "/" + name), folder + "/" + name)
      } catch {
        throw RecordingError(file: folder + "/" + name, error.message)
      }
    } else {
      video = nil
    }
    let gravity = session.groundTruth?.gravity.map { SIMD3($0[0], $0[1], $0[2]) }
    var info = RecordingInfo(
      path: folder, format: .arsim, intrinsics: intrinsics,
      intrinsicsSource: intrinsicsSource,
      hasDepth: session.sensors.depth, hasAccelerometer: session.sensors.accelerometer,
      hasGyroscope: session.sensors.gyroscope, hasGroundTruth: trajectory != nil,
      frameRate: session.frameRate, frameCount: frameCount, groundTruthGravity: gravity)
    info.hasImages = session.sensors.color || session.video != nil
    info.depthIntrinsics = session.depthCamera
    info.readoutTime = session.readoutTime
    info.referenceKind = session.groundTruth?.kind ?? .groundTruth
    self.info = info
  }

  private static func countFrames(_ path: String) throws(RecordingError) -> Int {
    let reader = try LineReader(path: path)
    var count = 0
    while try reader.nextRecord() != nil { count += 1 }
    guard count > 0 else { throw RecordingError(file: path, "the recording has no frames") }
    return count
  }

  public mutating func nextFrame() throws(RecordingError) -> RecordedFrame? {
    guard let fields = try index.nextRecord() else {
      try imu?.finish()
      try trajectory?.finish()
      return nil
    }
    guard fields.count == 3 || fields.count == 4 else {
      throw index.error("expected 'timestamp image depth [confidence]', got \(fields.count) fields")
    }
    let timestamp = try index.timestamp(fields[0])
    guard timestamp > lastTimestamp else {
      throw index.error("timestamp \(timestamp) is not after the previous frame's \(lastTimestamp)")
    }
    lastTimestamp = timestamp
    let line = index.lineNumber
    var image: CapturedImage?
    var file: FileImage?
    if fields[1] == "-", !info.hasImages {
      image = nil
    } else if fields[1] == "-" {
      guard let video else { throw index.error("image is '-' but session.json names no video") }
      let frame = try FrameFiles.videoFrame(video, color: options.decodeColor)
      guard frame.width == info.intrinsics.width, frame.height == info.intrinsics.height else {
        throw RecordingError(
          file: video.path,
          "video frames are \(frame.width)x\(frame.height) but the intrinsics are for \(info.intrinsics.width)x\(info.intrinsics.height)"
        )
      }
      image = frame
    } else {
      file = try FrameFiles.image(
        FrameFiles.resolve(fields[1], in: info.path), color: options.decodeColor,
        intrinsics: info.intrinsics, maxSide: options.trackingMaxSide, listedIn: index.path, line: line)
    }
    var depth: DepthImage?
    var confidence: ConfidenceMap?
    let depthIntrinsics = info.depthIntrinsics ?? info.intrinsics
    if fields[2] != "-", options.loadDepth, session.sensors.depth {
      depth = try FrameFiles.depth(
        FrameFiles.resolve(fields[2], in: info.path), metresPerUnit: session.depthScale,
        intrinsics: depthIntrinsics, listedIn: index.path, line: line)
      if fields.count == 4, fields[3] != "-" {
        confidence = try ImporterFiles.confidence(
          FrameFiles.resolve(fields[3], in: info.path), width: depthIntrinsics.width,
          height: depthIntrinsics.height, listedIn: index.path, line: line
        ).map
      }
    }
    var frame = RecordedFrame(
      index: nextIndex, timestamp: timestamp, image: image, depth: depth,
      imu: try imu?.samples(through: timestamp) ?? [], groundTruth: try trajectory?.pose(at: timestamp),
      confidence: confidence)
    file?.apply(to: &frame)
    nextIndex += 1
    return frame
  }
}
