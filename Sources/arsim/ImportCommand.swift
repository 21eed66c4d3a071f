import ARSim
import ARSimRun
import Foundation

/// `arsim import SRC OUT [--format ...]`: converts a recording (a phone app's export above all)
/// into the ARSim format, frame by frame.
enum ImportCommand {
  static let help = """
    usage: arsim import SRC OUT [--format auto|stray|record3d|arkitscenes|scanner3d|arsim|tum]
                                [--quality Q]

    Converts the recording SRC (a Stray Scanner folder, a Record3D export folder or .r3d file,
    an ARKitScenes video folder, a 3D Scanner App "All Data" export, or any layout replay reads)
    into an ARSim recording in OUT. Frames without an image (the 3D Scanner App keeps colour on
    some frames only) stay without one.
    Image files are copied as they are; frames that come from a video are re-encoded as JPEG
    (quality Q, default 95). Depth and confidence are kept exact: millimetre depth as 16-bit
    PNG, float depth (Record3D) as 32-bit float EXR. ARKit's poses become the reference
    trajectory with groundTruth.kind "arkit". Gaps and the accelerometer's units are reported.
    OUT must not exist; it appears only once complete (written to OUT.partial, then renamed).

    Exit status 0 on success; non-zero with a one-line error naming the file and the problem.
    """

  static func run(_ arguments: [String]) throws -> Int32 {
    let args = try Arguments(arguments, valueOptions: ["format", "quality"], flagOptions: ["help"])
    if args.flag("help") {
      print(help)
      return 0
    }
    guard args.positional.count == 2 else { throw UsageError("expected SRC and OUT (see --help)") }
    let (sourcePath, out) = (args.positional[0], args.positional[1])
    let formatName = try args.choice(
      "format", ["auto"] + RecordingFormat.allCases.map(\.rawValue), default: "auto")
    let qualityText = args.value("quality") ?? "95"
    guard let quality = Int(qualityText), (1...100).contains(quality) else {
      throw UsageError("--quality must be 1...100, got '\(qualityText)'")
    }
    guard !FileManager.default.fileExists(atPath: out) else {
      throw RecordingError(file: out, "already exists; importing never overwrites")
    }
    try checkCanCreate(out)
    var options = FrameSourceOptions()
    options.decodeColor = true
    options.keepEncodedImages = true
    var source = try Recording.open(
      folder: sourcePath, format: formatName == "auto" ? nil : RecordingFormat(rawValue: formatName),
      options: options)
    let info = source.info
    let partial = out + ".partial"
    try? FileManager.default.removeItem(atPath: partial)
    let start = ContinuousClock.now
    let count: Int
    do {
      count = try convert(&source, info: info, into: partial, quality: quality)
      try FileManager.default.moveItem(atPath: partial, toPath: out)
    } catch {
      try? FileManager.default.removeItem(atPath: partial)
      throw error
    }
    let seconds = (ContinuousClock.now - start).seconds
    print("imported: \(info.path) (\(info.format.rawValue)) -> \(out)")
    print(
      String(
        format: "frames: %d in %.2f s (%.0f frames/s)", count, seconds, Double(count) / max(seconds, 1e-9)))
    if info.referenceKind == .arkit { print("reference: ARKit's poses (groundTruth.kind \"arkit\")") }
    for note in info.notes { print("note: " + note) }
    return 0
  }

  /// Throws unless a folder can be made at `path`: its nearest existing ancestor must be a folder
  /// (a file there, as in `rec/odometry.csv/out`, would make the writer fail with a bare system code).
  static func checkCanCreate(_ path: String) throws {
    var ancestor = (path as NSString).deletingLastPathComponent
    while !ancestor.isEmpty {
      var isDirectory: ObjCBool = false
      if FileManager.default.fileExists(atPath: ancestor, isDirectory: &isDirectory) {
        guard isDirectory.boolValue else {
          throw RecordingError(file: path, "cannot be created: \(ancestor) is a file, not a folder")
        }
        return
      }
      let parent = (ancestor as NSString).deletingLastPathComponent
      guard parent != ancestor else { return }
      ancestor = parent
    }
  }

  /// Writes every frame of `source` into `folder`; returns the frame count.
  static func convert(_ source: inout any FrameSource, info: RecordingInfo, into folder: String, quality: Int)
    throws
    -> Int
  {
    var session = RecordingSession(
      camera: info.intrinsics, frameRate: info.frameRate,
      sensors: .init(
        color: info.hasImages, depth: info.hasDepth, accelerometer: info.hasAccelerometer,
        gyroscope: info.hasGyroscope))
    session.depthCamera = info.depthIntrinsics
    session.readoutTime = info.readoutTime
    if info.hasGroundTruth {
      session.groundTruth = .init(
        trajectory: nil, planes: nil, taps: nil, gravity: nil,
        kind: info.referenceKind == .arkit ? .arkit : nil)
    }
    let writer = try RecordingWriter(
      folder: folder, session: session, encoding: .jpeg(quality: quality),
      depthEncoding: info.format == .record3d ? .exrFloat : .png16, writesGroundTruth: info.hasGroundTruth)
    let progress = ProgressBar(label: "import", total: info.frameCount)
    var count = 0
    while let frame = try source.nextFrame() {
      for sample in frame.imu { try writer.append(imu: sample) }
      // Poses written while ARKit was initialising lead the recording and are left out: the
      // imported trajectory starts at the first real one, as the reader's reference does.
      guard frame.groundTruth != nil || !info.hasGroundTruth || frame.referenceInitialising else {
        throw RecordingError(file: info.path, "frame at \(frame.timestamp) s has no reference pose")
      }
      // A file kept as recorded is copied: its colour need not be decoded.
      try writer.append(
        timestamp: frame.timestamp, image: frame.encodedImage == nil ? frame.capturedImage : frame.image,
        depth: frame.depth,
        groundTruth: frame.groundTruth,
        confidence: frame.confidence, encodedImage: frame.encodedImage,
        encodedDepthMillimetres: frame.encodedDepthMillimetres, encodedConfidence: frame.encodedConfidence)
      count += 1
      progress.update(count)
    }
    progress.finish()
    try writer.finish(gravity: info.groundTruthGravity)
    return count
  }
}
