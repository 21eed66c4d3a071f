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
  /// An LZFSE stream (Record3D's depth and confidence), decoded with a 1 MiB output limit.
  case lzfse
  /// A Stray Scanner export: the first byte picks `odometry.csv`, `camera_matrix.csv` or `imu.csv`,
  /// the rest is its content.
  case stray
  /// `metadata.json` of a Record3D EXR+JPG export folder.
  case record3d
  /// A whole Record3D `.r3d` file (a zip, through libzip: metadata, JPEG, LZFSE depth and confidence).
  case r3d
  /// `depth/0.exr` of a Record3D EXR+JPG export folder (OpenEXR depth through OpenEXR's library).
  case exr
  /// An ARKitScenes video folder: the first byte picks `lowres_wide.traj` or the first frame's
  /// `.pincam`, the rest is its content.
  case arkitscenes
  /// A 3D Scanner App "All Data" export (read through its parent folder): the first byte picks the
  /// first or the second frame's `frame_NNNNN.json` or `info.json`, the rest is its content.
  case scanner3d
  /// ARSim's world map file (`ARWorldMap(data:)`); a map it reads must write back as the same bytes.
  case worldmap

  /// The fixture recording (a folder under the harness's folder) and the files in it that the
  /// target's input replaces; with several, the input's first byte picks one. Nil for targets
  /// that take the input as a whole file or buffer.
  var replaces: (recording: String, files: [String])? {
    switch self {
    case .session: ("arsim", ["session.json"])
    case .frames: ("arsim", ["frames.txt"])
    case .imu: ("arsim", ["imu.txt"])
    case .groundtruth: ("arsim", ["groundtruth.txt"])
    case .tum: ("tum", ["rgb.txt", "depth.txt", "accelerometer.txt", "intrinsics.txt"])
    case .stray: ("stray", ["odometry.csv", "camera_matrix.csv", "imu.csv"])
    case .record3d: ("record3d", ["metadata.json"])
    case .exr: ("record3d", ["depth/0.exr"])
    case .arkitscenes: ("arkitscenes", ["lowres_wide.traj", "lowres_wide_intrinsics/v_0.000.pincam"])
    case .scanner3d:
      ("scanner3d", ["All_Data/frame_00000.json", "All_Data/frame_00001.json", "All_Data/info.json"])
    default: nil
    }
  }
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

  /// Writes the fixture files the target replaces into `corpus` as seeds (with their selector
  /// byte when there are several), so that seeds and fixture are one set of files.
  func writeSeeds(to corpus: String) throws {
    if target == .worldmap {
      try FuzzFixture.worldMap().write(to: URL(fileURLWithPath: corpus + "/fixture-world.map"))
    }
    guard let (recording, files) = target.replaces else { return }
    for (selector, name) in files.enumerated() {
      let content = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + recording + "/" + name))
      let seed = (files.count > 1 ? Data([UInt8(selector)]) : Data()) + content
      let file = corpus + "/fixture-" + name.replacingOccurrences(of: "/", with: "_")
      try seed.write(to: URL(fileURLWithPath: file))
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
    if let (recording, files) = target.replaces {
      let (name, content) =
        files.count == 1
        ? (files[0], data) : (files[Int(data.first ?? 0) % files.count], Array(data.dropFirst()))
      try readRecording(folder + "/" + recording, replacing: name, with: content)
      return
    }
    switch target {
    case .session, .frames, .imu, .groundtruth, .tum, .stray, .record3d, .exr, .arkitscenes, .scanner3d:
      preconditionFailure("read through the fixture above")
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
    case .worldmap:
      let map = try ARWorldMap(data: Data(data), name: "input.map")
      precondition(map.data() == Data(data), "a world map that does not write back as read")
    case .r3d:
      let path = folder + "/input.r3d"
      try Data(data).write(to: URL(fileURLWithPath: path))
      try readAll(path)
    case .lzfse:
      do {
        let decoded = try LZFSE.decode(data, maxSize: 1 << 20)
        precondition(decoded.count <= 1 << 20, "decoded \(decoded.count) bytes, past the limit")
      } catch {
        precondition(!error.message.isEmpty && !"\(error)".contains("\n"), "not one line: \(error)")
      }
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
    try readAll(recording)
  }

  /// Opens the recording at `path` and reads every frame.
  private func readAll(_ path: String) throws {
    var source = try Recording.open(folder: path)
    var count = 0
    while try source.nextFrame() != nil {
      count += 1
      precondition(count <= 100_000, "more frames than any input here can list")
    }
  }
}
