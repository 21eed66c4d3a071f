import Foundation

extension DepthImage {
  /// The depths as 16-bit integers of `metresPerUnit` each (millimetres for 0.001), rounded to
  /// the nearest unit and clamped to 65535; 0 where the depth is unknown (NaN, 0 or negative).
  package func units(metresPerUnit: Double) -> [UInt16] {
    metres.map { metres -> UInt16 in
      guard metres.isFinite, metres > 0 else { return 0 }
      return UInt16(clamping: Int((Double(metres) / metresPerUnit).rounded()))
    }
  }
}

/// Per-frame files and numbers the phone-app readers share.
enum ImporterFiles {
  /// Decodes an 8-bit confidence PNG (levels 0, 1, 2) of the depth map's size.
  static func confidence(_ path: String, width: Int, height: Int, listedIn index: String, line: Int)
    throws(RecordingError) -> (map: ConfidenceMap, bytes: [UInt8])
  {
    let data = try FrameFiles.bytes(path, listedIn: index, line: line)
    let image: GrayImage
    do {
      image = try ImageCodec.decodeGray(data)
    } catch {
      throw RecordingError(file: path, error.message)
    }
    let map = try confidence(
      image.pixels, width: image.width, height: image.height, expected: (width, height), path)
    return (map, data)
  }

  /// Loads frame `stem`'s millimetre depth PNG and its confidence PNG (when present) into
  /// `frame`, keeping the files' bytes when `keep` (for a conversion that copies them).
  static func loadDepth(
    into frame: inout RecordedFrame, depth depthPath: String, confidence confidencePath: String,
    intrinsics: CameraIntrinsics, keep: Bool, listedIn index: String, line: Int
  ) throws(RecordingError) {
    let depth = try FrameFiles.depthFile(
      depthPath, metresPerUnit: 0.001, intrinsics: intrinsics, listedIn: index, line: line)
    frame.depth = depth.depth
    if keep, depthPath.hasSuffix(".png") { frame.encodedDepthMillimetres = depth.bytes }
    guard FileManager.default.fileExists(atPath: confidencePath) else { return }
    let confidence = try confidence(
      confidencePath, width: intrinsics.width, height: intrinsics.height, listedIn: index, line: line)
    frame.confidence = confidence.map
    if keep { frame.encodedConfidence = confidence.bytes }
  }

  /// The size of a 16-bit depth PNG: the first frame's, which sets a phone export's depth size.
  static func depthSize(_ path: String, listedIn index: String, line: Int) throws(RecordingError) -> (
    width: Int, height: Int
  ) {
    let bytes = try FrameFiles.bytes(path, listedIn: index, line: line)
    do {
      let raw = try ImageCodec.decodeDepth16(bytes)
      return (raw.width, raw.height)
    } catch {
      throw RecordingError(file: path, error.message)
    }
  }

  /// Checks raw confidence levels: the expected size and every level 0...2.
  static func confidence(
    _ levels: [UInt8], width: Int, height: Int, expected: (width: Int, height: Int), _ path: String
  ) throws(RecordingError) -> ConfidenceMap {
    guard width == expected.width, height == expected.height else {
      throw RecordingError(
        file: path,
        "confidence map is \(width)x\(height) but the depth map is \(expected.width)x\(expected.height)")
    }
    if let bad = levels.first(where: { $0 > 2 }) {
      throw RecordingError(file: path, "confidence level \(bad) is not 0, 1 or 2")
    }
    return ConfidenceMap(width: width, height: height, levels: levels)
  }

  /// Parses `count` numbers from the fields of a record, naming the field on error.
  static func numbers(_ fields: ArraySlice<Substring>, _ names: [String], _ reader: LineReader)
    throws(RecordingError) -> [Double]
  {
    guard fields.count >= names.count else {
      throw reader.error(
        "expected \(names.count) fields '\(names.joined(separator: " "))', got \(fields.count)")
    }
    var values: [Double] = []
    for (field, name) in zip(fields, names) { values.append(try reader.number(field, name)) }
    return values
  }

  /// A pose from a translation and a quaternion (x, y, z, w) that must have unit length within 1e-3
  /// (normalised as TUM trajectories are).
  static func pose(
    translation t: [Double], quaternion q: [Double], _ reader: LineReader
  ) throws(RecordingError) -> RigidTransform {
    let norm = simd_length(SIMD4(q[0], q[1], q[2], q[3]))
    guard abs(norm - 1) < 1e-3, let pose = RigidTransform(tumValues: t + q) else {
      throw reader.error("quaternion has length \(norm), expected 1")
    }
    return pose
  }

  /// The largest distance of a camera from the world's origin that phone apps' poses may state,
  /// metres: a room or a building walked through, with room to spare; beyond it a pose is damage.
  static let maxTranslation = 1e4
  /// The largest specific force an IMU reading may state, m/s² (20 g: phones' accelerometers
  /// saturate at 8 to 16 g).
  static let maxSpecificForce = 20 * standardGravity
  /// The largest angular rate an IMU reading may state, rad/s (phones' gyroscopes saturate at
  /// about 35 rad/s).
  static let maxRotationRate = 100.0

  /// Throws unless `time` (seconds) is non-negative and at most ``LineReader/maxTimestamp``; finite
  /// numbers are the parser's part. Whether it increases is the reader's check.
  static func checkTimestamp(_ time: Double, _ reader: LineReader) throws(RecordingError) {
    guard time >= 0, time <= LineReader.maxTimestamp else {
      throw reader.error("timestamp \(time) is not in 0...\(LineReader.maxTimestamp) seconds")
    }
  }

  /// Throws unless a camera position (metres) lies within ``maxTranslation`` of the origin.
  static func checkTranslation(_ t: SIMD3<Double>, _ reader: LineReader) throws(RecordingError) {
    let distance = simd_length(t)
    guard distance < maxTranslation else {
      throw reader.error("camera position \(distance) m from the origin is beyond \(maxTranslation) m")
    }
  }

  /// Throws unless an IMU reading is plausible: specific force (m/s²) under ``maxSpecificForce``
  /// and angular rate (rad/s) under ``maxRotationRate`` in magnitude.
  static func checkIMU(
    specificForce: SIMD3<Double>, rotationRate: SIMD3<Double>, _ reader: LineReader
  ) throws(RecordingError) {
    let force = simd_length(specificForce)
    guard force < maxSpecificForce else {
      throw reader.error(
        String(format: "acceleration %.6g m/s^2 is beyond %.0f g", force, maxSpecificForce / standardGravity))
    }
    let rate = simd_length(rotationRate)
    guard rate < maxRotationRate else {
      throw reader.error(
        String(format: "rotation rate %.6g rad/s is beyond %.0f rad/s", rate, maxRotationRate))
    }
  }

  /// How far apart, in pixels, two intrinsics of one image size put the same viewing ray, at worst
  /// over the image (its corners): `|(f'/f − 1)(u − c) + (c' − c)|` in each axis, largest at `u = 0`
  /// or `u = width`.
  static func pixelDisagreement(_ a: CameraIntrinsics, _ b: CameraIntrinsics) -> Double {
    func axis(_ f: Double, _ c: Double, _ f2: Double, _ c2: Double, _ size: Int) -> Double {
      max(abs((f2 / f - 1) * (0 - c) + (c2 - c)), abs((f2 / f - 1) * (Double(size) - c) + (c2 - c)))
    }
    return max(axis(b.fx, b.cx, a.fx, a.cx, b.width), axis(b.fy, b.cy, a.fy, a.cy, b.height))
  }

  /// What a Record3D `metadata` file may hold: K, sizes, and per frame a pose (7 numbers), a
  /// timestamp and intrinsics, about 300 bytes and two arrays a frame, nested 3 deep (one level to
  /// spare). 32 MiB is over 100,000 frames (an hour at 30 fps); the bounds keep what Foundation
  /// builds from the file near a gigabyte however the bytes are arranged.
  static let record3DMetadataLimits = StrictJSON.Limits(
    maxBytes: 32 << 20, maxDepth: 4, maxContainers: 500_000)

  /// Whether `path` is an existing directory.
  static func isDirectory(_ path: String) -> Bool {
    var isDirectory: ObjCBool = false
    return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
  }
}

extension RecordingInfo {
  /// What a phone capture app's export holds (Stray Scanner, Record3D, the 3D Scanner App,
  /// ARKitScenes), the part every such reader shares: the reference trajectory is ARKit's estimate
  /// (``ReferenceKind/arkit``) in a world whose gravity is `gravity` (y down by default: ARKit's world
  /// is y up); no gyroscope or accelerometer unless `hasIMU`; depth at `depthSize` has the image's
  /// intrinsics scaled to it (nil: registered at the image's own size, or absent).
  init(
    phoneExport path: String, format: RecordingFormat, intrinsics: CameraIntrinsics, intrinsicsSource: String,
    frameCount: Int, frameRate: Double? = nil, hasDepth: Bool = true, depthSize: (width: Int, height: Int)?,
    hasIMU: Bool = false, hasImages: Bool = true, gravity: SIMD3<Double> = SIMD3(0, -1, 0), notes: [String]
  ) {
    self.init(
      path: path, format: format, intrinsics: intrinsics, intrinsicsSource: intrinsicsSource,
      hasDepth: hasDepth, hasAccelerometer: hasIMU, hasGyroscope: hasIMU, hasGroundTruth: true,
      frameRate: frameRate, frameCount: frameCount, groundTruthGravity: gravity)
    self.hasImages = hasImages
    depthIntrinsics = depthSize.map { intrinsics.scaled(toWidth: $0.width, height: $0.height) }
    referenceKind = .arkit
    self.notes = notes
  }
}
