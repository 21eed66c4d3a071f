import ARSim
import Foundation
import Testing

@Suite struct BundleAdjustmentTests {
  typealias Support = VisionTestSupport

  static let intrinsics = CameraIntrinsics(fx: 500, fy: 500, cx: 319.5, cy: 239.5, width: 640, height: 480)
  static let width = 640.0
  static let height = 480.0

  /// A synthetic window: the true cameras and points, the observations (with noise and outliers)
  /// and a perturbed starting point for the adjustment.
  struct Scene {
    var trueCameras: [PoseCW] = []
    var truePoints: [SIMD3<Double>] = []
    var observations: [BundleAdjustment.Observation] = []
    /// Per observation: whether it was moved by `outlierPixels`.
    var isOutlier: [Bool] = []
    var fixed: [Bool] = []
    var startCameras: [PoseCW] = []
    var startPoints: [SIMD3<Double>] = []
  }

  /// Row-major 3x3 product `a * b`.
  static func multiply(_ a: [Double], _ b: [Double]) -> [Double] {
    (0..<9).map { index in
      let row = index / 3
      let column = index % 3
      return (0..<3).map { a[3 * row + $0] * b[3 * $0 + column] }.reduce(0, +)
    }
  }

  /// A unit vector in a uniformly random direction.
  static func randomDirection(_ generator: inout SplitMix64) -> SIMD3<Double> {
    while true {
      let v = SIMD3(generator.gaussian(), generator.gaussian(), generator.gaussian())
      let length = Support.norm(v)
      if length > 1e-6 { return v / length }
    }
  }

  /// `cameraCount` cameras moving along an arc around a box of `pointCount` seeded random points
  /// (3.6 x 2.6 x 3 m, 2.5...5.5 m in front of the first camera). Each camera observes the points
  /// that project inside its 640 x 480 image, with Gaussian noise of `noise` pixels per axis; a
  /// fraction `outlierFraction` of the observations is moved by `outlierPixels` in a random
  /// direction. The first two cameras are fixed; the others start rotated by 2° about a random
  /// axis and translated by 5 cm, every point starts 5 cm off.
  static func scene(
    cameraCount: Int = 8, pointCount: Int = 500, noise: Double = 0.5, outlierFraction: Double = 0,
    outlierPixels: Double = 30, seed: UInt64 = 7
  ) -> Scene {
    var generator = SplitMix64(seed: seed)
    var scene = Scene()
    // The cameras move along an arc of radius 4 m around the scene centre (0, 0, 4), 0.6 m
    // (8.6°) apart, bobbing a little up and down and rolling slightly, each looking at the centre.
    for i in 0..<cameraCount {
      let angle = -0.5 + 0.15 * Double(i)
      let worldFromCameraR = multiply(
        Support.rotation(axis: SIMD3(0, 1, 0), angle: -angle),
        Support.rotation(axis: SIMD3(0, 0, 1), angle: 0.01 * Double(i)))
      let centre = SIMD3(4 * sin(angle), 0.05 * sin(Double(i)), 4 - 4 * cos(angle))
      scene.trueCameras.append(PoseCW(r: worldFromCameraR, t: centre).inverse)
    }
    for _ in 0..<pointCount {
      scene.truePoints.append(
        SIMD3(generator.uniform(-1.8, 1.8), generator.uniform(-1.3, 1.3), generator.uniform(2.5, 5.5)))
    }
    for (p, point) in scene.truePoints.enumerated() {
      for (c, camera) in scene.trueCameras.enumerated() {
        let inCamera = camera.apply(point)
        guard inCamera.z > 0.5 else { continue }
        let pixel = intrinsics.project(inCamera)
        guard pixel.x >= 0, pixel.x < width, pixel.y >= 0, pixel.y < height else { continue }
        var observed = pixel + noise * SIMD2(generator.gaussian(), generator.gaussian())
        let outlier = generator.uniform(0, 1) < outlierFraction
        if outlier {
          let angle = generator.uniform(0, 2 * Double.pi)
          observed += outlierPixels * SIMD2(cos(angle), sin(angle))
        }
        scene.observations.append(BundleAdjustment.Observation(camera: c, point: p, pixel: observed))
        scene.isOutlier.append(outlier)
      }
    }
    scene.fixed = scene.trueCameras.indices.map { $0 < 2 }
    scene.startCameras = scene.trueCameras.indices.map { c in
      let truth = scene.trueCameras[c]
      guard !scene.fixed[c] else { return truth }
      let rotation = Support.rotation(
        axis: randomDirection(&generator), angle: 2 * Double.pi / 180)
      return PoseCW(r: multiply(rotation, truth.r), t: truth.t + 0.05 * randomDirection(&generator))
    }
    scene.startPoints = scene.truePoints.map { $0 + 0.05 * randomDirection(&generator) }
    return scene
  }

  /// RMS reprojection error (pixels) of `observations` for the given cameras and points.
  static func rms(
    _ observations: [BundleAdjustment.Observation], cameras: [PoseCW], points: [SIMD3<Double>]
  ) -> Double {
    let sum = observations.map { o -> Double in
      let d = intrinsics.project(cameras[o.camera].apply(points[o.point])) - o.pixel
      return (d * d).sum()
    }.reduce(0, +)
    return (sum / Double(observations.count)).squareRoot()
  }

  /// Largest rotation error (degrees) and camera-centre error (metres) over the cameras.
  static func poseErrors(_ estimate: [PoseCW], _ truth: [PoseCW]) -> (degrees: Double, metres: Double) {
    var degrees = 0.0
    var metres = 0.0
    for (e, t) in zip(estimate, truth) {
      degrees = max(degrees, Support.rotationDifferenceDegrees(e.r, t.r))
      metres = max(metres, Support.norm(e.inverse.t - t.inverse.t))
    }
    return (degrees, metres)
  }

  static func bits(_ pose: PoseCW) -> [UInt64] {
    pose.r.map(\.bitPattern) + [pose.t.x, pose.t.y, pose.t.z].map(\.bitPattern)
  }

  static func bits(_ point: SIMD3<Double>) -> [UInt64] {
    [point.x, point.y, point.z].map(\.bitPattern)
  }

  static func adjust(_ scene: Scene, huberDelta: Double = 2) throws -> BundleAdjustment.Result {
    try BundleAdjustment.adjust(
      cameras: scene.startCameras, fixed: scene.fixed, points: scene.startPoints,
      observations: scene.observations, intrinsics: intrinsics, huberDelta: huberDelta)
  }

  @Test func noiseFreeDataAreFitExactly() throws {
    let scene = Self.scene(pointCount: 200, noise: 0, seed: 6)
    let result = try Self.adjust(scene)
    let after = Self.poseErrors(result.cameras, scene.trueCameras)
    #expect(after.degrees < 1e-9)
    #expect(after.metres < 1e-9)
    let pointErrors = zip(result.points, scene.truePoints).map { Support.norm($0 - $1) }
    #expect(pointErrors.max()! < 1e-8)
    #expect(result.initialRMS > 10)
    #expect(result.finalRMS < 1e-9)
    #expect(result.outliers == 0)
  }

  @Test func recoversPosesAndPointsFromAPerturbedStart() throws {
    // The bounds below sit above the statistical limit of 0.5 px noise on this scene, on other seeds
    // too (errors scale linearly with the noise, and starting at the truth gives the same answer).
    let scene = Self.scene(seed: 9)
    // Every camera sees a good part of the scene.
    for c in scene.trueCameras.indices {
      #expect(scene.observations.filter { $0.camera == c }.count > 100)
    }
    let before = Self.poseErrors(scene.startCameras, scene.trueCameras)
    #expect(before.degrees > 1.9)

    let result = try Self.adjust(scene)
    let after = Self.poseErrors(result.cameras, scene.trueCameras)
    #expect(after.degrees < 0.1)
    #expect(after.metres < 0.005)
    let pointErrors = zip(result.points, scene.truePoints).map { Support.norm($0 - $1) }
    #expect(Support.median(pointErrors) < 0.01)  // were 5 cm

    // The RMS drops from tens of pixels to the noise level: 0.5 px per axis is 0.71 px per
    // observation, and the optimum fits the noise slightly better than the truth does.
    let truthRMS = Self.rms(scene.observations, cameras: scene.trueCameras, points: scene.truePoints)
    #expect(result.initialRMS > 10)
    #expect(
      abs(
        result.initialRMS
          - Self.rms(scene.observations, cameras: scene.startCameras, points: scene.startPoints))
        < 1e-9)
    #expect(result.finalRMS <= truthRMS)
    #expect(result.finalRMS > 0.6)
    #expect(
      abs(result.finalRMS - Self.rms(scene.observations, cameras: result.cameras, points: result.points))
        < 1e-9)
    #expect(result.iterations >= 2)
    #expect(result.iterations <= 10)
    #expect(result.outliers == 0)

    // Fixed cameras come back bit-identical.
    for c in scene.trueCameras.indices where scene.fixed[c] {
      #expect(Self.bits(result.cameras[c]) == Self.bits(scene.startCameras[c]))
    }
  }

  @Test func huberWeightsKeepOutliersFromSpoilingTheFit() throws {
    // On other seeds too, the Huber fit ends within the bounds below and plain least squares several
    // times farther from the truth.
    let scene = Self.scene(outlierFraction: 0.1, seed: 7)
    let injected = scene.isOutlier.filter { $0 }.count
    #expect(injected > scene.observations.count / 20)

    let result = try Self.adjust(scene)
    let after = Self.poseErrors(result.cameras, scene.trueCameras)
    #expect(after.degrees < 0.1)
    #expect(after.metres < 0.005)
    // Outliers are reported: 30 px is above 3 x 2 px, 0.5 px noise never is (a point seen twice
    // can absorb part of a displacement, so the count may differ by a few in general).
    #expect(abs(result.outliers - injected) <= injected / 50)
    // The inliers fit to the noise level: for 0.5 px per axis the median error is 0.59 px. (Their
    // RMS is higher: a point seen by few cameras shares an outlier's displacement with its inliers.)
    let inlierErrors = scene.observations.indices.filter { !scene.isOutlier[$0] }.map { k in
      let o = scene.observations[k]
      let d = Self.intrinsics.project(result.cameras[o.camera].apply(result.points[o.point])) - o.pixel
      return (d * d).sum().squareRoot()
    }
    #expect(Support.median(inlierErrors) < 0.65)

    // Plain least squares on the same data does worse.
    let plain = try Self.adjust(scene, huberDelta: .infinity)
    let plainErrors = Self.poseErrors(plain.cameras, scene.trueCameras)
    #expect(plainErrors.degrees > 0.2)
    #expect(plainErrors.metres > 0.01)
  }

  @Test func sameInputGivesBitIdenticalOutput() throws {
    let scene = Self.scene(pointCount: 200, outlierFraction: 0.05, seed: 9)
    let first = try Self.adjust(scene)
    let second = try Self.adjust(scene)
    #expect(first.cameras.map(Self.bits) == second.cameras.map(Self.bits))
    #expect(first.points.map(Self.bits) == second.points.map(Self.bits))
    #expect(first.finalRMS.bitPattern == second.finalRMS.bitPattern)
    #expect(first.iterations == second.iterations)
    #expect(first.outliers == second.outliers)
  }

  @Test func unobservedPointsAndObservationsBehindTheCameraAreLeftAlone() throws {
    var scene = Self.scene(cameraCount: 6, pointCount: 150, seed: 10)
    let reference = try Self.adjust(scene)

    // A point behind camera 3, observed only by it, and a point nobody observes.
    let behind = scene.trueCameras[3].inverse.apply(SIMD3(0.2, -0.1, -2))
    let unobserved = SIMD3(1.0, 2.0, 5.0)
    scene.startPoints += [behind, unobserved]
    scene.observations.append(
      BundleAdjustment.Observation(camera: 3, point: scene.startPoints.count - 2, pixel: SIMD2(300, 200)))
    let result = try Self.adjust(scene)

    #expect(Self.bits(result.points[result.points.count - 2]) == Self.bits(behind))
    #expect(Self.bits(result.points[result.points.count - 1]) == Self.bits(unobserved))
    #expect(result.outliers == reference.outliers + 1)
    // The ignored observation changes nothing else (up to rounding of the cost sums).
    for (a, b) in zip(result.cameras, reference.cameras) {
      #expect(Support.rotationDifferenceDegrees(a.r, b.r) < 1e-7)
      #expect(Support.norm(a.t - b.t) < 1e-9)
    }
    for (a, b) in zip(result.points, reference.points) { #expect(Support.norm(a - b) < 1e-9) }
    #expect(abs(result.finalRMS - reference.finalRMS) < 1e-9)
  }

  /// RGB-D: with the measured depth of every observation as a prior (noise 5 mm), one fixed camera
  /// holds the gauge and the depths hold the scale; the window is recovered from a start 5 cm and 2°
  /// off (one camera 10 cm) to a few millimetres.
  @Test func depthPriorsHoldTheScaleWithOneFixedCamera() throws {
    var scene = Self.scene(pointCount: 300, noise: 0.3, seed: 21)
    var generator = SplitMix64(seed: 5)
    let sigma = 0.005
    for k in scene.observations.indices {
      let o = scene.observations[k]
      let z = scene.trueCameras[o.camera].apply(scene.truePoints[o.point]).z
      scene.observations[k].depth = .init(depth: z + sigma * generator.gaussian(), sigma: sigma)
    }
    scene.fixed = scene.trueCameras.indices.map { $0 == 0 }
    scene.startCameras[1] = PoseCW(r: scene.startCameras[1].r, t: scene.startCameras[1].t + SIMD3(0.05, 0, 0))
    let result = try Self.adjust(scene)
    let after = Self.poseErrors(result.cameras, scene.trueCameras)
    #expect(after.metres < 0.004, "camera error \(after.metres) m")
    #expect(after.degrees < 0.1, "rotation error \(after.degrees)°")
    #expect(result.finalRMS < 0.5)
  }

  /// The rotation from camera `b`'s optical frame to camera `a`'s (camera-from-world poses): R_a R_bᵀ.
  static func turn(_ a: PoseCW, _ b: PoseCW) -> simd_quatd {
    let bT = (0..<9).map { b.r[3 * ($0 % 3) + $0 / 3] }
    let m = multiply(a.r, bT)
    return simd_quatd(
      simd_double3x3(rows: [SIMD3(m[0], m[1], m[2]), SIMD3(m[3], m[4], m[5]), SIMD3(m[6], m[7], m[8])]))
  }

  /// The true turn between each pair of consecutive cameras as a prior of `sigmaDegrees`.
  static func truePriors(_ scene: Scene, sigmaDegrees: Double) -> [BundleAdjustment.RotationPrior] {
    scene.trueCameras.indices.dropFirst().map { c in
      BundleAdjustment.RotationPrior(
        first: c - 1, second: c, firstFromSecond: turn(scene.trueCameras[c - 1], scene.trueCameras[c]),
        sigma: sigmaDegrees * .pi / 180)
    }
  }

  /// A gyroscope holds the tilt: every camera after the two fixed ones is observed as if tilted a
  /// further 0.1° about its x axis (the visual constraints drift, 0.6° by the last camera). Alone the
  /// window follows them; with the true turns between consecutive cameras as priors (0.002°, which
  /// outweighs a camera's 200-odd observations) each camera stays within a few hundredths of a degree
  /// of the truth, and the fit is no worse for the observations than a tenth of the drift.
  @Test func rotationPriorsHoldTheTiltAgainstDriftingObservations() throws {
    var scene = Self.scene(pointCount: 300, noise: 0.3, seed: 13)
    var generator = SplitMix64(seed: 3)
    let drifted = scene.trueCameras.indices.map { c -> PoseCW in
      let truth = scene.trueCameras[c]
      let tilt = Support.rotation(axis: SIMD3(1, 0, 0), angle: 0.1 * Double(max(0, c - 1)) * .pi / 180)
      return PoseCW(r: Self.multiply(tilt, truth.r), t: truth.t)
    }
    for k in scene.observations.indices {
      let o = scene.observations[k]
      scene.observations[k].pixel =
        Self.intrinsics.project(drifted[o.camera].apply(scene.truePoints[o.point]))
        + 0.3 * SIMD2(generator.gaussian(), generator.gaussian())
    }
    let free = try Self.adjust(scene)
    let freeErrors = zip(free.cameras, scene.trueCameras).map {
      Support.rotationDifferenceDegrees($0.r, $1.r)
    }
    #expect(freeErrors.last! > 0.4, "without priors the last camera is \(freeErrors.last!)° off")

    let priors = Self.truePriors(scene, sigmaDegrees: 0.002)
    let held = try BundleAdjustment.adjust(
      cameras: scene.startCameras, fixed: scene.fixed, points: scene.startPoints,
      observations: scene.observations, intrinsics: Self.intrinsics, iterations: 20, rotationPriors: priors)
    let heldErrors = zip(held.cameras, scene.trueCameras).map {
      Support.rotationDifferenceDegrees($0.r, $1.r)
    }
    #expect(heldErrors.max()! < 0.05, "with priors the cameras are \(heldErrors)° off")
    #expect(held.finalRMS > free.finalRMS)
    // Priors between fixed cameras only are constants: the result is the plain one, bit for bit.
    let constant = try BundleAdjustment.adjust(
      cameras: scene.startCameras, fixed: scene.fixed, points: scene.startPoints,
      observations: scene.observations, intrinsics: Self.intrinsics, huberDelta: 2,
      rotationPriors: [priors[0]])
    #expect(constant.cameras.map(Self.bits) == free.cameras.map(Self.bits))
  }

  /// Exact priors on noise-free data change nothing: the truth is still fitted exactly (the priors'
  /// derivatives, the cross terms between two free cameras included, agree with the cost).
  @Test func exactRotationPriorsKeepANoiseFreeFitExact() throws {
    let scene = Self.scene(pointCount: 200, noise: 0, seed: 6)
    let priors = Self.truePriors(scene, sigmaDegrees: 0.01)
    let result = try BundleAdjustment.adjust(
      cameras: scene.startCameras, fixed: scene.fixed, points: scene.startPoints,
      observations: scene.observations, intrinsics: Self.intrinsics, rotationPriors: priors)
    let after = Self.poseErrors(result.cameras, scene.trueCameras)
    #expect(after.degrees < 1e-8)
    #expect(after.metres < 1e-8)
    #expect(result.finalRMS < 1e-8)
  }

  @Test func zeroIterationsReturnTheInput() throws {
    let scene = Self.scene(cameraCount: 4, pointCount: 60, seed: 11)
    let result = try BundleAdjustment.adjust(
      cameras: scene.startCameras, fixed: scene.fixed, points: scene.startPoints,
      observations: scene.observations, intrinsics: Self.intrinsics, iterations: 0)
    #expect(result.cameras.map(Self.bits) == scene.startCameras.map(Self.bits))
    #expect(result.points.map(Self.bits) == scene.startPoints.map(Self.bits))
    #expect(result.iterations == 0)
    #expect(result.initialRMS == result.finalRMS)
    #expect(result.initialRMS > 10)
  }

  @Test func invalidArgumentsAreRejected() throws {
    let scene = Self.scene(cameraCount: 4, pointCount: 60, seed: 12)
    func adjust(
      cameras: [PoseCW]? = nil, fixed: [Bool]? = nil, points: [SIMD3<Double>]? = nil,
      observations: [BundleAdjustment.Observation]? = nil, iterations: Int = 10, huberDelta: Double = 2,
      initialLambda: Double = 1e-4, rotationPriors: [BundleAdjustment.RotationPrior] = []
    ) throws(VisionError) {
      _ = try BundleAdjustment.adjust(
        cameras: cameras ?? scene.startCameras, fixed: fixed ?? scene.fixed,
        points: points ?? scene.startPoints, observations: observations ?? scene.observations,
        intrinsics: Self.intrinsics, iterations: iterations, huberDelta: huberDelta,
        initialLambda: initialLambda, rotationPriors: rotationPriors)
    }
    func modified(_ change: (inout BundleAdjustment.Observation) -> Void) -> [BundleAdjustment.Observation] {
      var observations = scene.observations
      change(&observations[observations.count / 2])
      return observations
    }
    let nan = Double.nan
    func expectError(
      _ expected: VisionError, sourceLocation: SourceLocation = #_sourceLocation,
      _ body: () throws -> Void
    ) {
      let error = #expect(throws: VisionError.self, sourceLocation: sourceLocation) { try body() }
      #expect(error?.code == expected.code, sourceLocation: sourceLocation)
      #expect(error?.message.isEmpty == false, sourceLocation: sourceLocation)
    }

    expectError(.invalidArgument) { try adjust(observations: modified { $0.camera = 4 }) }
    expectError(.invalidArgument) { try adjust(observations: modified { $0.camera = -1 }) }
    expectError(.invalidArgument) { try adjust(observations: modified { $0.point = 60 }) }
    expectError(.invalidArgument) { try adjust(observations: modified { $0.point = -3 }) }
    expectError(.invalidArgument) {
      try adjust(observations: modified { $0.point = Int(Int32.max) + 1 })
    }
    expectError(.invalidArgument) { try adjust(observations: modified { $0.pixel.y = nan }) }
    expectError(.invalidArgument) {
      try adjust(observations: modified { $0.pixel.x = .infinity })
    }
    expectError(.invalidArgument) { try adjust(cameras: [], fixed: []) }
    expectError(.invalidArgument) { try adjust(points: []) }
    expectError(.invalidArgument) { try adjust(observations: []) }
    expectError(.invalidArgument) { try adjust(fixed: [true]) }
    expectError(.invalidArgument) { try adjust(fixed: [false, false, false, false]) }
    var points = scene.startPoints
    points[5].z = nan
    expectError(.invalidArgument) { try adjust(points: points) }
    var cameras = scene.startCameras
    cameras[2].r[4] = 2  // not a rotation
    expectError(.invalidArgument) { try adjust(cameras: cameras) }
    cameras = scene.startCameras
    cameras[3].t.x = nan
    expectError(.invalidArgument) { try adjust(cameras: cameras) }
    expectError(.invalidArgument) { try adjust(iterations: -1) }
    expectError(.invalidArgument) { try adjust(huberDelta: 0) }
    expectError(.invalidArgument) { try adjust(huberDelta: nan) }
    expectError(.invalidArgument) { try adjust(initialLambda: 0) }
    let identity = simd_quatd(ix: 0, iy: 0, iz: 0, r: 1)
    for (first, second, sigma) in [(2, 2, 0.01), (2, 4, 0.01), (-1, 2, 0.01), (1, 2, 0.0), (1, 2, nan)] {
      expectError(.invalidArgument) {
        try adjust(
          rotationPriors: [.init(first: first, second: second, firstFromSecond: identity, sigma: sigma)])
      }
    }
    expectError(.invalidArgument) {
      try adjust(observations: modified { $0.depth = .init(depth: 3, sigma: 0) })
    }
    expectError(.invalidArgument) {
      try adjust(observations: modified { $0.depth = .init(depth: -1, sigma: 0.01) })
    }
    expectError(.invalidArgument) {
      try adjust(observations: modified { $0.depth = .init(depth: .infinity, sigma: 0.01) })
    }

    // Every observation behind its camera: nothing to adjust.
    let behind = scene.trueCameras[0].inverse.apply(SIMD3(0, 0, -3))
    expectError(.notEnoughData) {
      try adjust(
        points: [behind],
        observations: [BundleAdjustment.Observation(camera: 0, point: 0, pixel: SIMD2(320, 240))])
    }

    // The valid input itself is accepted.
    try adjust()
  }
}
