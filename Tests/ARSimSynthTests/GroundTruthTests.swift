import ARSim
import ARSimMath
import ARSimSynth
import Foundation
import Testing

@Suite struct GroundTruthTests {
  @Test func tapsReprojectOntoTheirPixelsThroughTheGroundTruthPose() throws {
    let folder = try SynthFixtures.temporaryFolder("taps")
    let renderer = try SceneRenderer(scene: SynthFixtures.scene())
    let summary = try SessionGenerator.generate(renderer, to: folder)
    #expect(summary.taps >= 4)

    // Poses as a reader sees them (groundtruth.txt), taps as written (taps.txt).
    var source = try Recording.open(folder: folder)
    var poses: [Int: RigidTransform] = [:]
    while let frame = try source.nextFrame() { poses[frame.index] = frame.groundTruth }
    let lines = try String(contentsOfFile: folder + "/taps.txt", encoding: .utf8).split(separator: "\n")
    #expect(lines.first?.hasPrefix("#") == true)
    let taps = lines.filter { !$0.hasPrefix("#") }.compactMap(GroundTruthTap.init(line:))
    #expect(taps.count == summary.taps)
    let planes = try GroundTruthPlanesFile.load(path: folder + "/planes.json").planes
    for tap in taps {
      let pose = try #require(poses[tap.frame])
      #expect(abs(tap.timestamp - renderer.scene.time(ofFrame: tap.frame)) < 1e-6)
      let pixel = SynthFixtures.project(tap.world, pose: pose, camera: SynthFixtures.camera)
      #expect(abs(pixel.x - tap.u) < 0.01 && abs(pixel.y - tap.v) < 0.01, "tap \(tap) reprojects to \(pixel)")
      let plane = try #require(planes.first { $0.id == tap.planeId })
      #expect(abs(simd_dot(plane.normal, tap.world) + plane.offset) < 1e-6)
    }
  }

  @Test func depthEqualsTheAnalyticRayPlaneIntersection() throws {
    let scene = SynthFixtures.scene()
    let renderer = try SceneRenderer(scene: scene)
    let frame = renderer.render(frame: 3)
    let depth = try #require(frame.depth)
    let pose = renderer.pose(at: scene.time(ofFrame: 3))
    #expect(frame.pose == pose)
    // The planes straight from the scene description.
    let planes = [
      Plane(point: .zero, normal: SIMD3(0, 1, 0)), Plane(point: SIMD3(0, 0.75, 0), normal: SIMD3(0, 1, 0)),
      Plane(point: SIMD3(0, 0, -2), normal: SIMD3(0, 0, 1)),
    ]
    var checked = Set<Int>()
    let k = scene.camera
    for y in stride(from: 0, to: k.height, by: 3) {
      for x in stride(from: 0, to: k.width, by: 3) {
        let surface = Int(frame.surfaceIndex[y * k.width + x])
        let value = depth.metres[y * k.width + x]
        guard surface >= 0 else {
          #expect(value.isNaN)
          continue
        }
        let ray = SIMD3((Double(x) - k.cx) / k.fx, (Double(y) - k.cy) / k.fy, 1)
        // The optical z of the ray direction is 1, so the ray parameter is the z-depth.
        let z = try #require(
          planes[surface].intersection(rayOrigin: pose.translation, direction: pose.rotate(ray)))
        #expect(abs(Double(value) - z) < 1e-4, "pixel (\(x), \(y)) on surface \(surface)")
        checked.insert(surface)
      }
    }
    #expect(checked == [0, 1, 2])
  }

  @Test func depthSensorModelAppliesRangeNoiseAndHoles() throws {
    var scene = SynthFixtures.scene()
    scene.sensors.depth?.maxRange = 2.5
    scene.sensors.depth?.holes = 0.2
    scene.sensors.depth?.holePattern = .pixels
    scene.sensors.depth?.noise = 0.01
    let exact = try SceneRenderer(scene: SynthFixtures.scene()).render(frame: 5)
    let frame = try SceneRenderer(scene: scene).render(frame: 5)
    let depth = try #require(frame.depth?.metres)
    let truth = try #require(exact.depth?.metres)
    var holes = 0
    var inRange = 0
    var sumSquares = 0.0
    for (measured, actual) in zip(depth, truth) where actual.isFinite {
      if actual > 2.6 { #expect(measured.isNaN) }
      guard actual < 2.4 else { continue }
      inRange += 1
      guard measured.isFinite else {
        holes += 1
        continue
      }
      let r = Double(measured - actual) / (0.01 * Double(actual * actual))
      sumSquares += r * r
    }
    let fraction = Double(holes) / Double(inRange)
    #expect(fraction > 0.15 && fraction < 0.25, "hole fraction \(fraction)")
    let std = (sumSquares / Double(inRange - holes)).squareRoot()
    #expect(std > 0.85 && std < 1.15, "normalised depth noise \(std)")
  }

  @Test func planesMatchTheScene() throws {
    let folder = try SynthFixtures.temporaryFolder("planes")
    let renderer = try SceneRenderer(scene: SynthFixtures.scene())
    _ = try SessionGenerator.generate(renderer, to: folder)
    let file = try GroundTruthPlanesFile.load(path: folder + "/planes.json")
    #expect(file.gravity == SIMD3(0, -1, 0))
    #expect(file.planes.map(\.id) == [10, 20, 30])
    #expect(file.planes.map(\.label) == [.floor, .table, .wall])
    #expect(file.planes.map(\.alignment) == [.horizontal, .horizontal, .vertical])
    // Normals face the camera: up for the floor and for the table (described clockwise from above).
    let expected: [(SIMD3<Double>, Double, Double)] = [
      (SIMD3(0, 1, 0), 0, 36), (SIMD3(0, 1, 0), -0.75, 0.62), (SIMD3(0, 0, 1), 2, 15),
    ]
    for (plane, (normal, offset, area)) in zip(file.planes, expected) {
      #expect(simd_distance(plane.normal, normal) < 1e-9, "\(plane.id)")
      #expect(abs(plane.offset - offset) < 1e-9, "\(plane.id)")
      #expect(abs(plane.area - area) < 1e-9, "\(plane.id): \(plane.area)")
      for vertex in plane.polygon { #expect(abs(simd_dot(plane.normal, vertex) + plane.offset) < 1e-9) }
      #expect(plane.visibility.firstSeen == 0)
      #expect(plane.visibility.maxPixels > 0)
      #expect(abs(plane.visibility.secondsSeen - 1.1) < 1e-9)
    }
    // The table's polygon runs counter-clockwise seen from above once its normal points up.
    let table = file.planes[1].polygon.map { SIMD2($0.x, -$0.z) }
    #expect(Polygon2D.signedArea(table) > 0)
    #expect(file.planes[1].polygon.count == 5)
  }

  @Test func keyframesAreInterpolatedExactlyWithoutShake() throws {
    var scene = SynthFixtures.scene()
    scene.trajectory.shake = nil
    let trajectory = CameraTrajectory(scene.trajectory, seed: scene.seed)
    for keyframe in scene.trajectory.keyframes {
      let pose = trajectory.pose(at: keyframe.time)
      #expect(simd_distance(pose.translation, keyframe.position) < 1e-12)
      let forward = pose.rotate(SIMD3(0, 0, 1))
      let toTarget = simd_normalize(try #require(keyframe.lookAt) - keyframe.position)
      #expect(simd_distance(forward, toTarget) < 1e-9)
      // Upright: the image's x axis is horizontal.
      #expect(abs(pose.rotate(SIMD3(1, 0, 0)).y) < 1e-9)
    }
  }
}
