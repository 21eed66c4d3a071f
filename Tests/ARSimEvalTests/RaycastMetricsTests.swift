import ARSimEval
import Foundation
import Testing

@Suite struct RaycastMetricsTests {
  /// A tap at the ground-truth point (0, 0, 2) seen by a camera at the origin looking along +z.
  func sample(
    hit: SIMD3<Double>?, onPlane: Bool = true, estimatedCamera: RigidTransform = .identity
  ) -> RaycastSample {
    RaycastSample(
      timestamp: 1, referenceId: 1, groundTruthPoint: SIMD3(0, 0, 2), groundTruthCamera: .identity,
      estimatedCamera: estimatedCamera, hit: hit, hitIdentifier: hit == nil ? nil : "a",
      isOnDetectedPlane: onPlane)
  }

  @Test func errorsOfOneHitAreKnown() {
    // The estimated camera is 1 cm to the right; the hit 3 cm too far along its ray.
    let camera = RigidTransform(translation: SIMD3(0.01, 0, 0))
    let result = evaluateRaycasts([sample(hit: SIMD3(0.01, 0, 2.03), estimatedCamera: camera)])
    let tap = result.taps[0]
    #expect(abs((tap.worldError ?? 0) - (0.01 * 0.01 + 0.03 * 0.03).squareRoot()) < 1e-12)
    #expect(abs((tap.cameraError ?? 0) - 0.03) < 1e-12)
    #expect(abs((tap.rangeError ?? 0) - 0.03) < 1e-12)
    #expect(abs((result.rangeBias ?? 0) - 0.03) < 1e-12)
    // Too near gives a negative range error.
    let near = evaluateRaycasts([sample(hit: SIMD3(0, 0, 1.98))])
    #expect(abs((near.taps[0].rangeError ?? 0) + 0.02) < 1e-12)
  }

  @Test func hitRatesCountTapsOnDetectedPlanesSeparately() {
    let samples = [
      sample(hit: SIMD3(0, 0, 2.01)),
      sample(hit: SIMD3(0, 0, 2.02)),
      sample(hit: nil),
      sample(hit: SIMD3(0, 0, 2.1), onPlane: false),
    ]
    let result = evaluateRaycasts(samples)
    #expect(result.tapCount == 4)
    #expect(result.hitCount == 3)
    #expect(result.hitRate == 0.75)
    #expect(result.onPlaneCount == 3)
    #expect(result.onPlaneHitCount == 2)
    #expect(result.onPlaneHitRate == 2.0 / 3)
    #expect(result.worldError?.count == 3)
    #expect(abs((result.worldError?.median ?? 0) - 0.02) < 1e-12)
    #expect(abs((result.worldError?.max ?? 0) - 0.1) < 1e-12)
    #expect(abs((result.onPlaneWorldError?.max ?? 0) - 0.02) < 1e-12)
    #expect(result.taps.map(\.isHit) == [true, true, false, true])
  }

  @Test func noTapsGiveNoRates() {
    let result = evaluateRaycasts([])
    #expect(result.hitRate == nil)
    #expect(result.onPlaneHitRate == nil)
    #expect(result.worldError == nil)
    #expect(result.worldErrorP90 == nil)
  }

  @Test func percentileInterpolatesBetweenRanks() {
    let values = (1...10).map(Double.init).reversed().map { $0 }
    #expect(abs((percentile(values, 0.9) ?? 0) - 9.1) < 1e-12)
    #expect(percentile(values, 0.5) == 5.5)
    #expect(percentile(values, 0) == 1)
    #expect(percentile(values, 1) == 10)
    #expect(percentile([4], 0.9) == 4)
    #expect(percentile([], 0.5) == nil)
  }

  @Test func pointOnADetectedPlaneNeedsItsPolygonItsOffsetAndItsAngle() {
    let table = horizontalReference(id: 2, y: 0.75, x: -0.6...0.6, z: -0.4...0.4)
    let anchor = horizontalDetection("t", y: 0.76, x: -0.5...0.5, z: -0.3...0.3)
    let options = PlaneEvaluationOptions()
    #expect(
      pointLiesOnDetectedPlane(SIMD3(0.2, 0.75, 0.1), reference: table, planes: [anchor], options: options))
    // Outside the anchor's polygon, though on the table.
    #expect(
      !pointLiesOnDetectedPlane(SIMD3(0.55, 0.75, 0.1), reference: table, planes: [anchor], options: options))
    // 6 cm off the anchor's plane.
    #expect(
      !pointLiesOnDetectedPlane(SIMD3(0.2, 0.82, 0.1), reference: table, planes: [anchor], options: options))
    // An anchor tilted by 20° from the reference surface.
    let steep = tilted(anchor, degrees: 20)
    #expect(!pointLiesOnDetectedPlane(SIMD3(0, 0.76, 0), reference: table, planes: [steep], options: options))
    #expect(pointLiesOnDetectedPlane(SIMD3(0, 0.76, 0), reference: nil, planes: [steep], options: options))
    #expect(!pointLiesOnDetectedPlane(SIMD3(0, 0.76, 0), reference: table, planes: [], options: options))
  }
}

@Suite struct EvaluationReportTests {
  func frame(_ t: Double, _ state: String, _ x: Double, truth: Double?) -> EvaluatedFrame {
    EvaluatedFrame(
      timestamp: t, state: state, isTracked: state == "normal",
      estimate: RigidTransform(translation: SIMD3(x, 0, 0)),
      groundTruth: truth.map { RigidTransform(translation: SIMD3($0, 1, 0)) })
  }

  @Test func stateSpansEndWhereTheNextBegins() {
    let spans = trackingStateSpans(
      timestamps: [0, 0.1, 0.2, 0.3, 0.4],
      states: ["limited:initializing", "limited:initializing", "normal", "normal", "normal"])
    #expect(spans.map(\.state) == ["limited:initializing", "normal"])
    #expect(spans.map(\.start) == [0, 0.2])
    #expect(spans.map(\.end) == [0.2, 0.4])
    #expect(trackingStateSpans(timestamps: [], states: []).isEmpty)
  }

  @Test func trackingAlignmentMapsTheSessionWorldOntoTheTruth() throws {
    // The session world is the truth moved by −1 m in y; positions along x otherwise agree.
    let frames = [
      frame(0, "limited:initializing", 0, truth: 0), frame(0.1, "normal", 0, truth: 0),
      frame(0.2, "normal", 0.1, truth: 0.1), frame(0.3, "normal", 0.3, truth: 0.3),
      frame(0.4, "normal", 0.6, truth: 0.6),
    ]
    let result = try evaluateTracking(frames, withScale: false)
    #expect(result.frameCount == 5)
    #expect(result.trackedCount == 4)
    #expect(result.trackedFraction == 0.8)
    #expect(result.alignmentKind == .se3)
    #expect((result.ate?.rmse ?? 1) < 1e-9)
    let mapped = try #require(result.alignment).apply(to: SIMD3(0.3, 0, 0))
    #expect(simd_length(mapped - SIMD3(0.3, 1, 0)) < 1e-9)
    // Without three tracked frames with ground truth there is no alignment.
    let short = try evaluateTracking(Array(frames.prefix(3)), withScale: false)
    #expect(short.alignment == nil)
    #expect(short.ate == nil)
  }

  @Test func distanceFromTheFirstPoseCountsFramesWithAPose() throws {
    // A still camera measured while initialising (rotation only), then tracked; the first frame and a
    // relocalising one have no pose and are left out.
    let truth = { (x: Double) in RigidTransform(translation: SIMD3(x, 1, 0)) }
    let frames = [
      EvaluatedFrame(
        timestamp: 0, state: "limited:initializing", isTracked: false,
        estimate: RigidTransform(translation: SIMD3(5, 0, 0)), groundTruth: truth(9)),
      EvaluatedFrame(
        timestamp: 0.1, state: "limited:initializing", isTracked: false, hasPose: true,
        estimate: RigidTransform(translation: SIMD3(0.01, 0, 0)), groundTruth: truth(0.002)),
      EvaluatedFrame(
        timestamp: 0.2, state: "limited:initializing", isTracked: false, hasPose: true,
        estimate: RigidTransform(translation: SIMD3(0.01, 0, 0)), groundTruth: nil),
      EvaluatedFrame(
        timestamp: 0.3, state: "limited:relocalizing", isTracked: false,
        estimate: RigidTransform(translation: SIMD3(-4, 0, 0)), groundTruth: truth(7)),
      EvaluatedFrame(
        timestamp: 0.4, state: "normal", isTracked: true, hasPose: false,
        estimate: RigidTransform(translation: SIMD3(0.01, 0.03, 0.04)), groundTruth: truth(0.005)),
    ]
    #expect(frames.map(\.hasPose) == [false, true, true, false, true])
    let result = try evaluateTracking(frames, withScale: true)
    #expect(result.trackedCount == 1)
    #expect(result.poseCount == 3)
    #expect(abs((result.maxDistanceFromStart ?? 0) - 0.05) < 1e-12)
    #expect(abs((result.groundTruthMaxDistanceFromStart ?? 0) - 0.003) < 1e-12)
    #expect(result.ate == nil, "no alignment from one tracked frame")
    let text = EvaluationReport.text([
      RecordingEvaluation(
        recording: "still", mode: "mono", gravitySource: nil, notes: [], tracking: result, planes: nil,
        raycasts: nil)
    ])
    #expect(
      text.contains(
        "max distance from the first pose: estimate 0.0500 m, ground truth 0.0030 m over 3 frames with a pose"
      ))
    let json = EvaluationReport.json([
      RecordingEvaluation(
        recording: "still", mode: "mono", gravitySource: nil, notes: [], tracking: result, planes: nil,
        raycasts: nil)
    ])
    #expect(json.contains(#""withPose":3,"gravityErrorDegrees":null,"maxDistanceFromStart":0.0"#))
    // Without frames with a pose there is nothing to measure.
    let none = try evaluateTracking(Array(frames.prefix(1)), withScale: true)
    #expect(none.poseCount == 0)
    #expect(none.maxDistanceFromStart == nil)
    #expect(none.groundTruthMaxDistanceFromStart == nil)
  }

  @Test func batchWorstDependsOnTheDirection() throws {
    let frames = [
      frame(0, "normal", 0, truth: 0), frame(0.1, "normal", 0.1, truth: 0.1),
      frame(0.2, "normal", 0.3, truth: 0.3),
    ]
    let tracking = try evaluateTracking(frames, withScale: false)
    let good = RecordingEvaluation(
      recording: "a", mode: "rgbd", gravitySource: nil, notes: [], tracking: tracking,
      planes: evaluatePlanes(
        references: [horizontalReference(id: 1, y: 0, x: 0...1, z: 0...1)],
        detected: [horizontalDetection("p", y: 0, x: 0...1, z: 0...1)]),
      raycasts: nil)
    var bad = good
    bad.recording = "b"
    bad.planes = evaluatePlanes(
      references: [horizontalReference(id: 1, y: 0, x: 0...1, z: 0...1)], detected: [])
    let rows = batchSummary([good, bad])
    let recall = try #require(rows.first { $0.key == "plane_recall" })
    #expect(recall.values == [1, 0])
    #expect(recall.worst == 0)
    #expect(recall.mean == 0.5)
    let precision = try #require(rows.first { $0.key == "plane_precision" })
    #expect(precision.values == [1, nil])
    #expect(precision.median == 1)
    let offset = try #require(rows.first { $0.key == "plane_offset_median" })
    #expect(offset.worst == 0)

    // JSON parses, keys in place, unmeasured values null.
    let json = EvaluationReport.json([good, bad])
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    #expect(object["format"] as? String == "arsim-eval")
    let recordings = try #require(object["recordings"] as? [[String: Any]])
    #expect(recordings.count == 2)
    let planes = try #require(recordings[1]["planes"] as? [String: Any])
    #expect(planes["recall"] as? Double == 0)
    #expect(planes["precision"] is NSNull)
    let markdown = EvaluationReport.markdown([good, bad])
    #expect(markdown.contains("| plane recall |  | 1.000 | 0.000 | 0.500 | 0.500 | 0.000 |"))
    #expect(EvaluationReport.text([good, bad]).contains("batch summary over 2 recordings"))
  }
}
