import ARSimScene
import ARSimTestSupport
import Combine
import Foundation
import Testing

@Suite struct AnimationTests {
  @Test func timingFunctionsRunFromZeroToOne() {
    for curve in [AnimationTimingFunction.linear, .easeIn, .easeOut, .easeInOut, .default] {
      #expect(abs(curve.progress(at: 0)) < 1e-5 && abs(curve.progress(at: 1) - 1) < 1e-5)
      let samples = stride(from: Float(0), through: 1, by: 0.05).map(curve.progress(at:))
      #expect(zip(samples, samples.dropFirst()).allSatisfy { $0 <= $1 + 1e-6 }, "monotonic")
    }
    #expect(abs(AnimationTimingFunction.linear.progress(at: 0.3) - 0.3) < 1e-4)
    #expect(abs(AnimationTimingFunction.easeInOut.progress(at: 0.5) - 0.5) < 1e-4)
    #expect(AnimationTimingFunction.easeIn.progress(at: 0.25) < 0.25)
  }

  @Test func keyframeTracksInterpolate() throws {
    let track = TransformTrack(keyframes: [
      .init(time: 1, transform: Transform(translation: SIMD3(0, 0, 0))),
      .init(time: 0, transform: Transform(scale: SIMD3(repeating: 2), translation: SIMD3(-1, 0, 0))),
      .init(time: 3, transform: Transform(rotation: simd_quatf(angle: .pi / 2, axis: SIMD3(0, 1, 0)))),
    ])
    #expect(track.keyframes.map(\.time) == [0, 1, 3])
    let half = try #require(track.sample(at: 0.5))
    #expect(close(half.translation, SIMD3(-0.5, 0, 0)) && close(half.scale, SIMD3(repeating: 1.5)))
    let turning = try #require(track.sample(at: 2))
    #expect(abs(turning.rotation.angle - .pi / 4) < 1e-4)
    #expect(track.sample(at: 10)?.rotation.angle == track.keyframes[2].transform.rotation.angle)
    #expect(AnimationResource(tracks: [track]).duration == 3)
  }

  /// Moves, animations and update events advance with the recording's clock, deterministically.
  @Test func movesAndAnimationsFollowTheRecordingClock() throws {
    guard Datasets.exists("tabletop") else {
      Issue.record("Datasets/tabletop is missing")
      return
    }
    func run() throws -> (positions: [SIMD3<Float>], deltas: [TimeInterval], completed: Int, spun: Float) {
      let view = ARView(frame: CGRect(x: 0, y: 0, width: 390, height: 844))
      let anchor = AnchorEntity(world: .zero)
      let box = ModelEntity(mesh: .generateBox(size: 0.1))
      let spinner = Entity()
      spinner.name = "rotor"
      box.addChild(spinner)
      anchor.addChild(box)
      view.scene.addAnchor(anchor)
      var deltas: [TimeInterval] = []
      var completed = 0
      let updates = view.scene.subscribe(to: SceneEvents.Update.self) { deltas.append($0.deltaTime) }
      let done = view.scene.subscribe(to: AnimationEvents.PlaybackCompleted.self, on: box) { _ in
        completed += 1
      }
      let replay = try ARReplay(session: view.session, recording: Datasets.path("tabletop"))
      try replay.step()
      let controller = box.move(
        to: Transform(translation: SIMD3(1, 0, 0)), relativeTo: nil, duration: 1, timingFunction: .linear)
      let spin = TransformTrack(
        targetPath: ["rotor"],
        keyframes: [
          .init(time: 0, transform: .identity),
          .init(time: 0.5, transform: Transform(rotation: simd_quatf(angle: 1, axis: SIMD3(0, 1, 0)))),
        ])
      box.playAnimation(AnimationResource(name: "spin", tracks: [spin]).repeat(count: 2))
      var positions: [SIMD3<Float>] = []
      var elapsed = 0.0
      for _ in 0..<40 {
        guard try replay.step() else { break }
        elapsed += deltas.last ?? 0
        positions.append(box.position(relativeTo: nil))
        #expect(abs(box.position.x - Float(min(elapsed, 1))) < 1e-5, "linear move at \(elapsed) s")
      }
      #expect(controller.isComplete && !controller.isPlaying)
      _ = (updates, done)
      return (positions, deltas, completed, spinner.orientation.angle)
    }
    let first = try run()
    let second = try run()
    #expect(first.positions == second.positions && first.deltas == second.deltas, "deterministic")
    #expect(first.deltas.first == 0 && first.deltas.dropFirst().allSatisfy { $0 > 0 })
    #expect(first.completed == 2, "the move and the twice-repeated spin both completed")
    #expect(abs(first.spun - 1) < 1e-5, "the spin ends on its last keyframe")
  }
}
