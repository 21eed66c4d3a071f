import Foundation

/// Reads a folder in the TUM RGB-D benchmark layout as is: `rgb.txt` (`timestamp file`),
/// optional `depth.txt` (16-bit PNG in units of 1/5000 m, associated with each colour image by
/// nearest timestamp within 20 ms), optional `groundtruth.txt` (TUM trajectory) and
/// `accelerometer.txt` (`timestamp ax ay az`, specific force in m/s² in the optical frame).
///
/// Intrinsics come from, in order: ``FrameSourceOptions/intrinsicsOverride`` (`--intrinsics`), a
/// sidecar `intrinsics.txt` in the folder (`fx fy cx cy`, one line), or the published preset when the
/// folder name contains `freiburg1`, `freiburg2` or `freiburg3`. Without any of these opening fails.
public struct TUMRecordingSource: FrameSource {
  public let info: RecordingInfo
  /// Metres per depth unit: 1/5000.
  public static let depthScale = 1.0 / 5000.0
  /// Largest time difference, in seconds, for a depth image to be associated with a colour image.
  public static let associationWindow = 0.02

  private let options: FrameSourceOptions
  private let rgb: LineReader
  private let depthIndex: LineReader?
  private var depthWindow: [(time: Double, file: Substring, line: Int)] = []
  private var depthFinished = false
  private let imu: IMUStream?
  private let trajectory: TrajectoryStream?
  private var nextIndex = 0
  private var lastTimestamp = -Double.infinity

  /// Opens the TUM folder and determines its intrinsics.
  /// - Throws: ``RecordingError`` naming the file and the problem.
  public init(folder: String, options: FrameSourceOptions = FrameSourceOptions()) throws(RecordingError) {
    self.options = options
    let rgbPath = folder + "/rgb.txt"
    // One pass over the index to count frames and find the first image's size.
    let counter = try LineReader(path: rgbPath)
    var count = 0
    var first: (file: Substring, line: Int)?
    while let fields = try counter.nextRecord() {
      count += 1
      if first == nil {
        guard fields.count >= 2 else { throw counter.error("expected 'timestamp filename'") }
        first = (fields[1], counter.lineNumber)
      }
    }
    guard let first else { throw RecordingError(file: rgbPath, "the recording has no frames") }
    let firstBytes = try FrameFiles.bytes(
      FrameFiles.resolve(first.file, in: folder), listedIn: rgbPath, line: first.line)
    let size: (width: Int, height: Int)
    do {
      let image = try ImageCodec.decodeGray(firstBytes)
      size = (image.width, image.height)
    } catch {
      throw RecordingError(file: FrameFiles.resolve(first.file, in: folder), error.message)
    }
    let (intrinsics, source) = try Self.intrinsics(folder: folder, options: options, size: size)

    rgb = try LineReader(path: rgbPath)
    depthIndex =
      try InputFile.exists(folder + "/depth.txt") ? try LineReader(path: folder + "/depth.txt") : nil
    imu =
      try InputFile.exists(folder + "/accelerometer.txt")
      ? try IMUStream(path: folder + "/accelerometer.txt") { reader, fields throws(RecordingError) in
        guard fields.count == 4 else {
          throw reader.error("expected 'timestamp ax ay az', got \(fields.count) fields")
        }
        var v = [try reader.timestamp(fields[0])]
        for (field, name) in zip(fields[1...], ["ax", "ay", "az"]) {
          v.append(try reader.number(field, name, within: LineReader.maxAcceleration))
        }
        return IMUSample(timestamp: v[0], acceleration: SIMD3(v[1], v[2], v[3]), rotationRate: nil)
      } : nil
    trajectory =
      try InputFile.exists(folder + "/groundtruth.txt")
      ? try TrajectoryStream(path: folder + "/groundtruth.txt", maxGap: 0.1) : nil
    info = RecordingInfo(
      path: folder, format: .tum, intrinsics: intrinsics, intrinsicsSource: source,
      hasDepth: depthIndex != nil, hasAccelerometer: imu != nil, hasGyroscope: false,
      hasGroundTruth: trajectory != nil, frameRate: nil, frameCount: count, groundTruthGravity: nil)
  }

  private static func intrinsics(folder: String, options: FrameSourceOptions, size: (width: Int, height: Int))
    throws(RecordingError) -> (CameraIntrinsics, String)
  {
    if let given = options.intrinsicsOverride {
      return (
        try given.resized(width: size.width, height: size.height, source: "--intrinsics"), "--intrinsics"
      )
    }
    let sidecar = folder + "/intrinsics.txt"
    if try InputFile.exists(sidecar) {
      let reader = try LineReader(path: sidecar)
      guard let fields = try reader.nextRecord() else { throw RecordingError(file: sidecar, "is empty") }
      let source = "\(sidecar):\(reader.lineNumber)"
      let parsed = try CameraIntrinsics.parse(fields.joined(separator: ","), source: source)
      return (try parsed.resized(width: size.width, height: size.height, source: source), "intrinsics.txt")
    }
    let name = (folder as NSString).standardizingPath.split(separator: "/").last.map(String.init) ?? folder
    for preset in ["freiburg1", "freiburg2", "freiburg3"] where name.contains(preset) {
      var intrinsics = CameraIntrinsics.tumPreset(preset)!
      guard intrinsics.width == size.width, intrinsics.height == size.height else {
        throw RecordingError(
          file: folder,
          "images are \(size.width)x\(size.height) but the \(preset) preset is for \(intrinsics.width)x\(intrinsics.height)"
        )
      }
      intrinsics = try intrinsics.validated(source: preset)
      return (intrinsics, "preset \(preset)")
    }
    throw RecordingError(
      file: folder,
      "TUM folder without intrinsics: pass --intrinsics fx,fy,cx,cy, add intrinsics.txt, or use a folder named after freiburg1/2/3"
    )
  }

  /// The depth file closest in time to `time` within the association window, if any.
  private mutating func associatedDepth(_ time: Double) throws(RecordingError) -> (
    file: Substring, line: Int
  )? {
    guard let depthIndex else { return nil }
    let window = Self.associationWindow
    while !depthFinished, depthWindow.last.map({ $0.time <= time + window }) ?? true {
      try readDepthRecord(depthIndex)
    }
    depthWindow.removeAll { $0.time < time - window }
    let best = depthWindow.filter { abs($0.time - time) <= window }.min {
      abs($0.time - time) < abs($1.time - time)
    }
    return best.map { ($0.file, $0.line) }
  }

  /// Reads the next line of `depth.txt` into the window (checked), or notes its end.
  private mutating func readDepthRecord(_ depthIndex: LineReader) throws(RecordingError) {
    guard let fields = try depthIndex.nextRecord() else {
      depthFinished = true
      return
    }
    guard fields.count >= 2 else { throw depthIndex.error("expected 'timestamp filename'") }
    let t = try depthIndex.timestamp(fields[0])
    if let last = depthWindow.last, t <= last.time {
      throw depthIndex.error("timestamp \(t) is not after the previous depth image's \(last.time)")
    }
    depthWindow.append((t, fields[1], depthIndex.lineNumber))
    if depthWindow.count > 64 { depthWindow.removeFirst() }
  }

  /// After the last frame: reads and checks what is left of the streamed files, so that a damaged
  /// line anywhere fails the run (memory stays flat).
  private mutating func finishStreams() throws(RecordingError) {
    if let depthIndex {
      while !depthFinished { try readDepthRecord(depthIndex) }
    }
    try imu?.finish()
    try trajectory?.finish()
  }

  public mutating func nextFrame() throws(RecordingError) -> RecordedFrame? {
    guard let fields = try rgb.nextRecord() else {
      try finishStreams()
      return nil
    }
    guard fields.count == 2 else {
      throw rgb.error("expected 'timestamp filename', got \(fields.count) fields")
    }
    let timestamp = try rgb.timestamp(fields[0])
    guard timestamp > lastTimestamp else {
      throw rgb.error("timestamp \(timestamp) is not after the previous frame's \(lastTimestamp)")
    }
    lastTimestamp = timestamp
    let image = try FrameFiles.image(
      FrameFiles.resolve(fields[1], in: info.path), color: options.decodeColor, intrinsics: info.intrinsics,
      listedIn: rgb.path, line: rgb.lineNumber)
    var depth: DepthImage?
    if options.loadDepth, let (file, line) = try associatedDepth(timestamp) {
      depth = try FrameFiles.depth(
        FrameFiles.resolve(file, in: info.path), metresPerUnit: Self.depthScale, intrinsics: info.intrinsics,
        listedIn: info.path + "/depth.txt", line: line)
    }
    var frame = RecordedFrame(
      index: nextIndex, timestamp: timestamp, image: image.image, depth: depth,
      imu: try imu?.samples(through: timestamp) ?? [], groundTruth: try trajectory?.pose(at: timestamp))
    frame.deferredColor = image.color
    nextIndex += 1
    return frame
  }
}

/// Opening a recording folder whatever its layout.
public enum Recording {
  /// Detects the layout of `folder` from the files present: `session.json` means ARSim,
  /// `rgb.txt` means TUM, `odometry.csv` with `camera_matrix.csv` Stray Scanner, a `.r3d` file or
  /// `metadata.json` with `rgb/` Record3D, `lowres_wide.traj` ARKitScenes, `frame_NNNNN.json` (here
  /// or in `All_Data/`) the 3D Scanner App.
  public static func detectFormat(folder: String) throws(RecordingError) -> RecordingFormat {
    try locate(folder).format
  }

  /// The recording `folder` holds and its layout: `folder` itself, or its one subfolder that is a
  /// recording (``recognizedSubfolder(of:)``).
  private static func locate(_ folder: String) throws(RecordingError) -> (
    path: String, format: RecordingFormat
  ) {
    if folder.lowercased().hasSuffix(".r3d"), FileManager.default.fileExists(atPath: folder) {
      return (folder, .record3d)
    }
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) else {
      throw RecordingError(file: folder, "no such folder")
    }
    guard isDirectory.boolValue else {
      throw RecordingError(file: folder, "is a file, expected a recording folder")
    }
    if let format = try ownFormat(folder) { return (folder, format) }
    if let (inner, format) = try recognizedSubfolder(of: folder) { return (inner, format) }
    throw RecordingError(
      file: folder,
      "not a recording: none of session.json (ARSim), rgb.txt (TUM), odometry.csv (Stray Scanner), "
        + "metadata.json (Record3D), lowres_wide.traj (ARKitScenes), frame_00000.json (3D Scanner App) "
        + "is there")
  }

  /// The one subfolder of `folder` that is a recording, with its layout, when `folder` is the folder
  /// a dataset or an app ships its recording in (ARKitScenes' `{video}/{video}_frames`, the 3D
  /// Scanner App's `All_Data`); nil when none or several are.
  static func recognizedSubfolder(of folder: String) throws(RecordingError) -> (String, RecordingFormat)? {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return nil }
    var found: [(String, RecordingFormat)] = []
    for name in names.sorted() where !name.hasPrefix(".") {
      let path = folder + "/" + name
      guard ImporterFiles.isDirectory(path) else { continue }
      if let format = try? ownFormat(path) { found.append((path, format)) }
    }
    return found.count == 1 ? found[0] : nil
  }

  /// The layout of `folder` itself (no subfolder looked into), or nil.
  private static func ownFormat(_ folder: String) throws(RecordingError) -> RecordingFormat? {
    if try InputFile.exists(folder + "/session.json") { return .arsim }
    if try InputFile.exists(folder + "/rgb.txt") { return .tum }
    if StrayScannerRecordingSource.recognizes(folder: folder) { return .stray }
    if Record3DRecordingSource.recognizes(path: folder) { return .record3d }
    if ARKitScenesRecordingSource.recognizes(folder: folder) { return .arkitscenes }
    if Scanner3DRecordingSource.recognizes(folder: folder) { return .scanner3d }
    return nil
  }

  /// Opens `folder` with the reader for `format` (detected when nil: in `folder`, or in its one
  /// subfolder that is a recording, ``recognizedSubfolder(of:)``).
  public static func open(
    folder: String, format: RecordingFormat? = nil, options: FrameSourceOptions = FrameSourceOptions()
  ) throws(RecordingError) -> any FrameSource {
    let (path, resolved): (String, RecordingFormat)
    if let format { (path, resolved) = (folder, format) } else { (path, resolved) = try locate(folder) }
    let source = try reader(folder: path, format: resolved, options: options)
    return source.info.referenceKind == .arkit ? ARKitInitialisingPoses(source) : source
  }

  /// The reader for `format`.
  private static func reader(folder: String, format: RecordingFormat, options: FrameSourceOptions)
    throws(RecordingError) -> any FrameSource
  {
    switch format {
    case .arsim: return try ARSimRecordingSource(folder: folder, options: options)
    case .tum: return try TUMRecordingSource(folder: folder, options: options)
    case .stray: return try StrayScannerRecordingSource(folder: folder, options: options)
    case .record3d: return try Record3DRecordingSource(path: folder, options: options)
    case .arkitscenes: return try ARKitScenesRecordingSource(folder: folder, options: options)
    case .scanner3d: return try Scanner3DRecordingSource(folder: folder, options: options)
    }
  }
}
