import ARSim
import ARSimAssets
import ARSimSynth
import Foundation

/// The readers and decoders under fuzzing. Each takes the fuzzer's bytes as one file of a small,
/// otherwise valid recording (or as a whole scene, planes file, image ...).
enum FuzzTarget: String, CaseIterable {
  /// `session.json` of an ARSim recording, which is then read to the end.
  case session
  /// `frames.txt`, the ARSim frame index.
  case frames
  /// `imu.txt` of an ARSim recording.
  case imu
  /// `groundtruth.txt` (TUM trajectory) of an ARSim recording.
  case groundtruth
  /// The TUM layout's text files: the first byte picks `rgb.txt`, `depth.txt`, `accelerometer.txt`
  /// or `intrinsics.txt`, the rest is its content.
  case tum
  /// `planes.json` (ground-truth planes).
  case planes
  /// `taps.txt` (ground-truth taps).
  case taps
  /// A scene JSON for `arsim generate` (decoded and validated, not rendered).
  case scene
  /// An encoded image (PNG, JPEG, OpenEXR, ...) decoded as grey, RGB, 16-bit depth and float through
  /// CVision.
  case image
  /// The strict JSON syntax check.
  case json
  /// A USDZ model (archive, layers, references inside it, prims), read by ARSimAssets.
  case usdz
  /// A USDC (crate) model layer.
  case usdc
  /// A USDA (text) model layer.
  case usda
}

/// Runs inputs through one target. Every failure must be a one-line error: anything else (a crash,
/// a sanitizer report, a multi-line or empty message) is a finding.
final class FuzzHarness {
  /// The harness of the target named by `ARSIM_FUZZ_TARGET`, made on first use.
  nonisolated(unsafe) static let shared: FuzzHarness = {
    let name = ProcessInfo.processInfo.environment["ARSIM_FUZZ_TARGET"] ?? ""
    guard let target = FuzzTarget(rawValue: name) else {
      let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
      FileHandle.standardError.write(Data("arsim-fuzz: set ARSIM_FUZZ_TARGET to one of \(names)\n".utf8))
      exit(2)
    }
    return FuzzHarness(target: target)
  }()

  let target: FuzzTarget
  private let folder: String

  init(target: FuzzTarget) {
    self.target = target
    let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
    folder = "\(base)/arsim-fuzz-\(target.rawValue)-\(getpid())"
    do {
      try FuzzFixture.write(folder)
    } catch {
      FileHandle.standardError.write(
        Data("arsim-fuzz: cannot write the fixture in \(folder): \(error)\n".utf8))
      exit(2)
    }
  }

  /// Removes the fixture (libFuzzer exits without it; Tools/fuzz.sh cleans up after a campaign).
  func removeFixture() { try? FileManager.default.removeItem(atPath: folder) }

  /// Runs one input; returns "ok" or the one-line error it gave.
  @discardableResult
  func run(_ data: [UInt8]) -> String {
    do {
      try body(data)
      return "ok"
    } catch {
      let message = "\(error)"
      precondition(!message.isEmpty && !message.contains("\n"), "not a one-line error: \(message)")
      return message
    }
  }

  private func body(_ data: [UInt8]) throws {
    switch target {
    case .session: try readRecording(folder + "/arsim", replacing: "session.json", with: data)
    case .frames: try readRecording(folder + "/arsim", replacing: "frames.txt", with: data)
    case .imu: try readRecording(folder + "/arsim", replacing: "imu.txt", with: data)
    case .groundtruth: try readRecording(folder + "/arsim", replacing: "groundtruth.txt", with: data)
    case .tum:
      let names = ["rgb.txt", "depth.txt", "accelerometer.txt", "intrinsics.txt"]
      let name = names[Int(data.first ?? 0) % names.count]
      try readRecording(folder + "/tum", replacing: name, with: Array(data.dropFirst()))
    case .planes:
      let path = folder + "/planes.json"
      try Data(data).write(to: URL(fileURLWithPath: path))
      _ = try GroundTruthPlanesFile.load(path: path)
    case .taps:
      let path = folder + "/taps.txt"
      try Data(data).write(to: URL(fileURLWithPath: path))
      _ = try GroundTruthTap.load(path: path)
    case .scene: _ = try SyntheticScene.decode(Data(data), source: "scene.json")
    case .image:
      // Each mode separately: one failing must not hide a crash in another.
      for decode in [
        { () throws -> Void in _ = try ImageCodec.decodeGray(data) },
        { _ = try ImageCodec.decodeRGB(data) }, { _ = try ImageCodec.decodeDepth16(data) },
        { _ = try ImageCodec.decodeFloat32(data) },
      ] {
        do { try decode() } catch let error as VisionError {
          precondition(!error.message.isEmpty && !error.message.contains("\n"), "not one line: \(error)")
        }
      }
    case .json: try StrictJSON.check(data, path: "input.json")
    case .usdz, .usdc, .usda:
      do {
        _ = try ModelAsset(bytes: data, file: "model.\(target.rawValue)", fileExtension: target.rawValue)
      } catch {
        precondition(
          !error.description.isEmpty && !error.description.contains("\n"), "not one line: \(error)")
      }
    }
  }

  /// Writes `data` as `name` in the recording at `recording`, reads every frame, restores the file.
  private func readRecording(_ recording: String, replacing name: String, with data: [UInt8]) throws {
    let path = recording + "/" + name
    let original = try Data(contentsOf: URL(fileURLWithPath: path))
    try Data(data).write(to: URL(fileURLWithPath: path))
    defer { try? original.write(to: URL(fileURLWithPath: path)) }
    var source = try Recording.open(folder: recording)
    var count = 0
    while try source.nextFrame() != nil {
      count += 1
      precondition(count <= 100_000, "more frames than any input here can list")
    }
  }
}

/// The small valid recordings the text targets damage one file of: 32x24 images, 3 frames.
enum FuzzFixture {
  static func write(_ folder: String) throws {
    let fm = FileManager.default
    try? fm.removeItem(atPath: folder)
    for sub in ["arsim/rgb", "arsim/depth", "tum/rgb", "tum/depth"] {
      try fm.createDirectory(atPath: folder + "/" + sub, withIntermediateDirectories: true)
    }
    let gray = GrayImage(
      width: 32, height: 24, pixels: (0..<(32 * 24)).map { UInt8(truncatingIfNeeded: $0 * 7) })
    let depth = (0..<(32 * 24)).map { UInt16(1000 + $0) }
    for sub in ["arsim", "tum"] {
      try ImageCodec.write(gray, to: "\(folder)/\(sub)/rgb/a.png")
      try ImageCodec.writeDepth16(width: 32, height: 24, values: depth, to: "\(folder)/\(sub)/depth/a.png")
    }
    func text(_ name: String, _ lines: [String]) throws {
      try (lines.joined(separator: "\n") + "\n").write(
        toFile: folder + "/" + name, atomically: false, encoding: .utf8)
    }
    try text(
      "arsim/session.json",
      [
        #"{"format": "arsim-recording", "version": 1, "depthScale": 0.001, "frameRate": 10,"#,
        #" "camera": {"fx": 30, "fy": 30, "cx": 15.5, "cy": 11.5, "width": 32, "height": 24},"#,
        #" "sensors": {"color": true, "depth": true, "accelerometer": true, "gyroscope": true},"#,
        #" "frames": "frames.txt", "imu": "imu.txt","#,
        #" "groundTruth": {"trajectory": "groundtruth.txt", "gravity": [0, -1, 0]}}"#,
      ])
    let times = ["0.0", "0.1", "0.2"]
    try text("arsim/frames.txt", ["# timestamp image depth"] + times.map { "\($0) rgb/a.png depth/a.png" })
    try text("arsim/imu.txt", (0..<30).map { "\(Double($0) * 0.01) 0 -9.81 0 0.01 0.02 0.03" })
    try text("arsim/groundtruth.txt", times.map { "\($0) 0 0 \($0) 0 0 0 1" })
    try text("tum/rgb.txt", times.map { "\($0) rgb/a.png" })
    try text("tum/depth.txt", times.map { "\($0) depth/a.png" })
    try text("tum/accelerometer.txt", (0..<30).map { "\(Double($0) * 0.01) 0 -9.81 0" })
    try text("tum/groundtruth.txt", times.map { "\($0) 0 0 \($0) 0 0 0 1" })
    try text("tum/intrinsics.txt", ["30 30 15.5 11.5"])
  }
}
