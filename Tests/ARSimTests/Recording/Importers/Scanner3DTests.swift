import ARSim
import ARSimTestSupport
import Foundation
import Testing

/// A small 3D Scanner App "All Data" export written by hand: `count` frames, 32x24 colour on every
/// third frame, 16x12 depth, known poses and times, in `OUT/All_Data`.
enum Scanner3DFixture {
  static let camera = CameraIntrinsics(fx: 30, fy: 31, cx: 15.5, cy: 11.5, width: 32, height: 24)

  /// ARKit's camera to world of frame `i`: a turn about y and a step along x and -z.
  static func worldFromCamera(_ i: Int) -> RigidTransform {
    RigidTransform(
      rotation: simd_quatd(angle: 0.05 * Double(i), axis: SIMD3(0, 1, 0)),
      translation: SIMD3(0.1 * Double(i), 1.5, -0.2 * Double(i)))
  }

  /// Seconds since boot, whole microseconds (what the reader delivers).
  static func time(_ i: Int) -> Double { Double(104_137_250_001 + 200_000 * i) / 1e6 }

  static func frameJSON(_ i: Int, pose: [Double]? = nil, intrinsics: String? = nil, time: String? = nil)
    -> String
  {
    let m = worldFromCamera(i).matrix
    let rowMajor = pose ?? (0..<4).flatMap { r in (0..<4).map { c in m[c][r] } }
    let k = camera
    return """
      {
        "cameraPoseARFrame" : [\(rowMajor.map { "\($0)" }.joined(separator: ", "))],
        "intrinsics" : \(intrinsics ?? "[\(k.fx), 0, \(k.cx), 0, \(k.fy), \(k.cy), 0, 0, 1]"),
        "time" : \(time ?? "\(Self.time(i))"),
        "frame_index" : \(i),
        "motionQuality" : 1
      }
      """
  }

  static func write(count: Int = 5) throws -> String {
    let out = RecordingFixtures.temporaryFolder("scanner3d")
    let folder = out + "/All_Data"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    for i in 0..<count {
      let stem = String(format: "%05d", i)
      if i % 3 == 0 {
        try ImageCodec.write(
          RecordingFixtures.image(frame: i), to: "\(folder)/frame_\(stem).jpg", quality: 95)
      }
      let depth = RecordingFixtures.depth(frame: i, width: 16, height: 12)
      try ImageCodec.writeDepth16(
        width: 16, height: 12, values: depth.units(metresPerUnit: 0.001), to: "\(folder)/depth_\(stem).png")
      try ImageCodec.write(
        GrayImage(width: 16, height: 12, pixels: (0..<192).map { UInt8(($0 + i) % 3) }),
        to: "\(folder)/conf_\(stem).png")
      try frameJSON(i).write(toFile: "\(folder)/frame_\(stem).json", atomically: false, encoding: .utf8)
    }
    try #"{"title" : "fixture", "numImages" : \#(count), "appVersionString" : "1.9.7"}"#.write(
      toFile: folder + "/info.json", atomically: false, encoding: .utf8)
    return out
  }

  /// Every frame of `folder`, or the one-line error the reader gave.
  static func readAll(_ folder: String) -> String {
    do {
      var source = try Recording.open(folder: folder)
      while try source.nextFrame() != nil {}
      return "ok"
    } catch {
      return "\(error)"
    }
  }
}

@Suite struct Scanner3DTests {
  @Test func readsTheExportWithItsConventions() throws {
    let out = try Scanner3DFixture.write()
    let folder = out + "/All_Data"
    // The export itself and the folder holding it.
    #expect(try Recording.detectFormat(folder: folder) == .scanner3d)
    #expect(try Recording.detectFormat(folder: out) == .scanner3d)
    var source = try Recording.open(folder: out)
    let info = source.info
    #expect(info.path == folder && info.format == .scanner3d && info.referenceKind == .arkit)
    #expect(info.frameCount == 5 && info.hasDepth && !info.hasImages && !info.hasAccelerometer)
    #expect(info.intrinsics == Scanner3DFixture.camera)
    #expect(info.depthIntrinsics == Scanner3DFixture.camera.scaled(toWidth: 16, height: 12))
    #expect(info.groundTruthGravity == SIMD3(0, -1, 0))
    #expect(info.notes.contains("colour on 2 of 5 frames: every frame carries depth, those also their image"))
    for i in 0..<5 {
      let frame = try #require(try source.nextFrame())
      #expect(frame.index == i && frame.timestamp == Scanner3DFixture.time(i))
      #expect((frame.image != nil) == (i % 3 == 0))
      #expect(frame.image?.width == 32 && frame.image?.height == 24 || frame.image == nil)
      // The optical frame's pose: ARKit's camera turned half a turn about x.
      let truth = try #require(frame.groundTruth)
      let expected = Scanner3DFixture.worldFromCamera(i)
      #expect(simd_length(truth.translation - expected.translation) < 1e-12)
      let opticalAxes = truth.rotate(SIMD3(0, 1, 0))  // optical y (down) is camera -y
      #expect(simd_length(opticalAxes + expected.rotate(SIMD3(0, 1, 0))) < 1e-12)
      #expect(simd_length(truth.rotate(SIMD3(0, 0, 1)) + expected.rotate(SIMD3(0, 0, 1))) < 1e-12)
      let depth = RecordingFixtures.depth(frame: i, width: 16, height: 12)
      let read = try #require(frame.depth)
      #expect(read.width == 16 && read.height == 12)
      #expect(zip(read.metres, depth.metres).allSatisfy { abs($0 - $1) <= 0.0005 || ($0.isNaN && $1.isNaN) })
      #expect(frame.confidence?.levels == (0..<192).map { UInt8(($0 + i) % 3) })
    }
    #expect(try source.nextFrame() == nil)
    // The default configuration follows the recording's mode (depth-only: not every frame has an
    // image) and replays every frame.
    let (_, collector) = try FrameCollector.replay(out)
    #expect(collector.records.count == 5 && collector.errors.isEmpty)
  }

  /// `--intrinsics` replaces the recording's K (the depth's follows, scaled); each frame's K is still
  /// checked against the recorded first frame's.
  @Test func intrinsicsOverrideReplacesTheRecordedK() throws {
    let out = try Scanner3DFixture.write()
    var options = FrameSourceOptions()
    options.intrinsicsOverride = CameraIntrinsics(fx: 45, fy: 46, cx: 15, cy: 12, width: 0, height: 0)
    var source = try Recording.open(folder: out, options: options)
    let expected = CameraIntrinsics(fx: 45, fy: 46, cx: 15, cy: 12, width: 32, height: 24)
    #expect(source.info.intrinsics == expected && source.info.intrinsicsSource == "--intrinsics")
    #expect(source.info.depthIntrinsics == expected.scaled(toWidth: 16, height: 12))
    var count = 0
    while try source.nextFrame() != nil { count += 1 }
    #expect(count == 5)
  }

  /// Each damage gives one line naming the file and the problem.
  @Test func badInputIsOneLineNamingTheFile() throws {
    func damaged(_ damage: (String) throws -> Void) throws -> (String, String) {
      let out = try Scanner3DFixture.write()
      let folder = out + "/All_Data"
      try damage(folder)
      return (folder, Scanner3DFixture.readAll(out))
    }
    func write(_ text: String, _ path: String) throws {
      try text.write(toFile: path, atomically: false, encoding: .utf8)
    }
    let fm = FileManager.default
    var (folder, error) = try damaged { try fm.removeItem(atPath: $0 + "/frame_00002.json") }
    #expect(
      error
        == "\(folder)/frame_00002.json: is missing (frames are numbered without gaps, and frame_00003.json follows)"
    )
    (folder, error) = try damaged { try fm.removeItem(atPath: $0 + "/depth_00003.png") }
    #expect(error == "\(folder)/depth_00003.png: is missing (frame_00003.json has no depth map)")
    (folder, error) = try damaged { try fm.removeItem(atPath: $0 + "/depth_00000.png") }
    #expect(error == "\(folder)/depth_00000.png: is missing (frame_00000.json has no depth map)")
    (folder, error) = try damaged {
      try fm.copyItem(atPath: $0 + "/frame_00001.json", toPath: $0 + "/frame_0001.json")
    }
    #expect(error.hasPrefix("\(folder)/frame_") && error.contains(": frame 1 is numbered twice (frame_"))
    (folder, error) = try damaged {
      var pose = [Double](repeating: 0, count: 16)
      pose[0] = 2  // scaled, not a rotation
      (pose[5], pose[10], pose[15]) = (1, 1, 1)
      try write(Scanner3DFixture.frameJSON(1, pose: pose), $0 + "/frame_00001.json")
    }
    #expect(
      error
        == "\(folder)/frame_00001.json: 'cameraPoseARFrame' is not a rigid transform (its 3x3 block is not a rotation)"
    )
    (folder, error) = try damaged {
      let m = Scanner3DFixture.worldFromCamera(1).matrix
      var pose = (0..<4).flatMap { r in (0..<4).map { c in m[c][r] } }
      pose[3] = 20_000
      try write(Scanner3DFixture.frameJSON(1, pose: pose), $0 + "/frame_00001.json")
    }
    #expect(error.hasPrefix("\(folder)/frame_00001.json: 'cameraPoseARFrame' puts the camera 20000."))
    // JSON has no NaN: a NaN is a syntax error on its line; 1e999 is beyond a Double.
    (folder, error) = try damaged {
      try write(
        Scanner3DFixture.frameJSON(1, intrinsics: "[NaN, 0, 15.5, 0, 31, 11.5, 0, 0, 1]"),
        $0 + "/frame_00001.json")
    }
    #expect(error == "\(folder)/frame_00001.json:3: not valid JSON: unexpected character")
    (folder, error) = try damaged {
      try write(
        Scanner3DFixture.frameJSON(4, intrinsics: "[1e999, 0, 15.5, 0, 31, 11.5, 0, 0, 1]"),
        $0 + "/frame_00004.json")
    }
    #expect(error.hasPrefix("\(folder)/frame_00004.json: holds a value Foundation cannot decode"))
    (folder, error) = try damaged {
      try write(
        Scanner3DFixture.frameJSON(2, intrinsics: "[-30, 0, 15.5, 0, 31, 11.5, 0, 0, 1]"),
        $0 + "/frame_00002.json")
    }
    #expect(
      error.hasPrefix("\(folder)/frame_00002.json 'intrinsics': intrinsics must be four finite numbers"))
    (folder, error) = try damaged {
      try write(
        Scanner3DFixture.frameJSON(2, intrinsics: "[45, 0, 15.5, 0, 46, 11.5, 0, 0, 1]"),
        $0 + "/frame_00002.json")
    }
    #expect(
      error.hasPrefix(
        "\(folder)/frame_00002.json: 'intrinsics' (45.0,46.0,15.5,11.5) are far from the first frame's"))
    (folder, error) = try damaged {
      try write(Scanner3DFixture.frameJSON(3, time: "\(Scanner3DFixture.time(2))"), $0 + "/frame_00003.json")
    }
    #expect(
      error
        == "\(folder)/frame_00003.json: 'time' \(Scanner3DFixture.time(2)) is not after the previous frame's \(Scanner3DFixture.time(2))"
    )
    (folder, error) = try damaged {
      try write(
        Scanner3DFixture.frameJSON(1).replacingOccurrences(of: "\"time\"", with: "\"t\""),
        $0 + "/frame_00001.json")
    }
    #expect(error == "\(folder)/frame_00001.json: 'time' must be a number of seconds")
    (folder, error) = try damaged {
      try write(
        Scanner3DFixture.frameJSON(1).replacingOccurrences(
          of: "\"frame_index\" : 1", with: "\"frame_index\" : 7"), $0 + "/frame_00001.json")
    }
    #expect(error == "\(folder)/frame_00001.json: 'frame_index' is 7, not the file's number 1")
    (folder, error) = try damaged { try write(#"{"numImages" : 436}"#, $0 + "/info.json") }
    #expect(error == "\(folder)/info.json: 'numImages' is 436 but the folder holds 5 frame_NNNNN.json files")
    (folder, error) = try damaged {
      try Data([0x89, 0x50, 0x4E, 0x47, 0]).write(to: URL(fileURLWithPath: $0 + "/depth_00001.png"))
    }
    #expect(error.hasPrefix("\(folder)/depth_00001.png: "))
    (folder, error) = try damaged {
      try ImageCodec.write(
        RecordingFixtures.image(frame: 0, width: 16, height: 12), to: $0 + "/frame_00003.jpg")
    }
    #expect(error == "\(folder)/frame_00003.jpg: image is 16x12 but the intrinsics are for 32x24")
    for (_, error) in [(folder, error)] { #expect(!error.contains("\n")) }
  }

  /// The real export (app 1.9.7, iPhone with LiDAR, 120 frames of a corridor walk): frames, colour
  /// on every third, and ARKit's y-up world: the floor seen in each frame's depth, put in the world
  /// with the frame's pose, is horizontal (its normal along the reference's gravity).
  @Test(.enabled(if: Datasets.sharedExists("scanner3d-corridor")))
  func readsTheRealCorridorExport() throws {
    let parent = Datasets.shared + "/scanner3d-corridor"
    #expect(try Recording.detectFormat(folder: parent) == .scanner3d)
    var source = try Recording.open(folder: parent)
    let info = source.info
    #expect(info.frameCount == 120 && !info.hasImages && info.referenceKind == .arkit)
    #expect(info.intrinsics.width == 1920 && info.intrinsics.height == 1440)
    #expect(info.depthIntrinsics?.width == 256 && info.depthIntrinsics?.height == 192)
    #expect(
      info.notes.contains("colour on 40 of 120 frames: every frame carries depth, those also their image"))
    let gravity = try #require(info.groundTruthGravity)
    var count = 0
    var colour = 0
    var path = 0.0
    var last: RigidTransform?
    var worstTilt = 0.0
    while let frame = try source.nextFrame() {
      if frame.image != nil { colour += 1 }
      #expect((frame.image != nil) == (count % 3 == 0))
      let pose = try #require(frame.groundTruth)
      if let last { path += simd_length(pose.translation - last.translation) }
      last = pose
      if count % 20 == 0 {
        let normal = try #require(Self.floorNormal(frame, pose: pose, info: info))
        worstTilt = max(worstTilt, acos(min(1, simd_dot(normal, -gravity))) * 180 / .pi)
      }
      count += 1
    }
    #expect(count == 120 && colour == 40)
    #expect(abs(path - 16.8) < 0.2)
    // The reference's gravity and the floor the depth sees agree well within a degree.
    #expect(worstTilt < 1)
  }

  /// The real export's K is for the 1920x1440 colour, and scaled to 256x192 it registers the depth:
  /// depth edges (the strongest 5% of log-depth gradients) lie on image edges, and on the strongest
  /// when not moved, of all offsets up to 3 depth pixels.
  @Test(.enabled(if: Datasets.sharedExists("scanner3d-corridor")))
  func depthRegistersToTheColourImage() throws {
    var source = try Recording.open(folder: Datasets.shared + "/scanner3d-corridor")
    let reach = 3
    var scores = [Double](repeating: 0, count: (2 * reach + 1) * (2 * reach + 1))
    while let frame = try source.nextFrame() {
      guard frame.index % 9 == 0, let image = frame.image?.gray, let depth = frame.depth else { continue }
      let (w, h) = (depth.width, depth.height)
      let scale = Double(image.width) / Double(w)
      // The image at the depth's resolution: the mean of the 7x7 block around each depth pixel's centre.
      var small = [Double](repeating: 0, count: w * h)
      for y in 0..<h {
        for x in 0..<w {
          let (cx, cy) = (Int((Double(x) + 0.5) * scale), Int((Double(y) + 0.5) * scale))
          var sum = 0
          for v in max(0, cy - 3)...min(image.height - 1, cy + 3) {
            for u in max(0, cx - 3)...min(image.width - 1, cx + 3) {
              sum += Int(image.pixels[v * image.width + u])
            }
          }
          small[y * w + x] = Double(sum)
        }
      }
      func gradient(_ values: [Double], _ x: Int, _ y: Int) -> Double {
        let gx = values[y * w + x + 1] - values[y * w + x - 1]
        let gy = values[(y + 1) * w + x] - values[(y - 1) * w + x]
        return (gx * gx + gy * gy).squareRoot()
      }
      let logDepth = depth.metres.map { $0.isFinite ? log(Double(max($0, 0.1))) : 0 }
      var edges: [(x: Int, y: Int, strength: Double)] = []
      for y in (reach + 1)..<(h - reach - 1) {
        for x in (reach + 1)..<(w - reach - 1) { edges.append((x, y, gradient(logDepth, x, y))) }
      }
      edges.sort { $0.strength > $1.strength }
      for (x, y, _) in edges.prefix(edges.count / 20) {
        for dy in -reach...reach {
          for dx in -reach...reach {
            scores[(dy + reach) * (2 * reach + 1) + dx + reach] += gradient(small, x + dx, y + dy)
          }
        }
      }
    }
    let best = try #require(scores.indices.max { scores[$0] < scores[$1] })
    #expect(best == reach * (2 * reach + 1) + reach, "best offset \(best % 7 - reach), \(best / 7 - reach)")
  }

  /// The normal (pointing up, unit) of the plane fitted to the lowest fifth of the frame's
  /// high-confidence depth points in the world, or nil without enough points.
  static func floorNormal(_ frame: RecordedFrame, pose: RigidTransform, info: RecordingInfo) -> SIMD3<Double>?
  {
    guard let depth = frame.depth, let k = info.depthIntrinsics, let confidence = frame.confidence else {
      return nil
    }
    var points: [SIMD3<Double>] = []
    for y in 0..<depth.height {
      for x in 0..<depth.width where confidence.levels[y * depth.width + x] == 2 {
        let z = Double(depth.metres[y * depth.width + x])
        guard z.isFinite else { continue }
        let optical = SIMD3((Double(x) - k.cx) / k.fx * z, (Double(y) - k.cy) / k.fy * z, z)
        points.append(pose.apply(to: optical))
      }
    }
    guard points.count > 1000 else { return nil }
    let cut = points.map(\.y).sorted()[points.count / 5]
    let floor = points.filter { $0.y <= cut }
    let mean = floor.reduce(SIMD3<Double>.zero, +) / Double(floor.count)
    var columns = (SIMD3<Double>.zero, SIMD3<Double>.zero, SIMD3<Double>.zero)
    for p in floor {
      let d = p - mean
      columns.0 += d * d.x
      columns.1 += d * d.y
      columns.2 += d * d.z
    }
    columns.0.x += 1e-9
    columns.1.y += 1e-9
    columns.2.z += 1e-9
    // The normal is the covariance's smallest eigenvector: inverse iteration from "up".
    let inverse = simd_double3x3(columns: columns).inverse
    var normal = SIMD3<Double>(0, 1, 0)
    for _ in 0..<50 { normal = simd_normalize(inverse * normal) }
    return normal.y < 0 ? -normal : normal
  }
}
