import Foundation

/// Reads one ARKitScenes video folder, streaming:
///
/// - `lowres_wide/{video}_{timestamp}.png`: colour, 256x192; the timestamps (seconds, 3 decimals) in
///   the names order the frames.
/// - `lowres_depth/{video}_{timestamp}.png`: uint16 millimetres, same size; 0 = none.
/// - `confidence/{video}_{timestamp}.png` (optional): ARKit's confidence, 0/1/2.
/// - `lowres_wide_intrinsics/{video}_{timestamp}.pincam`: one line `w h fx fy cx cy` per frame, each
///   read and checked with its frame. The first frame's are the recording's; a later frame's may
///   differ from them by at most ``maxIntrinsicsDisagreement`` pixels anywhere in the image (ARSim
///   has one camera per recording).
/// - `lowres_wide.traj`: lines `timestamp ax ay az tx ty tz` separated by white space, world to
///   camera (axis-angle in radians, metres; the camera in the optical convention). Frames are
///   matched to poses by timestamps within 5 ms; a frame without one has no reference pose.
///
/// The world of the trajectory is ARKitScenes' own, z-up (x right, y forward, z up, as its
/// maintainers state, and as the floor fitted to the fused depth of a real room confirms), not
/// ARKit's y-up: the reference is kept as published (the dataset's 3D box annotations share that
/// world) and its gravity is stated as (0, 0, -1), from which the session levels its y-up world
/// (see ``RecordingInfo/groundTruthGravity``).
///
/// A frame is present when its colour image, its intrinsics and (when the folder has depth) its
/// depth map are all there; a timestamp with only some of them is a gap in the export: skipped and
/// counted in ``RecordingInfo/notes``, as Record3D's gaps are. No IMU. The reference trajectory is
/// ARKit's.
public struct ARKitScenesRecordingSource: FrameSource {
  public let info: RecordingInfo
  private let options: FrameSourceOptions
  private let frames: [(stem: String, time: Double)]
  /// The first frame's intrinsics as its `.pincam` gives them (what later frames are compared with).
  private let pincamIntrinsics: CameraIntrinsics
  private let trajectory: LineReader
  private var pending: (time: Double, pose: RigidTransform)?
  private var trajectoryDone = false
  private var next = 0

  /// Gravity in ARKitScenes' z-up world.
  public static let gravity = SIMD3<Double>(0, 0, -1)
  /// The largest distance, in pixels, by which a frame's intrinsics may move any pixel of the image
  /// from where the first frame's put it (see ``ImporterFiles/pixelDisagreement(_:_:)``).
  public static let maxIntrinsicsDisagreement = 0.5
  /// Frames and poses further apart in time than this, seconds, are not matched.
  static let matchTolerance = 0.005

  /// Whether `folder` is an ARKitScenes video folder.
  public static func recognizes(folder: String) -> Bool {
    FileManager.default.fileExists(atPath: folder + "/lowres_wide.traj")
      && ImporterFiles.isDirectory(folder + "/lowres_wide")
  }

  /// Lists the frames, checks the whole trajectory and reads the first frame's intrinsics.
  /// - Throws: ``RecordingError`` naming the file (and line) and the problem.
  public init(folder: String, options: FrameSourceOptions = FrameSourceOptions()) throws(RecordingError) {
    self.options = options
    let hasDepth = ImporterFiles.isDirectory(folder + "/lowres_depth")
    let images = try Self.list(folder + "/lowres_wide", ".png")
    let intrinsicsFiles = try Self.list(folder + "/lowres_wide_intrinsics", ".pincam")
    let depths = hasDepth ? try Self.list(folder + "/lowres_depth", ".png") : [:]
    var all = images
    all.merge(intrinsicsFiles) { time, _ in time }
    all.merge(depths) { time, _ in time }
    let everyFrame = all.map { (stem: $0.key, time: $0.value) }.sorted { $0.time < $1.time }
    for (a, b) in zip(everyFrame, everyFrame.dropFirst()) where b.time <= a.time {
      throw RecordingError(
        file: folder + "/lowres_wide", "\(a.stem) and \(b.stem) name the same time \(a.time) s")
    }
    let frames = everyFrame.filter {
      images[$0.stem] != nil && intrinsicsFiles[$0.stem] != nil && (!hasDepth || depths[$0.stem] != nil)
    }
    guard let first = frames.first else {
      throw RecordingError(
        file: folder,
        images.isEmpty
          ? "lowres_wide holds no frames"
          : "none of the \(everyFrame.count) frames has its lowres_wide image, its .pincam"
            + (hasDepth ? " and its lowres_depth map" : ""))
    }
    self.frames = frames
    var notes: [String] = []
    let gaps = everyFrame.filter {
      images[$0.stem] == nil || intrinsicsFiles[$0.stem] == nil || (hasDepth && depths[$0.stem] == nil)
    }
    if !gaps.isEmpty {
      func missing(_ frame: (stem: String, time: Double)) -> String {
        let absent =
          [
            images[frame.stem] == nil ? "lowres_wide" : nil,
            hasDepth && depths[frame.stem] == nil ? "lowres_depth" : nil,
            intrinsicsFiles[frame.stem] == nil ? "pincam" : nil,
          ]
          .compactMap { $0 }.joined(separator: ", ")
        return String(format: "%.3f s", frame.time) + " (no \(absent))"
      }
      let listed = gaps.prefix(3).map(missing).joined(separator: "; ") + (gaps.count > 3 ? "; ..." : "")
      notes.append("\(gaps.count) of \(everyFrame.count) frames missing from the export: skipped (\(listed))")
    }
    let trajectoryPath = folder + "/lowres_wide.traj"
    let matched = try Self.checkTrajectory(trajectoryPath, frames: frames.map(\.time))
    if matched < frames.count {
      notes.append(
        "\(frames.count - matched) of \(frames.count) frames have no pose in lowres_wide.traj within "
          + "\(Int(Self.matchTolerance * 1000)) ms: no reference for them")
    }
    trajectory = try LineReader(path: trajectoryPath)
    let pincamPath = folder + "/lowres_wide_intrinsics/" + first.stem + ".pincam"
    pincamIntrinsics = try Self.pincam(pincamPath)
    var intrinsics = pincamIntrinsics
    let chosen = try options.intrinsics(intrinsics, recordedIn: "lowres_wide_intrinsics")
    intrinsics = chosen.intrinsics
    info = RecordingInfo(
      phoneExport: folder, format: .arkitscenes, intrinsics: intrinsics, intrinsicsSource: chosen.source,
      frameCount: frames.count, frameRate: Self.frameRate(frames.map(\.time)), hasDepth: hasDepth,
      depthSize: nil, gravity: Self.gravity, notes: notes)
  }

  /// The files in `folder` ending in `suffix`, by stem (`{video}_{timestamp}`), with their times.
  private static func list(_ folder: String, _ suffix: String) throws(RecordingError) -> [String: Double] {
    let listing: [String]
    do {
      listing = try FileManager.default.contentsOfDirectory(atPath: folder)
    } catch {
      throw RecordingError(file: folder, "cannot be listed (is it missing?)")
    }
    var stems: [String: Double] = [:]
    for name in listing where name.hasSuffix(suffix) {
      let stem = String(name.dropLast(suffix.count))
      guard let underscore = stem.lastIndex(of: "_") else {
        throw RecordingError(file: folder + "/" + name, "name is not '{video}_{timestamp}\(suffix)'")
      }
      let text = stem[stem.index(after: underscore)...]
      guard LineReader.isDecimal(text), let time = Double(text), time >= 0, time <= LineReader.maxTimestamp
      else {
        throw RecordingError(
          file: folder + "/" + name, "name is not '{video}_{timestamp}\(suffix)' with a timestamp in seconds")
      }
      stems[stem] = time
    }
    return stems
  }

  /// The frame rate from the median interval between frames (nil for a single frame).
  private static func frameRate(_ times: [Double]) -> Double? {
    let intervals = zip(times, times.dropFirst()).map { $1 - $0 }.sorted()
    guard !intervals.isEmpty else { return nil }
    return 1 / intervals[intervals.count / 2]
  }

  /// Reads and checks a `.pincam` file: `w h fx fy cx cy`, whole positive size, plausible values.
  private static func pincam(_ path: String) throws(RecordingError) -> CameraIntrinsics {
    let reader = try LineReader(path: path)
    guard let fields = try reader.nextRecord(commas: false) else {
      throw RecordingError(file: path, "is empty; expected 'w h fx fy cx cy'")
    }
    guard fields.count == 6 else {
      throw reader.error("expected 6 fields 'w h fx fy cx cy', got \(fields.count)")
    }
    let v = try ImporterFiles.numbers(fields[...], ["w", "h", "fx", "fy", "cx", "cy"], reader)
    guard let width = Int(exactly: v[0]), let height = Int(exactly: v[1]), width > 0, height > 0,
      width <= 1 << 16, height <= 1 << 16
    else {
      throw reader.error("image size \(v[0])x\(v[1]) is not a whole number of pixels")
    }
    if try reader.nextRecord(commas: false) != nil { throw reader.error("unexpected second record") }
    return try CameraIntrinsics(fx: v[2], fy: v[3], cx: v[4], cy: v[5], width: width, height: height)
      .validated(source: path)
  }

  /// One trajectory row: time and the camera's pose in the world, every value checked.
  private static func pose(_ fields: [Substring], _ reader: LineReader) throws(RecordingError) -> (
    time: Double, pose: RigidTransform
  ) {
    guard fields.count == 7 else {
      throw reader.error("expected 7 fields 'timestamp ax ay az tx ty tz', got \(fields.count)")
    }
    let v = try ImporterFiles.numbers(fields[...], ["timestamp", "ax", "ay", "az", "tx", "ty", "tz"], reader)
    try ImporterFiles.checkTimestamp(v[0], reader)
    let axisAngle = SIMD3(v[1], v[2], v[3])
    let angle = simd_length(axisAngle)
    guard angle <= 2 * .pi else {
      throw reader.error("rotation angle \(angle) rad is more than a turn (axis-angle expected)")
    }
    let rotation =
      angle < 1e-12
      ? simd_quatd(ix: 0, iy: 0, iz: 0, r: 1) : simd_quatd(angle: angle, axis: axisAngle / angle)
    let cameraFromWorld = RigidTransform(rotation: rotation, translation: SIMD3(v[4], v[5], v[6]))
    let worldFromCamera = cameraFromWorld.inverse
    try ImporterFiles.checkTranslation(worldFromCamera.translation, reader)
    return (v[0], worldFromCamera)
  }

  /// Reads the whole trajectory once, checking every row (numbers, increasing times, bounds), and
  /// returns how many of `frames` (times, increasing) have a pose within ``matchTolerance``.
  /// - Throws: when a row is bad, or when no frame has a pose.
  private static func checkTrajectory(_ path: String, frames: [Double]) throws(RecordingError) -> Int {
    let reader = try LineReader(path: path)
    var previous: Double?
    var first: Double?
    var rows = 0
    var matched = 0
    var frame = 0
    while let fields = try reader.nextRecord(commas: false) {
      let time = try pose(fields, reader).time
      if let previous, time <= previous {
        throw reader.error("timestamp \(time) is not after the previous pose's \(previous)")
      }
      previous = time
      first = first ?? time
      rows += 1
      while frame < frames.count, frames[frame] < time - matchTolerance { frame += 1 }
      if frame < frames.count, abs(frames[frame] - time) <= matchTolerance {
        matched += 1
        frame += 1
      }
    }
    guard let first, let last = previous else { throw RecordingError(file: path, "holds no poses") }
    guard matched > 0 else {
      throw RecordingError(
        file: path,
        String(
          format: "none of its %d poses (%.3f...%.3f s) is within %.0f ms of a frame (%.3f...%.3f s)", rows,
          first, last, matchTolerance * 1000, frames.first!, frames.last!))
    }
    return matched
  }

  /// The trajectory's pose for `time`, when one lies within ``matchTolerance`` (times asked in
  /// increasing order). Rows between frames are read past; the rows were checked when the source
  /// opened.
  private mutating func pose(at time: Double) throws(RecordingError) -> RigidTransform? {
    while !trajectoryDone {
      if let pending, pending.time > time + Self.matchTolerance { break }
      if let pending, abs(pending.time - time) <= Self.matchTolerance { return pending.pose }
      guard let fields = try trajectory.nextRecord(commas: false) else {
        trajectoryDone = true
        break
      }
      pending = try Self.pose(fields, trajectory)
    }
    if let pending, abs(pending.time - time) <= Self.matchTolerance { return pending.pose }
    return nil
  }

  public mutating func nextFrame() throws(RecordingError) -> RecordedFrame? {
    guard next < frames.count else { return nil }
    let (stem, time) = frames[next]
    let listed = info.path + "/lowres_wide"
    let pincamPath = info.path + "/lowres_wide_intrinsics/" + stem + ".pincam"
    let intrinsics = try Self.pincam(pincamPath)
    guard intrinsics.width == pincamIntrinsics.width, intrinsics.height == pincamIntrinsics.height else {
      throw RecordingError(
        file: pincamPath,
        "image size \(intrinsics.width)x\(intrinsics.height) differs from the first frame's "
          + "\(pincamIntrinsics.width)x\(pincamIntrinsics.height)")
    }
    let disagreement = ImporterFiles.pixelDisagreement(intrinsics, pincamIntrinsics)
    guard disagreement <= Self.maxIntrinsicsDisagreement else {
      throw RecordingError(
        file: pincamPath,
        "intrinsics \(intrinsics.summary) differ from the first frame's \(pincamIntrinsics.summary) by "
          + String(format: "%.2f", disagreement)
          + " px (at most \(Self.maxIntrinsicsDisagreement) accepted: ARSim has one camera per recording)")
    }
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
