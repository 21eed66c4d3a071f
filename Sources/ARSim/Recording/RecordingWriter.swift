import Foundation

/// Writes a recording in the ARSim format (documented in Datasets/README.md), frame by frame,
/// with memory that stays flat however long the recording is.
///
/// Call ``append(timestamp:image:depth:groundTruth:)`` for each frame in time order,
/// ``append(imu:)`` for inertial samples, and ``finish()`` last: `session.json` is written by
/// `finish()`, so a folder whose writing was interrupted is not mistaken for a recording.
public final class RecordingWriter {
  /// How colour images are stored.
  public enum ImageEncoding: Sendable, Equatable {
    /// Lossless PNG.
    case png
    /// JPEG with a quality from 1 to 100.
    case jpeg(quality: Int)

    /// The file name of frame `stem`'s image (`rgb/STEM.png` or `.jpg`) and the codec's quality
    /// setting (PNG compression level 3, or the JPEG quality).
    package func file(stem: String) -> (name: String, quality: Int) {
      switch self {
      case .png: ("rgb/\(stem).png", 3)
      case .jpeg(let q): ("rgb/\(stem).jpg", q)
      }
    }
  }

  /// How depth maps are stored.
  public enum DepthEncoding: Sendable, Equatable {
    /// 16-bit PNG in units of `session.depthScale` (millimetres by default).
    case png16
    /// OpenEXR with one 32-bit float channel in metres: lossless for any float depth.
    case exrFloat
  }

  /// The folder being written.
  public let folder: String
  private var session: RecordingSession
  private let encoding: ImageEncoding
  private let depthEncoding: DepthEncoding
  private let frames: TextFileWriter
  private let imu: TextFileWriter?
  private let trajectory: TextFileWriter?
  private var frameCount = 0
  /// Rows written to ``trajectory``.
  private var trajectoryRows = 0
  private var lastTimestamp = -Double.infinity
  private var lastIMUTimestamp = -Double.infinity

  /// Creates `folder` (and its `rgb/` and `depth/` subfolders) for a new recording.
  /// - Parameter writesGroundTruth: whether frames will carry a ground-truth pose, written to
  ///   `groundtruth.txt` and named in `session.json`.
  public init(
    folder: String, session: RecordingSession, encoding: ImageEncoding = .png,
    depthEncoding: DepthEncoding = .png16,
    writesGroundTruth: Bool
  ) throws(RecordingError) {
    _ = try session.camera.validated(source: "session")
    self.folder = folder
    self.session = session
    self.encoding = encoding
    self.depthEncoding = depthEncoding
    do {
      try FileManager.default.createDirectory(atPath: folder + "/rgb", withIntermediateDirectories: true)
      if session.sensors.depth {
        try FileManager.default.createDirectory(atPath: folder + "/depth", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
          atPath: folder + "/confidence", withIntermediateDirectories: true)
      }
    } catch {
      throw RecordingError(file: folder, "cannot create the folder: \(error.localizedDescription)")
    }
    frames = try TextFileWriter(path: folder + "/" + session.frames, header: "# timestamp image depth")
    imu = try session.imu.map { name throws(RecordingError) in
      try TextFileWriter(
        path: folder + "/" + name, header: "# timestamp ax ay az gx gy gz (optical frame, m/s^2, rad/s)")
    }
    if writesGroundTruth {
      var truth =
        self.session.groundTruth ?? .init(trajectory: nil, planes: nil, taps: nil, gravity: nil)
      truth.trajectory = truth.trajectory ?? "groundtruth.txt"
      self.session.groundTruth = truth
      trajectory = try TextFileWriter(
        path: folder + "/" + truth.trajectory!,
        header: "# timestamp tx ty tz qx qy qz qw (optical frame to world)")
    } else {
      trajectory = nil
    }
  }

  /// Appends a frame. Images are `session.camera.width` x `height` (nil only for a session without
  /// colour); `encodedImage` (the file as recorded, with its extension) is stored as is instead
  /// of re-encoding `image`. Depth is in metres (NaN or 0 where unknown), `session.depthCamera`'s
  /// size when set, stored per `depthEncoding`; `confidence` (same size) as an 8-bit PNG.
  /// `encodedDepthMillimetres` and `encodedConfidence` (the files as recorded, holding `depth` and
  /// `confidence`: ``RecordedFrame``'s) are stored as they are when the encoding is the same
  /// (16-bit PNG of millimetres), which spares encoding them again.
  public func append(
    timestamp: Double, image: CapturedImage?, depth: DepthImage?, groundTruth: RigidTransform?,
    confidence: ConfidenceMap? = nil, encodedImage: (bytes: [UInt8], fileExtension: String)? = nil,
    encodedDepthMillimetres: [UInt8]? = nil, encodedConfidence: [UInt8]? = nil
  )
    throws(RecordingError)
  {
    guard timestamp.isFinite, timestamp > lastTimestamp else {
      throw RecordingError(
        file: frames.path, "timestamp \(timestamp) is not after the previous frame's \(lastTimestamp)")
    }
    let camera = session.camera
    let stem = String(format: "%06d", frameCount)
    var imageName = "-"
    if let image {
      guard image.width == camera.width, image.height == camera.height else {
        throw RecordingError(
          file: folder,
          "image is \(image.width)x\(image.height), the session says \(camera.width)x\(camera.height)")
      }
      imageName = try write(image, encoded: encodedImage, stem: stem)
    } else if session.sensors.color {
      throw RecordingError(file: folder, "frame \(frameCount) has no image but the session records colour")
    }
    var depthName = "-"
    var confidenceName: String?
    if let depth {
      guard session.sensors.depth else {
        throw RecordingError(file: folder, "the session has no depth sensor")
      }
      let size = session.depthCamera ?? camera
      guard depth.width == size.width, depth.height == size.height else {
        throw RecordingError(
          file: folder,
          "depth is \(depth.width)x\(depth.height), the session says \(size.width)x\(size.height)")
      }
      let copiesDepth = depthEncoding == .png16 && session.depthScale == 0.001
      depthName = try write(depth, stem: stem, encoded: copiesDepth ? encodedDepthMillimetres : nil)
      if let confidence {
        guard confidence.width == depth.width, confidence.height == depth.height else {
          throw RecordingError(file: folder, "confidence map size differs from the depth map's")
        }
        let name = "confidence/\(stem).png"
        if let encodedConfidence {
          try copy(encodedConfidence, to: name)
        } else {
          do {
            try ImageCodec.write(
              GrayImage(width: confidence.width, height: confidence.height, pixels: confidence.levels),
              to: folder + "/" + name)
          } catch {
            throw RecordingError(file: folder + "/" + name, error.message)
          }
        }
        confidenceName = name
      }
    }
    try frames.write(
      "\(Self.time(timestamp)) \(imageName) \(depthName)" + (confidenceName.map { " " + $0 } ?? ""))
    if let trajectory {
      // Frames before the first pose may have none (the reference starts later: poses an app wrote
      // while ARKit was initialising are not kept); from the first pose on, every frame needs one.
      if let groundTruth {
        try trajectory.write(
          ([Self.time(timestamp)] + groundTruth.tumValues.map { String(format: "%.9f", $0) }).joined(
            separator: " "))
        trajectoryRows += 1
      } else if trajectoryRows > 0 {
        throw RecordingError(file: trajectory.path, "frame \(frameCount) has no ground-truth pose")
      }
    }
    lastTimestamp = timestamp
    frameCount += 1
  }

  private func write(_ image: CapturedImage, encoded: (bytes: [UInt8], fileExtension: String)?, stem: String)
    throws(RecordingError) -> String
  {
    if let encoded {
      let name = "rgb/\(stem).\(encoded.fileExtension)"
      try copy(encoded.bytes, to: name)
      return name
    }
    let (name, quality) = encoding.file(stem: stem)
    do {
      switch image {
      case .gray(let gray): try ImageCodec.write(gray, to: folder + "/" + name, quality: quality)
      case .rgb(let rgb): try ImageCodec.write(rgb, to: folder + "/" + name, quality: quality)
      }
    } catch {
      throw RecordingError(file: folder + "/" + name, error.message)
    }
    return name
  }

  /// Writes a file as recorded to `name` in the folder.
  ///
  /// Plain `write` calls, with no `fsync` and no temporary file: Foundation's file writes sync
  /// every file to disk, which would be most of an import's time (Tools/bench-import.sh). A conversion
  /// that must appear whole writes into a folder renamed at the end (as `arsim import` does).
  private func copy(_ bytes: [UInt8], to name: String) throws(RecordingError) {
    let path = folder + "/" + name
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else {
      throw RecordingError(file: path, "cannot be written: \(String(cString: strerror(errno)))")
    }
    let problem = bytes.withUnsafeBytes { RegularFile.writeAll($0, to: descriptor) }
    let closed = close(descriptor) == 0 ? nil : errno
    if let code = problem ?? closed {
      throw RecordingError(file: path, "write failed: \(String(cString: strerror(code)))")
    }
  }

  private func write(_ depth: DepthImage, stem: String, encoded: [UInt8]?) throws(RecordingError) -> String {
    if let encoded {
      try copy(encoded, to: "depth/\(stem).png")
      return "depth/\(stem).png"
    }
    let name: String
    do {
      switch depthEncoding {
      case .exrFloat:
        name = "depth/\(stem).exr"
        try ImageCodec.writeFloat32(
          width: depth.width, height: depth.height,
          values: depth.metres.map { $0.isFinite && $0 > 0 ? $0 : 0 },
          to: folder + "/" + name)
      case .png16:
        name = "depth/\(stem).png"
        try ImageCodec.writeDepth16(
          width: depth.width, height: depth.height, values: depth.units(metresPerUnit: session.depthScale),
          to: folder + "/" + name)
      }
    } catch {
      throw RecordingError(file: folder + "/depth/\(stem)", error.message)
    }
    return name
  }

  /// Appends an inertial sample (optical frame; m/s² and rad/s). Samples must come in time order.
  public func append(imu sample: IMUSample) throws(RecordingError) {
    guard let imu else { throw RecordingError(file: folder, "the session has no IMU") }
    guard sample.timestamp > lastIMUTimestamp else {
      throw RecordingError(
        file: imu.path, "IMU timestamp \(sample.timestamp) is not after \(lastIMUTimestamp)")
    }
    lastIMUTimestamp = sample.timestamp
    let a = sample.acceleration ?? .zero
    let g = sample.rotationRate ?? .zero
    // Shortest round-trip decimals: the samples read back bit for bit (the IMU feeds gravity and
    // the gyroscope prior for the whole session, so rounding would change the replay).
    let values = [a.x, a.y, a.z, g.x, g.y, g.z].map { "\($0)" }
    try imu.write(([Self.time(sample.timestamp)] + values).joined(separator: " "))
  }

  /// Flushes the index files and writes `session.json`.
  /// - Parameter extraGroundTruth: names of further ground-truth files already written into the folder.
  public func finish(planes: String? = nil, taps: String? = nil, gravity: SIMD3<Double>? = nil)
    throws(RecordingError)
  {
    guard frameCount > 0 else { throw RecordingError(file: folder, "no frames were written") }
    try frames.close()
    try imu?.close()
    try trajectory?.close()
    if planes != nil || taps != nil || gravity != nil {
      var truth = session.groundTruth ?? .init(trajectory: nil, planes: nil, taps: nil, gravity: nil)
      truth.planes = planes ?? truth.planes
      truth.taps = taps ?? truth.taps
      truth.gravity = gravity.map { [$0.x, $0.y, $0.z] } ?? truth.gravity
      session.groundTruth = truth
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    do {
      try encoder.encode(session).write(to: URL(fileURLWithPath: folder + "/session.json"), options: .atomic)
    } catch {
      throw RecordingError(file: folder + "/session.json", "cannot be written: \(error.localizedDescription)")
    }
  }

  /// A timestamp as written: microseconds (`%.6f`) when they hold it exactly, else the shortest
  /// text that reads back as the same `Double` (a phone's clock in nanoseconds since boot), so a
  /// converted recording replays on exactly the recorded times.
  static func time(_ t: Double) -> String {
    let micro = String(format: "%.6f", t)
    return Double(micro) == t ? micro : "\(t)"
  }
}

/// A text file written line by line through a buffer.
final class TextFileWriter {
  let path: String
  private let handle: FileHandle
  private var buffer = ""

  init(path: String, header: String?) throws(RecordingError) {
    self.path = path
    guard FileManager.default.createFile(atPath: path, contents: nil),
      let handle = FileHandle(forWritingAtPath: path)
    else { throw RecordingError(file: path, "cannot be created") }
    self.handle = handle
    if let header { try write(header) }
  }

  func write(_ line: String) throws(RecordingError) {
    buffer += line
    buffer += "\n"
    if buffer.utf8.count > 1 << 16 { try flush() }
  }

  func flush() throws(RecordingError) {
    do {
      try handle.write(contentsOf: Data(buffer.utf8))
    } catch {
      throw RecordingError(file: path, "write failed: \(error.localizedDescription)")
    }
    buffer = ""
  }

  func close() throws(RecordingError) {
    try flush()
    try? handle.close()
  }
}
