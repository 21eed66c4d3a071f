import ARSim
import ARSimSynth
import ARSimTestSupport
import Foundation
import Testing

/// What a replay reported: the camera per frame and every plane event, in order.
final class ReplayLog: ARSessionDelegate {
  struct Event: Equatable {
    var kind: String
    var frame: Int
    var alignment: ARPlaneAnchor.Alignment
    var transform: simd_float4x4
    var extent: SIMD2<Float>
  }

  var frames: [(index: Int, state: ARCamera.TrackingState, transform: simd_float4x4)] = []
  var events: [Event] = []

  func session(_ session: ARSession, didUpdate frame: ARFrame) {
    frames.append((frame.frameIndex, frame.camera.trackingState, frame.camera.transform))
  }
  func session(_ session: ARSession, didAdd anchors: [ARAnchor]) { record("add", anchors) }
  func session(_ session: ARSession, didUpdate anchors: [ARAnchor]) { record("update", anchors) }
  func session(_ session: ARSession, didRemove anchors: [ARAnchor]) { record("remove", anchors) }

  private func record(_ kind: String, _ anchors: [ARAnchor]) {
    for case let plane as ARPlaneAnchor in anchors {
      events.append(
        Event(
          kind: kind, frame: frames.count, alignment: plane.alignment, transform: plane.transform,
          extent: SIMD2(plane.planeExtent.width, plane.planeExtent.height)))
    }
  }

  /// Replays `path` to the end in `mode`.
  static func replay(_ path: String, mode: TrackerOptions.Mode) throws -> ReplayLog {
    let configuration = ARWorldTrackingConfiguration()
    configuration.tracking.mode = mode
    configuration.planeDetection = [.horizontal, .vertical]
    let session = ARSession()
    let log = ReplayLog()
    session.delegate = log
    session.run(configuration)
    let replay = try ARReplay(session: session, recording: path)
    while try replay.step() != nil {}
    return log
  }

  /// The largest camera-position difference between two replays (metres), after checking that
  /// they have the same frames, tracking states and plane events (same kinds, frames and
  /// alignments; transforms and extents within `tolerance`).
  static func difference(_ a: ReplayLog, _ b: ReplayLog, tolerance: Float) -> Double {
    #expect(a.frames.count == b.frames.count && !a.frames.isEmpty)
    var worst = 0.0
    for (x, y) in zip(a.frames, b.frames) {
      #expect(x.index == y.index && x.state == y.state)
      let d = simd_length(x.transform.columns.3 - y.transform.columns.3)
      worst = max(worst, Double(d))
    }
    #expect(a.events.count == b.events.count && !b.events.isEmpty)
    for (x, y) in zip(a.events, b.events) {
      #expect(x.kind == y.kind && x.frame == y.frame && x.alignment == y.alignment)
      for c in 0..<4 {
        #expect(simd_length(x.transform[c] - y.transform[c]) <= tolerance)
      }
      #expect(simd_length(x.extent - y.extent) <= tolerance)
    }
    return worst
  }
}

/// `arsim generate --format stray|record3d|r3d|arkitscenes`: the same synthetic session written in
/// each phone layout replays to the same trajectory and plane events as in the ARSim format.
/// Lossless layouts (colour and depth stored exactly, or colour unused) agree within 1e-6 m;
/// Stray's colour goes through a lossy HEVC video, so its RGB-D replay is held to 1 mm (at 640x480).
@Suite(.serialized) struct PhoneLayoutTests {
  /// The tabletop scene at the phones' depth size, 256x192, for 1.2 s at 25 Hz: every timestamp
  /// exact in both the 6 decimals of ARSim's frames.txt and the 3 of ARKitScenes' file names.
  static func scene(
    _ name: String = "tabletop", imu: Bool, frameRate: Double = 25, scale: Double = 0.4
  ) throws -> SyntheticScene {
    var scene = try SyntheticScene.load(path: Datasets.path("scenes") + "/\(name).json").scaled(by: scale)
    scene.frameRate = frameRate
    scene.duration = 1.2
    if !imu { scene.sensors.imu = nil }
    return scene
  }

  static func generate(
    _ scene: SyntheticScene, _ format: RecordingFormat, archive: Bool = false,
    encoding: RecordingWriter.ImageEncoding = .jpeg(quality: 90),
    depth: RecordingWriter.DepthEncoding = .png16
  ) throws -> String {
    let folder = RecordingFixtures.temporaryFolder("phone-" + format.rawValue)
    var options = GenerationOptions()
    options.format = format
    options.record3DArchive = archive
    options.encoding = encoding
    options.depthEncoding = depth
    _ = try SessionGenerator.generate(
      try SceneRenderer(scene: scene, source: "tabletop"), to: folder, options: options)
    return archive ? folder + "/recording.r3d" : folder
  }

  /// The reader gives back the rendered ground truth exactly (to the printed precision), and the
  /// depth as `depth` makes it of the ARSim format's. `referenceFromARSim` maps the ARSim recording's
  /// reference world into `path`'s (ARKitScenes' is z-up).
  static func expectSameReference(
    _ path: String, _ arsim: String, referenceFromARSim: RigidTransform = .identity,
    depth: (Float) -> Float = { $0 }
  ) throws {
    var a = try Recording.open(folder: path)
    var b = try Recording.open(folder: arsim)
    while let x = try a.nextFrame() {
      let y = try #require(try b.nextFrame())
      #expect(abs(x.timestamp - y.timestamp) < 5e-4)
      let p = try #require(x.groundTruth)
      let q = referenceFromARSim * (try #require(y.groundTruth))
      #expect(simd_length(p.translation - q.translation) < 1e-8)
      #expect(simd_length((p.inverse * q).rotation.imag) < 1e-8)
      #expect(x.depth?.metres.map(\.bitPattern) == y.depth?.metres.map { depth($0).bitPattern })
    }
    #expect(try b.nextFrame() == nil)
  }

  /// The room, which depth-only tracking follows (the tabletop is nearly all one plane), so the
  /// lossless comparison in depth mode has plane events.
  @Test func strayReplaysLikeTheARSimFormat() throws {
    let scene = try Self.scene("room", imu: true)
    let stray = try Self.generate(scene, .stray)
    let arsim = try Self.generate(scene, .arsim, encoding: .png)
    #expect(try Recording.detectFormat(folder: stray) == .stray)
    let info = try Recording.open(folder: stray).info
    #expect(info.hasImages && info.hasAccelerometer && info.referenceKind == .arkit)
    #expect(info.notes.contains("accelerometer in g (from the magnitude of its readings)"))
    try Self.expectSameReference(stray, arsim)
    // Depth only: colour is not read, depth is exact millimetres in both.
    let depth = ReplayLog.difference(
      try ReplayLog.replay(stray, mode: .depth), try ReplayLog.replay(arsim, mode: .depth), tolerance: 1e-6)
    #expect(depth <= 1e-6)
    print("stray vs arsim: depth mode \(depth) m")
  }

  /// RGB-D through Stray's lossy video (HEVC, libx265 at CRF 18, 8-bit 4:2:0) against the same
  /// session with lossless PNG colour: the camera within 1 mm on every frame, at 640x480 colour and
  /// depth (the room unscaled; Stray's own video is 1920x1440 over 256x192 depth), where the worst
  /// frame comes close to the bound: the margin is thin. Not at the phones' 256x192: there this
  /// tracker moves by millimetres for sub-grey-level changes, even through lossless HEVC, which only
  /// rounds to 8-bit limited-range YUV. Plane events may differ.
  @Test func strayVideoReplaysWithinAMillimetre() throws {
    let scene = try Self.scene("room", imu: true, scale: 1)
    let stray = try Self.generate(scene, .stray)
    let arsim = try Self.generate(scene, .arsim, encoding: .png)
    let a = try ReplayLog.replay(stray, mode: .rgbd)
    let b = try ReplayLog.replay(arsim, mode: .rgbd)
    #expect(a.frames.count == b.frames.count && a.frames.count == 31)
    let distances = zip(a.frames, b.frames).map {
      Double(simd_length($0.transform.columns.3 - $1.transform.columns.3))
    }
    let rgbd = distances.max() ?? .infinity
    #expect(rgbd <= 0.001)
    print("stray vs arsim: rgbd through HEVC at 640x480, worst \(rgbd) m")
  }

  /// The `.r3d` file holds float32 depth: the same replay as the ARSim format.
  @Test func record3DArchiveReplaysLikeTheARSimFormat() throws {
    let scene = try Self.scene(imu: false)
    let record3d = try Self.generate(scene, .record3d, archive: true)
    // The same JPEG bytes (same encoder and quality) and the same float depth.
    let arsim = try Self.generate(scene, .arsim, depth: .exrFloat)
    #expect(try Recording.detectFormat(folder: record3d) == .record3d)
    try Self.expectSameReference(record3d, arsim)
    let rgbd = ReplayLog.difference(
      try ReplayLog.replay(record3d, mode: .rgbd), try ReplayLog.replay(arsim, mode: .rgbd), tolerance: 1e-6)
    #expect(rgbd <= 1e-6)
    print("record3d (r3d) vs arsim: rgbd \(rgbd) m")
  }

  /// The EXR+JPG folder holds depth as the app writes it, one HALF channel named R: the depth read
  /// back is the ARSim format's rounded to half floats, and the replay stays within
  /// `halfDepthTolerance` of the float-depth one.
  @Test func record3DFolderReplaysLikeTheARSimFormat() throws {
    let scene = try Self.scene(imu: false)
    let record3d = try Self.generate(scene, .record3d)
    let arsim = try Self.generate(scene, .arsim, depth: .exrFloat)
    #expect(try Recording.detectFormat(folder: record3d) == .record3d)
    try Self.expectSameReference(record3d, arsim) { $0.isNaN ? $0 : Float(Float16($0)) }
    let a = try ReplayLog.replay(record3d, mode: .rgbd)
    let b = try ReplayLog.replay(arsim, mode: .rgbd)
    #expect(a.frames.count == b.frames.count && !a.frames.isEmpty)
    var worst = 0.0
    for (x, y) in zip(a.frames, b.frames) {
      #expect(x.index == y.index && x.state == y.state)
      worst = max(worst, Double(simd_length(x.transform.columns.3 - y.transform.columns.3)))
    }
    #expect(worst <= Self.halfDepthTolerance)
    print("record3d (folder, half depth) vs arsim: rgbd \(worst) m")
  }

  /// How far (metres) a replay of half-float depth may move from the float-depth one.
  static let halfDepthTolerance = 0.002

  /// `arsim generate --format r3d` into a folder that does not exist yet, as every other layout.
  @Test func record3DArchiveCreatesItsFolder() throws {
    var scene = try Self.scene(imu: false)
    scene.duration = 0.2
    let folder = RecordingFixtures.temporaryFolder("phone-r3d-new") + "/new/deeper"
    defer { try? FileManager.default.removeItem(atPath: folder) }
    var options = GenerationOptions()
    options.format = .record3d
    options.record3DArchive = true
    _ = try SessionGenerator.generate(
      try SceneRenderer(scene: scene, source: "tabletop"), to: folder, options: options)
    var source = try Recording.open(folder: folder + "/recording.r3d")
    #expect(source.info.frameCount == scene.frameCount && scene.frameCount > 1)
    #expect(try source.nextFrame()?.depth != nil)
  }

  @Test func arkitScenesReplaysLikeTheARSimFormat() throws {
    let scene = try Self.scene(imu: false)
    let folder = try Self.generate(scene, .arkitscenes)
    let arsim = try Self.generate(scene, .arsim, encoding: .png)
    #expect(try Recording.detectFormat(folder: folder) == .arkitscenes)
    let info = try Recording.open(folder: folder).info
    #expect(info.referenceKind == .arkit && info.hasDepth && !info.hasAccelerometer)
    #expect(info.intrinsics == scene.camera)
    #expect(info.groundTruthGravity == SIMD3(0, 0, -1))
    try Self.expectSameReference(
      folder, arsim,
      referenceFromARSim: RigidTransform(
        rotation: simd_quatd(angle: .pi / 2, axis: SIMD3(1, 0, 0)), translation: .zero))
    let rgbd = ReplayLog.difference(
      try ReplayLog.replay(folder, mode: .rgbd), try ReplayLog.replay(arsim, mode: .rgbd), tolerance: 1e-6)
    #expect(rgbd <= 1e-6)
    print("arkitscenes vs arsim: rgbd \(rgbd) m")
  }
}
