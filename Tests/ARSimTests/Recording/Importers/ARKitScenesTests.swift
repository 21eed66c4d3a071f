import ARSimTestSupport
import Foundation
import Testing

@testable import ARSim

/// A small ARKitScenes video folder with known content: RecordingFixtures' frames (32x24, 10 Hz),
/// their poses moved into ARKitScenes' z-up world, written world-to-camera as axis-angle.
enum ARKitScenesLayout {
  static let video = "41000001"
  /// ARKitScenes' z-up world (x right, y forward, z up) from ARKit's y-up one (y up, z backwards):
  /// a quarter turn about x.
  static let zUpFromYUp = RigidTransform(
    rotation: simd_quatd(angle: .pi / 2, axis: SIMD3(1, 0, 0)), translation: .zero)

  static func stem(_ i: Int) -> String { video + "_" + String(format: "%.3f", time(i)) }
  static func time(_ i: Int) -> Double { 100 + Double(i) * 0.1 }
  /// Frame `i`'s camera (optical) in the z-up world.
  static func pose(_ i: Int) -> RigidTransform { zUpFromYUp * RecordingFixtures.pose(frame: i) }

  /// One `.traj` row for frame `i`: its timestamp (to 8 decimals, 1 ms after the name's, as the
  /// dataset's are), the axis-angle and the translation of camera-from-world.
  static func trajectoryRow(_ i: Int) -> String {
    let cameraFromWorld = pose(i).inverse
    let q = cameraFromWorld.rotation
    let sign: Double = q.real < 0 ? -1 : 1
    let v = q.imag * sign
    let norm = simd_length(v)
    let axisAngle = norm < 1e-15 ? SIMD3<Double>.zero : v / norm * (2 * atan2(norm, q.real * sign))
    let t = cameraFromWorld.translation
    return String(format: "%.8f", time(i) - 0.001) + " "
      + [axisAngle.x, axisAngle.y, axisAngle.z, t.x, t.y, t.z].map { "\($0)" }.joined(separator: " ")
  }

  static func write(frames: Int = 5) throws -> String {
    let folder = RecordingFixtures.temporaryFolder("arkitscenes")
    for name in ["lowres_wide", "lowres_depth", "lowres_wide_intrinsics"] {
      try FileManager.default.createDirectory(atPath: folder + "/" + name, withIntermediateDirectories: true)
    }
    let k = RecordingFixtures.intrinsics
    var trajectory = ""
    for i in 0..<frames {
      try ImageCodec.write(RecordingFixtures.image(frame: i), to: folder + "/lowres_wide/\(stem(i)).png")
      let depth = RecordingFixtures.depth(frame: i).metres.map {
        $0.isFinite ? UInt16(($0 * 1000).rounded()) : 0
      }
      try ImageCodec.writeDepth16(
        width: k.width, height: k.height, values: depth, to: folder + "/lowres_depth/\(stem(i)).png")
      try "\(k.width) \(k.height) \(k.fx) \(k.fy) \(k.cx) \(k.cy)\n".write(
        toFile: folder + "/lowres_wide_intrinsics/\(stem(i)).pincam", atomically: true, encoding: .utf8)
      trajectory += trajectoryRow(i) + "\n"
    }
    try trajectory.write(toFile: folder + "/lowres_wide.traj", atomically: true, encoding: .utf8)
    return folder
  }

  static func edit(_ file: String, _ change: (String) -> String) throws {
    let text = try String(contentsOfFile: file, encoding: .utf8)
    try change(text).write(toFile: file, atomically: true, encoding: .utf8)
  }

  /// Replaces line `line` (1-based) of `file`.
  static func replaceLine(_ file: String, _ line: Int, _ change: (String) -> String) throws {
    try edit(file) { text in
      var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
      lines[line - 1] = change(lines[line - 1])
      return lines.joined(separator: "\n")
    }
  }
}

@Suite struct ARKitScenesTests {
  func failure(_ folder: String) -> String? { RecordingFixtures.readFailure(folder) }

  @Test func readsTheReferenceInItsZUpWorld() throws {
    let folder = try ARKitScenesLayout.write()
    #expect(try Recording.detectFormat(folder: folder) == .arkitscenes)
    let source = try Recording.open(folder: folder)
    #expect(source.info.groundTruthGravity == SIMD3(0, 0, -1))
    #expect(source.info.referenceKind == .arkit && source.info.hasDepth && !source.info.hasAccelerometer)
    #expect(source.info.intrinsics == RecordingFixtures.intrinsics)
    #expect(abs(try #require(source.info.frameRate) - 10) < 1e-6)
    #expect(source.info.notes.isEmpty)
    let frames = try RecordingFixtures.readAll(folder)
    #expect(frames.count == 5)
    for (i, frame) in frames.enumerated() {
      #expect(frame.timestamp == ARKitScenesLayout.time(i))
      let pose = try #require(frame.groundTruth)
      let expected = ARKitScenesLayout.pose(i)
      #expect(simd_length(pose.translation - expected.translation) < 1e-9)
      #expect((pose.inverse * expected).rotation.angle < 1e-9)
      // Up in the camera from the stated gravity is ARKit's up (y-up world) in the same camera.
      let up = pose.inverse.rotate(-source.info.groundTruthGravity!)
      let arkitUp = RecordingFixtures.pose(frame: i).inverse.rotate(SIMD3(0, 1, 0))
      #expect(simd_length(up - arkitUp) < 1e-9)
    }
  }

  @Test(arguments: ["0", "nan", "-40", "1e308", "1e-3"])
  func everyFramesFocalLengthIsChecked(_ fx: String) throws {
    let folder = try ARKitScenesLayout.write()
    let pincam = folder + "/lowres_wide_intrinsics/\(ARKitScenesLayout.stem(3)).pincam"
    try "32 24 \(fx) 40 15.5 11.5\n".write(toFile: pincam, atomically: true, encoding: .utf8)
    let error = try #require(failure(folder))
    #expect(error.hasPrefix(pincam + ":"), "\(error)")
  }

  @Test func aPincamThatIsAFIFOIsRefused() throws {
    let folder = try ARKitScenesLayout.write()
    let pincam = folder + "/lowres_wide_intrinsics/\(ARKitScenesLayout.stem(2)).pincam"
    try FileManager.default.removeItem(atPath: pincam)
    #expect(mkfifo(pincam, 0o644) == 0)
    #expect(failure(folder) == "\(pincam): is a FIFO (named pipe), expected a regular file")
  }

  @Test func intrinsicsMayDifferFromTheFirstFramesOnlyByHalfAPixel() throws {
    let folder = try ARKitScenesLayout.write()
    let pincam = folder + "/lowres_wide_intrinsics/\(ARKitScenesLayout.stem(2)).pincam"
    // 0.1% longer focal length: 0.017 px at the image's edge.
    try "32 24 40.04 40.04 15.5 11.5\n".write(toFile: pincam, atomically: true, encoding: .utf8)
    #expect(failure(folder) == nil)
    try "32 24 44 40 15.5 11.5\n".write(toFile: pincam, atomically: true, encoding: .utf8)
    #expect(
      failure(folder)
        == "\(pincam): intrinsics 44.0,40.0,15.5,11.5 differ from the first frame's 40.0,40.0,15.5,11.5 by "
        + "1.65 px (at most 0.5 accepted: ARSim has one camera per recording)")
    try "32 24 40 40 16.5 11.5\n".write(toFile: pincam, atomically: true, encoding: .utf8)
    #expect(failure(folder)?.contains("by 1.00 px") == true)
    try "64 48 80 80 31.5 23.5\n".write(toFile: pincam, atomically: true, encoding: .utf8)
    #expect(failure(folder) == "\(pincam): image size 64x48 differs from the first frame's 32x24")
  }

  @Test func aDecimalCommaInTheTrajectoryIsNamed() throws {
    let folder = try ARKitScenesLayout.write()
    let traj = folder + "/lowres_wide.traj"
    try ARKitScenesLayout.replaceLine(traj, 3) { $0.replacingOccurrences(of: ".", with: ",") }
    let error = try #require(failure(folder))
    #expect(error.hasPrefix(traj + ":3: timestamp '100,19900000' is not a finite number"), "\(error)")
  }

  /// A row far in the future must not hold back every later row unread (0 poses, no error): it is
  /// reported.
  @Test func rowsPastTheLastFrameDoNotStopReading() throws {
    let folder = try ARKitScenesLayout.write()
    let traj = folder + "/lowres_wide.traj"
    try ARKitScenesLayout.replaceLine(traj, 1) { "1000000.0" + $0.drop(while: { $0 != " " }) }
    #expect(failure(folder) == "\(traj):2: timestamp 100.099 is not after the previous pose's 1000000.0")

    // Rows after the last frame are read and checked, and match nothing.
    let extra = try ARKitScenesLayout.write()
    try ARKitScenesLayout.edit(extra + "/lowres_wide.traj") { $0 + "500.0 0 0 0 0 0 0\n" }
    let frames = try RecordingFixtures.readAll(extra)
    #expect(frames.count == 5 && frames.allSatisfy { $0.groundTruth != nil })
    try ARKitScenesLayout.edit(extra + "/lowres_wide.traj") { $0 + "400.0 0 0 0 0 0 0\n" }
    #expect(
      failure(extra) == "\(extra)/lowres_wide.traj:7: timestamp 400.0 is not after the previous pose's 500.0")
  }

  @Test func aTrajectoryThatMatchesNoFrameIsOneLine() throws {
    let folder = try ARKitScenesLayout.write()
    let traj = folder + "/lowres_wide.traj"
    try "200.0 0 0 0 0 0 0\n201.0 0 0 0 0 0 0\n".write(toFile: traj, atomically: true, encoding: .utf8)
    #expect(
      failure(folder)
        == "\(traj): none of its 2 poses (200.000...201.000 s) is within 5 ms of a frame (100.000...100.400 s)"
    )
    try "# nothing\n".write(toFile: traj, atomically: true, encoding: .utf8)
    #expect(failure(folder) == "\(traj): holds no poses")
  }

  @Test func aFrameWithoutAPoseIsNoted() throws {
    let folder = try ARKitScenesLayout.write()
    try ARKitScenesLayout.edit(folder + "/lowres_wide.traj") {
      $0.split(separator: "\n").enumerated().filter { $0.offset != 2 }.map { $0.element + "\n" }.joined()
    }
    let source = try Recording.open(folder: folder)
    #expect(
      source.info.notes == [
        "1 of 5 frames have no pose in lowres_wide.traj within 5 ms: no reference for them"
      ])
    let frames = try RecordingFixtures.readAll(folder)
    #expect(frames.map { $0.groundTruth != nil } == [true, true, false, true, true])
  }

  @Test func aMissingImageIsAGapInTheNotes() throws {
    let folder = try ARKitScenesLayout.write()
    try FileManager.default.removeItem(atPath: folder + "/lowres_wide/\(ARKitScenesLayout.stem(2)).png")
    let source = try Recording.open(folder: folder)
    #expect(source.info.frameCount == 4)
    #expect(
      source.info.notes == ["1 of 5 frames missing from the export: skipped (100.200 s (no lowres_wide))"])
    let frames = try RecordingFixtures.readAll(folder)
    #expect(frames.map(\.timestamp) == [0, 1, 3, 4].map(ARKitScenesLayout.time))

    try FileManager.default.removeItem(atPath: folder + "/lowres_depth/\(ARKitScenesLayout.stem(4)).png")
    try FileManager.default.removeItem(
      atPath: folder + "/lowres_wide_intrinsics/\(ARKitScenesLayout.stem(4)).pincam")
    #expect(
      try Recording.open(folder: folder).info.notes == [
        "2 of 5 frames missing from the export: skipped (100.200 s (no lowres_wide); "
          + "100.400 s (no lowres_depth, pincam))"
      ])
  }

  @Test(arguments: [
    ("100.099 0 0 0 1e5 0 0", "camera position 100000.0 m from the origin is beyond 10000.0 m"),
    ("100.099 0 0 1e3 0 0 0", "rotation angle 1000.0 rad is more than a turn (axis-angle expected)"),
    ("-1.0 0 0 0 0 0 0", "timestamp -1.0 is not in 0...100000000000.0 seconds"),
    ("100.099 0 0 0 0 0", "expected 7 fields 'timestamp ax ay az tx ty tz', got 6"),
    ("100.099 0 0 0 0x10 0 0", "tx '0x10' is not a finite number"),
  ])
  func implausiblePosesAreNamed(_ row: String, _ problem: String) throws {
    let folder = try ARKitScenesLayout.write()
    let traj = folder + "/lowres_wide.traj"
    try ARKitScenesLayout.replaceLine(traj, 2) { _ in row }
    #expect(failure(folder) == "\(traj):2: \(problem)")
  }

  // The real room (../shared/datasets/arkitscenes-40777063): the conventions checked against its depth.

  static let realName = "arkitscenes-40777063"
  static var real: String { Datasets.shared + "/" + realName + "/40777063_frames" }

  /// Each frame's depth and reference pose, every `every`th frame.
  static func realFrames(every: Int) throws -> [(depth: DepthImage, pose: RigidTransform)] {
    var source = try Recording.open(folder: real)
    var frames: [(DepthImage, RigidTransform)] = []
    while let frame = try source.nextFrame() {
      guard frame.index % every == 0, let depth = frame.depth, let pose = frame.groundTruth else { continue }
      frames.append((depth, pose))
    }
    return frames
  }

  /// The depth's points (every `step`th pixel), in the frame's optical camera.
  static func points(_ depth: DepthImage, _ k: CameraIntrinsics, step: Int) -> [SIMD3<Double>] {
    var points: [SIMD3<Double>] = []
    for v in stride(from: 0, to: depth.height, by: step) {
      for u in stride(from: 0, to: depth.width, by: step) {
        let z = Double(depth.metres[v * depth.width + u])
        if z.isFinite, z > 0 { points.append(k.backProject(SIMD2(Double(u), Double(v)), depth: z)) }
      }
    }
    return points
  }

  /// The floor fused from the depth of every 10th frame with the reference poses: a least-squares
  /// plane through the lowest dense 5 cm slab of heights along the stated up (refitted to the points
  /// within 3 cm), whose normal must agree with that up within 1 degree, with the camera 1.65 m above
  /// it (a hand-held iPad; from the ceiling's side it would be 0.8 m).
  @Test(.enabled(if: Datasets.sharedExists(realName), "../shared/datasets/\(realName) is absent"))
  func theFloorOfTheRealRoomIsLevelInTheStatedGravity() throws {
    let info = try Recording.open(folder: Self.real).info
    let up = -(try #require(info.groundTruthGravity))
    var world: [SIMD3<Double>] = []
    var cameras: [SIMD3<Double>] = []
    for (depth, pose) in try Self.realFrames(every: 10) {
      world += Self.points(depth, info.intrinsics, step: 4).map { pose.apply(to: $0) }
      cameras.append(pose.translation)
    }
    let heights = world.map { simd_dot(up, $0) }
    let lowest = try #require(heights.min())
    var bins = [Int](repeating: 0, count: Int((heights.max()! - lowest) / 0.05) + 1)
    for h in heights { bins[Int((h - lowest) / 0.05)] += 1 }
    let floorBin = try #require(bins.firstIndex { Double($0) > 0.03 * Double(heights.count) })
    let slab = lowest + (Double(floorBin) + 0.5) * 0.05
    var floor = try #require(Plane(fitting: world.filter { abs(simd_dot(up, $0) - slab) < 0.1 }))
    for _ in 0..<3 {
      floor = try #require(Plane(fitting: world.filter { abs(floor.signedDistance(to: $0)) < 0.03 }))
    }
    if simd_dot(floor.normal, up) < 0 { floor = floor.flipped }
    let degrees = acos(min(1, simd_dot(floor.normal, up))) * 180 / .pi
    #expect(degrees < 1, "floor normal \(floor.normal), \(degrees) degrees from the stated up")
    let aboveFloor = cameras.map { floor.signedDistance(to: $0) }.sorted()
    let median = aboveFloor[aboveFloor.count / 2]
    #expect(median > 1.2 && median < 2.0, "camera \(median) m above the floor")
    print("\(Self.realName): floor normal \(degrees) degrees from up \(up); camera \(median) m above it")
  }

  /// The `.traj` direction and the camera axes, from the depth itself: the depth of a frame, moved
  /// by the poses into the frame 1 s later, lands on that frame's depth (median difference of a few
  /// centimetres) as the reader reads the poses (world to camera, inverted; optical axes), and not
  /// with the rows taken as camera to world, nor with ARKit's camera axes (y up, z backwards).
  @Test(.enabled(if: Datasets.sharedExists(realName), "../shared/datasets/\(realName) is absent"))
  func theTrajectoryDirectionAndCameraAxesRegisterTheDepth() throws {
    let info = try Recording.open(folder: Self.real).info
    let k = info.intrinsics
    let frames = try Self.realFrames(every: 10)
    let flip = RigidTransform(rotation: simd_quatd(angle: .pi, axis: SIMD3(1, 0, 0)), translation: .zero)
    let readings: [(String, (RigidTransform) -> RigidTransform)] = [
      ("as read", { $0 }), ("camera to world", { $0.inverse }), ("ARKit camera axes", { $0 * flip }),
    ]
    var medians: [String: Double] = [:]
    for (name, reading) in readings {
      var differences: [Double] = []
      for i in stride(from: 1, to: frames.count - 1, by: 4) {
        let (a, b) = (frames[i], frames[i + 1])
        let bFromA = reading(b.pose).inverse * reading(a.pose)
        for point in Self.points(a.depth, k, step: 4).map({ bFromA.apply(to: $0) }) where k.sees(point) {
          let pixel = k.project(point)
          let (u, v) = (Int(pixel.x.rounded()), Int(pixel.y.rounded()))
          guard u >= 0, v >= 0, u < k.width, v < k.height else { continue }
          let measured = Double(b.depth.metres[v * k.width + u])
          if measured.isFinite { differences.append(abs(measured - point.z)) }
        }
      }
      medians[name] = differences.sorted()[differences.count / 2]
    }
    #expect(medians["as read"]! < 0.06, "\(medians)")
    #expect(medians["camera to world"]! > 0.2, "\(medians)")
    #expect(medians["ARKit camera axes"]! > 0.2, "\(medians)")
    print("\(Self.realName): median depth difference 1 s apart \(medians)")
  }
}
