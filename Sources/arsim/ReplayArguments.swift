import ARSim
import ARSimRun

extension ReplayOptions {
  /// The options shared by the replaying commands, from `--format`, `--intrinsics`, `--mode`,
  /// `--scale` and `--planes` (default `defaultPlanes`); `decodeColor` makes frames carry colour images.
  init(
    arguments args: Arguments, planes defaultPlanes: String = "horizontal,vertical", decodeColor: Bool = false
  )
    throws
  {
    self.init()
    let formatName = try args.choice("format", ["auto", "arsim", "tum"], default: "auto")
    let modeName = try args.choice("mode", ["rgbd", "mono", "auto"], default: "auto")
    let planes = try args.choice(
      "planes", ["horizontal,vertical", "vertical,horizontal", "horizontal", "vertical", "none"],
      default: defaultPlanes)
    self.decodeColor = decodeColor
    if let text = args.value("intrinsics") {
      // The image size is filled in by the reader, which validates the whole.
      intrinsics = try CameraIntrinsics.parse(text, source: "--intrinsics")
    }
    if let text = args.value("scale") {
      guard let scale = Double(text), scale.isFinite, scale > 0 else {
        throw Arguments.UsageError("--scale must be a positive number of metres, got '\(text)'")
      }
      monocularScale = scale
    }
    format = formatName == "auto" ? nil : RecordingFormat(rawValue: formatName)
    mode = Mode(rawValue: modeName) ?? .auto
    planeDetection =
      switch planes {
      case "none": []
      case "horizontal": .horizontal
      case "vertical": .vertical
      default: [.horizontal, .vertical]
      }
  }
}
