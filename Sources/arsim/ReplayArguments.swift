import ARSim
import ARSimRun

extension ReplayOptions {
  /// The options shared by the replaying commands, from `--format`, `--intrinsics`, `--mode`,
  /// `--scale`, `--planes` (default `defaultPlanes`), `--threads`, `--frames` (where the command
  /// accepts it) and `--no-loop-closure` (a flag the command must accept); `decodeColor` makes frames
  /// carry colour images.
  init(
    arguments args: Arguments, planes defaultPlanes: String = "horizontal,vertical", decodeColor: Bool = false
  )
    throws
  {
    self.init()
    let formatName = try args.choice("format", Self.formats, default: "auto")
    let modeName = try args.choice("mode", Self.modes, default: "auto")
    let planes = try args.choice("planes", Self.planeChoices, default: defaultPlanes)
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
    if let text = args.value("threads") {
      guard let count = Int(text), count >= 1 else {
        throw Arguments.UsageError("--threads must be a positive integer, got '\(text)'")
      }
      threads = count
    }
    if let text = args.value("frames") { frames = try Self.frameRange(text) }
    closesLoops = !args.flag("no-loop-closure")
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

  /// `FIRST-LAST` or `FIRST-` (frame indices, inclusive).
  static func frameRange(_ text: String) throws -> ClosedRange<Int> {
    let parts = text.split(separator: "-", omittingEmptySubsequences: false)
    guard parts.count == 2, let first = Int(parts[0]), first >= 0,
      let last = parts[1].isEmpty ? Int.max : Int(parts[1]), last >= first
    else {
      throw Arguments.UsageError(
        "--frames must be FIRST-LAST or FIRST- (frame indices, FIRST <= LAST), got '\(text)'")
    }
    return first...last
  }

  static let formats = ["auto"] + RecordingFormat.allCases.map(\.rawValue)
  static let modes = ["rgbd", "mono", "depth", "auto"]
  static let planeChoices = ["horizontal,vertical", "vertical,horizontal", "horizontal", "vertical", "none"]
  static let targets = ["existingPlaneGeometry", "existingPlaneInfinite", "estimatedPlane"]
  static let alignments = ["any", "horizontal", "vertical"]

  /// The raycast target and alignment of `--target` and `--alignment` (defaults existingPlaneGeometry
  /// and any).
  static func raycastChoices(_ args: Arguments) throws -> (
    ARRaycastQuery.Target, ARRaycastQuery.TargetAlignment
  ) {
    let target: ARRaycastQuery.Target =
      switch try args.choice("target", targets, default: "existingPlaneGeometry") {
      case "existingPlaneInfinite": .existingPlaneInfinite
      case "estimatedPlane": .estimatedPlane
      default: .existingPlaneGeometry
      }
    let alignment: ARRaycastQuery.TargetAlignment =
      switch try args.choice("alignment", alignments, default: "any") {
      case "horizontal": .horizontal
      case "vertical": .vertical
      default: .any
      }
    return (target, alignment)
  }

  /// The values of the options that change an evaluation's results, by name, defaults filled in
  /// (`--format`, `--mode`, `--planes`, `--target`, `--alignment`, and `--intrinsics`, `--scale`
  /// when given): parts of a sharded run made with other values do not belong together.
  static func resultValues(_ args: Arguments) throws -> [String: String] {
    var values = [
      "format": try args.choice("format", formats, default: "auto"),
      "mode": try args.choice("mode", modes, default: "auto"),
      "planes": try args.choice("planes", planeChoices, default: "horizontal,vertical"),
      "target": try args.choice("target", targets, default: "existingPlaneGeometry"),
      "alignment": try args.choice("alignment", alignments, default: "any"),
    ]
    for name in ["intrinsics", "scale"] { values[name] = args.value(name) }
    return values
  }
}
