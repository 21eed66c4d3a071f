import ARSim
import ARSimRun
import Foundation

/// Writes, for every `every`-th frame of a replay on which plane detection ran, the world points the
/// plane detector received that frame, so that other plane fitters (Open3D's `segment_plane` in
/// `Tools/bench_planes.py`) can be timed on the same points.
///
/// The points are rebuilt from the session's ``ARFrame`` exactly as `ARSession` builds its
/// `PlaneDetectionInput` (this mirrors `ARSession.detectPlanes`; keep the two in step): the tracked
/// landmarks (`frame.rawFeaturePoints`, the same `Float` positions), then
/// `DepthSampler.worldPoints(depth:intrinsics:worldFromCamera:step:)` of the frame's depth image with
/// the camera's double-precision pose and intrinsics and the default options' depth stride.
/// Points with a non-finite coordinate are left out (the detector ignores them).
///
/// Files in the folder:
/// - `frame_NNNNNN.npy`: the points of recording frame `NNNNNN`, world coordinates in metres, a NumPy
///   version 1.0 array of little-endian `float32` of shape `(count, 3)`, feature points first.
/// - `index.json`: an array with one object per dumped frame, in order: `frame` (recording index),
///   `t` (seconds), `file`, `featurePoints`, `depthPoints` (counts as written), `planeMilliseconds`
///   (the session's plane-detection time for that frame: depth sampling, detection and anchor update),
///   `anchors` (the frame's anchor count after detection).
final class BenchPointDump {
  let folder: String
  let every: Int
  private var entries: [JSON] = []

  /// A dump into `folder` (created when missing) of every `every`-th frame (recording index divisible
  /// by `every`, at least 1).
  init(folder: String, every: Int) throws {
    self.folder = folder
    self.every = max(every, 1)
    do {
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    } catch {
      throw Arguments.UsageError("\(folder): cannot create the folder (\(error.localizedDescription))")
    }
  }

  /// Dumps `frame`'s detector input when plane detection ran on it (its record's plane time is
  /// positive) and its index is a multiple of ``every``.
  func add(_ frame: ARFrame, record: ReplayRun.FrameRecord) throws {
    guard record.planeSeconds > 0, record.index % every == 0 else { return }
    let (features, depth) = Self.detectorPoints(of: frame)
    let name = String(format: "frame_%06d.npy", record.index)
    try Self.writeNPY(features + depth, to: folder + "/" + name)
    entries.append(
      .object([
        ("frame", .int(record.index)), ("t", .number(record.timestamp)), ("file", .string(name)),
        ("featurePoints", .int(features.count)), ("depthPoints", .int(depth.count)),
        ("planeMilliseconds", .number(record.planeSeconds * 1000)), ("anchors", .int(record.anchorCount)),
      ]))
  }

  /// Writes `index.json`.
  func finish() throws {
    let file = try OutputFile(path: folder + "/index.json")
    try file.write(JSON.array(entries).text)
    try file.close()
  }

  /// The world points (metres) the session's plane detector received for `frame`: its tracked
  /// feature points and its sampled depth points, finite ones only. Mirrors `ARSession.detectPlanes`.
  static func detectorPoints(of frame: ARFrame) -> (features: [SIMD3<Float>], depth: [SIMD3<Float>]) {
    let features = (frame.rawFeaturePoints?.points ?? []).filter(\.isFinite3)
    let camera = frame.camera
    let intrinsics = camera.cameraIntrinsics
    let depth =
      frame.sceneDepth.map {
        DepthSampler.worldPoints(
          depth: $0.depthMap, intrinsics: intrinsics, worldFromCamera: camera.worldFromCamera,
          step: DepthSampler.step(
            width: intrinsics.width, samplesPerRow: PlaneDetectionOptions().depthSamplesPerRow))
      } ?? []
    return (features, depth.filter(\.isFinite3))
  }

  /// Writes `points` as a NumPy `.npy` file (format version 1.0, `<f4`, shape `(count, 3)`).
  static func writeNPY(_ points: [SIMD3<Float>], to path: String) throws {
    var header = "{'descr': '<f4', 'fortran_order': False, 'shape': (\(points.count), 3), }"
    // Magic (6) + version (2) + header length (2) + header, padded with spaces to a multiple of 64
    // bytes and ended by a newline.
    let unpadded = 10 + header.utf8.count + 1
    header += String(repeating: " ", count: (64 - unpadded % 64) % 64) + "\n"
    var data = Data([0x93] + Array("NUMPY".utf8) + [1, 0])
    let length = UInt16(header.utf8.count)
    data.append(contentsOf: [UInt8(length & 0xff), UInt8(length >> 8)])
    data.append(contentsOf: Array(header.utf8))
    var values: [Float] = []
    values.reserveCapacity(points.count * 3)
    for p in points { values += [p.x, p.y, p.z] }
    values.withUnsafeBufferPointer { buffer in
      for value in buffer {
        withUnsafeBytes(of: value.bitPattern.littleEndian) { data.append(contentsOf: $0) }
      }
    }
    do {
      try data.write(to: URL(fileURLWithPath: path), options: .atomic)
    } catch {
      throw Arguments.UsageError("\(path): cannot be written (\(error.localizedDescription))")
    }
  }
}

extension SIMD3 where Scalar == Float {
  /// Whether every coordinate is finite.
  fileprivate var isFinite3: Bool { x.isFinite && y.isFinite && z.isFinite }
}
