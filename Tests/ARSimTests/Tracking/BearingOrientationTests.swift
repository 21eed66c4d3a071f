import Foundation
import Testing

@testable import ARSim

/// ``FeatureFrontEnd/orientationFromBearings(position:previous:)``: the turn between two frames from
/// the tracks' bearings alone, against a known motion, with landmarks placed at the wrong depth (the
/// first depth map of a phone reads the room nearer) and tracks that went astray.
@Suite struct BearingOrientationTests {
  let intrinsics = CameraIntrinsics(fx: 212, fy: 212, cx: 128, cy: 96, width: 256, height: 192)

  /// Tracks of `count` landmarks 1-4 m in front of the previous camera (O from optical `previous`),
  /// seen by a camera at `current`; the map holds each landmark at `depthScale` times its distance
  /// along its ray from the previous camera; the first `astray` tracks sit at random pixels.
  func scene(
    previous: RigidTransform, current: RigidTransform, count: Int, depthScale: Double, astray: Int
  ) -> (FeatureFrontEnd, [UInt64: SIMD3<Double>]) {
    var random = SplitMix64(seed: 7)
    var tracks = FeatureFrontEnd(options: TrackerOptions(), intrinsics: intrinsics)
    var landmarks: [UInt64: SIMD3<Double>] = [:]
    var id: UInt64 = 0
    while tracks.count < count {
      let pixel = SIMD2(random.uniform(10, 246), random.uniform(10, 182))
      let point = previous.apply(to: intrinsics.ray(pixel) * random.uniform(1, 4))
      let seen = current.inverse.apply(to: point)
      let now = intrinsics.project(seen)
      guard seen.z > 0.1, now.x >= 0, now.x < 256, now.y >= 0, now.y < 192 else { continue }
      id += 1
      let origin = previous.translation
      landmarks[id] = origin + (point - origin) * depthScale
      let tracked = tracks.count < astray ? SIMD2(random.uniform(0, 256), random.uniform(0, 192)) : now
      tracks.append(id, SIMD2<Float>(tracked))
    }
    return (tracks, landmarks)
  }

  func degrees(between a: simd_quatd, _ b: simd_quatd) -> Double {
    RigidTransform(rotation: a.conjugate * b, translation: .zero).angle * 180 / .pi
  }

  @Test func aTurnIsMeasuredWhateverTheLandmarksDepth() throws {
    let previous = RigidTransform(
      rotation: simd_quatd(angle: 0.3, axis: simd_normalize(SIMD3(0.2, 1, 0.1))),
      translation: SIMD3(0.5, 1.4, -2))
    let turn = simd_quatd(angle: 2.5 * .pi / 180, axis: simd_normalize(SIMD3(1, 0.4, -0.3)))
    let current = RigidTransform(rotation: previous.rotation * turn, translation: previous.translation)
    for scale in [1.0, 0.8, 1.3] {
      let (tracks, landmarks) = scene(
        previous: previous, current: current, count: 120, depthScale: scale, astray: 15)
      let found = try #require(
        tracks.orientationFromBearings(position: { landmarks[$0] }, previous: previous))
      let error = degrees(between: found, current.rotation)
      #expect(error < 0.05, "depth scale \(scale): orientation \(error) degrees off")
    }
  }

  /// A step of 1 cm past landmarks 1-4 m away moves their bearings by a fraction of a degree: the
  /// orientation stays within a few tenths of one, where the 2.5° turn alone would be missed by all of it.
  @Test func aSmallTranslationBendsItLittle() throws {
    let previous = RigidTransform.identity
    let turn = simd_quatd(angle: 2.5 * .pi / 180, axis: SIMD3(0, 1, 0))
    let current = RigidTransform(rotation: turn, translation: SIMD3(0.01, 0, 0.005))
    let (tracks, landmarks) = scene(
      previous: previous, current: current, count: 80, depthScale: 0.85, astray: 8)
    let found = try #require(tracks.orientationFromBearings(position: { landmarks[$0] }, previous: previous))
    #expect(degrees(between: found, current.rotation) < 0.4)
  }

  @Test func tooFewTracksMeasureNothing() {
    let (tracks, landmarks) = scene(
      previous: .identity, current: .identity, count: TrackerOptions().minInliers - 1, depthScale: 1,
      astray: 0)
    #expect(tracks.orientationFromBearings(position: { landmarks[$0] }, previous: .identity) == nil)
  }
}
