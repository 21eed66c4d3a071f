import ARSim
import Foundation
import Testing

@Suite struct DepthAlignmentTests {
  typealias Support = VisionTestSupport

  /// Quarter-VGA camera (a Kinect's 525 px focal length divided by 4).
  static let width = 160
  static let height = 120
  static let intrinsics = CameraIntrinsics(
    fx: 131.25, fy: 131.25, cx: 79.5, cy: 59.5, width: width, height: height)

  /// A scene for the ray caster, in a world frame with +y down (the optical convention):
  /// the inside of a convex room (half-spaces `normal . x <= offset`, so the visible surface is
  /// where a ray leaves the first of them) and solid axis-aligned boxes inside it.
  struct Scene {
    var planes: [(normal: SIMD3<Double>, offset: Double)] = []
    var boxes: [(low: SIMD3<Double>, high: SIMD3<Double>)] = []

    /// Distance along `direction` from `origin` to the first surface, or nil.
    func hit(origin: SIMD3<Double>, direction: SIMD3<Double>) -> Double? {
      var nearest = Double.infinity
      for plane in planes {
        let along = (plane.normal * direction).sum()
        guard along > 1e-12 else { continue }
        let t = (plane.offset - (plane.normal * origin).sum()) / along
        if t > 0 { nearest = min(nearest, t) }
      }
      for box in boxes {
        var enter = -Double.infinity
        var exit = Double.infinity
        for axis in 0..<3 {
          if abs(direction[axis]) < 1e-12 {
            if origin[axis] < box.low[axis] || origin[axis] > box.high[axis] { exit = -1 }
            continue
          }
          let t1 = (box.low[axis] - origin[axis]) / direction[axis]
          let t2 = (box.high[axis] - origin[axis]) / direction[axis]
          enter = max(enter, min(t1, t2))
          exit = min(exit, max(t1, t2))
        }
        if enter <= exit, enter > 0 { nearest = min(nearest, enter) }
      }
      return nearest.isFinite ? nearest : nil
    }

    /// Floor (y = 1.3), two walls in front (x = 2, z = 2.5), the rest of a room behind, and a box
    /// on the floor: every direction is constrained.
    static let corner = Scene(
      planes: [
        (SIMD3(0, 1, 0), 1.3), (SIMD3(1, 0, 0), 2), (SIMD3(0, 0, 1), 2.5),
        (SIMD3(-1, 0, 0), 3), (SIMD3(0, 0, -1), 3), (SIMD3(0, -1, 0), 1.5),
      ],
      boxes: [(SIMD3(0.7, 0.9, 1.3), SIMD3(1.2, 1.3, 1.8))])

    /// The floor alone: sliding along it and turning about its normal are unconstrained.
    static let floor = Scene(planes: [(SIMD3(0, 1, 0), 1.3)])

    /// The floor with two boxes and nothing else (far floor and sky are beyond the depth range).
    static let boxesOnFloor = Scene(
      planes: [(SIMD3(0, 1, 0), 1.3)],
      boxes: [
        (SIMD3(0.5, 0.8, 1.4), SIMD3(1.1, 1.3, 2.0)), (SIMD3(-0.6, 0.6, 2.2), SIMD3(-0.1, 1.3, 2.6)),
      ])
  }

  /// Camera-from-world of a camera at `position` looking along `yaw` (degrees from +z towards
  /// +x) and tilted down by `pitch` degrees.
  static func camera(position: SIMD3<Double>, yaw: Double, pitch: Double) -> PoseCW {
    let a = yaw * Double.pi / 180
    let p = pitch * Double.pi / 180
    let forward = SIMD3(sin(a) * cos(p), sin(p), cos(a) * cos(p))
    let right = SIMD3(cos(a), 0, -sin(a))
    let down = SIMD3(
      forward.y * right.z - forward.z * right.y, forward.z * right.x - forward.x * right.z,
      forward.x * right.y - forward.y * right.x)
    // Rows of camera-from-world are the camera axes in the world frame.
    let r = [right.x, right.y, right.z, down.x, down.y, down.z, forward.x, forward.y, forward.z]
    return PoseCW(r: r, t: -PoseCW(r: r, t: .zero).apply(position))
  }

  /// `a` after `b`: x -> a(b(x)).
  static func compose(_ a: PoseCW, _ b: PoseCW) -> PoseCW {
    var r = [Double](repeating: 0, count: 9)
    for i in 0..<3 {
      for j in 0..<3 { r[3 * i + j] = (0..<3).map { a.r[3 * i + $0] * b.r[3 * $0 + j] }.reduce(0, +) }
    }
    return PoseCW(r: r, t: a.apply(b.t))
  }

  /// The motion x_current = r x_reference + t: `angle` degrees about `axis`, then `translation`.
  static func motion(axis: SIMD3<Double>, degrees: Double, translation: SIMD3<Double>) -> PoseCW {
    PoseCW(r: Support.rotation(axis: axis, angle: degrees * Double.pi / 180), t: translation)
  }

  /// Renders z-depth (metres) seen by `cameraFromWorld`; `noise` adds N(0, (noise d²)²) with a
  /// seeded generator.
  static func render(
    _ scene: Scene, cameraFromWorld: PoseCW, noise: Double = 0, seed: UInt64 = 1
  ) -> DepthImage {
    let worldFromCamera = cameraFromWorld.inverse
    let rotation = PoseCW(r: worldFromCamera.r, t: .zero)
    var generator = SplitMix64(seed: seed)
    var metres = [Float](repeating: .nan, count: width * height)
    for v in 0..<height {
      for u in 0..<width {
        let ray = intrinsics.ray(SIMD2(Double(u), Double(v)))
        // With a ray of unit z in the camera frame, the distance along it is the z-depth.
        guard var depth = scene.hit(origin: worldFromCamera.t, direction: rotation.apply(ray)) else {
          continue
        }
        if noise > 0 { depth += noise * depth * depth * generator.gaussian() }
        metres[v * width + u] = Float(depth)
      }
    }
    return DepthImage(width: width, height: height, metres: metres)
  }

  /// Reference camera of the corner scene: looking into the corner, tilted down.
  static let cornerCamera = camera(position: SIMD3(-0.2, 0, -0.3), yaw: 45, pitch: 25)
  /// About 3 cm and 2 degrees.
  static let smallMotion = motion(
    axis: SIMD3(0.3, 1, 0.2), degrees: 2, translation: SIMD3(0.02, -0.015, 0.015))
  /// About 10 cm and 5 degrees.
  static let largeMotion = motion(
    axis: SIMD3(-0.4, 1, 0.3), degrees: 5, translation: SIMD3(0.06, 0.04, -0.07))

  /// Full-resolution sampling suits the small test images.
  static let parameters = DepthAlignment.Parameters(stride: 1)

  struct Errors {
    var translation: Double  // metres
    var rotation: Double  // degrees
  }

  static func errors(_ result: DepthAlignment.Result, _ truth: PoseCW) -> Errors {
    Errors(
      translation: Support.norm(result.currentFromReference.t - truth.t),
      rotation: Support.rotationDifferenceDegrees(result.currentFromReference.r, truth.r))
  }

  /// Aligns the current depth map of `images` to the reference one (``parameters`` unless given).
  static func align(
    _ images: (reference: DepthImage, current: DepthImage), initial: PoseCW? = nil,
    parameters: DepthAlignment.Parameters = parameters
  ) throws -> DepthAlignment.Result {
    try DepthAlignment.align(
      reference: images.reference, current: images.current, intrinsics: intrinsics, initial: initial,
      parameters: parameters)
  }

  /// Renders the reference and current views of `scene` for the motion `truth`.
  static func pair(
    _ scene: Scene, reference: PoseCW, truth: PoseCW, noise: Double = 0
  ) -> (reference: DepthImage, current: DepthImage) {
    (
      render(scene, cameraFromWorld: reference, noise: noise, seed: 1),
      render(scene, cameraFromWorld: compose(truth, reference), noise: noise, seed: 2)
    )
  }

  @Test func aligningAMapWithItselfGivesTheIdentity() throws {
    let depth = Self.render(.corner, cameraFromWorld: Self.cornerCamera)
    let result = try Self.align((depth, depth))
    let errors = Self.errors(result, .identity)
    #expect(errors.translation < 1e-6)
    #expect(errors.rotation < 1e-5)
    #expect(result.rmsError < 1e-5)
    #expect(result.level == 0)
    // Only border pixels and depth edges lack a normal.
    #expect(result.inlierFraction > 0.9)
    #expect(result.eigenvalues.count == 6)
    #expect(result.eigenvalues == result.eigenvalues.sorted())
  }

  @Test func recoversASmallMotion() throws {
    let truth = Self.smallMotion
    let (reference, current) = Self.pair(.corner, reference: Self.cornerCamera, truth: truth)
    let result = try Self.align((reference, current))
    let errors = Self.errors(result, truth)
    #expect(errors.translation < 0.001)
    #expect(errors.rotation < 0.05)
    #expect(result.rmsError < 0.002)
    #expect(result.inlierFraction > 0.8)
    #expect(!result.isDegenerate())
  }

  @Test func recoversASmallMotionFromNoisyDepth() throws {
    let truth = Self.smallMotion
    let (reference, current) = Self.pair(.corner, reference: Self.cornerCamera, truth: truth, noise: 0.0015)
    let result = try Self.align((reference, current))
    let errors = Self.errors(result, truth)
    #expect(errors.translation < 0.003)
    #expect(errors.rotation < 0.2)
    // Depth noise at 1.5...3.5 m is about 3...18 mm.
    #expect(result.rmsError > 0.002)
    #expect(result.rmsError < 0.03)
  }

  @Test func recoversALargeMotionThroughThePyramid() throws {
    let truth = Self.largeMotion
    let (reference, current) = Self.pair(.corner, reference: Self.cornerCamera, truth: truth)
    let result = try Self.align((reference, current))
    let errors = Self.errors(result, truth)
    #expect(errors.translation < 0.001)
    #expect(errors.rotation < 0.05)

    // Without the pyramid the same motion is out of reach: at full resolution, with as many
    // iterations, too few correct pairs lie within maxDistance at the start and the pose ends
    // far from the truth.
    var single = Self.parameters
    single.levels = 1
    single.iterationsPerLevel = [31]
    let flat = try Self.align((reference, current), parameters: single)
    #expect(Self.errors(flat, truth).translation > 0.01)
  }

  @Test func aGoodInitialGuessIsUsed() throws {
    let truth = Self.largeMotion
    let (reference, current) = Self.pair(.corner, reference: Self.cornerCamera, truth: truth)
    var single = Self.parameters
    single.levels = 1
    single.iterationsPerLevel = [10]
    let result = try Self.align((reference, current), initial: truth, parameters: single)
    let errors = Self.errors(result, truth)
    #expect(errors.translation < 0.0005)
    #expect(errors.rotation < 0.02)
    #expect(result.iterations <= 3)
  }

  @Test func flagsASinglePlaneAsDegenerate() throws {
    let floorCamera = Self.camera(position: SIMD3(0, 0, 0), yaw: 10, pitch: 60)
    let truth = Self.smallMotion
    let (reference, current) = Self.pair(.floor, reference: floorCamera, truth: truth)
    let result = try Self.align((reference, current))
    #expect(result.isDegenerate())
    // Three directions unconstrained (zero up to single-precision rounding), three well constrained.
    #expect(result.eigenvalues[2] < 1e-5)
    #expect(result.eigenvalues[3] > 0.01)
    // Whatever it did along the free directions, the floor is matched.
    #expect(result.rmsError < 0.001)

    let boxCamera = Self.camera(position: SIMD3(0, 0, 0), yaw: 10, pitch: 25)
    let (boxReference, boxCurrent) = Self.pair(.boxesOnFloor, reference: boxCamera, truth: truth)
    let boxes = try Self.align((boxReference, boxCurrent))
    #expect(!boxes.isDegenerate())
    let errors = Self.errors(boxes, truth)
    #expect(errors.translation < 0.001)
    #expect(errors.rotation < 0.05)
  }

  @Test func ignoresInvalidDepth() throws {
    let truth = Self.smallMotion
    let (reference, current) = Self.pair(.corner, reference: Self.cornerCamera, truth: truth)
    let clean = try Self.align((reference, current))

    var damagedReference = reference
    var damagedCurrent = current
    for v in 0..<Self.height {
      for u in 0..<Self.width {
        let i = v * Self.width + u
        if (20..<50).contains(u), (10..<40).contains(v) { damagedReference.metres[i] = .nan }
        if (100..<140).contains(u), (70..<100).contains(v) { damagedReference.metres[i] = 0 }
        if (60..<90).contains(u), (30..<70).contains(v) { damagedCurrent.metres[i] = .nan }
        if (0..<30).contains(u), (80..<120).contains(v) { damagedCurrent.metres[i] = -1 }
        // Beyond maxDepth (10 m): ignored as well.
        if (120..<160).contains(u), (0..<20).contains(v) { damagedCurrent.metres[i] = 50 }
        if (0..<160).contains(u), (118..<120).contains(v) { damagedReference.metres[i] = .infinity }
      }
    }
    let result = try Self.align((damagedReference, damagedCurrent))
    let errors = Self.errors(result, truth)
    #expect(errors.translation < 0.001)
    #expect(errors.rotation < 0.05)
    #expect(result.inlierCount < clean.inlierCount - 2000)
    #expect(result.rmsError < 0.002)
  }

  @Test func identicalInputsGiveBitIdenticalOutputs() throws {
    let (reference, current) = Self.pair(
      .corner, reference: Self.cornerCamera, truth: Self.smallMotion, noise: 0.0015)
    var parameters = Self.parameters
    parameters.robustLoss = .tukey
    parameters.robustScale = 0.05
    let first = try Self.align((reference, current), parameters: parameters)
    let second = try Self.align((reference, current), parameters: parameters)
    #expect(first.currentFromReference.r.map(\.bitPattern) == second.currentFromReference.r.map(\.bitPattern))
    #expect(
      [first.currentFromReference.t.x, first.currentFromReference.t.y, first.currentFromReference.t.z].map(
        \.bitPattern)
        == [
          second.currentFromReference.t.x, second.currentFromReference.t.y, second.currentFromReference.t.z,
        ]
        .map(\.bitPattern))
    #expect(first.rmsError.bitPattern == second.rmsError.bitPattern)
    #expect(first.eigenvalues.map(\.bitPattern) == second.eigenvalues.map(\.bitPattern))
    #expect(first.inlierCount == second.inlierCount)
    #expect(first.iterations == second.iterations)
    // Tukey recovers the motion too.
    let errors = Self.errors(first, Self.smallMotion)
    #expect(errors.translation < 0.003)
    #expect(errors.rotation < 0.2)
  }

  /// Expects `body` to throw a `VisionError` with the code of `expected` whose message mentions
  /// `mention` (the argument at fault).
  static func expectError(
    _ expected: VisionError, mentioning mention: String, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void
  ) {
    let error = #expect(throws: VisionError.self, sourceLocation: sourceLocation) { try body() }
    #expect(error?.code == expected.code, sourceLocation: sourceLocation)
    #expect(
      error?.message.contains(mention) == true, "\(String(describing: error))", sourceLocation: sourceLocation
    )
  }

  @Test func rejectsInvalidArguments() throws {
    let depth = Self.render(.corner, cameraFromWorld: Self.cornerCamera)
    let smaller = DepthImage(width: 80, height: 60, fill: 2)
    Self.expectError(.invalidArgument, mentioning: "differ in size") {
      _ = try DepthAlignment.align(
        reference: depth, current: smaller, intrinsics: Self.intrinsics, initial: nil)
    }
    var nonFinite = Self.intrinsics
    nonFinite.fx = .nan
    Self.expectError(.invalidArgument, mentioning: "intrinsics.fx") {
      _ = try DepthAlignment.align(reference: depth, current: depth, intrinsics: nonFinite, initial: nil)
    }
    nonFinite = Self.intrinsics
    nonFinite.cy = .infinity
    Self.expectError(.invalidArgument, mentioning: "intrinsics.cy") {
      _ = try DepthAlignment.align(reference: depth, current: depth, intrinsics: nonFinite, initial: nil)
    }
    let invalidParameters: [(DepthAlignment.Parameters, String)] = [
      (.init(levels: 0, iterationsPerLevel: [5]), "levels"),
      (.init(levels: 6, iterationsPerLevel: [5]), "levels"),
      (.init(levels: 2, iterationsPerLevel: [5, 5, 5]), "iterationsPerLevel"),
      (.init(iterationsPerLevel: [-1]), "iterations"),
      (.init(iterationsPerLevel: [5, 101, 5]), "iterations[1]"),
      (.init(maxDistance: 0), "max_distance"),
      (.init(maxNormalAngleDegrees: .nan), "max_normal_angle_degrees"),
      (.init(stride: 0), "stride"),
      (.init(minDepth: 3, maxDepth: 2), "max_depth"),
      (.init(robustScale: -1), "robust_scale"),
      (.init(stopTranslation: .infinity), "stop_translation"),
      (.init(normalRadius: 0), "normal_radius"),
    ]
    for (parameters, mention) in invalidParameters {
      Self.expectError(.invalidArgument, mentioning: mention) {
        _ = try Self.align((depth, depth), parameters: parameters)
      }
    }
    // 40 x 30 is 5 x 3 at the fourth level: too small.
    let tiny = DepthImage(width: 40, height: 30, fill: 2)
    Self.expectError(.invalidArgument, mentioning: "too small") {
      _ = try DepthAlignment.align(
        reference: tiny, current: tiny, intrinsics: Self.intrinsics, initial: nil,
        parameters: .init(levels: 4, iterationsPerLevel: [5]))
    }
    let empty = DepthImage(width: 0, height: 0)
    Self.expectError(.invalidArgument, mentioning: "size") {
      _ = try DepthAlignment.align(
        reference: empty, current: empty, intrinsics: Self.intrinsics, initial: nil)
    }
    let notARotation = PoseCW(r: [1, 0, 0, 0, 1, 0, 0, 0, 2], t: .zero)
    Self.expectError(.invalidArgument, mentioning: "rotation") {
      _ = try DepthAlignment.align(
        reference: depth, current: depth, intrinsics: Self.intrinsics, initial: notARotation)
    }
  }

  @Test func reportsNotEnoughDataForEmptyMaps() throws {
    let empty = DepthImage(width: Self.width, height: Self.height)
    Self.expectError(.notEnoughData, mentioning: "correspondences") {
      _ = try DepthAlignment.align(
        reference: empty, current: empty, intrinsics: Self.intrinsics, initial: nil)
    }
    // Depth everywhere, but all of it beyond maxDepth.
    let far = DepthImage(width: Self.width, height: Self.height, fill: 20)
    Self.expectError(.notEnoughData, mentioning: "correspondences") {
      _ = try DepthAlignment.align(reference: far, current: far, intrinsics: Self.intrinsics, initial: nil)
    }
  }

  @Test func parametersDecodeWithDefaults() throws {
    let decoded = try JSONDecoder().decode(
      DepthAlignment.Parameters.self, from: Data(#"{"levels": 2, "robustLoss": "tukey"}"#.utf8))
    var expected = DepthAlignment.Parameters()
    expected.levels = 2
    expected.robustLoss = .tukey
    #expect(decoded == expected)
    let roundTrip = try JSONDecoder().decode(
      DepthAlignment.Parameters.self, from: JSONEncoder().encode(expected))
    #expect(roundTrip == expected)
  }

  @Test func aRotationPriorHoldsTheInitialRotation() throws {
    let truth = Self.smallMotion
    let (reference, current) = Self.pair(.corner, reference: Self.cornerCamera, truth: truth)
    // The guess: the true motion turned by one more degree (a gyroscope's error, say).
    let guess = Self.compose(Self.motion(axis: SIMD3(0, 0, 1), degrees: 1, translation: .zero), truth)
    var held = Self.parameters
    held.rotationPriorWeight = 1e4
    let result = try Self.align((reference, current), initial: guess, parameters: held)
    #expect(Support.rotationDifferenceDegrees(result.currentFromReference.r, guess.r) < 0.02)
    // Without the prior the same guess converges to the truth.
    let free = try Self.align((reference, current), initial: guess)
    #expect(Self.errors(free, truth).rotation < 0.05)
    // A weak prior moves the rotation most of the way to the depth's.
    held.rotationPriorWeight = 0.01
    let weak = try Self.align((reference, current), initial: guess, parameters: held)
    #expect(Self.errors(weak, truth).rotation < 0.3)
    held.rotationPriorWeight = -1
    Self.expectError(.invalidArgument, mentioning: "rotation_prior_weight") {
      _ = try Self.align((reference, current), initial: guess, parameters: held)
    }
  }

  @Test func aTranslationPriorHoldsTheInitialTranslation() throws {
    let truth = Self.smallMotion
    let images = Self.pair(.corner, reference: Self.cornerCamera, truth: truth)
    // The guess: the true motion 2 cm off (an accelerometer's prediction, say).
    var guess = truth
    guess.t += SIMD3(0.02, 0, 0)
    func translation(weight: Double) throws -> SIMD3<Double> {
      var parameters = Self.parameters
      parameters.translationPriorWeight = weight
      return try Self.align(images, initial: guess, parameters: parameters).currentFromReference.t
    }
    // Strong: the guess is kept; none: the depth's truth; weak: what the depth constrains is its own.
    let strong = try translation(weight: 1e4)
    let none = try translation(weight: 0)
    let weak = try translation(weight: 0.01)
    #expect(Support.norm(strong - guess.t) < 0.0005)
    #expect(Support.norm(none - truth.t) < 0.001)
    #expect(Support.norm(weak - truth.t) < 0.005)
    Self.expectError(.invalidArgument, mentioning: "translation_prior_weight") {
      _ = try translation(weight: -1)
    }
  }

}
