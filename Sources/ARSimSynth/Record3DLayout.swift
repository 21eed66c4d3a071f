import ARSim
import ARSimMath
import Foundation

/// Record3D's exports, as the app writes them, in either form:
///
/// - the EXR+JPG folder: `metadata.json`, `rgb/{i}.jpg`, `depth/{i}.exr` (metres, 0 = none), as
///   the app writes it: one HALF channel named `R` (depth rounded to half floats: 11 significant
///   bits, about 1 mm at 1 to 2 m);
/// - the `.r3d` file (`OUT/recording.r3d`, a zip): `metadata`, `rgbd/{i}.jpg`,
///   `rgbd/{i}.depth` (float32 metres, NaN = none) and `rgbd/{i}.conf` (uint8 confidence), both
///   LZFSE streams of stored blocks (``LZFSE/encodeStored(_:)``: valid LZFSE, uncompressed).
///
/// `metadata`: `w`, `h`, `dw`, `dh`, `fps`, `K` (column-major), `poses` (`[qx, qy, qz, qw, px, py,
/// pz]`, camera to world in OpenGL camera axes: x right, y up, z back), `frameTimestamps` and
/// `initPose`. Colour is the rendered image in landscape (the app's are portrait), JPEG only.
/// No IMU: Record3D's exports have none, so IMU samples are dropped.
struct Record3DSink: SessionSink {
  /// The file name of the `.r3d` export inside the output folder.
  static let archiveName = "recording.r3d"
  let folder: String
  let camera: CameraIntrinsics
  let frameRate: Double
  let quality: Int
  let archive: ZipWriter?
  var poses: [[Double]] = []
  var timestamps: [Double] = []
  var depthSize: (width: Int, height: Int)?

  init(folder: String, scene: SyntheticScene, encoding: RecordingWriter.ImageEncoding, archive: Bool)
    throws(RecordingError)
  {
    guard case .jpeg(let quality) = encoding else {
      throw RecordingError(file: folder, "Record3D stores colour as JPEG only (leave out --png)")
    }
    guard scene.sensors.depth != nil else {
      throw RecordingError(file: folder, "a Record3D export needs depth: the scene has no depth sensor")
    }
    self.folder = folder
    camera = scene.camera
    frameRate = scene.frameRate
    self.quality = quality
    if archive {
      do {  // the folder that holds the archive, with its parents, as the other layouts make theirs
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
      } catch {
        throw RecordingError(file: folder, "cannot be created: \(error.localizedDescription)")
      }
      self.archive = try ZipWriter(path: folder + "/" + Self.archiveName)
    } else {
      try PhoneFiles.makeFolders(folder, ["rgb", "depth"])
      self.archive = nil
    }
  }

  mutating func append(_ frame: RenderedFrame) throws(RecordingError) {
    let i = poses.count
    let depth = frame.depth!
    depthSize = (depth.width, depth.height)
    if let archive {
      try archive.add("rgbd/\(i).jpg") { (path) throws(RecordingError) in
        try write(frame.image, to: path)
      }
      let floats = depth.metres.map { $0.isFinite && $0 > 0 ? $0 : .nan }
      let bytes = floats.withUnsafeBytes { Array($0) }  // little-endian float32 on every Swift host
      try archive.add("rgbd/\(i).depth", bytes: LZFSE.encodeStored(bytes))
      try archive.add("rgbd/\(i).conf", bytes: LZFSE.encodeStored(PhoneFiles.confidence(frame, depth).pixels))
    } else {
      try write(frame.image, to: folder + "/rgb/\(i).jpg")
      let path = folder + "/depth/\(i).exr"
      do {
        try ImageCodec.writeEXRDepth(
          width: depth.width, height: depth.height,
          values: depth.metres.map { $0.isFinite && $0 > 0 ? $0 : 0 }, channel: "R", type: .half, to: path)
      } catch {
        throw RecordingError(file: path, error.message)
      }
    }
    let worldFromGL = frame.pose * opticalFromCamera
    let q = worldFromGL.rotation.vector
    let t = worldFromGL.translation
    poses.append([q.x, q.y, q.z, q.w, t.x, t.y, t.z])
    timestamps.append(frame.timestamp)
  }

  private func write(_ image: RGBImage, to path: String) throws(RecordingError) {
    do {
      try ImageCodec.write(image, to: path, quality: quality)
    } catch {
      throw RecordingError(file: path, error.message)
    }
  }

  mutating func append(_: IMUSample) throws(RecordingError) {}

  func finish() throws(RecordingError) {
    let k = camera
    let depth = depthSize ?? (k.width, k.height)
    // Written by hand: every number in its shortest exact form (JSONSerialization may round).
    func list(_ values: [Double]) -> String { "[" + PhoneFiles.exact(values).joined(separator: ", ") + "]" }
    let fields = [
      "\"w\": \(k.width)", "\"h\": \(k.height)", "\"dw\": \(depth.width)", "\"dh\": \(depth.height)",
      "\"fps\": \(frameRate)", "\"K\": " + list([k.fx, 0, 0, 0, k.fy, 0, k.cx, k.cy, 1]),
      "\"poses\": [" + poses.map(list).joined(separator: ",\n  ") + "]",
      "\"frameTimestamps\": " + list(timestamps),
      "\"initPose\": " + list(poses.first ?? [0, 0, 0, 1, 0, 0, 0]),
    ]
    let json = Data(("{" + fields.joined(separator: ",\n ") + "}\n").utf8)
    if let archive {
      try archive.add("metadata", bytes: Array(json))
      try archive.finish()
    } else {
      do {
        try json.write(to: URL(fileURLWithPath: folder + "/metadata.json"))
      } catch {
        throw RecordingError(
          file: folder + "/metadata.json", "cannot be written: \(error.localizedDescription)")
      }
    }
  }
}
