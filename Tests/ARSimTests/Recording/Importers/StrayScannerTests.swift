import ARSim
import ARSimTestSupport
import Foundation
import Testing

/// A committed ARSim session rewritten in Stray Scanner's layout (odometry.csv, camera_matrix.csv,
/// depth/, imu.csv in CoreMotion's convention, no video): the same numbers, so a replay of it must
/// match a replay of the original exactly.
enum StrayLayout {
  /// Writes `arsim` (an ARSim recording with depth at the image size and a ground-truth
  /// trajectory) into a new folder in the Stray layout; `dropDepth` leaves one depth map out.
  static func write(from arsim: String, frames limit: Int = .max, dropDepth: Int? = nil) throws -> String {
    let out = RecordingFixtures.temporaryFolder("stray")
    let session = try RecordingSession.load(folder: arsim)
    let k = session.camera
    try "\(k.fx), 0.0, \(k.cx)\n0.0, \(k.fy), \(k.cy)\n0.0, 0.0, 1.0\n".write(
      toFile: out + "/camera_matrix.csv", atomically: true, encoding: .utf8)
    try FileManager.default.createDirectory(atPath: out + "/depth", withIntermediateDirectories: true)
    let frames = try lines(arsim + "/frames.txt")
    let poses = try lines(arsim + "/groundtruth.txt")
    var odometry = "timestamp, frame, x, y, z, qx, qy, qz, qw\n"
    for (i, (frame, pose)) in zip(frames, poses).prefix(limit).enumerated() {
      #expect(frame[0] == pose[0])
      let stem = String(format: "%06d", i)
      odometry += ([frame[0], stem] + pose[1...7]).joined(separator: ", ") + "\n"
      if i != dropDepth {
        try FileManager.default.copyItem(atPath: arsim + "/" + frame[2], toPath: out + "/depth/\(stem).png")
      }
    }
    try odometry.write(toFile: out + "/odometry.csv", atomically: true, encoding: .utf8)
    var imu = "timestamp, a_x, a_y, a_z, alpha_x, alpha_y, alpha_z\n"
    for sample in try lines(arsim + "/imu.txt") {
      let v = sample.dropFirst().map { Double($0)! }
      // Optical specific force (f) and rate (w) back to CoreMotion's device axes: a = (f.y, f.x, f.z),
      // w_device = (-w.y, -w.x, -w.z).
      let device = [v[1], v[0], v[2], -v[4], -v[3], -v[5]]
      imu += ([sample[0]] + device.map { "\($0)" }).joined(separator: ", ") + "\n"
    }
    try imu.write(toFile: out + "/imu.csv", atomically: true, encoding: .utf8)
    return out
  }

  static func lines(_ path: String) throws -> [[String]] {
    try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }.map
    {
      $0.split(separator: " ").map(String.init)
    }
  }
}

@Suite struct StrayScannerTests {
  static func depthOnly() -> ARWorldTrackingConfiguration {
    let configuration = ARWorldTrackingConfiguration()
    configuration.tracking.mode = .depth
    configuration.planeDetection = [.horizontal, .vertical]
    return configuration
  }

  @Test func readsTheLayoutWithItsConventions() throws {
    let folder = try StrayLayout.write(from: Datasets.path("tabletop"), frames: 20)
    #expect(try Recording.detectFormat(folder: folder) == .stray)
    var source = try Recording.open(folder: folder)
    let info = source.info
    #expect(info.format == .stray && info.referenceKind == .arkit && !info.hasImages && info.hasAccelerometer)
    #expect(info.intrinsics.width == 320 && info.intrinsics.height == 240)
    #expect(info.depthIntrinsics == info.intrinsics)
    #expect(info.notes.contains { $0.hasPrefix("no rgb.mp4") })
    #expect(info.notes.contains("accelerometer in m/s^2 (from the magnitude of its readings)"))
    var original = try Recording.open(folder: Datasets.path("tabletop"))
    for _ in 0..<20 {
      let a = try #require(try source.nextFrame())
      let b = try #require(try original.nextFrame())
      #expect(a.image == nil && a.timestamp == b.timestamp && a.groundTruth == b.groundTruth)
      #expect(a.depth?.metres.map(\.bitPattern) == b.depth?.metres.map(\.bitPattern))
      #expect(a.imu == b.imu)
    }
    #expect(try source.nextFrame() == nil)
  }

  /// The same session in both layouts replays to the same trajectory and the same planes.
  @Test func replaysLikeTheSameSessionInTheARSimFormat() throws {
    let folder = try StrayLayout.write(from: Datasets.path("tabletop"), frames: 60)
    let original = RecordingFixtures.temporaryFolder("tabletop60")
    let writer = try RecordingWriter(
      folder: original, session: try RecordingSession.load(folder: Datasets.path("tabletop")),
      writesGroundTruth: true)
    var source = try Recording.open(folder: Datasets.path("tabletop"))
    var lastTime = -Double.infinity
    for _ in 0..<60 {
      let frame = try #require(try source.nextFrame())
      for sample in frame.imu { try writer.append(imu: sample) }
      try writer.append(
        timestamp: frame.timestamp, image: frame.image, depth: frame.depth, groundTruth: frame.groundTruth)
      lastTime = frame.timestamp
    }
    try writer.finish(gravity: SIMD3(0, -1, 0))
    let (stray, strayFrames) = try FrameCollector.replay(folder, configuration: Self.depthOnly())
    let (arsim, arsimFrames) = try FrameCollector.replay(original, configuration: Self.depthOnly())
    #expect(strayFrames.records.count == 60 && arsimFrames.records.count == 60)
    #expect(strayFrames.records.last?.timestamp == lastTime)
    for (a, b) in zip(strayFrames.records, arsimFrames.records) {
      #expect(a.state == b.state)
      let d =
        RigidTransform(matrix: a.transform).translation - RigidTransform(matrix: b.transform).translation
      #expect(simd_length(d) <= 1e-6)
    }
    let planesA = stray.anchors.compactMap { $0 as? ARPlaneAnchor }
    let planesB = arsim.anchors.compactMap { $0 as? ARPlaneAnchor }
    #expect(planesA.count == planesB.count)
    for (a, b) in zip(planesA, planesB) {
      let sameTransform = a.transform == b.transform
      let sameExtent =
        a.planeExtent.width == b.planeExtent.width && a.planeExtent.height == b.planeExtent.height
      #expect(sameTransform && sameExtent && a.alignment == b.alignment)
    }
  }

  @Test func badInputIsOneLineNamingTheFile() throws {
    let missing = try StrayLayout.write(from: Datasets.path("tabletop"), frames: 5, dropDepth: 3)
    var source = try Recording.open(folder: missing)
    for _ in 0..<3 { _ = try source.nextFrame() }
    #expect(
      throws: RecordingError(
        file: missing + "/odometry.csv", line: 5,
        "frame 000003 has no depth map (depth/000003.png is missing)")
    ) {
      _ = try source.nextFrame()
    }

    let units = try StrayLayout.write(from: Datasets.path("tabletop"), frames: 5)
    let imu = try String(contentsOfFile: units + "/imu.csv", encoding: .utf8).split(separator: "\n")
    let scaled =
      [String(imu[0])]
      + imu.dropFirst().map { line in
        let f = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        return ([f[0]] + f[1...3].map { "\(Double($0)! / 3)" } + f[4...]).joined(separator: ", ")
      }
    try (scaled.joined(separator: "\n") + "\n").write(
      toFile: units + "/imu.csv", atomically: true, encoding: .utf8)
    #expect {
      _ = try Recording.open(folder: units)
    } throws: { error in
      let text = "\(error)"
      return text.hasPrefix(units + "/imu.csv: unknown accelerometer units: median magnitude 3.")
        && !text.contains("\n")
    }

    // The default configuration follows the recording: depth without images is tracked depth-only.
    let followed = try ARReplay(session: ARSession(), recording: missing)
    followed.session.run(ARWorldTrackingConfiguration())
    #expect(try followed.step() != nil)
    // Tracking that reads images, asked for explicitly, is refused at the first image-less frame.
    let replay = try ARReplay(session: ARSession(), recording: missing)
    let rgbd = ARWorldTrackingConfiguration()
    rgbd.tracking.mode = .rgbd
    replay.session.run(rgbd)
    #expect {
      try replay.step()
    } throws: {
      "\($0)".hasPrefix(missing + ": frame 0 has no image (no rgb.mp4")
        && "\($0)".hasSuffix("depth-only tracking (--mode depth) reads none")
    }
  }

  /// stray-demo2 (a real iPhone session, ../shared): the accelerometer's gravity agrees with ARKit's.
  @Test(.enabled(if: Datasets.sharedExists("stray-demo2"), "../shared/datasets/stray-demo2 is absent"))
  func realAccelerometerAgreesWithARKitsGravity() throws {
    var options = FrameSourceOptions()
    options.loadDepth = false
    var source = try Recording.open(folder: Datasets.shared + "/stray-demo2", options: options)
    #expect(source.info.frameCount == 942)
    #expect(source.info.notes.contains("accelerometer in m/s^2 (from the magnitude of its readings)"))
    let angles = try Self.gravityAngles(&source)
    let median = angles.sorted()[angles.count / 2]
    #expect(median < 0.5, "median angle \(median) degrees")
    print(
      "stray-demo2: accelerometer gravity vs ARKit's world down, median \(median) degrees over \(angles.count) frames"
    )
  }

  /// Per frame after the first second: the angle (degrees) between ARKit's world down and the mean
  /// of the accelerometer's specific force so far, rotated into the world by ARKit's orientations.
  static func gravityAngles(_ source: inout any FrameSource) throws -> [Double] {
    var sum = SIMD3<Double>.zero
    var start: Double?
    var angles: [Double] = []
    while let frame = try source.nextFrame() {
      start = start ?? frame.timestamp
      guard let pose = frame.groundTruth else { continue }
      for sample in frame.imu { sum += pose.rotate(sample.acceleration!) }
      guard frame.timestamp - start! >= 1, simd_length(sum) > 0 else { continue }
      let up = simd_normalize(sum)
      angles.append(acos(min(1, simd_dot(up, SIMD3(0, 1, 0)))) * 180 / .pi)
    }
    return angles
  }
}
