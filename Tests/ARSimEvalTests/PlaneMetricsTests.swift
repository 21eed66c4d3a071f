import ARSimEval
import Foundation
import Testing

/// A horizontal reference rectangle `x ∈ [x0, x1]`, `z ∈ [z0, z1]` at height `y` (normal up).
func horizontalReference(
  id: Int, label: String = "table", y: Double, x: ClosedRange<Double>, z: ClosedRange<Double>,
  firstSeen: Double? = 0, secondsSeen: Double = 5, seenFraction: Double? = nil
) -> ReferencePlane {
  let polygon = [
    SIMD3(x.lowerBound, y, z.upperBound), SIMD3(x.upperBound, y, z.upperBound),
    SIMD3(x.upperBound, y, z.lowerBound), SIMD3(x.lowerBound, y, z.lowerBound),
  ]
  return ReferencePlane(
    id: id, label: label, alignment: .horizontal, plane: Plane(normal: SIMD3(0, 1, 0), offset: -y),
    polygon: polygon, area: (x.upperBound - x.lowerBound) * (z.upperBound - z.lowerBound),
    firstSeen: firstSeen,
    secondsSeen: secondsSeen, seenFraction: seenFraction)
}

/// A horizontal detected rectangle at height `y`, its centre at the rectangle's centre.
func horizontalDetection(
  _ identifier: String, classification: String = "table", y: Double, x: ClosedRange<Double>,
  z: ClosedRange<Double>
) -> DetectedPlane {
  let polygon = [
    SIMD3(x.lowerBound, y, z.upperBound), SIMD3(x.upperBound, y, z.upperBound),
    SIMD3(x.upperBound, y, z.lowerBound), SIMD3(x.lowerBound, y, z.lowerBound),
  ]
  let center = SIMD3((x.lowerBound + x.upperBound) / 2, y, (z.lowerBound + z.upperBound) / 2)
  return DetectedPlane(
    identifier: identifier, alignment: .horizontal, classification: classification, normal: SIMD3(0, 1, 0),
    center: center, polygon: polygon)
}

/// `plane` rotated by `degrees` about the world x axis through its centre.
func tilted(_ plane: DetectedPlane, degrees: Double) -> DetectedPlane {
  let rotation = RigidTransform.expRotation(SIMD3(degrees * Double.pi / 180, 0, 0))
  let about =
    RigidTransform(translation: plane.center) * RigidTransform(rotation: rotation)
    * RigidTransform(translation: -plane.center)
  return plane.transformed(by: Similarity(about))
}

@Suite struct PlaneComparisonTests {
  @Test func overlapOfShiftedSquaresHasTheKnownArea() {
    // Two 2 m squares, one shifted by 1 m in x and z: they share a 1 m square; union 7 m².
    let reference = horizontalReference(id: 1, y: 0.75, x: 0...2, z: 0...2)
    let detected = horizontalDetection("a", y: 0.75, x: 1...3, z: 1...3)
    let comparison = comparePlanes(reference: reference, detected: detected)
    #expect(abs(comparison.intersectionArea - 1) < 1e-12)
    #expect(abs(comparison.detectedArea - 4) < 1e-12)
    #expect(abs(comparison.referenceArea - 4) < 1e-12)
    #expect(abs(comparison.intersectionOverUnion - 1.0 / 7) < 1e-12)
    #expect(comparison.angleDegrees < 1e-9)
    #expect(abs(comparison.offset) < 1e-12)
    #expect(comparison.isMatch(PlaneEvaluationOptions()))
  }

  @Test func disjointPolygonsDoNotMatch() {
    let reference = horizontalReference(id: 1, y: 0, x: 0...1, z: 0...1)
    let detected = horizontalDetection("a", y: 0, x: 1.5...2.5, z: 0...1)
    let comparison = comparePlanes(reference: reference, detected: detected)
    #expect(comparison.intersectionArea == 0)
    #expect(!comparison.isMatch(PlaneEvaluationOptions()))
  }

  @Test func tiltIsMeasuredInDegreesAndLimitsTheMatch() {
    let reference = horizontalReference(id: 1, y: 0.75, x: -0.5...0.5, z: -0.5...0.5)
    let flat = horizontalDetection("a", y: 0.75, x: -0.4...0.4, z: -0.4...0.4)
    let five = comparePlanes(reference: reference, detected: tilted(flat, degrees: 5))
    #expect(abs(five.angleDegrees - 5) < 1e-9)
    #expect(abs(five.offset) < 1e-12)  // tilted about its own centre
    #expect(five.isMatch(PlaneEvaluationOptions()))
    let twelve = comparePlanes(reference: reference, detected: tilted(flat, degrees: 12))
    #expect(abs(twelve.angleDegrees - 12) < 1e-9)
    #expect(!twelve.isMatch(PlaneEvaluationOptions()))
    // A flipped normal is the same surface seen from the other side: 0°, flagged as flipped.
    var flipped = flat
    flipped.normal = -flat.normal
    let comparison = comparePlanes(reference: reference, detected: flipped)
    #expect(comparison.angleDegrees < 1e-9)
    #expect(comparison.isFlipped)
  }

  @Test func offsetIsTheCentresDistanceFromTheReferencePlane() {
    let reference = horizontalReference(id: 1, y: 0.75, x: -0.5...0.5, z: -0.5...0.5)
    let above = comparePlanes(
      reference: reference, detected: horizontalDetection("a", y: 0.78, x: -0.4...0.4, z: -0.4...0.4))
    #expect(abs(above.offset - 0.03) < 1e-12)
    #expect(above.isMatch(PlaneEvaluationOptions()))
    let below = comparePlanes(
      reference: reference, detected: horizontalDetection("b", y: 0.69, x: -0.4...0.4, z: -0.4...0.4))
    #expect(abs(below.offset + 0.06) < 1e-12)
    #expect(!below.isMatch(PlaneEvaluationOptions()))
  }

  @Test func anchorValuesMapThroughTheFixedTransform() {
    // An anchor at (1, 0.75, 2), rotated 90° about y; its centre moved in anchor space, 4 mm above
    // the anchor's own plane (the refined height under a fixed transform).
    let worldFromAnchor = RigidTransform(
      rotation: RigidTransform.expRotation(SIMD3(0, Double.pi / 2, 0)), translation: SIMD3(1, 0.75, 2))
    let boundary: [SIMD3<Double>] = [
      SIMD3(-0.5, 0.004, 0.3), SIMD3(0.5, 0.004, 0.3), SIMD3(0.5, 0.004, -0.3), SIMD3(-0.5, 0.004, -0.3),
    ]
    let plane = DetectedPlane(
      identifier: "a", alignment: .horizontal, classification: "table", worldFromAnchor: worldFromAnchor,
      center: SIMD3(0.2, 0.004, 0), boundary: boundary)
    #expect(simd_length(plane.normal - SIMD3(0, 1, 0)) < 1e-12)
    // Anchor x maps to world -z under the rotation: centre (0.2, 0.004, 0) → (1, 0.754, 1.8).
    #expect(simd_length(plane.center - SIMD3(1, 0.754, 1.8)) < 1e-12)
    #expect(abs(plane.area - 0.6) < 1e-12)
    let reference = horizontalReference(id: 1, y: 0.75, x: 0...2, z: 1...3)
    let comparison = comparePlanes(reference: reference, detected: plane)
    #expect(abs(comparison.offset - 0.004) < 1e-12)
    #expect(abs(comparison.intersectionArea - 0.6) < 1e-12)
  }

  @Test func alignmentIntoTheReferenceWorldUndoesAKnownSimilarity() {
    // Session world = ground-truth world moved by a known Sim(3); mapping back by its inverse gives the
    // comparison of the untouched plane.
    let reference = horizontalReference(id: 1, y: 0.75, x: 0...2, z: 0...2)
    let truth = tilted(horizontalDetection("a", y: 0.77, x: 1...3, z: 1...3), degrees: 3)
    let sessionFromTruth = Similarity(
      rotation: RigidTransform.expRotation(SIMD3(0.1, -1.2, 0.3)), translation: SIMD3(0.4, -1.1, 2),
      scale: 0.8)
    let session = truth.transformed(by: sessionFromTruth)
    let mapped = session.transformed(by: sessionFromTruth.inverse)
    let expected = comparePlanes(reference: reference, detected: truth)
    let actual = comparePlanes(reference: reference, detected: mapped)
    #expect(abs(actual.angleDegrees - expected.angleDegrees) < 1e-9)
    #expect(abs(actual.offset - expected.offset) < 1e-12)
    #expect(abs(actual.intersectionArea - expected.intersectionArea) < 1e-9)
    #expect(abs(session.area - truth.area * 0.64) < 1e-9)
  }
}

@Suite struct PlaneEvaluationTests {
  let floor = horizontalReference(id: 1, label: "floor", y: 0, x: -3...3, z: -3...3, firstSeen: 0)
  let table = horizontalReference(
    id: 2, label: "table", y: 0.75, x: -0.6...0.6, z: -0.4...0.4, firstSeen: 0.2)

  @Test func missedPlaneAndSpuriousAnchorHalvePrecisionAndRecall() {
    let floorAnchor = horizontalDetection("floor", classification: "floor", y: 0.005, x: -2...2, z: -2...2)
    let spurious = horizontalDetection("ghost", classification: "none", y: 0.4, x: -0.2...0.2, z: -0.2...0.2)
    let result = evaluatePlanes(references: [floor, table], detected: [floorAnchor, spurious])
    #expect(result.precision == 0.5)
    #expect(result.recall == 0.5)
    #expect(result.eligibleCount == 2)
    #expect(result.eligibleMatchedCount == 1)
    #expect(result.unmatchedDetectedCount == 1)
    #expect(result.references[0].matches == ["floor"])
    #expect(result.references[1].matches.isEmpty)
    #expect(result.references[1].angleDegrees == nil)
    #expect(result.detected.map(\.matches) == [[1], []])
    #expect(result.offsetError?.median == 0.005)
    #expect(abs((result.references[0].bestIntersectionOverUnion ?? 0) - 16.0 / 36) < 1e-12)
    #expect(result.classificationAccuracy == 1)
  }

  @Test func smallOrBrieflySeenPlanesDoNotCountTowardsRecall() {
    let small = horizontalReference(id: 3, y: 0.4, x: 0...0.4, z: 0...0.5)  // 0.2 m²
    let brief = horizontalReference(id: 4, y: 1.0, x: 0...1, z: 0...1, secondsSeen: 0.5)
    var slanted = horizontalReference(id: 5, y: 2.0, x: 0...1, z: 0...1)
    slanted.alignment = .other
    let exact = horizontalReference(id: 6, y: 3.0, x: 0...0.5, z: 0...0.5)  // exactly 0.25 m²
    let result = evaluatePlanes(references: [small, brief, slanted, exact], detected: [])
    #expect(result.references.map(\.isEligible) == [false, false, false, true])
    #expect(result.recall == 0)
    #expect(result.precision == nil)
  }

  @Test func severalAnchorsOnOnePlaneGiveBestAndUnionIoU() {
    // Reference x ∈ [0, 2]; anchor A covers x ∈ [−1, 1] (half inside), B covers x ∈ [0.8, 2].
    let reference = horizontalReference(id: 1, y: 0, x: 0...2, z: 0...2)
    let a = horizontalDetection("a", y: 0, x: -1...1, z: 0...2)
    let b = horizontalDetection("b", y: 0, x: 0.8...2, z: 0...2)
    let result = evaluatePlanes(references: [reference], detected: [a, b])
    let r = result.references[0]
    #expect(r.matches == ["b", "a"])  // most overlap first: B 2.4 m², A 2 m²
    // IoU(A) = 2 / 6, IoU(B) = 2.4 / 4 = 0.6; union A ∪ B = [−1, 2] × [0, 2] = 6 m², covering all
    // 4 m² of the reference: union IoU 4 / 6.
    #expect(abs((r.bestIntersectionOverUnion ?? 0) - 0.6) < 1e-12)
    #expect(abs((r.unionIntersectionOverUnion ?? 0) - 4.0 / 6) < 1e-12)
    #expect(result.precision == 1)
  }

  @Test func timeToFirstDetectionCountsFromFirstSeen() {
    let tableAnchor = horizontalDetection("t", y: 0.752, x: -0.5...0.5, z: -0.3...0.3)
    let floorAnchor = horizontalDetection("f", classification: "floor", y: 0, x: -1...1, z: -1...1)
    // Early, a plane at the wrong height (no match); the table at 1.0 s, the floor at 1.5 s.
    let wrong = horizontalDetection("w", y: 0.5, x: -0.5...0.5, z: -0.3...0.3)
    let history = [
      PlaneSnapshot(timestamp: 10.0, planes: []),
      PlaneSnapshot(timestamp: 10.5, planes: [wrong]),
      PlaneSnapshot(timestamp: 11.0, planes: [tableAnchor]),
      PlaneSnapshot(timestamp: 11.5, planes: [tableAnchor, floorAnchor]),
    ]
    var seenLater = table
    seenLater.firstSeen = 10.2
    var floorSeen = floor
    floorSeen.firstSeen = 10.0
    let result = evaluatePlanes(
      references: [floorSeen, seenLater], detected: [tableAnchor, floorAnchor], history: history,
      startTime: 10)
    #expect(result.references[1].firstDetection == 11.0)
    #expect(abs((result.references[1].timeToFirstDetection ?? 0) - 0.8) < 1e-12)
    #expect(abs((result.references[0].timeToFirstDetection ?? 0) - 1.5) < 1e-12)
    #expect(result.firstPlaneTime == 0.5)
    #expect(result.firstHorizontalPlaneTime == 0.5)
    #expect(abs((result.timeToFirstDetection?.median ?? 0) - 1.15) < 1e-12)
  }

  @Test func classificationIsComparedWithTheLabel() {
    let wrong = horizontalDetection("t", classification: "floor", y: 0.75, x: -0.5...0.5, z: -0.3...0.3)
    let right = horizontalDetection("f", classification: "floor", y: 0, x: -1...1, z: -1...1)
    let result = evaluatePlanes(references: [floor, table], detected: [right, wrong])
    #expect(result.references.map(\.isClassificationCorrect) == [true, false])
    #expect(result.classificationAccuracy == 0.5)
    #expect(classificationAgrees(label: "other", classification: "none"))
    #expect(!classificationAgrees(label: "seat", classification: "none"))
  }

  @Test func seenWholeSelectsTheIoUSubset() {
    var whole = table
    whole.seenFraction = 0.95
    var partly = floor
    partly.seenFraction = 0.3
    let result = evaluatePlanes(
      references: [partly, whole],
      detected: [
        horizontalDetection("f", classification: "floor", y: 0, x: -1...1, z: -1...1),
        horizontalDetection("t", y: 0.75, x: -0.6...0.6, z: -0.4...0.2),
      ])
    #expect(result.references.map(\.isSeenWhole) == [false, true])
    #expect(result.seenWholeIntersectionOverUnion?.count == 1)
    #expect(abs((result.seenWholeIntersectionOverUnion?.median ?? 0) - 0.75) < 1e-12)
    #expect(result.intersectionOverUnion?.count == 2)
  }
}

@Suite struct SeenFractionTests {
  // A 100x100 camera at the origin looking along +z (optical frame = world): it sees |x/z|, |y/z| ≤ 0.5.
  let intrinsics = CameraIntrinsics(fx: 100, fy: 100, cx: 49.5, cy: 49.5, width: 100, height: 100)

  func square(x: ClosedRange<Double>, y: ClosedRange<Double>, z: Double) -> [SIMD3<Double>] {
    [
      SIMD3(x.lowerBound, y.lowerBound, z), SIMD3(x.upperBound, y.lowerBound, z),
      SIMD3(x.upperBound, y.upperBound, z), SIMD3(x.lowerBound, y.upperBound, z),
    ]
  }

  @Test func occluderHidesHalfAndIsItselfPartlyInView() {
    let target = square(x: -0.5...0.5, y: -0.5...0.5, z: 2)
    // In front of the target's left half; only x ∈ [−0.5, 0], y ∈ [−0.5, 0.5] of it is in the image.
    let occluder = square(x: -1...0, y: -1...1, z: 1)
    let fractions = seenFractions(
      ofPolygons: [target, occluder], cameraPoses: [.identity], intrinsics: intrinsics)
    #expect(fractions == [0.5, 0.25])
    let alone = seenFractions(ofPolygons: [target], cameraPoses: [.identity], intrinsics: intrinsics)
    #expect(alone == [1])
  }

  @Test func outOfRangeOrBehindIsNotSeen() {
    let far = square(x: -0.5...0.5, y: -0.5...0.5, z: 6)
    let behind = square(x: -0.5...0.5, y: -0.5...0.5, z: -2)
    let fractions = seenFractions(
      ofPolygons: [far, behind], cameraPoses: [.identity], intrinsics: intrinsics, maximumDistance: 5)
    #expect(fractions == [0, 0])
    // Turning the camera around (180° about y) brings the one behind into view.
    let turned = RigidTransform(rotation: RigidTransform.expRotation(SIMD3(0, Double.pi, 0)))
    let both = seenFractions(
      ofPolygons: [far, behind], cameraPoses: [.identity, turned], intrinsics: intrinsics)
    #expect(both == [0, 1])
  }
}
