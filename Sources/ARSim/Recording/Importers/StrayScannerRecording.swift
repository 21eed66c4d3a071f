import Foundation

/// Reads a Stray Scanner export folder as is, streaming:
///
/// - `odometry.csv`: header, then `timestamp, frame, x, y, z, qx, qy, qz, qw` (seconds since boot;
///   `frame` indexes `depth/` and the video; ARKit's `camera.transform` with the rotation turned
///   180 degrees about x, i.e. the optical frame in ARKit's gravity-aligned y-up world). Extra
///   columns (the 15-column variant's per-frame intrinsics) are ignored: `camera_matrix.csv` is used.
/// - `camera_matrix.csv`: the 3x3 K, row-major, for the video's resolution.
/// - `depth/NNNNNN.png`: uint16 millimetres at the depth sensor's resolution (256x192); 0 = none.
/// - `confidence/NNNNNN.png` (optional): ARKit's confidence, 0/1/2.
/// - `rgb.mp4` (optional here): the colour video, one frame per `frame` index. Without it frames
///   carry no image (only depth-only tracking replays them) and the colour size is inferred
///   from K's principal point and the depth size (noted in ``RecordingInfo/notes``).
/// - `imu.csv` (optional): `timestamp, a_x, a_y, a_z, alpha_x, alpha_y, alpha_z`, CoreMotion's raw
///   accelerometer in device axes (units told apart by magnitude: g or m/s^2) and gyroscope in
///   rad/s; converted to specific force and angular rate in the optical frame (``PhoneAxes``).
///
/// The reference trajectory is ARKit's (``ReferenceKind/arkit``), gravity (0, -1, 0) in its world.
public struct StrayScannerRecordingSource: FrameSource {
  public let info: RecordingInfo
  private let options: FrameSourceOptions
  private let odometry: LineReader
  private let imu: IMUStream?
  private let video: (reader: VideoReader, path: String)?
  private var videoFrames = 0
  private var nextIndex = 0
  private var lastTimestamp = -Double.infinity
  private var lastFrame = -1
  /// The number of fields every odometry row has (the header's, else the first row's).
  private let odometryColumns: Int

  /// Whether `folder` looks like a Stray Scanner export: it has `odometry.csv` (the reader then names
  /// whatever else is missing).
  public static func recognizes(folder: String) -> Bool {
    FileManager.default.fileExists(atPath: folder + "/odometry.csv")
  }

  /// Opens the folder, reads K, the first depth map's size and the accelerometer's units.
  /// - Throws: ``RecordingError`` naming the file and the problem.
  public init(folder: String, options: FrameSourceOptions = FrameSourceOptions()) throws(RecordingError) {
    self.options = options
    let odometryPath = folder + "/odometry.csv"
    let matrixPath = folder + "/camera_matrix.csv"
    guard try InputFile.exists(matrixPath) else {
      throw RecordingError(
        file: matrixPath,
        "is missing: a Stray Scanner export (odometry.csv is there) needs its 3x3 camera matrix")
    }
    let (frameCount, firstFrame, columns) = try Self.scanOdometry(odometryPath)
    odometryColumns = columns
    odometry = try LineReader(path: odometryPath)
    let colourK = try Self.cameraMatrix(matrixPath)
    let firstDepthPath = folder + "/depth/" + Self.stem(firstFrame) + ".png"
    let depthSize = try ImporterFiles.depthSize(firstDepthPath, listedIn: odometryPath, line: 2)
    var notes: [String] = []
    let videoPath = folder + "/rgb.mp4"
    var intrinsics: CameraIntrinsics
    if FileManager.default.fileExists(atPath: videoPath) {
      do {
        let reader = try VideoReader(path: videoPath)
        video = (reader, videoPath)
        intrinsics = colourK
        intrinsics.width = reader.width
        intrinsics.height = reader.height
      } catch {
        throw RecordingError(file: videoPath, error.message)
      }
    } else {
      video = nil
      // Phone colour resolutions are the depth resolution times a multiple of 0.5 (7.5 for 1920x1440).
      let ratio = max(0.5, ((colourK.cx + 0.5) * 2 / Double(depthSize.width) * 2).rounded() / 2)
      guard ratio <= 32 else {
        throw RecordingError(
          file: matrixPath,
          "principal point x \(colourK.cx) is not in a colour image of up to 32 times the depth map's width "
            + "\(depthSize.width)")
      }
      intrinsics = colourK
      intrinsics.width = Int((Double(depthSize.width) * ratio).rounded())
      intrinsics.height = Int((Double(depthSize.height) * ratio).rounded())
      notes.append(
        "no rgb.mp4 (the colour video): frames carry depth only; colour size taken as \(intrinsics.width)x\(intrinsics.height)"
      )
    }
    let chosen = try options.intrinsics(intrinsics, recordedIn: "camera_matrix.csv")
    intrinsics = chosen.intrinsics
    intrinsics = try intrinsics.validated(source: folder + "/camera_matrix.csv")
    let imuPath = folder + "/imu.csv"
    if FileManager.default.fileExists(atPath: imuPath) {
      let units = try Self.accelerometerUnits(imuPath)
      notes.append("accelerometer in \(units.rawValue) (from the magnitude of its readings)")
      imu = try IMUStream(path: imuPath) { reader, fields throws(RecordingError) in
        if Double(fields[0]) == nil, fields[0].hasPrefix("timestamp") { return nil }
        let names = ["timestamp", "a_x", "a_y", "a_z", "alpha_x", "alpha_y", "alpha_z"]
        try Self.checkColumns(fields, names.count, reader)
        let v = try ImporterFiles.numbers(fields[...], names, reader)
        try ImporterFiles.checkTimestamp(v[0], reader)
        let force = PhoneAxes.specificForce(coreMotion: SIMD3(v[1], v[2], v[3]), units: units)
        let rate = PhoneAxes.opticalFromDevice(SIMD3(v[4], v[5], v[6]))
        try ImporterFiles.checkIMU(specificForce: force, rotationRate: rate, reader)
        return IMUSample(timestamp: v[0], acceleration: force, rotationRate: rate)
      }
    } else {
      imu = nil
    }
    info = RecordingInfo(
      phoneExport: folder, format: .stray, intrinsics: intrinsics, intrinsicsSource: chosen.source,
      frameCount: frameCount, depthSize: (depthSize.width, depthSize.height), hasIMU: imu != nil,
      hasImages: video != nil, notes: notes)
  }

  private static func stem(_ frame: Int) -> String { String(format: "%06d", frame) }

  /// Counts the odometry rows and returns the first row's frame number and the number of fields of
  /// every row (the header's, else the first row's), each row checked against it.
  private static func scanOdometry(_ path: String) throws(RecordingError) -> (
    count: Int, first: Int, columns: Int
  ) {
    let reader = try LineReader(path: path)
    var count = 0
    var first: Int?
    var columns: Int?
    while let fields = try reader.nextRecord() {
      if reader.lineNumber == 1, Double(fields[0]) == nil {
        columns = fields.count
        continue
      }
      if first == nil {
        guard fields.count >= 9, let frame = Int(fields[1]) else {
          throw reader.error("expected 'timestamp, frame, x, y, z, qx, qy, qz, qw'")
        }
        first = frame
        columns = columns ?? fields.count
      }
      try checkColumns(fields, columns!, reader)
      count += 1
    }
    guard let first, let columns else { throw RecordingError(file: path, "the recording has no frames") }
    return (count, first, columns)
  }

  /// Throws unless a CSV row has `count` fields: a decimal comma (`0,5`) splits a number in two.
  private static func checkColumns(_ fields: [Substring], _ count: Int, _ reader: LineReader)
    throws(RecordingError)
  {
    guard fields.count == count else {
      throw reader.error(
        "expected \(count) comma-separated fields as the header has, got \(fields.count) (a decimal comma?)")
    }
  }

  private static func cameraMatrix(_ path: String) throws(RecordingError) -> CameraIntrinsics {
    let reader = try LineReader(path: path)
    var rows: [[Double]] = []
    while let fields = try reader.nextRecord() {
      guard fields.count == 3 else { throw reader.error("expected 3 numbers per row, got \(fields.count)") }
      rows.append(try ImporterFiles.numbers(fields[...], ["k0", "k1", "k2"], reader))
    }
    guard rows.count == 3 else { throw RecordingError(file: path, "expected 3 rows of K, got \(rows.count)") }
    guard rows[0][1] == 0, rows[1][0] == 0, rows[2] == [0, 0, 1] else {
      throw RecordingError(file: path, "not a pinhole K (skew or a last row other than 0 0 1)")
    }
    return CameraIntrinsics(
      fx: rows[0][0], fy: rows[1][1], cx: rows[0][2], cy: rows[1][2], width: 0, height: 0)
  }

  /// The accelerometer's units, from the median magnitude of its first 200 readings.
  static func accelerometerUnits(_ path: String) throws(RecordingError) -> AccelerometerUnits {
    let reader = try LineReader(path: path)
    var magnitudes: [Double] = []
    while magnitudes.count < 200, let fields = try reader.nextRecord() {
      if Double(fields[0]) == nil, fields[0].hasPrefix("timestamp") { continue }
      let v = try ImporterFiles.numbers(fields[...], ["timestamp", "a_x", "a_y", "a_z"], reader)
      magnitudes.append(simd_length(SIMD3(v[1], v[2], v[3])))
    }
    guard let units = AccelerometerUnits.detect(magnitudes: magnitudes) else {
      let median = magnitudes.isEmpty ? 0 : magnitudes.sorted()[magnitudes.count / 2]
      throw RecordingError(
        file: path,
        "unknown accelerometer units: median magnitude \(median) is near neither 1 (g) nor 9.8 (m/s^2)")
    }
    return units
  }

  public mutating func nextFrame() throws(RecordingError) -> RecordedFrame? {
    var fields: [Substring]
    repeat {
      guard let next = try odometry.nextRecord() else {
        try imu?.finish()  // damage after the last frame fails the run too
        return nil
      }
      fields = next
    } while odometry.lineNumber == 1 && Double(fields[0]) == nil
    try Self.checkColumns(fields, odometryColumns, odometry)
    let v = try ImporterFiles.numbers(
      fields[...], ["timestamp", "frame", "x", "y", "z", "qx", "qy", "qz", "qw"], odometry)
    try ImporterFiles.checkTimestamp(v[0], odometry)
    guard let frame = Int(fields[1]), frame >= 0 else {
      throw odometry.error("frame '\(fields[1])' is not an index")
    }
    guard v[0] > lastTimestamp else {
      throw odometry.error("timestamp \(v[0]) is not after the previous frame's \(lastTimestamp)")
    }
    guard frame > lastFrame else {
      throw odometry.error("frame \(frame) is not after the previous \(lastFrame)")
    }
    lastTimestamp = v[0]
    lastFrame = frame
    try ImporterFiles.checkTranslation(SIMD3(v[2], v[3], v[4]), odometry)
    let pose = try ImporterFiles.pose(translation: Array(v[2...4]), quaternion: Array(v[5...8]), odometry)
    let line = odometry.lineNumber
    var image: CapturedImage?
    if let video {
      // The video holds every frame number; skip those the odometry leaves out.
      while videoFrames < frame {
        _ = try FrameFiles.videoFrame(video, color: false)
        videoFrames += 1
      }
      image = try FrameFiles.videoFrame(video, color: options.decodeColor)
      videoFrames += 1
    }
    let depthIntrinsics = info.depthIntrinsics!
    let stem = Self.stem(frame)
    let depthPath = info.path + "/depth/" + stem + ".png"
    guard FileManager.default.fileExists(atPath: depthPath) else {
      throw odometry.error("frame \(stem) has no depth map (depth/\(stem).png is missing)")
    }
    var recorded = RecordedFrame(
      index: nextIndex, timestamp: v[0], image: image, depth: nil,
      imu: try imu?.samples(through: v[0]) ?? [],
      groundTruth: pose, confidence: nil)
    if options.loadDepth {
      try ImporterFiles.loadDepth(
        into: &recorded, depth: depthPath, confidence: info.path + "/confidence/" + stem + ".png",
        intrinsics: depthIntrinsics, keep: options.keepEncodedImages, listedIn: odometry.path, line: line)
    }
    nextIndex += 1
    return recorded
  }
}
