import ARSim
import ARSimMath
import ARSimSynth
import Foundation

/// Small scenes with known geometry, fast to render in a debug build.
enum SynthFixtures {
  /// 64x48 camera, fx = fy = 60.
  static let camera = CameraIntrinsics(fx: 60, fy: 60, cx: 31.5, cy: 23.5, width: 64, height: 48)

  /// A floor (y = 0), a table top (y = 0.75, a convex pentagon listed clockwise seen from above, so its
  /// described normal points down) and a wall (z = −2), seen by a camera moving for one second at
  /// 10 frames per second with handheld shake; depth and IMU without noise unless changed.
  static func scene(seed: UInt64 = 5) -> SyntheticScene {
    var scene = SyntheticScene(
      camera: camera, duration: 1,
      materials: [
        .init(name: "leaves", type: .deadLeaves),
        .init(name: "strokes", type: .strokes),
        .init(name: "paint", type: .paint),
      ],
      surfaces: [
        .init(
          id: 10, label: .floor, material: "leaves",
          rectangle: .init(center: .zero, normal: SIMD3(0, 1, 0), xAxis: SIMD3(1, 0, 0), width: 6, height: 6)),
        .init(
          id: 20, label: .table, material: "strokes",
          polygon: [
            SIMD3(-0.5, 0.75, -0.3), SIMD3(0.5, 0.75, -0.3), SIMD3(0.6, 0.75, 0.1), SIMD3(0, 0.75, 0.4),
            SIMD3(-0.6, 0.75, 0.1),
          ]),
        .init(
          id: 30, label: .wall, material: "paint",
          rectangle: .init(
            center: SIMD3(0, 1.25, -2), normal: SIMD3(0, 0, 1), xAxis: SIMD3(1, 0, 0), width: 6, height: 2.5)),
      ],
      trajectory: .init(
        keyframes: [
          .init(time: 0, position: SIMD3(0.2, 1.4, 1.6), lookAt: SIMD3(0, 0.7, 0)),
          .init(time: 0.4, position: SIMD3(0.5, 1.45, 1.4), lookAt: SIMD3(0, 0.75, -0.2)),
          .init(time: 0.7, position: SIMD3(0.7, 1.5, 1.2), lookAt: SIMD3(-0.1, 0.8, -0.3)),
          .init(time: 1, position: SIMD3(0.9, 1.45, 1.0), lookAt: SIMD3(0, 0.75, -0.5)),
        ],
        shake: SyntheticScene.Shake()))
    scene.seed = seed
    scene.frameRate = 10
    scene.render.texelsPerMetre = 32
    scene.render.tapInterval = 0.2
    var depth = SyntheticScene.DepthSensor()
    depth.noise = 0
    depth.holes = 0
    depth.maxRange = 100
    scene.sensors.depth = depth
    var imu = SyntheticScene.IMUSensor()
    imu.accelerometerNoise = 0
    imu.gyroNoise = 0
    scene.sensors.imu = imu
    return scene
  }

  /// A fresh empty folder under the temporary directory.
  static func temporaryFolder(_ name: String) throws -> String {
    let folder =
      NSTemporaryDirectory() + "arsim-synth-tests-\(ProcessInfo.processInfo.processIdentifier)/\(name)"
    try? FileManager.default.removeItem(atPath: folder)
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    return folder
  }

  /// The repository's root, found from this file's path.
  static var repositoryRoot: String {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().path
  }

  /// Projects a world point into the image of a camera at `pose` (`worldFromOptical`), pixels.
  static func project(_ world: SIMD3<Double>, pose: RigidTransform, camera: CameraIntrinsics) -> SIMD2<Double>
  {
    let p = pose.inverse.apply(to: world)
    return SIMD2(camera.fx * p.x / p.z + camera.cx, camera.fy * p.y / p.z + camera.cy)
  }
}
