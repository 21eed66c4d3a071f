import ARSimTestSupport
import Foundation
import Testing

@testable import ARSim

@Suite struct RGBDMapTests {
  static let intrinsics = CameraIntrinsics(fx: 500, fy: 500, cx: 319.5, cy: 239.5, width: 640, height: 480)

  /// The camera slides 2 mm per frame along x in front of 200 points 1-3 m away, seen with exact
  /// pixels and depths; the landmarks start 1 cm off and every given pose 2 cm off.
  @Test(
    "Keyframes come from the policy (frames, tracked fraction, rotation); their poses and the landmarks are adjusted"
  )
  func keyframePolicyAndRefinement() throws {
    var random = SplitMix64(seed: 5)
    let truth = (0..<200).map { _ in
      SIMD3(random.uniform(-1, 1), random.uniform(-0.8, 0.8), random.uniform(1, 3))
    }
    var map = RGBDMap(options: TrackerOptions(), intrinsics: Self.intrinsics)
    let ids = truth.map { p in
      map.add(
        p + SIMD3(random.uniform(-0.01, 0.01), random.uniform(-0.01, 0.01), random.uniform(-0.01, 0.01)))
    }
    func landmarkError() -> Double {
      let kept = zip(ids, truth).compactMap { id, p in map.landmarks[id].map { simd_length($0 - p) } }
      return kept.reduce(0, +) / Double(kept.count)
    }
    let initialError = landmarkError()
    var made: [Int] = []
    var adjustedCount = 0
    var worstPose = 0.0
    for frame in 0..<40 {
      var oFromOptical = RigidTransform(
        rotation: simd_quatd(ix: 0, iy: 0, iz: 0, r: 1), translation: SIMD3(0.002 * Double(frame), 0, 0))
      // A turn of 6 degrees at frame 38.
      if frame >= 38 {
        oFromOptical = RigidTransform(
          rotation: simd_quatd(angle: 6 * .pi / 180, axis: SIMD3(0, 1, 0)),
          translation: oFromOptical.translation)
      }
      // From frame 35 on, 30% of the tracks are lost.
      let seen = frame >= 35 ? Array(ids.indices.dropFirst(60)) : Array(ids.indices)
      if frame == 35 { map.keep(tracked: seen.map { ids[$0] }) }
      let opticalFromO = oFromOptical.inverse
      var pixels: [SIMD2<Float>] = []
      var depths: [SIMD2<Float>: Double] = [:]
      for i in seen {
        let p = opticalFromO.apply(to: truth[i])
        let pixel = Self.intrinsics.project(p)
        let key = SIMD2<Float>(Float(pixel.x), Float(pixel.y))
        pixels.append(key)
        depths[key] = p.z
      }
      let before = map.keyframesMade
      let given = RigidTransform(
        rotation: oFromOptical.rotation, translation: oFromOptical.translation + SIMD3(0.02, -0.01, 0.01))
      // The odometry's one refinement of the frame (FeatureFrontEnd.solvePose): against the map's
      // landmarks, with the frame's depths as priors.
      let known = seen.indices.filter { map.landmarks[ids[seen[$0]]] != nil }
      let (solved, _) = try PoseSolver.refinePose(
        worldPoints: known.map { map.landmarks[ids[seen[$0]]]! },
        imagePoints: known.map { SIMD2<Double>(pixels[$0]) },
        depthPriors: known.map { k in
          map.depthPrior(depths[pixels[k]].map { FrameDepth.Sample(depth: $0, confidence: 2) })
        }, intrinsics: Self.intrinsics, initial: given.inverse.poseCW, iterations: 10, huberDelta: 1)
      let refined = RigidTransform(solved).inverse
      let adjusted = map.frameTracked(
        oFromOptical: refined, ids: seen.map { ids[$0] }, pixels: pixels, time: Double(frame) / 10
      ) {
        pixel in
        depths[pixel].map { FrameDepth.Sample(depth: $0, confidence: 2) }
      }
      if map.keyframesMade > before { made.append(frame) }
      // Only a keyframe's pose is adjusted (a frame's own refinement is the PnP solve's).
      if map.keyframesMade == before { #expect(adjusted == nil, "frame \(frame) is no keyframe") }
      if adjusted != nil { adjustedCount += 1 }
      worstPose = max(worstPose, simd_length((adjusted ?? refined).translation - oFromOptical.translation))
    }
    // The first frame, every 10th without another reason, the frame that lost 30% of the tracks, the turn.
    #expect(made == [0, 10, 20, 30, 35, 38])
    // Every keyframe from the third on (the window adjusts from three keyframes).
    #expect(adjustedCount == made.count - 2, "\(adjustedCount) keyframes adjusted")
    // Pixels in exact agreement with the depths: the depth priors pin the landmarks' mean offset.
    #expect(worstPose < 0.005, "worst pose error \(worstPose) m")
    #expect(landmarkError() < initialError / 2, "landmark error \(landmarkError()) m from \(initialError) m")
  }
}
