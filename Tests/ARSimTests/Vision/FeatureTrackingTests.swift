import ARSim
import Dispatch
import Foundation
import Synchronization
import Testing

@Suite struct FeatureTrackingTests {
  typealias Support = VisionTestSupport

  static let width = 320
  static let height = 240
  /// The scene moves by (3, -2) pixels between the two images.
  static let shift = SIMD2<Double>(3, -2)
  static let texture = Support.Texture(width: width, height: height, seed: 2024)
  static let first = texture.render(width: width, height: height)
  static let second = texture.render(width: width, height: height, offset: shift)

  static func isSortedStrongestFirst(_ keypoints: [Keypoint]) -> Bool {
    zip(keypoints, keypoints.dropFirst()).allSatisfy { a, b in
      a.response > b.response || (a.response == b.response && (a.y, a.x) <= (b.y, b.x))
    }
  }

  @Test func fastFindsSortedFeaturesInsideTheImageAndHonoursTheMask() throws {
    let detector = FeatureDetector(method: .fast, maxFeatures: 300, threshold: 10)
    let keypoints = try detector.detect(in: Self.first)
    #expect(keypoints.count >= 100)
    #expect(keypoints.count <= 300)
    #expect(Self.isSortedStrongestFirst(keypoints))
    #expect(keypoints.allSatisfy { $0.x >= 0 && $0.y >= 0 && $0.x < 320 && $0.y < 240 && $0.angle == -1 })
    #expect(try detector.detect(in: Self.first) == keypoints)  // deterministic

    var mask = [UInt8](repeating: 0, count: Self.width * Self.height)
    for y in 0..<Self.height {
      for x in (Self.width / 2)..<Self.width { mask[y * Self.width + x] = 255 }
    }
    let masked = try detector.detect(in: Self.first, mask: mask)
    #expect(!masked.isEmpty)
    #expect(masked.allSatisfy { $0.x >= Float(Self.width / 2) - 0.5 })

    let fewer = try FeatureDetector(method: .fast, maxFeatures: 10, threshold: 10).detect(in: Self.first)
    #expect(fewer == Array(keypoints.prefix(10)))
  }

  @Test func gfttRespectsTheMinimumDistance() throws {
    let detector = FeatureDetector(method: .gftt, maxFeatures: 200, threshold: 0.01, minDistance: 12)
    let keypoints = try detector.detect(in: Self.first)
    #expect(keypoints.count >= 100)
    #expect(keypoints.count <= 200)
    #expect(Self.isSortedStrongestFirst(keypoints))
    #expect(keypoints.allSatisfy { $0.response > 0 })
    var closest = Float.infinity
    for i in keypoints.indices {
      for j in keypoints.indices where j > i {
        let d = keypoints[i].position - keypoints[j].position
        closest = min(closest, (d * d).sum().squareRoot())
      }
    }
    #expect(closest >= 12 - 1e-3)
  }

  @Test func kltTracksAKnownShiftToSubPixelAccuracy() throws {
    let corners = try FeatureDetector(method: .gftt, maxFeatures: 150, threshold: 0.01, minDistance: 10)
      .detect(in: Self.first)
    let points = corners.map(\.position)
    let tracked = try OpticalFlow.trackKLT(from: Self.first, to: Self.second, points: points)
    #expect(tracked.count == points.count)
    var errors = [Double]()
    for (point, result) in zip(points, tracked) {
      guard let result else { continue }
      let expected = SIMD2<Double>(Double(point.x), Double(point.y)) + Self.shift
      let d = SIMD2<Double>(Double(result.x), Double(result.y)) - expected
      errors.append((d * d).sum().squareRoot())
    }
    // Points near the border may leave the image; nearly all others are found.
    #expect(Double(errors.count) >= 0.9 * Double(points.count))
    #expect(Support.median(errors) < 0.05)
    #expect(errors.filter { $0 > 0.5 }.count <= points.count / 20)

    // A good initial guess gives the same answer.
    let guesses = points.map { $0 + SIMD2<Float>(3, -2) }
    let guided = try OpticalFlow.trackKLT(
      from: Self.first, to: Self.second, points: points, params: KLTParams(levels: 0), initial: guesses)
    let guidedErrors = zip(points, guided).compactMap { point, result -> Double? in
      guard let result else { return nil }
      let d = SIMD2<Double>(Double(result.x - point.x), Double(result.y - point.y)) - Self.shift
      return (d * d).sum().squareRoot()
    }
    #expect(Support.median(guidedErrors) < 0.05)
  }

  /// KLT shared out between the calling thread and a helper (`--threads 2`) tracks every point to
  /// the same bits as on one thread, pyramids or images, with and without initial guesses, lost points
  /// included, over several shares of points.
  @Test func kltOnTwoThreadsGivesTheOneThreadResult() throws {
    let corners = try FeatureDetector(method: .gftt, maxFeatures: 300, threshold: 0.01, minDistance: 6)
      .detect(in: Self.first)
    // Points on the top row leave the image (lost); the rest follow the shift.
    let points = corners.map(\.position) + (0..<40).map { SIMD2<Float>(Float(8 * $0) + 0.5, 0.5) }
    #expect(points.count > 200)
    let guesses = points.map { $0 + SIMD2<Float>(3, -2) }
    let params = KLTParams(window: 15, levels: 3, maxIterations: 20, epsilon: 0.02, maxError: 25)
    let from = try KLTPyramid(Self.first, params: params)
    let to = try KLTPyramid(Self.second, params: params)
    @Sendable func track() throws -> [[SIMD2<Float>?]] {
      [
        try OpticalFlow.trackKLT(from: from, to: to, points: points, initial: guesses),
        try OpticalFlow.trackKLT(from: Self.first, to: Self.second, points: points, params: params),
      ]
    }
    let alone = try track()
    VisionRuntime.setKLTThreadCount(2)
    defer { VisionRuntime.setKLTThreadCount(1) }
    let shared = try track()
    #expect(shared == alone)
    // Sessions tracking at once (one has the helper, the others track alone): the same tracks each.
    let concurrent = Mutex<[[[SIMD2<Float>?]]]>([])
    DispatchQueue.concurrentPerform(iterations: 4) { _ in
      let tracked = (try? track()) ?? []
      concurrent.withLock { $0.append(tracked) }
    }
    #expect(concurrent.withLock { $0.count == 4 && $0.allSatisfy { $0 == alone } })
    for tracked in alone {
      #expect(tracked.count == points.count)
      #expect(tracked.suffix(40).allSatisfy { $0 == nil })
      let errors = zip(points, tracked).compactMap { point, result -> Double? in
        guard let result else { return nil }
        let d = SIMD2<Double>(Double(result.x - point.x), Double(result.y - point.y)) - Self.shift
        return (d * d).sum().squareRoot()
      }
      #expect(errors.count >= points.count * 3 / 4)
      #expect(Support.median(errors) < 0.05)
    }
  }

  @Test func kltLosesPointsThatLeaveTheImage() throws {
    // Content moves up by 2 px: a point on the top row ends outside the image.
    let tracked = try OpticalFlow.trackKLT(
      from: Self.first, to: Self.second, points: [SIMD2(100, 0.5), SIMD2(160, 120)])
    #expect(tracked[0] == nil)
    let centre = try #require(tracked[1])
    #expect(abs(centre.x - 163) < 0.1 && abs(centre.y - 118) < 0.1)
  }

  /// Fraction of `matches` whose keypoints differ by the known shift within
  /// `tolerance` pixels times 1.2^octave (ORB positions on pyramid level k are quantised
  /// to that level's grid, 1.2^k pixels).
  static func fractionConsistentWithShift(
    _ matches: [DescriptorMatch], _ a: [Keypoint], _ b: [Keypoint], tolerance: Double
  ) -> Double {
    let correct = matches.filter { match in
      let pa = a[match.a]
      let pb = b[match.b]
      let dx = Double(pb.x - pa.x) - shift.x
      let dy = Double(pb.y - pa.y) - shift.y
      let levelScale = pow(1.2, Double(max(pa.octave, pb.octave)))
      return (dx * dx + dy * dy).squareRoot() <= tolerance * levelScale
    }
    return Double(correct.count) / Double(max(1, matches.count))
  }

  @Test func orbDescriptorsMatchAcrossTheShift() throws {
    // Full resolution only: positions are exact to the pixel, so matches agree within 1 px.
    let single = FeatureDetector(method: .orb, maxFeatures: 400, threshold: 10, pyramidLevels: 1)
    let a = try single.detectAndDescribe(in: Self.first)
    let b = try single.detectAndDescribe(in: Self.second)
    #expect(a.keypoints.count >= 100)
    #expect(a.descriptors.count == a.keypoints.count)
    #expect(b.descriptors.count == b.keypoints.count)
    #expect(Self.isSortedStrongestFirst(a.keypoints))
    #expect(a.keypoints.allSatisfy { $0.angle >= 0 && $0.angle < 360 && $0.octave == 0 })
    let matches = try DescriptorMatcher.match(a.descriptors, b.descriptors, maxDistance: 64, ratio: 0.8)
    #expect(matches.count >= 50)
    #expect(zip(matches, matches.dropFirst()).allSatisfy { $0.a < $1.a })
    #expect(Self.fractionConsistentWithShift(matches, a.keypoints, b.keypoints, tolerance: 1) > 0.9)
    #expect(matches.allSatisfy { $0.distance == a.descriptors[$0.a].distance(to: b.descriptors[$0.b]) })

    // Four pyramid levels: keypoints on every level, still matched consistently.
    let pyramid = FeatureDetector(method: .orb, maxFeatures: 400, threshold: 10, pyramidLevels: 4)
    let pa = try pyramid.detectAndDescribe(in: Self.first)
    let pb = try pyramid.detectAndDescribe(in: Self.second)
    #expect(Set(pa.keypoints.map(\.octave)) == [0, 1, 2, 3])
    let pyramidMatches = try DescriptorMatcher.match(pa.descriptors, pb.descriptors)
    #expect(pyramidMatches.count >= 100)
    #expect(
      Self.fractionConsistentWithShift(pyramidMatches, pa.keypoints, pb.keypoints, tolerance: 1.5) > 0.9)

    let notORB = #expect(throws: VisionError.self) {
      try FeatureDetector(method: .fast).detectAndDescribe(in: Self.first)
    }
    #expect(notORB?.code == VisionError.invalidArgument.code)
  }

  @Test func matcherAppliesDistanceRatioAndCrossCheck() throws {
    var generator = SplitMix64(seed: 5)
    let a = (0..<40).map { _ in
      ORBDescriptor(words: SIMD4(generator.next(), generator.next(), generator.next(), generator.next()))
    }
    // b is a reversed copy of a with 3 bits flipped in each descriptor.
    let b = a.reversed().map { ORBDescriptor(words: $0.words ^ SIMD4(0b1011, 0, 0, 0)) }
    let matches = try DescriptorMatcher.match(a, b)
    #expect(matches.map(\.a) == Array(0..<40))
    #expect(matches.allSatisfy { $0.b == 39 - $0.a && $0.distance == 3 })
    #expect(try DescriptorMatcher.match(a, b, maxDistance: 2).isEmpty)

    // Two equally close candidates fail the ratio test but pass with ratio 1 (disabled).
    let twins = [a[0], a[0]]
    #expect(try DescriptorMatcher.match([a[0]], twins, ratio: 0.9).isEmpty)
    #expect(try DescriptorMatcher.match([a[0]], twins, ratio: 1, crossCheck: false).map(\.b) == [0])
    // Cross check: both a[0] and its copy want b[0]; only the mutual pair survives.
    let crossed = try DescriptorMatcher.match([a[0], a[0]], [a[0]], ratio: 1, crossCheck: true)
    #expect(crossed == [DescriptorMatch(a: 0, b: 0, distance: 0)])
    #expect(try DescriptorMatcher.match([], b).isEmpty)

    let bytes = a[7].bytes
    #expect(bytes.count == 32)
    #expect(ORBDescriptor(bytes: bytes) == a[7])
    #expect(UInt64(bytes[0]) == a[7].words[0] & 0xFF)

    let badRatio = #expect(throws: VisionError.self) { try DescriptorMatcher.match(a, b, ratio: 0) }
    #expect(badRatio?.code == VisionError.invalidArgument.code)
    #expect(badRatio?.message.contains("ratio") == true)
  }

  /// The matcher (one pass over the distance matrix for both directions) against a plain Swift
  /// nearest-neighbour search, on descriptors with few differing bits (many ties in distance).
  @Test func matcherAgreesWithBruteForce() throws {
    var generator = SplitMix64(seed: 11)
    let base = (0..<6).map { _ in
      SIMD4(generator.next(), generator.next(), generator.next(), generator.next())
    }
    func descriptors(_ count: Int) -> [ORBDescriptor] {
      (0..<count).map { _ in
        let flips = SIMD4((0..<4).map { _ in UInt64(1) << (generator.next() % 6) })
        return ORBDescriptor(words: base[Int(generator.next() % 6)] ^ flips)
      }
    }
    let a = descriptors(70)
    let b = descriptors(90)
    func nearest(_ x: ORBDescriptor, in set: [ORBDescriptor]) -> (index: Int, best: Int, second: Int) {
      var found = (index: -1, best: Int.max, second: Int.max)
      for (j, y) in set.enumerated() {
        let d = x.distance(to: y)
        if d < found.best {
          found = (j, d, found.best)
        } else if d < found.second {
          found.second = d
        }
      }
      return found
    }
    for (maxDistance, ratio, crossCheck) in [(256, Float(1), true), (5, 1, false), (256, 0.9, true)] {
      let expected = a.indices.compactMap { i -> DescriptorMatch? in
        let n = nearest(a[i], in: b)
        guard n.best <= maxDistance else { return nil }
        if ratio < 1, n.second != .max, !(Double(n.best) < Double(ratio) * Double(n.second)) { return nil }
        if crossCheck, nearest(b[n.index], in: a).index != i { return nil }
        return DescriptorMatch(a: i, b: n.index, distance: n.best)
      }
      let matches = try DescriptorMatcher.match(
        a, b, maxDistance: maxDistance, ratio: ratio, crossCheck: crossCheck)
      #expect(matches == expected, "maxDistance \(maxDistance), ratio \(ratio), crossCheck \(crossCheck)")
      #expect(!expected.isEmpty)
    }
  }

  @Test func invalidArgumentsAreReportedNotCrashed() throws {
    let empty = GrayImage(width: 0, height: 0)
    let size = #expect(throws: VisionError.self) { try FeatureDetector().detect(in: empty) }
    #expect(size?.code == VisionError.invalidArgument.code)

    let mask = #expect(throws: VisionError.self) {
      try FeatureDetector().detect(in: Self.first, mask: [1, 2, 3])
    }
    #expect(mask?.code == VisionError.invalidArgument.code)

    let quality = #expect(throws: VisionError.self) {
      try FeatureDetector(method: .gftt, threshold: 2).detect(in: Self.first)
    }
    #expect(quality?.message.contains("threshold") == true)

    let scale = #expect(throws: VisionError.self) {
      try FeatureDetector(method: .orb, scaleFactor: 1).detect(in: Self.first)
    }
    #expect(scale?.message.contains("scale_factor") == true)

    let window = #expect(throws: VisionError.self) {
      try OpticalFlow.trackKLT(
        from: Self.first, to: Self.second, points: [SIMD2(10, 10)], params: KLTParams(window: 20))
    }
    #expect(window?.code == VisionError.invalidArgument.code)
    #expect(window?.message.contains("window") == true)

    let small = GrayImage(width: 10, height: 10)
    let sizes = #expect(throws: VisionError.self) {
      try OpticalFlow.trackKLT(from: Self.first, to: small, points: [SIMD2(1, 1)])
    }
    #expect(sizes?.code == VisionError.invalidArgument.code)

    let nan = #expect(throws: VisionError.self) {
      try OpticalFlow.trackKLT(from: Self.first, to: Self.second, points: [SIMD2(.nan, 1)])
    }
    #expect(nan?.message.contains("previous_points[0]") == true)
    #expect(try OpticalFlow.trackKLT(from: Self.first, to: Self.second, points: []).isEmpty)
  }
}
