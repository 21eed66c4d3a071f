import ARSim
import Testing

/// CVision's pyramidal Lucas-Kanade against OpenCV's calcOpticalFlowPyrLK, which it follows step for
/// step, and its AVX2 kernels against its portable ones.
@Suite struct LucasKanadeTests {
  typealias Support = VisionTestSupport

  static let width = 640
  static let height = 480
  static let texture = Support.Texture(width: width, height: height, seed: 1717)
  static let first = texture.render(width: width, height: height)

  /// Random pixels, 0 or 255: derivatives at their largest, so window sums at their largest.
  static func noise(seed: UInt64) -> GrayImage {
    var generator = SplitMix64(seed: seed)
    return GrayImage(
      width: width, height: height,
      pixels: (0..<(width * height)).map { _ in generator.next() & 1 == 0 ? 0 : 255 })
  }

  /// Corners of `image`, points on its borders, and five points outside it that the tracker loses.
  static func points(in image: GrayImage) throws -> [SIMD2<Float>] {
    let corners = try FeatureDetector(method: .gftt, maxFeatures: 300, threshold: 0.01, minDistance: 8)
      .detect(in: image)
    let w = Float(width)
    let h = Float(height)
    var edges = [SIMD2<Float>]()
    for k in 0..<12 {
      let t = Float(k) / 11
      edges += [
        SIMD2(t * (w - 1), 0.4), SIMD2(w - 1.2, t * (h - 1)), SIMD2(0.2, t * (h - 1)), SIMD2(t * w, h - 0.6),
      ]
    }
    edges += [
      SIMD2(-7, -7), SIMD2(w + 6.9, h + 6.9), SIMD2(w + 6.9, -7), SIMD2(-7, h + 6.9), SIMD2(-40, 100),
    ]
    return corners.map(\.position) + edges
  }

  static func parameters(window: Int) -> KLTParams {
    KLTParams(window: window, levels: 3, maxIterations: 20, epsilon: 0.02, maxError: 25)
  }

  /// Ours and OpenCV's agree to 0.01 pixels and on which points are found, for sub-pixel shifts and
  /// shifts beyond the window (the pyramid's levels), with and without initial guesses; and ours
  /// finds the shift.
  @Test(arguments: [SIMD2<Double>(0.37, -0.81), SIMD2(2.6, 1.3), SIMD2(-9.25, 6.75)], [15, 21])
  func agreesWithOpenCV(shift: SIMD2<Double>, window: Int) throws {
    let second = Self.texture.render(width: Self.width, height: Self.height, offset: shift)
    let points = try Self.points(in: Self.first)
    let params = Self.parameters(window: window)
    let guesses = points.map { $0 + SIMD2<Float>(Float(shift.x.rounded()), Float(shift.y.rounded())) }
    for initial in [nil, guesses] {
      let ours = try OpticalFlow.trackKLT(
        from: Self.first, to: second, points: points, params: params, initial: initial)
      let theirs = try OpticalFlow.trackKLT(
        from: Self.first, to: second, points: points, params: params, initial: initial,
        implementation: .openCV)
      #expect(ours.map { $0 == nil } == theirs.map { $0 == nil })
      var largest: Float = 0
      var errors = [Double]()
      for (point, (mine, reference)) in zip(points, zip(ours, theirs)) {
        guard let mine, let reference else { continue }
        let d = mine - reference
        largest = max(largest, max(abs(d.x), abs(d.y)))
        let truth = SIMD2<Double>(Double(point.x), Double(point.y)) + shift
        let e = SIMD2<Double>(Double(mine.x), Double(mine.y)) - truth
        errors.append((e * e).sum().squareRoot())
      }
      #expect(largest <= 0.01, "largest difference from OpenCV \(largest) px")
      #expect(errors.count >= points.count * 3 / 4)
      #expect(Support.median(errors) < 0.05)
      // The lost: off the image or too close to its border to follow.
      #expect(ours.suffix(5).allSatisfy { $0 == nil })
    }
  }

  /// The AVX2 kernels (where the CPU has them) and the portable ones give the same bits, for windows
  /// of one chunk of 16 pixels and of several, whole or cut short, on smooth texture and on noise that
  /// takes the window sums to their largest; lost points included.
  @Test(arguments: [5, 15, 17, 21, 31, 33])
  func vectorisedAndPortableGiveTheSameBits(window: Int) throws {
    // No point is lost for its error: unrelated noise images differ by far more than 25 levels.
    var params = Self.parameters(window: window)
    params.maxError = 1000
    let smooth = (
      Self.first, Self.texture.render(width: Self.width, height: Self.height, offset: SIMD2(2.3, -1.6))
    )
    let noisy = (Self.noise(seed: 5), Self.noise(seed: 6))
    for (from, to) in [smooth, noisy] {
      let points = try Self.points(in: Self.first)
      let guesses = points.map { $0 + SIMD2<Float>(1.5, -0.5) }
      for initial in [nil, guesses] {
        let vectorised = try OpticalFlow.trackKLT(
          from: from, to: to, points: points, params: params, initial: initial)
        let portable = try OpticalFlow.trackKLT(
          from: from, to: to, points: points, params: params, initial: initial, implementation: .portable)
        let bits = { (tracked: [SIMD2<Float>?]) in
          tracked.map { $0.map { [$0.x.bitPattern, $0.y.bitPattern] } }
        }
        #expect(bits(vectorised) == bits(portable))
        #expect(vectorised.contains { $0 != nil })
      }
    }
  }
}
