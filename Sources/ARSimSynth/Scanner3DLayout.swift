import ARSim
import ARSimMath
import Foundation

/// The 3D Scanner App's (Laan Labs) "All Data" export, as the app writes it, in `OUT/All_Data/`
/// (``folderName``; ground truth `planes.json` and `taps.txt` stay in `OUT`):
/// `frame_NNNNN.json` per frame (`cameraPoseARFrame`: ARKit's camera to world, row-major, ARKit's
/// camera axes; `intrinsics`: K row-major for the colour image; `time`; `frame_index`),
/// `depth_NNNNN.png` (uint16 mm), `conf_NNNNN.png` (0/1/2), `frame_NNNNN.jpg` on every third frame
/// only (``colourEvery``) as the app keeps it, and `info.json` (`numImages`, `title`, ...). Every
/// number is written in its shortest exact form: the reader gets the rendered times back exactly and
/// the poses to the rounding of a quaternion through a rotation matrix (1e-15). Depth is at its rendered size (the phone profile's 256x192, or the image's). No IMU: the
/// export has none, so IMU samples are dropped.
struct Scanner3DSink: SessionSink {
  /// The export's folder inside OUT, as the app's "All Data" export names it.
  static let folderName = "All_Data"
  /// Frames `0, colourEvery, 2 colourEvery, ...` carry a colour image (the app's 1.9.7 exports do
  /// this at 3).
  static let colourEvery = 3
  let folder: String
  let camera: CameraIntrinsics
  let quality: Int
  var count = 0

  init(folder out: String, scene: SyntheticScene, encoding: RecordingWriter.ImageEncoding)
    throws(RecordingError)
  {
    guard case .jpeg(let quality) = encoding else {
      throw RecordingError(file: out, "the 3D Scanner App stores colour as JPEG only (leave out --png)")
    }
    guard scene.sensors.depth != nil else {
      throw RecordingError(file: out, "a 3D Scanner App export needs depth: the scene has no depth sensor")
    }
    folder = out + "/" + Self.folderName
    camera = scene.camera
    self.quality = quality
    try PhoneFiles.makeFolders(out, [Self.folderName])
  }

  mutating func append(_ frame: RenderedFrame) throws(RecordingError) {
    let stem = String(format: "%05d", count)
    let base = folder + "/"
    if count % Self.colourEvery == 0 {
      let path = base + "frame_\(stem).jpg"
      do {
        try ImageCodec.write(frame.image, to: path, quality: quality)
      } catch {
        throw RecordingError(file: path, error.message)
      }
    }
    try PhoneFiles.writeDepth(
      frame, frame.depth!, to: base + "depth_\(stem).png", confidence: base + "conf_\(stem).png")
    let worldFromCamera = (frame.pose * opticalFromCamera).matrix
    let rowMajor = (0..<4).flatMap { r in (0..<4).map { c in worldFromCamera[c][r] } }
    let k = camera
    func list(_ values: [Double]) -> String { "[" + PhoneFiles.exact(values).joined(separator: ", ") + "]" }
    let fields = [
      "\"cameraPoseARFrame\": " + list(rowMajor),
      "\"intrinsics\": " + list([k.fx, 0, k.cx, 0, k.fy, k.cy, 0, 0, 1]),
      "\"time\": " + PhoneFiles.exact([frame.timestamp])[0],
      "\"frame_index\": \(count)",
      "\"exposureDuration\": 0.01666666753590107",
    ]
    try writeText("{\n  " + fields.joined(separator: ",\n  ") + "\n}\n", to: base + "frame_\(stem).json")
    count += 1
  }

  mutating func append(_: IMUSample) throws(RecordingError) {}

  func finish() throws(RecordingError) {
    try writeText(
      "{\n  \"title\" : \"synthetic\",\n  \"appVersionString\" : \"1.9.7\",\n  \"numImages\" : \(count)\n}\n",
      to: folder + "/info.json")
  }
}
