import ARSim
import Testing

@Suite struct GeometrySolverTests {
  typealias Support = VisionTestSupport

  static let intrinsics = CameraIntrinsics(fx: 520, fy: 515, cx: 319.5, cy: 239.5, width: 640, height: 480)
  /// Camera-from-world of the test camera.
  static let cameraFromWorld = PoseCW(
    r: Support.rotation(axis: SIMD3(0.3, -1, 0.2), angle: 0.35), t: SIMD3(0.4, -0.25, 1.1))

  /// A synthetic PnP problem: `count` points 2...6 m in front of the camera, observed with
  /// Gaussian pixel noise, and the first `outliers` observations replaced by random pixels.
  struct Scene {
    var world: [SIMD3<Double>] = []
    var image: [SIMD2<Double>] = []
    var isOutlier: [Bool] = []
  }

  static func scene(count: Int, noise: Double, outlierFraction: Double, seed: UInt64) -> Scene {
    var generator = SplitMix64(seed: seed)
    let worldFromCamera = cameraFromWorld.inverse
    var scene = Scene()
    for i in 0..<count {
      let z = generator.uniform(2, 6)
      let u = generator.uniform(10, 630)
      let v = generator.uniform(10, 470)
      let inCamera = SIMD3(
        (u - intrinsics.cx) / intrinsics.fx * z, (v - intrinsics.cy) / intrinsics.fy * z, z)
      scene.world.append(worldFromCamera.apply(inCamera))
      let outlier = Double(i) < outlierFraction * Double(count)
      if outlier {
        scene.image.append(SIMD2(generator.uniform(0, 640), generator.uniform(0, 480)))
      } else {
        scene.image.append(
          intrinsics.project(inCamera) + SIMD2(noise * generator.gaussian(), noise * generator.gaussian()))
      }
      scene.isOutlier.append(outlier)
    }
    return scene
  }

  static func reprojectionError(_ pose: PoseCW, _ world: SIMD3<Double>, _ image: SIMD2<Double>) -> Double {
    let d = intrinsics.project(pose.apply(world)) - image
    return (d * d).sum().squareRoot()
  }

  @Test func pnpRansacRecoversThePoseDespiteNoiseAndOutliers() throws {
    let scene = Self.scene(count: 200, noise: 0.3, outlierFraction: 0.2, seed: 11)
    let result = try PoseSolver.solvePnPRansac(
      worldPoints: scene.world, imagePoints: scene.image, intrinsics: Self.intrinsics, threshold: 2, seed: 1)
    let truth = Self.cameraFromWorld
    #expect(Support.rotationDifferenceDegrees(result.pose.r, truth.r) < 0.1)
    // Scene scale ~4 m: within 1 mm per metre of scene scale.
    #expect(Support.norm(result.pose.t - truth.t) < 0.004)
    // Camera centres agree as well.
    #expect(Support.norm(result.pose.inverse.t - truth.inverse.t) < 0.004)

    for i in scene.world.indices where scene.isOutlier[i] {
      // An outlier may by chance lie within the threshold of its true projection.
      if result.inliers[i] { #expect(Self.reprojectionError(truth, scene.world[i], scene.image[i]) < 2.5) }
    }
    let trueInliersFound = scene.world.indices.filter { !scene.isOutlier[$0] && result.inliers[$0] }.count
    #expect(trueInliersFound >= 155)  // of 160; 0.3 px noise rarely exceeds 2 px

    // Same seed, same answer; another seed, the same pose within tolerance.
    let again = try PoseSolver.solvePnPRansac(
      worldPoints: scene.world, imagePoints: scene.image, intrinsics: Self.intrinsics, threshold: 2, seed: 1)
    #expect(again.pose == result.pose)
    #expect(again.inliers == result.inliers)
    let other = try PoseSolver.solvePnPRansac(
      worldPoints: scene.world, imagePoints: scene.image, intrinsics: Self.intrinsics, threshold: 2, seed: 99)
    #expect(Support.rotationDifferenceDegrees(other.pose.r, truth.r) < 0.1)
  }

  @Test("PnP RANSAC returns the least-squares pose of its inliers (the refinement converged)")
  func pnpRansacPoseIsTheLeastSquaresPoseOfItsInliers() throws {
    let scene = Self.scene(count: 150, noise: 0.5, outlierFraction: 0.2, seed: 21)
    let result = try PoseSolver.solvePnPRansac(
      worldPoints: scene.world, imagePoints: scene.image, intrinsics: Self.intrinsics, threshold: 2, seed: 5)
    let inliers = scene.world.indices.filter { result.inliers[$0] }
    #expect(inliers.count >= 110)
    let world = inliers.map { scene.world[$0] }
    let image = inliers.map { scene.image[$0] }
    func rms(_ pose: PoseCW) -> Double {
      let squares = zip(world, image).map {
        Self.reprojectionError(pose, $0, $1) * Self.reprojectionError(pose, $0, $1)
      }
      return (squares.reduce(0, +) / Double(squares.count)).squareRoot()
    }
    // Plain least squares (no Huber down-weighting) from the RANSAC pose lowers the error no further.
    let polished = try PoseSolver.refinePose(
      worldPoints: world, imagePoints: image, intrinsics: Self.intrinsics, initial: result.pose,
      iterations: 50,
      huberDelta: 1e9)
    #expect(rms(result.pose) <= polished.rmsError * (1 + 1e-9))
    // 0.5 px of noise in x and y: an RMS near 0.7 px.
    #expect(abs(rms(result.pose) - 0.5 * 2.0.squareRoot()) < 0.1)
  }

  @Test func pnpRansacUsesTheInitialGuess() throws {
    let scene = Self.scene(count: 60, noise: 0, outlierFraction: 0.5, seed: 12)
    // With a correct initial guess, even one iteration suffices.
    let result = try PoseSolver.solvePnPRansac(
      worldPoints: scene.world, imagePoints: scene.image, intrinsics: Self.intrinsics, maxIterations: 1,
      seed: 3, initial: Self.cameraFromWorld)
    #expect(Support.rotationDifferenceDegrees(result.pose.r, Self.cameraFromWorld.r) < 1e-6)
    #expect(Support.norm(result.pose.t - Self.cameraFromWorld.t) < 1e-6)
    #expect(result.inliers == scene.isOutlier.map { !$0 })
  }

  @Test func refinePoseConvergesFromAPerturbedPose() throws {
    let scene = Self.scene(count: 80, noise: 0, outlierFraction: 0, seed: 13)
    let truth = Self.cameraFromWorld
    let perturbation = PoseCW(
      r: Support.rotation(axis: SIMD3(1, 2, -1), angle: 3 * .pi / 180), t: SIMD3(0.05, -0.03, 0.08))
    let start = PoseCW(
      r: multiply(perturbation.r, truth.r), t: perturbation.apply(truth.t))
    #expect(Support.rotationDifferenceDegrees(start.r, truth.r) > 2.9)

    let refined = try PoseSolver.refinePose(
      worldPoints: scene.world, imagePoints: scene.image, intrinsics: Self.intrinsics, initial: start,
      iterations: 20)
    #expect(Support.rotationDifferenceDegrees(refined.pose.r, truth.r) < 1e-6)
    #expect(Support.norm(refined.pose.t - truth.t) < 1e-7)
    #expect(refined.rmsError < 1e-6)
    // The result is a rotation: r r^T = I.
    let r = refined.pose.r
    let rrt = multiply(r, [r[0], r[3], r[6], r[1], r[4], r[7], r[2], r[5], r[8]])
    #expect(zip(rrt, PoseCW.identity.r).allSatisfy { abs($0 - $1) < 1e-12 })
  }

  @Test("Depth priors pin the pose along the optical axis, where 1 px of pixel noise leaves it loose")
  func refinePoseWithDepthPriors() throws {
    let scene = Self.scene(count: 120, noise: 1, outlierFraction: 0, seed: 15)
    let truth = Self.cameraFromWorld
    let start = PoseCW(r: truth.r, t: truth.t + SIMD3(0.03, -0.02, 0.05))
    let depths = scene.world.map { truth.apply($0).z }
    let plain = try PoseSolver.refinePose(
      worldPoints: scene.world, imagePoints: scene.image, intrinsics: Self.intrinsics, initial: start,
      iterations: 30)
    // Every entry nil: no prior at all, the same pose to the bit.
    let none = try PoseSolver.refinePose(
      worldPoints: scene.world, imagePoints: scene.image,
      depthPriors: [BundleAdjustment.DepthPrior?](repeating: nil, count: depths.count),
      intrinsics: Self.intrinsics, initial: start, iterations: 30)
    #expect(none.pose.t == plain.pose.t && none.pose.r == plain.pose.r)
    let priors = depths.map { BundleAdjustment.DepthPrior(depth: $0, sigma: 0.001) }
    let withDepth = try PoseSolver.refinePose(
      worldPoints: scene.world, imagePoints: scene.image, depthPriors: priors, intrinsics: Self.intrinsics,
      initial: start, iterations: 30)
    // Along the optical axis (t of camera-from-world is in the camera frame).
    let plainError = abs(plain.pose.t.z - truth.t.z)
    let depthError = abs(withDepth.pose.t.z - truth.t.z)
    #expect(plainError > 0.0005, "1 px noise at 2-6 m: \(plainError) m")
    #expect(depthError < plainError / 4, "\(depthError) m with depth, \(plainError) m without")

    var bad = priors.map { Optional($0) }
    bad[7] = BundleAdjustment.DepthPrior(depth: -1, sigma: 0.001)
    let negative = #expect(throws: VisionError.self) {
      try PoseSolver.refinePose(
        worldPoints: scene.world, imagePoints: scene.image, depthPriors: bad, intrinsics: Self.intrinsics,
        initial: start)
    }
    #expect(negative?.message.contains("depth_priors[7]") == true)
    #expect(throws: VisionError.self) {
      try PoseSolver.refinePose(
        worldPoints: scene.world, imagePoints: scene.image, depthPriors: [nil], intrinsics: Self.intrinsics,
        initial: start)
    }
  }

  @Test("A rotation prior holds the rotation that pixel noise leaves loose, and a bad sigma is refused")
  func refinePoseWithARotationPrior() throws {
    let scene = Self.scene(count: 40, noise: 1, outlierFraction: 0, seed: 16)
    let truth = Self.cameraFromWorld
    let plain = try PoseSolver.refinePose(
      worldPoints: scene.world, imagePoints: scene.image, intrinsics: Self.intrinsics, initial: truth,
      iterations: 30)
    let plainError = Support.rotationDifferenceDegrees(plain.pose.r, truth.r)
    #expect(plainError > 0.01, "1 px noise, 40 points: \(plainError)°")
    // The true rotation known to a thousandth of a degree: the refined one stays within a few of it.
    let held = try PoseSolver.refinePose(
      worldPoints: scene.world, imagePoints: scene.image, intrinsics: Self.intrinsics, initial: truth,
      iterations: 30, rotationPrior: (truth, 1e-5))
    let heldError = Support.rotationDifferenceDegrees(held.pose.r, truth.r)
    #expect(heldError < plainError / 10, "\(heldError)° held, \(plainError)° without")
    // A prior turned 1° off with a loose sigma (10°) barely moves the pose.
    let off = PoseCW(
      r: multiply(Support.rotation(axis: SIMD3(0, 1, 0), angle: .pi / 180), truth.r), t: truth.t)
    let loose = try PoseSolver.refinePose(
      worldPoints: scene.world, imagePoints: scene.image, intrinsics: Self.intrinsics, initial: truth,
      iterations: 30, rotationPrior: (off, 10 * .pi / 180))
    #expect(Support.rotationDifferenceDegrees(loose.pose.r, plain.pose.r) < 0.01)
    for sigma in [0, -1, Double.nan, .infinity] {
      #expect(throws: VisionError.self) {
        try PoseSolver.refinePose(
          worldPoints: scene.world, imagePoints: scene.image, intrinsics: Self.intrinsics, initial: truth,
          rotationPrior: (truth, sigma))
      }
    }
  }

  @Test func refinePoseIsRobustToOutliersAndHonoursWeights() throws {
    let scene = Self.scene(count: 120, noise: 0.3, outlierFraction: 0.15, seed: 14)
    let truth = Self.cameraFromWorld
    let start = PoseCW(
      r: multiply(Support.rotation(axis: SIMD3(0, 1, 0), angle: 0.02), truth.r),
      t: truth.t + SIMD3(0.02, 0, -0.03))
    let huber = try PoseSolver.refinePose(
      worldPoints: scene.world, imagePoints: scene.image, intrinsics: Self.intrinsics, initial: start,
      iterations: 30, huberDelta: 1)
    #expect(Support.rotationDifferenceDegrees(huber.pose.r, truth.r) < 0.2)
    #expect(Support.norm(huber.pose.t - truth.t) < 0.02)

    // Zero weight on the outliers: as accurate as the noise allows, with RMS near the noise.
    let weights = scene.isOutlier.map { $0 ? 0.0 : 1.0 }
    let weighted = try PoseSolver.refinePose(
      worldPoints: scene.world, imagePoints: scene.image, weights: weights, intrinsics: Self.intrinsics,
      initial: start, iterations: 30)
    #expect(Support.rotationDifferenceDegrees(weighted.pose.r, truth.r) < 0.05)
    #expect(Support.norm(weighted.pose.t - truth.t) < 0.005)
    #expect(weighted.rmsError > 0.3 && weighted.rmsError < 0.55)  // 2D noise: 0.3 * sqrt(2) = 0.42

    // A point behind the camera is ignored rather than pulled in front.
    var world = scene.world
    world.append(truth.inverse.apply(SIMD3(0.1, 0.1, -2)))
    var image = scene.image
    image.append(SIMD2(320, 240))
    let behind = try PoseSolver.refinePose(
      worldPoints: world, imagePoints: image, weights: weights + [1], intrinsics: Self.intrinsics,
      initial: start,
      iterations: 30)
    #expect(Support.rotationDifferenceDegrees(behind.pose.r, truth.r) < 0.05)
  }

  @Test func essentialPoseRecoversRotationAndTranslationDirection() throws {
    var generator = SplitMix64(seed: 21)
    // Camera b from camera a: a small rotation and a sideways, slightly forward move.
    let truth = PoseCW(r: Support.rotation(axis: SIMD3(0.2, 1, 0.1), angle: 0.12), t: SIMD3(-0.5, 0.05, 0.1))
    var pointsA = [SIMD2<Double>]()
    var pointsB = [SIMD2<Double>]()
    var isOutlier = [Bool]()
    let count = 200
    while pointsA.count < count {
      let inA = SIMD3(generator.uniform(-2, 2), generator.uniform(-1.5, 1.5), generator.uniform(3, 8))
      let inB = truth.apply(inA)
      let pa = Self.intrinsics.project(inA)
      let pb = Self.intrinsics.project(inB)
      guard inB.z > 0, (0..<640).contains(pb.x), (0..<480).contains(pb.y), (0..<640).contains(pa.x),
        (0..<480).contains(pa.y)
      else { continue }
      let outlier = pointsA.count < count / 5
      pointsA.append(pa + SIMD2(0.3 * generator.gaussian(), 0.3 * generator.gaussian()))
      pointsB.append(
        outlier
          ? SIMD2(generator.uniform(0, 640), generator.uniform(0, 480))
          : pb + SIMD2(0.3 * generator.gaussian(), 0.3 * generator.gaussian()))
      isOutlier.append(outlier)
    }
    let result = try PoseSolver.essentialPose(
      pointsA: pointsA, pointsB: pointsB, intrinsics: Self.intrinsics, threshold: 1, seed: 7)
    #expect(Support.rotationDifferenceDegrees(result.bFromA.r, truth.r) < 0.2)
    #expect(abs(Support.norm(result.bFromA.t) - 1) < 1e-9)
    #expect(Support.angleDegrees(result.bFromA.t, truth.t) < 1)
    let inliersFound = isOutlier.indices.filter { !isOutlier[$0] && result.inliers[$0] }.count
    #expect(inliersFound >= 150)  // of 160
    let outliersAccepted = isOutlier.indices.filter { isOutlier[$0] && result.inliers[$0] }.count
    #expect(outliersAccepted <= 4)

    let again = try PoseSolver.essentialPose(
      pointsA: pointsA, pointsB: pointsB, intrinsics: Self.intrinsics, threshold: 1, seed: 7)
    #expect(again.bFromA == result.bFromA)
    #expect(again.inliers == result.inliers)
  }

  @Test func triangulationIsExactOnNoiseFreeData() throws {
    var generator = SplitMix64(seed: 31)
    let aFromWorld = Self.cameraFromWorld
    let bFromA = PoseCW(r: Support.rotation(axis: SIMD3(0, 1, 0), angle: -0.1), t: SIMD3(-0.3, 0, 0.05))
    let bFromWorld = PoseCW(r: multiply(bFromA.r, aFromWorld.r), t: bFromA.apply(aFromWorld.t))
    var world = [SIMD3<Double>]()
    for _ in 0..<50 {
      let inA = SIMD3(generator.uniform(-1, 1), generator.uniform(-1, 1), generator.uniform(2, 5))
      world.append(aFromWorld.inverse.apply(inA))
    }
    // Far away (tiny parallax) and behind camera a.
    world.append(aFromWorld.inverse.apply(SIMD3(0.1, 0.1, 500)))
    world.append(aFromWorld.inverse.apply(SIMD3(0.2, 0.1, -3)))
    let pointsA = world.map { Self.intrinsics.project(aFromWorld.apply($0)) }
    let pointsB = world.map { Self.intrinsics.project(bFromWorld.apply($0)) }
    let result = try PoseSolver.triangulate(
      pointsA: pointsA, pointsB: pointsB, intrinsics: Self.intrinsics, aFromWorld: aFromWorld,
      bFromWorld: bFromWorld, minParallaxDegrees: 1)
    #expect(result.count == world.count)
    for i in 0..<50 {
      let point = try #require(result[i])
      #expect(Support.norm(point - world[i]) <= 1e-6 * Support.norm(world[i] - aFromWorld.inverse.t))
    }
    #expect(result[50] == nil)  // parallax ~0.03 degrees
    #expect(result[51] == nil)  // behind the cameras
    let noParallaxLimit = try PoseSolver.triangulate(
      pointsA: pointsA, pointsB: pointsB, intrinsics: Self.intrinsics, aFromWorld: aFromWorld,
      bFromWorld: bFromWorld, minParallaxDegrees: 0)
    let far = try #require(noParallaxLimit[50])
    #expect(Support.norm(far - world[50]) < 1e-3 * 500)
  }

  @Test func invalidArgumentsAreReportedNotCrashed() throws {
    let scene = Self.scene(count: 10, noise: 0, outlierFraction: 0, seed: 41)
    let three = #expect(throws: VisionError.self) {
      try PoseSolver.solvePnPRansac(
        worldPoints: Array(scene.world.prefix(3)), imagePoints: Array(scene.image.prefix(3)),
        intrinsics: Self.intrinsics)
    }
    #expect(three?.code == VisionError.invalidArgument.code)
    #expect(three?.message.contains("count") == true)

    var zeroFocal = Self.intrinsics
    zeroFocal.fx = 0
    let focal = #expect(throws: VisionError.self) {
      try PoseSolver.solvePnPRansac(worldPoints: scene.world, imagePoints: scene.image, intrinsics: zeroFocal)
    }
    #expect(focal?.code == VisionError.invalidArgument.code)
    #expect(focal?.message.contains("intrinsics.fx") == true)

    var nanWorld = scene.world
    nanWorld[4].y = .nan
    let nan = #expect(throws: VisionError.self) {
      try PoseSolver.refinePose(
        worldPoints: nanWorld, imagePoints: scene.image, intrinsics: Self.intrinsics,
        initial: Self.cameraFromWorld)
    }
    #expect(nan?.code == VisionError.invalidArgument.code)
    #expect(nan?.message.contains("world_points[4]") == true)

    var nanCentre = Self.intrinsics
    nanCentre.cy = .nan
    let centre = #expect(throws: VisionError.self) {
      try PoseSolver.essentialPose(pointsA: scene.image, pointsB: scene.image, intrinsics: nanCentre)
    }
    #expect(centre?.message.contains("intrinsics.cy") == true)

    let notRotation = PoseCW(r: [1, 0, 0, 0, 2, 0, 0, 0, 1], t: .zero)
    let rotation = #expect(throws: VisionError.self) {
      try PoseSolver.triangulate(
        pointsA: scene.image, pointsB: scene.image, intrinsics: Self.intrinsics, aFromWorld: notRotation,
        bFromWorld: .identity)
    }
    #expect(rotation?.message.contains("a_from_world") == true)

    let mismatch = #expect(throws: VisionError.self) {
      try PoseSolver.essentialPose(
        pointsA: scene.image, pointsB: Array(scene.image.dropLast()), intrinsics: Self.intrinsics)
    }
    #expect(mismatch?.code == VisionError.invalidArgument.code)

    let confidence = #expect(throws: VisionError.self) {
      try PoseSolver.solvePnPRansac(
        worldPoints: scene.world, imagePoints: scene.image, intrinsics: Self.intrinsics, confidence: 1)
    }
    #expect(confidence?.message.contains("confidence") == true)

    // Pure noise: RANSAC reports that the data do not support a pose.
    var generator = SplitMix64(seed: 43)
    let noise = (0..<30).map { _ in SIMD2(generator.uniform(0, 640), generator.uniform(0, 480)) }
    let noiseWorld = (0..<30).map { _ in
      SIMD3(generator.uniform(-1, 1), generator.uniform(-1, 1), generator.uniform(2, 4))
    }
    let none = #expect(throws: VisionError.self) {
      try PoseSolver.solvePnPRansac(
        worldPoints: noiseWorld, imagePoints: noise, intrinsics: Self.intrinsics, threshold: 0.01,
        maxIterations: 50)
    }
    #expect(none?.code == VisionError.notEnoughData.code)
  }

  @Test func poseHelpersInvertAndApply() {
    let pose = Self.cameraFromWorld
    let p = SIMD3<Double>(1, -2, 3)
    let back = pose.inverse.apply(pose.apply(p))
    #expect(Support.norm(back - p) < 1e-12)
    #expect(PoseCW.identity.apply(p) == p)
    #expect(Self.intrinsics.project(SIMD3(0, 0, 2)) == SIMD2(319.5, 239.5))
  }
}

/// Row-major 3x3 product a * b.
private func multiply(_ a: [Double], _ b: [Double]) -> [Double] {
  var c = [Double](repeating: 0, count: 9)
  for i in 0..<3 {
    for j in 0..<3 {
      c[3 * i + j] = (0..<3).map { a[3 * i + $0] * b[3 * $0 + j] }.reduce(0, +)
    }
  }
  return c
}
