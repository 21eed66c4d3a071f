import Foundation

/// Reads the 3D Scanner App's (Laan Labs) "All Data" export folder, streaming. One frame per
/// `frame_NNNNN.json`, numbered from the first without a gap:
///
/// - `frame_NNNNN.json`: `cameraPoseARFrame` (16 numbers, row-major: ARKit's `camera.transform`,
///   camera to world, ARKit's camera axes x right, y up, z back, in its gravity-aligned y-up world),
///   `intrinsics` (the 3x3 K, row-major, for the colour image), `time` (seconds since boot, strictly
///   increasing; delivered rounded to the microsecond, the precision of ARSim's `frames.txt`, so that
///   `arsim import` keeps every timestamp and replays to the same trajectory), `frame_index` (when
///   present, the file's number), and fields not read here (projection matrix, exposure, motion
///   quality, GPS).
/// - `depth_NNNNN.png`: uint16 millimetres at the depth sensor's resolution (256x192); 0 = none.
/// - `conf_NNNNN.png` (optional): ARKit's confidence, 0/1/2.
/// - `frame_NNNNN.jpg` (optional per frame): the colour image; the app keeps it on some frames only
///   (every third in app 1.9.7).
/// - `info.json` (optional): when it states `numImages`, that is the number of frames.
///
/// The folder itself or its `All_Data` subfolder (the export's parent) is read.
///
/// Colour on some frames only is a normal recording: every frame is delivered with its depth, and
/// with its image when it has one. ``RecordingInfo/hasImages`` is true only when every frame has
/// colour, so the default mode follows it to depth-only tracking (which tracks best here: see
/// `Scanner3DTests`), and an app still sees `capturedImage` on the frames that carry one.
///
/// The recording's intrinsics are the first frame's K (ARKit's per-frame K moves slightly in fx as
/// the lens focuses); each frame's K is checked for sanity and against the first's. The
/// reference trajectory is ARKit's (``ReferenceKind/arkit``), gravity (0, -1, 0) in its world.
public struct Scanner3DRecordingSource: FrameSource {
  public let info: RecordingInfo
  private let options: FrameSourceOptions
  /// The frames' file stems (`NNNNN`) in order.
  private let stems: [String]
  /// The first frame's K as recorded (each frame's must stay near it, whatever `--intrinsics` says).
  private let recordedIntrinsics: CameraIntrinsics
  private var next = 0
  private var lastTime = -Double.infinity

  /// The export folder `path` names: itself when it holds `frame_*.json` files, else its
  /// `All_Data` subfolder when that does; nil when neither.
  public static func exportFolder(_ path: String) -> String? {
    for candidate in [path, path + "/All_Data"] where ImporterFiles.isDirectory(candidate) {
      if FileManager.default.fileExists(atPath: candidate + "/frame_00000.json")
        || ((try? FileManager.default.contentsOfDirectory(atPath: candidate)) ?? []).contains(where: {
          stem($0, prefix: "frame_", suffix: ".json") != nil
        })
      {
        return candidate
      }
    }
    return nil
  }

  /// Whether `folder` (or its `All_Data` subfolder) is a 3D Scanner App "All Data" export.
  public static func recognizes(folder: String) -> Bool { exportFolder(folder) != nil }

  /// Lists the frames, reads the first frame's JSON and depth map and the colour image size.
  /// - Throws: ``RecordingError`` naming the file and the problem.
  public init(folder given: String, options: FrameSourceOptions = FrameSourceOptions())
    throws(RecordingError)
  {
    self.options = options
    guard let folder = Self.exportFolder(given) else {
      throw RecordingError(
        file: given, "not a 3D Scanner App export: no frame_NNNNN.json here or in All_Data/")
    }
    let listing: [String]
    do {
      listing = try FileManager.default.contentsOfDirectory(atPath: folder)
    } catch {
      throw RecordingError(file: folder, "cannot be listed")
    }
    var numbered: [(number: Int, stem: String)] = []
    var colourNumbers: [Int] = []
    for name in listing {
      if let stem = Self.stem(name, prefix: "frame_", suffix: ".json") {
        guard let number = Int(stem) else {
          throw RecordingError(file: folder + "/" + name, "frame number too large")
        }
        numbered.append((number, stem))
      } else if let stem = Self.stem(name, prefix: "frame_", suffix: ".jpg"), let number = Int(stem) {
        colourNumbers.append(number)
      }
    }
    numbered.sort { $0.number < $1.number }
    guard let first = numbered.first else { throw RecordingError(file: folder, "holds no frame_NNNNN.json") }
    for (previous, frame) in zip(numbered, numbered.dropFirst()) where frame.number != previous.number + 1 {
      if frame.number == previous.number {
        throw RecordingError(
          file: folder + "/frame_\(frame.stem).json",
          "frame \(frame.number) is numbered twice (frame_\(previous.stem).json is the other)")
      }
      let missing = String(format: "%0\(first.stem.count)d", previous.number + 1)
      throw RecordingError(
        file: folder + "/frame_\(missing).json",
        "is missing (frames are numbered without gaps, and frame_\(frame.stem).json follows)")
    }
    stems = numbered.map(\.stem)
    try Self.checkInfo(folder + "/info.json", frameCount: numbered.count)

    let firstPath = folder + "/frame_" + first.stem + ".json"
    let firstDepthPath = folder + "/depth_" + first.stem + ".png"
    guard try InputFile.exists(firstDepthPath) else {
      throw RecordingError(file: firstDepthPath, "is missing (frame_\(first.stem).json has no depth map)")
    }
    let depthSize = try ImporterFiles.depthSize(firstDepthPath, listedIn: firstPath, line: 1)
    let frameNumbers = Set(numbered.map(\.number))
    let colourFrames = colourNumbers.filter(frameNumbers.contains).sorted()
    var notes: [String] = []
    let colourSize: (width: Int, height: Int)
    if let firstColour = colourFrames.first {
      let stem = numbered[firstColour - first.number].stem
      let path = folder + "/frame_" + stem + ".jpg"
      let image: GrayImage
      do {
        image = try ImageCodec.decodeGray(try FrameFiles.bytes(path, listedIn: firstPath, line: 1))
      } catch let error as VisionError {
        throw RecordingError(file: path, error.message)
      } catch {
        throw error as! RecordingError
      }
      colourSize = (image.width, image.height)
      if colourFrames.count < numbered.count {
        notes.append(
          "colour on \(colourFrames.count) of \(numbered.count) frames: every frame carries depth, "
            + "those also their image")
      }
    } else {
      colourSize = (0, 0)
    }
    recordedIntrinsics = try Scanner3DFrameFile(
      path: firstPath, number: first.number, colourSize: colourSize, depthSize: depthSize
    ).intrinsics
    var intrinsics = recordedIntrinsics
    if colourFrames.isEmpty {
      notes.append(
        "no frame_NNNNN.jpg (colour): frames carry depth only; colour size taken as "
          + "\(intrinsics.width)x\(intrinsics.height)")
    }
    let chosen = try options.intrinsics(intrinsics, recordedIn: "frame_\(first.stem).json")
    intrinsics = chosen.intrinsics
    info = RecordingInfo(
      phoneExport: folder, format: .scanner3d, intrinsics: intrinsics, intrinsicsSource: chosen.source,
      frameCount: numbered.count, depthSize: (depthSize.width, depthSize.height),
      hasImages: colourFrames.count == numbered.count, notes: notes)
  }

  /// The digits between `prefix` and `suffix` in `name`, or nil when it is not such a name.
  static func stem(_ name: String, prefix: String, suffix: String) -> String? {
    guard name.hasPrefix(prefix), name.hasSuffix(suffix), name.count > prefix.count + suffix.count else {
      return nil
    }
    let stem = name.dropFirst(prefix.count).dropLast(suffix.count)
    return stem.allSatisfy({ $0.isASCII && $0.isNumber }) ? String(stem) : nil
  }

  /// Checks `info.json` when present: a JSON object whose `numImages`, when stated, is the frame count.
  private static func checkInfo(_ path: String, frameCount: Int) throws(RecordingError) {
    guard try InputFile.exists(path) else { return }
    let object = try Scanner3DFrameFile.object(path)
    guard let count = object["numImages"] else { return }
    guard let number = count as? NSNumber, let images = Int(exactly: number.doubleValue)
    else {
      throw RecordingError(file: path, "'numImages' must be an integer")
    }
    guard images == frameCount else {
      throw RecordingError(
        file: path, "'numImages' is \(images) but the folder holds \(frameCount) frame_NNNNN.json files")
    }
  }

  public mutating func nextFrame() throws(RecordingError) -> RecordedFrame? {
    guard next < stems.count else { return nil }
    let stem = stems[next]
    let base = info.path + "/"
    let jsonPath = base + "frame_" + stem + ".json"
    let depthIntrinsics = info.depthIntrinsics!
    let file = try Scanner3DFrameFile(
      path: jsonPath, number: Int(stem)!, colourSize: (info.intrinsics.width, info.intrinsics.height),
      depthSize: (depthIntrinsics.width, depthIntrinsics.height), reference: recordedIntrinsics)
    guard file.time > lastTime else {
      throw RecordingError(
        file: jsonPath, "'time' \(file.time) is not after the previous frame's \(lastTime)")
    }
    lastTime = file.time
    let depthPath = base + "depth_" + stem + ".png"
    guard try InputFile.exists(depthPath) else {
      throw RecordingError(file: depthPath, "is missing (frame_\(stem).json has no depth map)")
    }
    var frame = RecordedFrame(
      index: next, timestamp: file.time, image: nil, depth: nil, imu: [],
      groundTruth: file.worldFromCamera * cameraFromOptical, confidence: nil)
    let imagePath = base + "frame_" + stem + ".jpg"
    if try InputFile.exists(imagePath) {
      let bytes = try FrameFiles.bytes(imagePath, listedIn: jsonPath, line: 1)
      frame.image = try FrameFiles.grayImage(bytes, path: imagePath, intrinsics: info.intrinsics)
      if options.decodeColor { frame.deferredColor = DeferredColorImage(path: imagePath, bytes: bytes) }
      if options.keepEncodedImages { frame.encodedImage = (bytes, "jpg") }
    }
    if options.loadDepth {
      try ImporterFiles.loadDepth(
        into: &frame, depth: depthPath, confidence: base + "conf_" + stem + ".png",
        intrinsics: depthIntrinsics, keep: options.keepEncodedImages, listedIn: jsonPath, line: 1)
    }
    next += 1
    return frame
  }
}

/// The fields of one `frame_NNNNN.json` that the reader uses, checked for plausibility.
struct Scanner3DFrameFile {
  /// Largest distance from the world origin accepted for a camera, metres.
  static let maxTranslation = 10_000.0
  /// How far a frame's focal lengths may differ from the first frame's, relative (autofocus moves
  /// them slightly; a tenth is a different camera or a damaged file).
  static let maxFocalChange = 0.1
  /// How far a frame's principal point may move from the first frame's, as a fraction of the width.
  static let maxPrincipalPointChange = 0.05

  var time: Double
  var worldFromCamera: RigidTransform
  /// The frame's K for the colour image size.
  var intrinsics: CameraIntrinsics

  /// Reads and checks `path`. `colourSize` (0x0 when no frame has colour: then inferred from K's
  /// principal point and the depth size, as phone colour sizes are the depth size times a multiple of
  /// 0.5) is the size K is for; `reference`, when given, the K the frame's must stay near.
  init(
    path: String, number: Int, colourSize: (width: Int, height: Int), depthSize: (width: Int, height: Int),
    reference: CameraIntrinsics? = nil
  ) throws(RecordingError) {
    let object = try Self.object(path)
    func numbers(_ key: String, count: Int) throws(RecordingError) -> [Double] {
      guard let value = object[key] else { throw RecordingError(file: path, "has no '\(key)'") }
      guard let array = value as? [Any], array.count == count,
        array.allSatisfy({ $0 is NSNumber })
      else {
        throw RecordingError(file: path, "'\(key)' must be an array of \(count) numbers")
      }
      let values = array.map { ($0 as! NSNumber).doubleValue }
      guard values.allSatisfy(\.isFinite) else {
        throw RecordingError(file: path, "'\(key)' holds a number that is not finite")
      }
      return values
    }
    if let index = object["frame_index"] {
      guard let value = index as? NSNumber, value.doubleValue == Double(number) else {
        throw RecordingError(file: path, "'frame_index' is \(index), not the file's number \(number)")
      }
    }
    guard let timeValue = object["time"] as? NSNumber else {
      throw RecordingError(file: path, "'time' must be a number of seconds")
    }
    guard timeValue.doubleValue.isFinite, abs(timeValue.doubleValue) < 1e10 else {
      throw RecordingError(file: path, "'time' \(timeValue.doubleValue) is not a plausible number of seconds")
    }
    time = (timeValue.doubleValue * 1e6).rounded() / 1e6
    let k = try numbers("intrinsics", count: 9)
    guard k[1] == 0, k[3] == 0, k[6] == 0, k[7] == 0, k[8] == 1 else {
      throw RecordingError(
        file: path, "'intrinsics' is not a pinhole K (skew, or a last row other than 0 0 1)")
    }
    var size = colourSize
    if size.width == 0 {
      let ratio = max(0.5, ((k[2] + 0.5) * 2 / Double(depthSize.width) * 2).rounded() / 2)
      size = (
        Int((Double(depthSize.width) * ratio).rounded()), Int((Double(depthSize.height) * ratio).rounded())
      )
    }
    intrinsics = try CameraIntrinsics(
      fx: k[0], fy: k[4], cx: k[2], cy: k[5], width: size.width, height: size.height
    )
    .validated(source: path + " 'intrinsics'")
    let width = Double(size.width)
    guard (0.1 * width...10 * width).contains(k[0]), (0.5...2).contains(k[4] / k[0]) else {
      throw RecordingError(
        file: path,
        "'intrinsics' focal lengths fx \(k[0]), fy \(k[4]) are implausible for a \(size.width)x\(size.height) image"
      )
    }
    if let reference {
      let focal = max(abs(k[0] / reference.fx - 1), abs(k[4] / reference.fy - 1))
      let shift = max(abs(k[2] - reference.cx), abs(k[5] - reference.cy)) / width
      guard focal <= Self.maxFocalChange, shift <= Self.maxPrincipalPointChange else {
        throw RecordingError(
          file: path,
          "'intrinsics' (\(intrinsics.summary)) are far from the first frame's (\(reference.summary)): one camera records a session"
        )
      }
    }
    let m = try numbers("cameraPoseARFrame", count: 16)
    guard abs(m[12]) < 1e-4, abs(m[13]) < 1e-4, abs(m[14]) < 1e-4, abs(m[15] - 1) < 1e-4 else {
      throw RecordingError(file: path, "'cameraPoseARFrame' has a last row other than 0 0 0 1")
    }
    let rows = (0..<3).map { r in SIMD3(m[4 * r], m[4 * r + 1], m[4 * r + 2]) }
    let columns = (0..<3).map { c in SIMD3(rows[0][c], rows[1][c], rows[2][c]) }
    var worst = 0.0
    for i in 0..<3 {
      for j in 0..<3 { worst = max(worst, abs(simd_dot(columns[i], columns[j]) - (i == j ? 1 : 0))) }
    }
    let determinant = simd_dot(columns[0], simd_cross(columns[1], columns[2]))
    guard worst < 1e-3, determinant > 0 else {
      throw RecordingError(
        file: path, "'cameraPoseARFrame' is not a rigid transform (its 3x3 block is not a rotation)")
    }
    let translation = SIMD3(m[3], m[7], m[11])
    guard simd_length(translation) < Self.maxTranslation else {
      throw RecordingError(
        file: path, "'cameraPoseARFrame' puts the camera \(simd_length(translation)) m from the origin")
    }
    worldFromCamera = RigidTransform(
      matrix: simd_double4x4(
        columns: (
          SIMD4(columns[0], 0), SIMD4(columns[1], 0), SIMD4(columns[2], 0), SIMD4(translation, 1)
        )))
  }

  /// The JSON object in `path`, strictly checked.
  static func object(_ path: String) throws(RecordingError) -> [String: Any] {
    let bytes = try StrictJSON.contents(path)
    guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) else {
      throw RecordingError(
        file: path,
        "holds a value Foundation cannot decode (a number beyond a Double's range, a lone surrogate)")
    }
    guard let root = object as? [String: Any] else { throw RecordingError(file: path, "not a JSON object") }
    return root
  }
}
