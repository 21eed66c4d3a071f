import ARSim
import ARSimMath
import ARSimSynth
import ARSimTestSupport
import Foundation
import Testing

/// Monocular tracking of a camera that first stands still, then turns on the spot, then translates:
/// before the two-view initialisation has parallax, the rotation-only model measures the camera's
/// rotation and holds its position; after the turn (which makes the initialisation restart from a
/// rotated reference frame) the map is initialised and tracked in the same frame as the start.
@Suite struct StillCameraTrackingTests {
  /// When the camera stops turning and starts translating, seconds.
  static let turnEnd = 2.25
  static let translationStart = 2.75

  /// A textured floor and walls, a 320x240 camera 1.4 m up looking 30° down: still for 0.75 s, a turn
  /// of 80° about the vertical (more than the 63° field of view, so every first feature leaves the
  /// image), a pause, then 0.5 m sideways without turning.
  static func scene() -> SyntheticScene {
    let camera = CameraIntrinsics(fx: 262.5, fy: 262.5, cx: 159.5, cy: 119.5, width: 320, height: 240)
    let eye = SIMD3<Double>(0, 1.4, 0)
    let target = { (degrees: Double) -> SIMD3<Double> in
      let a = degrees * .pi / 180
      return eye + SIMD3(2.4 * sin(a), -1.4, -2.4 * cos(a))
    }
    // Sideways (the camera's right) at the end of the turn.
    let right = SIMD3<Double>(cos(80 * Double.pi / 180), 0, sin(80 * Double.pi / 180))
    var keyframes: [SyntheticScene.Keyframe] = []
    // Repeated knots keep the natural splines still where the camera is.
    for t in [-0.25, 0, 0.25, 0.5, 0.75] {
      keyframes.append(.init(time: t, position: eye, lookAt: target(0)))
    }
    for (k, t) in [1.0, 1.25, 1.5, 1.75, 2.0, 2.25].enumerated() {
      keyframes.append(.init(time: t, position: eye, lookAt: target(Double(k + 1) * 80 / 6)))
    }
    keyframes.append(.init(time: 2.5, position: eye, lookAt: target(80)))
    keyframes.append(.init(time: translationStart, position: eye, lookAt: target(80)))
    for (k, t) in [3.25, 3.75, 4.25, 4.75].enumerated() {
      let offset = right * (0.5 * Double(k + 1) / 4)
      keyframes.append(.init(time: t, position: eye + offset, lookAt: target(80) + offset))
    }
    let wall = { (id: Int, center: SIMD3<Double>, normal: SIMD3<Double>, x: SIMD3<Double>) in
      SyntheticScene.Surface(
        id: id, label: .wall, material: "paint",
        rectangle: .init(center: center, normal: normal, xAxis: x, width: 10, height: 3))
    }
    var scene = SyntheticScene(
      camera: camera, duration: 4.5,
      materials: [.init(name: "leaves", type: .deadLeaves), .init(name: "paint", type: .paint)],
      surfaces: [
        .init(
          id: 1, label: .floor, material: "leaves",
          rectangle: .init(
            center: .zero, normal: SIMD3(0, 1, 0), xAxis: SIMD3(1, 0, 0), width: 10, height: 10)),
        wall(2, SIMD3(0, 1.5, -5), SIMD3(0, 0, 1), SIMD3(1, 0, 0)),
        wall(3, SIMD3(5, 1.5, 0), SIMD3(-1, 0, 0), SIMD3(0, 0, 1)),
      ],
      trajectory: .init(keyframes: keyframes))
    scene.seed = 21
    scene.frameRate = 15
    scene.render.supersamples = 1
    scene.render.texelsPerMetre = 256
    return scene
  }

  @Test func holdsItsPositionUntilItTranslatesThenTracks() throws {
    let folder = try SynthFixtures.temporaryFolder("still-then-moving")
    var options = GenerationOptions()
    options.encoding = .png
    _ = try SessionGenerator.generate(try SceneRenderer(scene: Self.scene()), to: folder, options: options)

    let session = ARSession()
    let configuration = ARWorldTrackingConfiguration()
    configuration.planeDetection = []
    session.run(configuration)
    let replay = try ARReplay(session: session, recording: folder)
    var frames: [(time: Double, frame: ARFrame, truth: RigidTransform)] = []
    while try replay.step() != nil {
      if let frame = session.currentFrame, let truth = replay.lastFrame?.groundTruth {
        frames.append((frame.timestamp, frame, truth))
      }
    }
    try #require(frames.count > 60)
    let start = frames[0]
    // Rotation of the optical frame since the start, estimated and true, and their difference.
    func rotationError(_ k: Int) -> Double {
      let estimated =
        start.frame.camera.worldFromOptical.rotation.inverse
        * frames[k].frame.camera.worldFromOptical.rotation
      let truth = start.truth.rotation.inverse * frames[k].truth.rotation
      let angle = (estimated * truth.inverse).normalized.angle
      return min(angle, 2 * .pi - angle) * 180 / .pi
    }

    // Before the translation: initialising, every frame after the first measured by rotation only, the
    // position held and the rotation right (through the restart the turn forces).
    let before = frames.indices.filter { frames[$0].time < Self.translationStart }
    var worstDistance = 0.0
    var worstAngle = 0.0
    for k in before {
      let frame = frames[k].frame
      #expect(frame.camera.trackingState == .limited(.initializing), "frame \(k)")
      if k > 0 {
        #expect(frame.poseSource == .rotation, "frame \(k): \(String(describing: frame.poseSource))")
      }
      worstDistance = max(
        worstDistance,
        simd_length(
          frame.camera.worldFromOptical.translation - start.frame.camera.worldFromOptical.translation))
      worstAngle = max(worstAngle, rotationError(k))
    }
    #expect(worstDistance < 0.02, "moved \(worstDistance) m while still")
    #expect(worstAngle < 1, "rotation off by \(worstAngle)° while turning on the spot")
    // The turn itself was measured: at its end the camera faces 80° away from the start.
    let turned = try #require(before.last { frames[$0].time >= Self.turnEnd })
    let facing =
      start.frame.camera.worldFromOptical.rotation.inverse
      * frames[turned].frame.camera.worldFromOptical.rotation
    #expect(abs(facing.normalized.angle * 180 / .pi - 80) < 2)

    // Then the translation initialises the map, in the same frame: tracking stays normal with the
    // rotation right and the positions along the true path. Both paths are compared in the first
    // camera's frame, the estimate scaled by least squares (the map is unscaled).
    let firstNormal = try #require(frames.firstIndex { $0.frame.camera.trackingState == .normal })
    let normal = frames.indices.filter { $0 >= firstNormal }
    #expect(frames[firstNormal].time < 3.75, "initialised at \(frames[firstNormal].time) s")
    #expect(normal.allSatisfy { frames[$0].frame.camera.trackingState == .normal })
    #expect(normal.map(rotationError).max() ?? 99 < 2)
    let startEstimate = start.frame.camera.worldFromOptical
    let estimated = normal.map {
      startEstimate.inverse.apply(to: frames[$0].frame.camera.worldFromOptical.translation)
    }
    let truth = normal.map { start.truth.inverse.apply(to: frames[$0].truth.translation) }
    let scale =
      zip(estimated, truth).reduce(0) { $0 + simd_dot($1.0, $1.1) }
      / estimated.reduce(0) { $0 + simd_length_squared($1) }
    let squared = zip(estimated, truth).reduce(0) { $0 + simd_length_squared(scale * $1.0 - $1.1) }
    let rmse = (squared / Double(normal.count)).squareRoot()
    #expect(rmse < 0.01, "position error \(rmse) m (rms, scale \(scale))")
  }
}
