import Foundation

/// Reads a Record3D export, streaming: the EXR+JPG folder or the `.r3d` file (a zip).
///
/// - `metadata.json` (folder) or `metadata` (in the zip): `w`, `h` (colour size), `dw`, `dh`
///   (depth size), `fps`, `K` (9 numbers, column-major, for the colour size), `poses` (one
///   `[qx, qy, qz, qw, px, py, pz]` per frame: camera to world, OpenGL camera axes x right, y up,
///   z back, in ARKit's gravity-aligned y-up world, whose origin need not be the first camera),
///   `frameTimestamps` (seconds from 0), `initPose` (same form).
/// - Older app versions (2022) write no `dw`/`dh`: the depth size is inferred from the first depth
///   file and the colour's aspect. Without `frameTimestamps`, frame i is at i / fps (to the
///   microsecond). Their poses are relative to the first camera (pose 0 is the identity) and
///   `initPose` carries the gravity-aligned world: when pose 0 is the identity and `initPose` is
///   not, every pose is composed with it. Each of these is said in ``RecordingInfo/notes``.
/// - Folder: `rgb/{i}.jpg`, `depth/{i}.exr` (metres; the app writes one HALF channel named `R`; see
///   ``ImageCodec/decodeFloat32(_:)`` for how the depth channel is chosen).
/// - `.r3d`: `rgbd/{i}.jpg`, `rgbd/{i}.depth` (LZFSE-compressed float32 dh x dw, NaN = none),
///   `rgbd/{i}.conf` (LZFSE-compressed uint8 confidence).
///
/// Frames whose files are absent are gaps in the export: skipped, and counted in
/// ``RecordingInfo/notes``, not errors. The reference trajectory is ARKit's.
public struct Record3DRecordingSource: FrameSource {
  public let info: RecordingInfo
  private let options: FrameSourceOptions
  private let archive: ZipArchive?
  private let poses: [[Double]]
  private let timestamps: [Double]
  private let present: [Bool]
  private var next = 0
  private var nextIndex = 0

  /// Whether `path` is a Record3D export (a `.r3d` file or a folder with `metadata.json` and `rgb/`).
  public static func recognizes(path: String) -> Bool {
    if path.lowercased().hasSuffix(".r3d") { return FileManager.default.fileExists(atPath: path) }
    return FileManager.default.fileExists(atPath: path + "/metadata.json")
      && ImporterFiles.isDirectory(path + "/rgb")
  }

  /// Opens the export and checks its metadata and which frames are present.
  /// - Throws: ``RecordingError`` naming the file (or `archive:member`) and the problem.
  public init(path: String, options: FrameSourceOptions = FrameSourceOptions()) throws(RecordingError) {
    self.options = options
    let metadataName: String
    let metadataBytes: [UInt8]
    if path.lowercased().hasSuffix(".r3d") {
      let zip = try ZipArchive(path: path)
      archive = zip
      metadataName = path + ":metadata"
      // Three members per frame, each with about 200 bytes of metadata (a pose and a timestamp).
      let limit = Self.metadataBaseLimit + Self.metadataLimitPerMember * zip.memberCount
      guard
        let bytes = try zip.read("metadata", limit: limit, "the metadata of its \(zip.memberCount) members")
      else {
        throw RecordingError(file: path, "no 'metadata' member: not a Record3D .r3d file")
      }
      metadataBytes = bytes
    } else {
      archive = nil
      metadataName = path + "/metadata.json"
      metadataBytes = try FrameFiles.bytes(metadataName, listedIn: path, line: 0)
    }
    var m = try Record3DMetadata(json: metadataBytes, source: metadataName)
    var notes: [String] = []
    if m.timestampsFromFPS {
      notes.append("frame times from 'fps' (\(m.fps ?? 0)): the metadata has no 'frameTimestamps'")
    }
    if let initPose = m.initPose, Self.isIdentity(m.poses[0]), !Self.isIdentity(initPose) {
      let world = Self.transform(initPose)
      m.poses = m.poses.map { pose in
        let composed = world * Self.transform(pose)
        let q = composed.rotation.vector
        return [q.x, q.y, q.z, q.w, composed.translation.x, composed.translation.y, composed.translation.z]
      }
      notes.append(
        "poses are relative to the first camera (pose 0 is the identity): composed with 'initPose'")
    }
    poses = m.poses
    timestamps = m.timestamps
    var present: [Bool] = []
    for i in poses.indices {
      let (image, depth) = Self.names(i, zipped: archive != nil)
      present.append(
        archive.map { $0.contains(image) && $0.contains(depth) }
          ?? (FileManager.default.fileExists(atPath: path + "/" + image)
            && FileManager.default.fileExists(atPath: path + "/" + depth)))
    }
    self.present = present
    let gaps = present.indices.filter { !present[$0] }
    guard gaps.count < present.count else {
      throw RecordingError(file: path, "none of the \(present.count) frames in the metadata has its files")
    }
    let depthSize: (width: Int, height: Int)
    if let width = m.depthWidth, let height = m.depthHeight {
      depthSize = (width, height)
    } else {
      let first = present.firstIndex(of: true)!
      let name = Self.names(first, zipped: archive != nil).depth
      depthSize = try Self.inferDepthSize(
        path: path, archive: archive, name: name, colour: (m.colour.width, m.colour.height))
      notes.append(
        "depth size \(depthSize.width)x\(depthSize.height) inferred from \(name) and the colour's aspect:"
          + " the metadata has no 'dw'/'dh'")
    }
    var intrinsics = try m.colour.validated(source: metadataName)
    let chosen = try options.intrinsics(intrinsics, recordedIn: metadataName)
    intrinsics = chosen.intrinsics
    if !gaps.isEmpty {
      let listed = gaps.prefix(5).map(String.init).joined(separator: ", ") + (gaps.count > 5 ? ", ..." : "")
      notes.append("\(gaps.count) of \(present.count) frames missing from the export (gaps at \(listed))")
    }
    info = RecordingInfo(
      phoneExport: path, format: .record3d, intrinsics: intrinsics, intrinsicsSource: chosen.source,
      frameCount: present.count - gaps.count, frameRate: m.fps, depthSize: depthSize, notes: notes)
  }

  private static func names(_ i: Int, zipped: Bool) -> (image: String, depth: String) {
    zipped ? ("rgbd/\(i).jpg", "rgbd/\(i).depth") : ("rgb/\(i).jpg", "depth/\(i).exr")
  }

  /// The most bytes of metadata an archive may declare: this, plus ``metadataLimitPerMember`` for
  /// each member (a frame has three).
  static let metadataBaseLimit = 1 << 20
  /// See ``metadataBaseLimit``.
  static let metadataLimitPerMember = 2048

  /// The most bytes a valid LZFSE stream of `raw` bytes takes: data that does not compress is
  /// stored, which adds 8 bytes per block (of kilobytes at least) and 4 at the end.
  static func lzfseLimit(raw: Int) -> Int { raw + raw / 512 + 1024 }

  /// The most bytes a colour JPEG of `width` x `height` takes (beyond any real encoder's output).
  static func jpegLimit(width: Int, height: Int) -> Int { 4 * width * height + (1 << 20) }

  private static func isIdentity(_ pose: [Double]) -> Bool {
    abs(abs(pose[3]) - 1) < 1e-6 && pose[0..<3].allSatisfy { abs($0) < 1e-6 }
      && pose[4..<7].allSatisfy { abs($0) < 1e-6 }
  }

  /// A `[qx, qy, qz, qw, px, py, pz]` pose as a transform (the quaternion normalised).
  private static func transform(_ p: [Double]) -> RigidTransform {
    RigidTransform(
      rotation: simd_quatd(
        vector: SIMD4(p[0], p[1], p[2], p[3]) / simd_length(SIMD4(p[0], p[1], p[2], p[3]))),
      translation: SIMD3(p[4], p[5], p[6]))
  }

  /// The depth size of an export whose metadata has none: the first depth file's size, from its
  /// header (EXR) or its decompressed length (`.r3d`: float32 values, split by the colour's aspect).
  private static func inferDepthSize(
    path: String, archive: ZipArchive?, name: String, colour: (width: Int, height: Int)
  ) throws(RecordingError) -> (width: Int, height: Int) {
    let maxValues = colour.width * colour.height  // depth is never finer than the colour
    guard let archive else {
      let file = path + "/" + name
      let bytes = try FrameFiles.bytes(file, listedIn: path + "/metadata.json", line: 0)
      do {
        let raw = try ImageCodec.decodeFloat32(bytes)
        return (raw.width, raw.height)
      } catch {
        throw RecordingError(file: file, error.message)
      }
    }
    let file = path + ":" + name
    guard
      let compressed = try archive.read(
        name, limit: lzfseLimit(raw: 4 * maxValues), "float32 depth no larger than the colour")
    else { throw RecordingError(file: path, "no member \(name)") }
    let count: Int
    do {
      count = try LZFSE.decode(compressed, maxSize: 4 * maxValues).count
    } catch {
      throw RecordingError(file: file, error.description)
    }
    // width / height = colour width / colour height, width * height = values.
    let values = count / 4
    let height = Int((Double(values) * Double(colour.height) / Double(colour.width)).squareRoot().rounded())
    guard count % 4 == 0, values > 0, height > 0, values % height == 0,
      abs(Double(values / height) / Double(height) - Double(colour.width) / Double(colour.height)) < 0.01
    else {
      throw RecordingError(
        file: file,
        "holds \(count) bytes: not float32 depth in the colour's aspect (\(colour.width)x\(colour.height)),"
          + " and the metadata has no 'dw'/'dh'")
    }
    return (values / height, height)
  }

  public mutating func nextFrame() throws(RecordingError) -> RecordedFrame? {
    while next < present.count, !present[next] { next += 1 }
    guard next < present.count else { return nil }
    let i = next
    next += 1
    let (imageName, depthName) = Self.names(i, zipped: archive != nil)
    let k = info.intrinsics
    let dk = info.depthIntrinsics!
    let imagePath = archive == nil ? info.path + "/" + imageName : info.path + ":" + imageName
    let imageBytes = try bytes(
      imageName, limit: Self.jpegLimit(width: k.width, height: k.height), "a \(k.width)x\(k.height) JPEG")
    let image = try FrameFiles.image(
      imageBytes, path: imagePath, color: options.decodeColor, intrinsics: k, maxSide: options.trackingMaxSide
    )
    var depth: DepthImage?
    var confidence: ConfidenceMap?
    if options.loadDepth {
      depth = try archive == nil ? exrDepth(depthName, size: dk) : r3dDepth(depthName, size: dk)
      let confidenceName = "rgbd/\(i).conf"
      if let archive,
        let compressed = try archive.read(
          confidenceName, limit: Self.lzfseLimit(raw: dk.width * dk.height),
          "\(dk.width)x\(dk.height) confidence levels")
      {
        let where_ = info.path + ":" + confidenceName
        let levels: [UInt8]
        do {
          levels = try LZFSE.decode(compressed, maxSize: dk.width * dk.height)
        } catch {
          throw RecordingError(file: where_, error.description)
        }
        guard levels.count == dk.width * dk.height else {
          throw RecordingError(
            file: where_, "holds \(levels.count) levels, expected \(dk.width)x\(dk.height)")
        }
        confidence = try ImporterFiles.confidence(
          levels, width: dk.width, height: dk.height, expected: (dk.width, dk.height), where_)
      }
    }
    let worldFromGL = Self.transform(poses[i])
    var frame = RecordedFrame(
      index: nextIndex, timestamp: timestamps[i], image: nil, depth: depth, imu: [],
      groundTruth: worldFromGL * cameraFromOptical, confidence: confidence)
    image.apply(to: &frame)
    if options.keepEncodedImages { frame.encodedImage = (imageBytes, "jpg") }
    nextIndex += 1
    return frame
  }

  private func bytes(_ name: String, limit: Int, _ what: String) throws(RecordingError) -> [UInt8] {
    if let archive {
      guard let bytes = try archive.read(name, limit: limit, what) else {
        throw RecordingError(file: info.path, "no member \(name)")
      }
      return bytes
    }
    return try FrameFiles.bytes(info.path + "/" + name, listedIn: info.path + "/metadata.json", line: 0)
  }

  private func exrDepth(_ name: String, size: CameraIntrinsics) throws(RecordingError) -> DepthImage {
    let path = info.path + "/" + name
    let raw: (width: Int, height: Int, values: [Float])
    do {
      raw = try ImageCodec.decodeFloat32(try bytes(name, limit: .max, "depth"))
    } catch let error as VisionError {
      throw RecordingError(file: path, error.message)
    } catch {
      throw error as! RecordingError
    }
    guard raw.width == size.width, raw.height == size.height else {
      throw RecordingError(
        file: path, "depth is \(raw.width)x\(raw.height), the metadata says \(size.width)x\(size.height)")
    }
    return DepthImage(
      width: raw.width, height: raw.height, metres: raw.values.map { $0 > 0 && $0.isFinite ? $0 : .nan })
  }

  private func r3dDepth(_ name: String, size: CameraIntrinsics) throws(RecordingError) -> DepthImage {
    let path = info.path + ":" + name
    let expected = size.width * size.height * 4
    let decoded: [UInt8]
    do {
      decoded = try LZFSE.decode(
        try bytes(name, limit: Self.lzfseLimit(raw: expected), "\(size.width)x\(size.height) float32 depth"),
        maxSize: expected)
    } catch let error as LZFSEError {
      throw RecordingError(file: path, error.description)
    } catch {
      throw error as! RecordingError
    }
    guard decoded.count == expected else {
      throw RecordingError(
        file: path,
        "holds \(decoded.count) bytes, expected \(expected) (float32 \(size.width)x\(size.height))")
    }
    let metres = decoded.withUnsafeBytes { raw in
      (0..<size.width * size.height).map { i -> Float in
        let value = Float(
          bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self)))
        return value > 0 && value.isFinite ? value : .nan
      }
    }
    return DepthImage(width: size.width, height: size.height, metres: metres)
  }
}

/// The fields of a Record3D `metadata` file that the reader uses, checked.
struct Record3DMetadata {
  var colour: CameraIntrinsics
  /// nil when the metadata has no `dw`/`dh` (older app versions).
  var depthWidth: Int?
  var depthHeight: Int?
  var fps: Double?
  var poses: [[Double]]
  var timestamps: [Double]
  /// Whether the timestamps come from `fps` (no `frameTimestamps`).
  var timestampsFromFPS = false
  var initPose: [Double]?

  init(json: [UInt8], source: String) throws(RecordingError) {
    // As every JSON input: strict syntax, and bounds from what the file holds.
    try StrictJSON.check(json, path: source, limits: ImporterFiles.record3DMetadataLimits)
    guard let object = try? JSONSerialization.jsonObject(with: Data(json)),
      let root = object as? [String: Any]
    else {
      throw RecordingError(file: source, "not a JSON object")
    }
    func int(_ key: String) throws(RecordingError) -> Int {
      guard let value = root[key] as? NSNumber, let int = Int(exactly: value.doubleValue), int > 0 else {
        throw RecordingError(file: source, "'\(key)' must be a positive integer")
      }
      return int
    }
    func numbers(_ value: Any?, _ key: String) throws(RecordingError) -> [Double] {
      guard let array = value as? [NSNumber], array.allSatisfy({ $0.doubleValue.isFinite }) else {
        throw RecordingError(file: source, "'\(key)' must be an array of numbers")
      }
      return array.map(\.doubleValue)
    }
    let k = try numbers(root["K"], "K")
    guard k.count == 9 else { throw RecordingError(file: source, "'K' must hold 9 numbers, got \(k.count)") }
    // Image sizes within what the decoders take, so that sizes and byte counts derived from them
    // cannot overflow.
    func size(_ w: String, _ h: String) throws(RecordingError) -> (Int, Int) {
      let (width, height) = (try int(w), try int(h))
      guard width <= ImageCodec.maxDimension, height <= ImageCodec.maxDimension,
        width * height <= ImageCodec.maxPixels
      else {
        throw RecordingError(
          file: source,
          "'\(w)' x '\(h)' is \(width)x\(height), more than the \(ImageCodec.maxDimension)-pixel side or"
            + " \(ImageCodec.maxPixels) pixels accepted")
      }
      return (width, height)
    }
    let (width, height) = try size("w", "h")
    colour = CameraIntrinsics(fx: k[0], fy: k[4], cx: k[6], cy: k[7], width: width, height: height)
    if root["dw"] != nil || root["dh"] != nil {
      (depthWidth, depthHeight) = try size("dw", "dh")
    }
    fps = (root["fps"] as? NSNumber)?.doubleValue
    guard let list = root["poses"] as? [Any], !list.isEmpty else {
      throw RecordingError(file: source, "'poses' must be a non-empty array")
    }
    var poses: [[Double]] = []
    for (i, entry) in list.enumerated() {
      let pose = try numbers(entry, "poses[\(i)]")
      guard pose.count == 7, simd_length(SIMD4(pose[0], pose[1], pose[2], pose[3])) > 0.5 else {
        throw RecordingError(
          file: source, "'poses[\(i)]' must be [qx, qy, qz, qw, px, py, pz] with a unit quaternion")
      }
      poses.append(pose)
    }
    self.poses = poses
    if let value = root["initPose"] {
      let pose = try numbers(value, "initPose")
      guard pose.count == 7, simd_length(SIMD4(pose[0], pose[1], pose[2], pose[3])) > 0.5 else {
        throw RecordingError(
          file: source, "'initPose' must be [qx, qy, qz, qw, px, py, pz] with a unit quaternion")
      }
      initPose = pose
    }
    if let stamps = root["frameTimestamps"] {
      timestamps = try numbers(stamps, "frameTimestamps")
      guard timestamps.count == poses.count else {
        throw RecordingError(
          file: source, "'frameTimestamps' has \(timestamps.count) entries for \(poses.count) poses")
      }
      for i in timestamps.indices.dropFirst() where timestamps[i] <= timestamps[i - 1] {
        throw RecordingError(
          file: source, "'frameTimestamps[\(i)]' \(timestamps[i]) is not after the previous")
      }
    } else {
      guard let fps, fps > 0 else {
        throw RecordingError(file: source, "neither 'frameTimestamps' nor a positive 'fps'")
      }
      // To the microsecond, the precision the ARSim format writes: an import replays the same times.
      timestamps = poses.indices.map { (Double($0) / fps * 1e6).rounded() / 1e6 }
      timestampsFromFPS = true
    }
  }
}
