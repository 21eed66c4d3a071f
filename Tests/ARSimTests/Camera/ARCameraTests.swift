import ARSim
import Foundation
import Testing

@Suite struct ARCameraTests {
  /// Intrinsics of a 1920x1440 landscape sensor with an off-centre principal point.
  static let intrinsics = CameraIntrinsics(fx: 1500, fy: 1510, cx: 955, cy: 725, width: 1920, height: 1440)
  /// The same sensor with the principal point at the image centre.
  static let centred = CameraIntrinsics(fx: 1500, fy: 1500, cx: 959.5, cy: 719.5, width: 1920, height: 1440)

  /// A camera 1.4 m above the floor at (0.3, 1.4, 0.8), looking forward and 50° down, rolled slightly.
  static let lookingDown = RigidTransform(
    rotation: simd_quatd(simd_double3x3(eulerAngles: SIMD3(-0.87, 0.4, 0.05))),
    translation: SIMD3(0.3, 1.4, 0.8))

  /// A phone held upright in portrait at eye height looking along world −z: the camera's +x (towards
  /// the home button) points down, its +y to the user's right (world +x).
  static let uprightPortrait = RigidTransform(
    rotation: simd_quatd(simd_double3x3(SIMD3(0, -1, 0), SIMD3(1, 0, 0), SIMD3(0, 0, 1))),
    translation: SIMD3(0, 1.5, 0))

  static func camera(
    _ pose: RigidTransform, _ intrinsics: CameraIntrinsics = intrinsics,
    state: ARCamera.TrackingState = .normal
  ) -> ARCamera {
    ARCamera(worldFromCamera: pose, intrinsics: intrinsics, trackingState: state)
  }

  static func close(_ p: CGPoint, _ q: CGPoint, tolerance: CGFloat) -> Bool {
    abs(p.x - q.x) <= tolerance && abs(p.y - q.y) <= tolerance
  }

  static func close(_ a: simd_float4x4, _ b: simd_float4x4, tolerance: Float) -> Bool {
    (0..<4).allSatisfy { c in (0..<4).allSatisfy { r in abs(a[c][r] - b[c][r]) <= tolerance } }
  }

  /// World points in front of `camera`, seen at the given pixels and depths (metres along the optical
  /// axis), computed with the optical-frame pinhole model.
  static func worldPoint(_ camera: ARCamera, pixel: SIMD2<Double>, depth: Double) -> SIMD3<Double> {
    let k = camera.cameraIntrinsics
    let optical = SIMD3((pixel.x - k.cx) / k.fx * depth, (pixel.y - k.cy) / k.fy * depth, depth)
    return camera.worldFromOptical.apply(to: optical)
  }

  static let orientations: [UIInterfaceOrientation] = [
    .portrait, .portraitUpsideDown, .landscapeLeft, .landscapeRight, .unknown,
  ]
  static let viewports = [
    CGSize(width: 390, height: 844), CGSize(width: 844, height: 390), CGSize(width: 600, height: 600),
  ]

  // MARK: Values

  @Test func intrinsicsUseARKitLayout() {
    let camera = Self.camera(Self.lookingDown)
    let k = camera.intrinsics
    #expect(k.columns.0 == SIMD3(1500, 0, 0))
    #expect(k.columns.1 == SIMD3(0, 1510, 0))
    #expect(k.columns.2 == SIMD3(955, 725, 1))
    #expect(camera.imageResolution == CGSize(width: 1920, height: 1440))
    // K times an optical-frame point, divided by its last component, is its pixel.
    let optical = SIMD3<Float>(0.2, -0.1, 2)
    let h = k * optical
    #expect(abs(h.x / h.z - (1500 * 0.1 + 955)) < 1e-3 && abs(h.y / h.z - (1510 * -0.05 + 725)) < 1e-3)
  }

  @Test func publicInitializerKeepsARKitValues() {
    let source = Self.camera(Self.lookingDown)
    let copy = ARCamera(
      transform: source.transform, intrinsics: source.intrinsics, imageResolution: source.imageResolution,
      trackingState: .limited(.relocalizing))
    #expect(copy.transform == source.transform)
    #expect(copy.intrinsics == source.intrinsics)
    #expect(copy.imageResolution == source.imageResolution)
    #expect(copy.trackingState == .limited(.relocalizing))
    #expect(simd_distance(copy.worldFromCamera.translation, source.worldFromCamera.translation) < 1e-6)
  }

  @Test func opticalAndCameraFramesDifferByHalfATurnAboutX() {
    #expect(opticalFromCamera.apply(to: SIMD3(1, 2, 3)) == SIMD3(1, -2, -3))
    #expect(cameraFromOptical.apply(to: SIMD3(1, 2, 3)) == SIMD3(1, -2, -3))
    let camera = Self.camera(Self.lookingDown)
    // The optical z axis (forward) is the camera's −z axis; the optical y axis (down) its −y.
    let forward = camera.worldFromOptical.rotate(SIMD3(0, 0, 1))
    let cameraZ = camera.worldFromCamera.rotate(SIMD3(0, 0, 1))
    #expect(simd_distance(forward, -cameraZ) < 1e-12)
    #expect(camera.transform == Self.lookingDown.floatMatrix)
  }

  @Test func eulerAnglesOfKnownPoses() {
    func angles(_ pose: RigidTransform) -> SIMD3<Float> { Self.camera(pose).eulerAngles }
    func near(_ a: SIMD3<Float>, _ b: SIMD3<Float>) -> Bool { simd_distance(a, b) < 1e-5 }
    #expect(near(angles(.identity), .zero))
    // Phone upright in portrait looking forward: roll −π/2 (the camera frame is landscape).
    #expect(near(angles(Self.uprightPortrait), SIMD3(0, 0, -.pi / 2)))
    // Turned left by 90° (facing world −x): yaw +π/2.
    let turnedLeft = RigidTransform(rotation: simd_quatd(angle: .pi / 2, axis: SIMD3(0, 1, 0)))
    #expect(near(angles(turnedLeft), SIMD3(0, .pi / 2, 0)))
    // Tilted 30° down: pitch −π/6.
    let tilted = RigidTransform(rotation: simd_quatd(angle: -.pi / 6, axis: SIMD3(1, 0, 0)))
    #expect(near(angles(tilted), SIMD3(-.pi / 6, 0, 0)))
    // A general pose built from Euler angles gives them back.
    #expect(near(angles(Self.lookingDown), SIMD3(-0.87, 0.4, 0.05)))
  }

  @Test func trackingStateDescriptions() {
    let expected: [(ARCamera.TrackingState, String)] = [
      (.normal, "normal"), (.notAvailable, "notAvailable"),
      (.limited(.initializing), "limited:initializing"),
      (.limited(.excessiveMotion), "limited:excessiveMotion"),
      (.limited(.insufficientFeatures), "limited:insufficientFeatures"),
      (.limited(.relocalizing), "limited:relocalizing"),
    ]
    for (state, text) in expected {
      #expect(state.description == text)
      #expect("\(state)" == text)
      #expect(ARCamera.TrackingState(text) == state)
    }
    #expect(ARCamera.TrackingState.limited(.initializing) != .limited(.relocalizing))
    #expect(ARCamera.TrackingState.limited(.initializing) != .normal)
    for bad in ["", "limited", "limited:", "limited:normal", "Normal", "limited:initializing "] {
      #expect(ARCamera.TrackingState(bad) == nil)
    }
    #expect(ARCamera.TrackingState.Reason.allCases.count == 4)
  }

  // MARK: Matrices

  @Test func viewMatrixInvertsTheTransform() {
    let camera = Self.camera(Self.lookingDown)
    #expect(
      Self.close(camera.viewMatrix(for: .landscapeRight) * camera.transform, .identity, tolerance: 1e-6))
    #expect(Self.close(camera.viewMatrix(for: .unknown) * camera.transform, .identity, tolerance: 1e-6))
    // In portrait the view's x is the camera's y and the view's y the camera's −x: Rz(−90°).
    let portraitRotation = simd_float4x4(
      SIMD4(0, -1, 0, 0), SIMD4(1, 0, 0, 0), SIMD4(0, 0, 1, 0), SIMD4(0, 0, 0, 1))
    #expect(
      Self.close(camera.viewMatrix(for: .portrait) * camera.transform, portraitRotation, tolerance: 1e-6))
    let halfTurn = simd_float4x4(diagonal: SIMD4(-1, -1, 1, 1))
    #expect(Self.close(camera.viewMatrix(for: .landscapeLeft) * camera.transform, halfTurn, tolerance: 1e-6))
    #expect(
      Self.close(
        camera.viewMatrix(for: .portraitUpsideDown) * camera.transform, portraitRotation.transpose,
        tolerance: 1e-6))
  }

  @Test func nativeProjectionMatrixMatchesThePinholeModel() throws {
    let camera = Self.camera(Self.lookingDown)
    let clipFromWorld = camera.projectionMatrix * camera.viewMatrix(for: .landscapeRight)
    for (pixel, depth) in [
      (SIMD2(955.0, 725.0), 2.0), (SIMD2(10.0, 20.0), 0.5), (SIMD2(1900.0, 1400.0), 7.0),
      (SIMD2(300.0, 1200.0), 3.0),
    ] {
      let world = Self.worldPoint(camera, pixel: pixel, depth: depth)
      let clip = clipFromWorld * SIMD4<Float>(SIMD3<Float>(world), 1)
      #expect(abs(clip.w - Float(depth)) < 1e-4)
      // Pixel centres are at integers: the image's corner is pixel (-0.5, -0.5).
      let u = (Double(clip.x / clip.w) + 1) / 2 * 1920 - 0.5
      let v = (1 - Double(clip.y / clip.w)) / 2 * 1440 - 0.5
      #expect(abs(u - pixel.x) < 5e-3 && abs(v - pixel.y) < 5e-3)
      let projected = try #require(camera.projectToImage(world))
      #expect(simd_distance(projected, pixel) < 1e-6)
    }
    // Metal depth: 0 at the near plane, 1 at the far plane.
    let p = Self.camera(.identity).projectionMatrix(
      for: .landscapeRight, viewportSize: CGSize(width: 1920, height: 1440), zNear: 0.1, zFar: 10)
    let near = p * SIMD4<Float>(0, 0, -0.1, 1)
    let far = p * SIMD4<Float>(0, 0, -10, 1)
    #expect(abs(near.z / near.w) < 1e-6 && abs(far.z / far.w - 1) < 1e-6)
    // ARKit's default near and far planes.
    let defaultDepth = Self.camera(.identity).projectionMatrix * SIMD4<Float>(0, 0, -0.001, 1)
    #expect(abs(defaultDepth.z / defaultDepth.w) < 1e-4)
    // zFar = 0 gives an infinite far plane: depth tends to 1.
    let infinite = Self.camera(.identity).projectionMatrix(
      for: .landscapeRight, viewportSize: CGSize(width: 1920, height: 1440), zNear: 0.1, zFar: 0)
    let distant = infinite * SIMD4<Float>(0, 0, -1e6, 1)
    #expect(abs(distant.z / distant.w - 1) < 1e-6)
  }

  @Test func portraitProjectionRotatesAndCropsTheImage() {
    let camera = Self.camera(Self.lookingDown)
    let size = CGSize(width: 390, height: 844)
    let clipFromWorld =
      camera.projectionMatrix(for: .portrait, viewportSize: size, zNear: 0.001, zFar: 1000)
      * camera.viewMatrix(for: .portrait)
    func viaMatrices(_ world: SIMD3<Double>) -> CGPoint {
      let clip = clipFromWorld * SIMD4<Float>(SIMD3<Float>(world), 1)
      return CGPoint(
        x: CGFloat((clip.x / clip.w + 1) / 2) * size.width,
        y: CGFloat((1 - clip.y / clip.w) / 2) * size.height)
    }
    // Image 1920x1440 turned upright is 1440x1920; aspect fill to 390x844 makes it 633x844 points.
    let expectations: [(SIMD2<Double>, CGPoint)] = [
      // Pixel centres at integers: the image spans -0.5...1919.5 by -0.5...1439.5.
      (SIMD2(959.5, 719.5), CGPoint(x: 195, y: 422)),  // image centre -> view centre
      (SIMD2(-0.5, -0.5), CGPoint(x: 511.5, y: 0)),  // top-left -> top-right, beyond the crop
      (SIMD2(-0.5, 719.5), CGPoint(x: 195, y: 0)),  // left edge middle -> top edge middle
      (SIMD2(1919.5, 719.5), CGPoint(x: 195, y: 844)),  // right edge middle -> bottom edge middle
      (SIMD2(959.5, 1439.5), CGPoint(x: -121.5, y: 422)),  // bottom edge middle -> left, beyond the crop
    ]
    for (pixel, expected) in expectations {
      let world = Self.worldPoint(camera, pixel: pixel, depth: 2.5)
      #expect(Self.close(viaMatrices(world), expected, tolerance: 5e-3))
      let projected = camera.projectPoint(SIMD3<Float>(world), orientation: .portrait, viewportSize: size)
      #expect(Self.close(projected, expected, tolerance: 2e-3))
    }
  }

  @Test func projectionShowsTheWorldUpright() {
    // Held upright in portrait: what is above appears higher on screen, what is right appears right.
    let size = CGSize(width: 390, height: 844)
    let portrait = Self.camera(Self.uprightPortrait, Self.centred)
    let ahead = portrait.projectPoint(SIMD3(0, 1.5, -2), orientation: .portrait, viewportSize: size)
    let above = portrait.projectPoint(SIMD3(0, 2.0, -2), orientation: .portrait, viewportSize: size)
    let right = portrait.projectPoint(SIMD3(0.5, 1.5, -2), orientation: .portrait, viewportSize: size)
    #expect(Self.close(ahead, CGPoint(x: 195, y: 422), tolerance: 1e-3))
    #expect(above.y < ahead.y - 100 && abs(above.x - ahead.x) < 1e-3)
    #expect(right.x > ahead.x + 100 && abs(right.y - ahead.y) < 1e-3)
    // Held upright in landscape (home button right, the identity rotation) the same holds.
    let landscapeSize = CGSize(width: 844, height: 390)
    let landscape = Self.camera(RigidTransform(translation: SIMD3(0, 1.5, 0)), Self.centred)
    let lAhead = landscape.projectPoint(
      SIMD3(0, 1.5, -2), orientation: .landscapeRight, viewportSize: landscapeSize)
    let lAbove = landscape.projectPoint(
      SIMD3(0, 2.0, -2), orientation: .landscapeRight, viewportSize: landscapeSize)
    let lRight = landscape.projectPoint(
      SIMD3(0.5, 1.5, -2), orientation: .landscapeRight, viewportSize: landscapeSize)
    #expect(Self.close(lAhead, CGPoint(x: 422, y: 195), tolerance: 1e-3))
    #expect(lAbove.y < lAhead.y - 100 && lRight.x > lAhead.x + 100)
    // Focal length 1500 px at 844/1920 points per pixel: 0.5 m at 2 m is 375 px, 164.84375 points.
    #expect(abs(lRight.x - lAhead.x - 164.843_75) < 1e-3)
  }

  // MARK: Points

  @Test func projectPointAgreesWithTheViewportMapping() throws {
    let camera = Self.camera(Self.lookingDown)
    let world = Self.worldPoint(camera, pixel: SIMD2(400, 1000), depth: 1.7)
    let pixel = try #require(camera.projectToImage(world))
    let normalized = CGPoint(x: (pixel.x + 0.5) / 1920, y: (pixel.y + 0.5) / 1440)
    for orientation in Self.orientations {
      for size in Self.viewports {
        let viewport = Viewport(size: size, orientation: orientation)
        let expected = viewport.viewPoint(
          fromNormalizedImagePoint: normalized, imageResolution: camera.imageResolution)
        let projected = camera.projectPoint(SIMD3<Float>(world), orientation: orientation, viewportSize: size)
        #expect(Self.close(projected, expected, tolerance: 1e-3))
      }
    }
  }

  @Test func projectAndUnprojectRoundTripOnPlanes() throws {
    let camera = Self.camera(Self.lookingDown)
    // The floor (y = 0, normal +y) and a tilted plane through (0.5, 0.2, −1).
    let floor = simd_float4x4.identity
    var tilted = simd_float4x4(eulerAngles: SIMD3(0.3, 0.8, -0.2))
    tilted.columns.3 = SIMD4(0.5, 0.2, -1, 1)
    for plane in [floor, tilted] {
      let origin = SIMD3<Double>(
        Double(plane.columns.3.x), Double(plane.columns.3.y), Double(plane.columns.3.z))
      let axisX = SIMD3<Double>(
        Double(plane.columns.0.x), Double(plane.columns.0.y), Double(plane.columns.0.z))
      let axisZ = SIMD3<Double>(
        Double(plane.columns.2.x), Double(plane.columns.2.y), Double(plane.columns.2.z))
      for (s, t) in [(0.0, 0.0), (0.4, -0.3), (-0.6, 0.5), (1.1, 0.9)] {
        let world = origin + s * axisX + t * axisZ
        guard camera.projectToImage(world) != nil else { continue }
        for orientation in Self.orientations {
          for size in Self.viewports {
            let tap = camera.projectPoint(SIMD3<Float>(world), orientation: orientation, viewportSize: size)
            let hit = try #require(
              camera.unprojectPoint(tap, ontoPlane: plane, orientation: orientation, viewportSize: size))
            #expect(simd_distance(SIMD3<Double>(hit), world) < 1e-4)
          }
        }
      }
    }
  }

  @Test func unprojectMissesReturnNil() throws {
    let camera = Self.camera(Self.lookingDown)
    let size = CGSize(width: 390, height: 844)
    let centre = CGPoint(x: 195, y: 422)
    // A plane above a camera that looks down is behind the rays.
    var ceiling = simd_float4x4.identity
    ceiling.columns.3 = SIMD4(0, 3, 0, 1)
    #expect(
      camera.unprojectPoint(centre, ontoPlane: ceiling, orientation: .portrait, viewportSize: size) == nil)
    // A plane transform with a zero y axis defines no plane.
    #expect(
      camera.unprojectPoint(centre, ontoPlane: simd_float4x4(), orientation: .portrait, viewportSize: size)
        == nil)
    // A level camera's ray through the principal point runs parallel to the floor.
    let level = Self.camera(RigidTransform(translation: SIMD3(0, 1.5, 0)))
    let viewport = Viewport(size: size, orientation: .portrait)
    let horizon = viewport.viewPoint(
      fromNormalizedImagePoint: CGPoint(x: 955.0 / 1920, y: 725.0 / 1440),
      imageResolution: level.imageResolution)
    #expect(
      level.unprojectPoint(horizon, ontoPlane: .identity, orientation: .portrait, viewportSize: size) == nil)
    // In portrait the view's +x is the camera's +y (up for this camera), so a tap slightly left of the
    // horizon point looks slightly down and reaches the floor far away.
    let below = CGPoint(x: horizon.x - 20, y: horizon.y)
    let hit = try #require(
      level.unprojectPoint(below, ontoPlane: .identity, orientation: .portrait, viewportSize: size))
    #expect(abs(hit.y) < 1e-4 && hit.z < -10)
  }

  @Test func raysThroughPixelsReachTheirPoints() throws {
    let camera = Self.camera(Self.lookingDown)
    // Through the principal point the ray runs along the camera's −z axis.
    let axis = camera.rayThroughImagePoint(SIMD2(955, 725))
    #expect(simd_distance(axis.origin, SIMD3(0.3, 1.4, 0.8)) < 1e-12)
    #expect(simd_distance(axis.direction, -camera.worldFromCamera.rotate(SIMD3(0, 0, 1))) < 1e-12)
    for (pixel, depth) in [(SIMD2(0.0, 0.0), 1.0), (SIMD2(1700.0, 300.0), 4.0), (SIMD2(-50.0, 1500.0), 2.0)] {
      let world = Self.worldPoint(camera, pixel: pixel, depth: depth)
      let ray = camera.rayThroughImagePoint(pixel)
      #expect(abs(simd_length(ray.direction) - 1) < 1e-12)
      let along = simd_dot(world - ray.origin, ray.direction)
      #expect(along > 0)
      #expect(simd_distance(ray.origin + along * ray.direction, world) < 1e-9)
      let back = try #require(camera.projectToImage(world))
      #expect(simd_distance(back, pixel) < 1e-6)
    }
    // Behind the camera, and at its centre, nothing projects.
    let behind = camera.worldFromCamera.apply(to: SIMD3(0.1, 0.2, 1))
    #expect(camera.projectToImage(behind) == nil)
    #expect(camera.projectToImage(camera.worldFromCamera.translation) == nil)
  }
}
