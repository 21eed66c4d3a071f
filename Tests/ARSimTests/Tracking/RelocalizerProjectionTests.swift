import ARSimTestSupport
import Foundation
import Testing

@testable import ARSim

/// Relocalisation's search by projection (``Relocalizer/extended(_:keypoints:descriptors:against:)``):
/// a monocular map of the tabletop's frames 0-99 (WorldMapTests' session A), frames it tracked located
/// in it again, without and with the extension.
@Suite struct RelocalizerProjectionTests {
  @Test(.enabled(if: Datasets.exists("tabletop"))) func extensionAddsMapPointsAndKeepsThePose() throws {
    let (first, log) = try WorldMapTests.replay(0..<100, mode: .mono)
    let map = try WorldMapTests.map(of: first)
    var source = try Recording.open(folder: Datasets.path("tabletop"))
    let relocalizer = Relocalizer(
      options: TrackerOptions().relocalization, intrinsics: source.info.intrinsics)
    let tracked = Dictionary(uniqueKeysWithValues: log.records.map { ($0.frameIndex, $0) })
    var checked = 0
    var inliers = (plain: 0, extended: 0)
    while let frame = try source.nextFrame(), frame.index < 100 {
      guard frame.index % 10 == 5, let record = tracked[frame.index], record.state == .normal,
        let gray = frame.image?.gray
      else { continue }
      // A's pose of the frame in its world, the map's.
      let truth = RigidTransform(matrix: record.transform) * opticalFromCamera
      let keyframes = map.keyframes[...]
      guard let plain = relocalizer.locate(gray: gray, against: keyframes, seed: 3) else { continue }
      let extended = try #require(
        relocalizer.locate(gray: gray, against: keyframes, seed: 3, extendingByProjection: true))
      checked += 1
      inliers.plain += plain.inliers
      inliers.extended += extended.inliers
      // Every match within the reprojection threshold of the refined pose.
      let opticalFromO = extended.oFromOptical.inverse
      for match in extended.matches {
        let pixel = source.info.intrinsics.project(opticalFromO.apply(to: match.point))
        #expect(simd_length(pixel - SIMD2(match.pixel)) <= relocalizer.options.reprojectionThreshold + 1e-9)
      }
      let error = simd_distance(extended.oFromOptical.translation, truth.translation)
      let plainError = simd_distance(plain.oFromOptical.translation, truth.translation)
      #expect(error <= max(plainError, 0.01), "frame \(frame.index): \(error) m against \(plainError) m")
    }
    #expect(checked >= 5, "\(checked) frames located")
    // The keyframes sharing the view add their points: 960 -> 1279 matches over frames 5, 15, ..., 95.
    #expect(Double(inliers.extended) >= 1.2 * Double(inliers.plain), "\(inliers)")
  }

  /// PnP RANSAC's iterations follow the matches: enough to draw 4 of `minMatches` inliers (20 by
  /// default) with 0.999 confidence, never more than `ransacIterations`.
  @Test func ransacIterationsFollowTheMatches() {
    let relocalizer = Relocalizer(
      options: TrackerOptions().relocalization, intrinsics: DepthThumbnailTests.intrinsics)
    // All 20 must be inliers: the first sample is all-inlier.
    #expect(relocalizer.ransacIterations(matches: 20) == 1)
    // (2/3)^4 of samples all-inlier: ln(0.001) / ln(1 - 0.1975) = 31.4.
    #expect(relocalizer.ransacIterations(matches: 30) == 32)
    // Half inliers: 107.0.
    #expect(relocalizer.ransacIterations(matches: 40) == 108)
    // A tenth: 69 074, capped.
    #expect(relocalizer.ransacIterations(matches: 200) == 2000)
    let counts = (20...400).map { relocalizer.ransacIterations(matches: $0) }
    #expect(zip(counts, counts.dropFirst()).allSatisfy { $0 <= $1 })
  }
}
