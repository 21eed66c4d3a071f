import ARSimMath
import Foundation
import Testing

@testable import ARSimEval

@Suite struct GravityMetricsTests {
  /// Frames whose estimated world is the true one tilted by `tilts[i]` degrees (about a horizontal
  /// axis) and turned about the vertical, at 0.5 s apart; the frame at `untracked` has no pose.
  static func frames(tilts: [Double], untracked: Int? = nil) -> [EvaluatedFrame] {
    tilts.enumerated().map { i, tilt in
      let truth = RigidTransform(
        rotation: simd_quatd(angle: 0.3 + 0.4 * Double(i), axis: simd_normalize(SIMD3(1, -2, 0.5))),
        translation: SIMD3(Double(i), 1, 0))
      let turn = RigidTransform(rotation: simd_quatd(angle: 0.7 * Double(i), axis: SIMD3(0, 1, 0)))
      let tiltAxis = simd_normalize(SIMD3(cos(Double(i)), 0, sin(Double(i))))
      let tiltRotation = RigidTransform(rotation: simd_quatd(angle: tilt * .pi / 180, axis: tiltAxis))
      return EvaluatedFrame(
        timestamp: 10 + 0.5 * Double(i), state: "normal", isTracked: i != untracked, hasPose: i != untracked,
        estimate: turn * tiltRotation * truth, groundTruth: truth)
    }
  }

  @Test func seriesGivesEachFramesTiltWhateverTheTurnAboutUp() {
    let tilts = [0.5, 0.1, 0.2, 0.3, 0.9]
    let series = gravityErrorSeries(
      Self.frames(tilts: tilts, untracked: 4), gravity: SIMD3(0, -9.81, 0))
    #expect(series.map(\.timestamp) == [10, 10.5, 11, 11.5])
    for (point, tilt) in zip(series, tilts) {
      #expect(abs(point.degrees - tilt) < 1e-9, "\(point.degrees) vs \(tilt)")
    }
  }

  @Test func medianCountsOnlyFramesAfterTheFirstSecond() throws {
    let frames = Self.frames(tilts: [0.5, 0.1, 0.2, 0.3, 0.9], untracked: 4)
    let statistics = try #require(gravityErrors(frames, gravity: SIMD3(0, -9.81, 0)))
    #expect(statistics.count == 2)
    #expect(abs(statistics.median - 0.25) < 1e-9)
    #expect(gravityErrorSeries(frames, gravity: SIMD3(0, -9.81, 0), after: 1).count == 2)
    #expect(gravityErrorSeries(frames, gravity: .zero).isEmpty)
  }
}
