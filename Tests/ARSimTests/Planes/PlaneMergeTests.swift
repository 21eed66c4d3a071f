import ARSim
import ARSimTestSupport
import Foundation
import Testing

/// One anchor per physical surface: floors across gaps, surfaces tilted against gravity, and doors and
/// windows set into a wall, which stay planes of their own and are classified.
@Suite("Plane merging and door/window classification")
struct PlaneMergeTests {
  static let camera = SIMD3<Double>(0, 1.5, 0.5)

  @Test("Two pieces of floor at one height are one anchor across the gap furniture hides")
  func floorAcrossGap() throws {
    let left = TestRectangle.horizontal(y: 0, x: -2...(-0.8), z: -2.5...0)
    let right = TestRectangle.horizontal(y: 0.004, x: 0.8...2, z: -2.5...0)
    let detector = PlaneDetector(options: PlaneDetectionOptions(), seed: 11)
    // The right piece comes into view later. It is a floor as soon as it is found, and merges into the
    // floor before it is ever reported: the app hears of one floor only.
    let changes =
      runFrames(detector, scene: TestScene(rectangles: [left]), frames: 6, camera: Self.camera)
      + runFrames(
        detector, scene: TestScene(rectangles: [left, right]), frames: 8, camera: Self.camera, seed: 8,
        firstFrame: 6)
    let added = changes.flatMap(\.added)
    #expect(added.count == 1)
    #expect(changes.allSatisfy { $0.removed.isEmpty })
    let anchors = detector.anchors
    try #require(anchors.count == 1)
    #expect(anchors[0].identifier == added.first?.identifier)
    #expect(anchors[0].classification == .floor)
    // The extent spans both pieces and the gap: 4 m by 2.5 m.
    #expect(anchors[0].planeExtent.width * anchors[0].planeExtent.height > 9)

    // A step of 4 cm is two surfaces.
    let step = TestRectangle.horizontal(y: 0.04, x: 0.8...2, z: -2.5...0)
    let stepped = PlaneDetector(options: PlaneDetectionOptions(), seed: 11)
    runFrames(stepped, scene: TestScene(rectangles: [left, step]), frames: 12, camera: Self.camera)
    #expect(stepped.anchors.count == 2)
  }

  @Test("A wall tilted 3 degrees against gravity is one anchor, not parallel bands")
  func tiltedWall() throws {
    let tilt = 3.0 * Double.pi / 180
    let wall = TestRectangle(
      center: SIMD3(2, 1.2, -1), halfU: SIMD3(1.2 * sin(tilt), 1.2 * cos(tilt), 0), halfV: SIMD3(0, 0, 1.5))
    let scene = TestScene(rectangles: [wall])
    let detector = PlaneDetector(options: PlaneDetectionOptions(), seed: 12)
    runFrames(detector, scene: scene, frames: 16, camera: Self.camera)
    let verticals = detector.anchors.filter { $0.alignment == .vertical }
    #expect(verticals.count == 1)
    #expect(verticals.first.map { WorldPlaneFacts($0).intersectionOverUnion(with: wall) > 0.8 } == true)

    // Without the test of the union's flatness, the wall splits into bands.
    var options = PlaneDetectionOptions()
    options.mergeRoughening = -1
    let banded = PlaneDetector(options: options, seed: 12)
    runFrames(banded, scene: scene, frames: 16, camera: Self.camera)
    #expect(banded.anchors.filter { $0.alignment == .vertical }.count > 1)
  }

  @Test("A door 3 cm proud of its wall does not tilt the wall: the band that holds both settles on one")
  func doorProudOfItsWall() throws {
    let wallZ = -2.0
    let floor = TestRectangle.horizontal(y: 0, x: -2.5...2.5, z: -2...0.5)
    let wall = [
      TestRectangle.facing(z: wallZ, x: -2.5...(-0.2), y: 0...2.6),
      TestRectangle.facing(z: wallZ, x: -0.2...0.7, y: 2.05...2.6),
      TestRectangle.facing(z: wallZ, x: 0.7...2.5, y: 0...2.6),
    ]
    // Off-centre, so that a fit between the two surfaces would turn about the vertical.
    let door = TestRectangle.facing(z: wallZ + 0.03, x: -0.2...0.7, y: 0...2.05)
    var scene = TestScene(rectangles: [floor] + wall + [door])
    scene.spacing = 0.05
    let detector = PlaneDetector(options: PlaneDetectionOptions(), seed: 13)
    runFrames(detector, scene: scene, frames: 14, camera: Self.camera)
    let verticals = detector.anchors.filter { $0.alignment == .vertical }
    try #require(!verticals.isEmpty)
    for anchor in verticals {
      let normal = WorldPlaneFacts(anchor).normal
      let degrees = acos(min(1, abs(normal.z))) * 180 / .pi
      #expect(degrees < 0.3, "a vertical anchor is \(degrees)° off the wall's normal")
    }
  }

  @Test(
    "A door 3 cm proud of its wall, found beside one side of the wall, is an anchor of its own, not one surface with it"
  )
  func doorFoundBesideOneSideOfItsWall() throws {
    let wallZ = -2.0
    let floor = TestRectangle.horizontal(y: 0, x: -2.5...2.5, z: -2...0.5)
    // At first only the wall right of the door is in view: a plane turned about the vertical lies
    // close to both, and their union is hardly rougher than either.
    let wall = TestRectangle.facing(z: wallZ, x: 0.7...2.5, y: 0...2.6)
    let door = TestRectangle.facing(z: wallZ + 0.03, x: -0.2...0.7, y: 0...2.05)
    var scene = TestScene(rectangles: [floor, wall, door])
    scene.spacing = 0.05
    func verticals(_ options: PlaneDetectionOptions) -> [ARPlaneAnchor] {
      let detector = PlaneDetector(options: options, seed: 13)
      runFrames(detector, scene: scene, frames: 14, camera: Self.camera)
      return detector.anchors.filter { $0.alignment == .vertical }
    }
    let found = verticals(PlaneDetectionOptions())
    #expect(found.count == 2, "\(found.count) vertical anchors")
    #expect(found.contains { $0.classification == .door })
    // Either of two tests keeps them apart: RANSAC's plane, turned between them, settles on one side
    // (`hingeStep`), and their union is not one surface however flat (the step test,
    // `distinctStepMultiple`). Without both, the union's flatness joins them into one anchor.
    var hinged = PlaneDetectionOptions()
    hinged.hingeStep = .infinity
    #expect(verticals(hinged).count == 2)
    var stepped = PlaneDetectionOptions()
    stepped.distinctStepMultiple = .infinity
    #expect(verticals(stepped).count == 2)
    var joining = stepped
    joining.hingeStep = .infinity
    #expect(verticals(joining).count == 1)
  }

  @Test("A door and a window set 7 cm into a wall are anchors of their own, classified door and window")
  func doorAndWindow() throws {
    let wallZ = -2.0
    let recessed = wallZ - 0.07
    let floor = TestRectangle.horizontal(y: 0, x: -2.5...2.5, z: -2...0.5)
    // The wall around a door (x −1.4…−0.5, up to 2.05 m) and a window (x 0.3…1.5, 0.9…2.0 m).
    let wall = [
      TestRectangle.facing(z: wallZ, x: -2.5...(-1.4), y: 0...2.6),
      TestRectangle.facing(z: wallZ, x: -1.4...(-0.5), y: 2.05...2.6),
      TestRectangle.facing(z: wallZ, x: -0.5...0.3, y: 0...2.6),
      TestRectangle.facing(z: wallZ, x: 0.3...1.5, y: 2.0...2.6),
      TestRectangle.facing(z: wallZ, x: 0.3...1.5, y: 0...0.9),
      TestRectangle.facing(z: wallZ, x: 1.5...2.5, y: 0...2.6),
    ]
    let door = TestRectangle.facing(z: recessed, x: -1.4...(-0.5), y: 0...2.05)
    let window = TestRectangle.facing(z: recessed, x: 0.3...1.5, y: 0.9...2.0)
    var scene = TestScene(rectangles: [floor] + wall + [door, window])
    scene.spacing = 0.05
    let detector = PlaneDetector(options: PlaneDetectionOptions(), seed: 13)
    runFrames(detector, scene: scene, frames: 14, camera: Self.camera)
    let anchors = detector.anchors
    #expect(anchors.count == 4)
    let verticals = anchors.filter { $0.alignment == .vertical }
    func near(_ z: Double) -> [ARPlaneAnchor] {
      verticals.filter { (WorldPlaneFacts($0).center.z - z).magnitude < 0.02 }
    }
    let walls = near(wallZ)
    try #require(walls.count == 1)
    #expect(walls[0].classification == .wall)
    let openings = near(recessed)
    try #require(openings.count == 2)
    let doorAnchor = try #require(
      openings.first { WorldPlaneFacts($0).intersectionOverUnion(with: door) > 0.8 })
    let windowAnchor = try #require(
      openings.first { WorldPlaneFacts($0).intersectionOverUnion(with: window) > 0.8 })
    #expect(doorAnchor.classification == .door)
    #expect(windowAnchor.classification == .window)
    #expect(anchors.filter { $0.classification == .floor }.count == 1)

    // The same door raised 0.5 m off the floor is not a door (nor, at 2.05 m tall, a window).
    let raised = TestRectangle.facing(z: recessed, x: -1.4...(-0.5), y: 0.5...2.55)
    var lifted = scene
    lifted.rectangles = [floor, raised]
    let other = PlaneDetector(options: PlaneDetectionOptions(), seed: 13)
    runFrames(other, scene: lifted, frames: 14, camera: Self.camera)
    let panel = try #require(
      other.anchors.first { WorldPlaneFacts($0).intersectionOverUnion(with: raised) > 0.8 })
    #expect(panel.classification == .wall)

    // The window's panel with no wall around it (a picture or a cabinet front seen alone) is not a
    // window; nor is it with wall on one side only.
    for walls in [[], [wall[5]]] {
      var alone = scene
      alone.rectangles = [floor, window] + walls
      let detector = PlaneDetector(options: PlaneDetectionOptions(), seed: 13)
      runFrames(detector, scene: alone, frames: 14, camera: Self.camera)
      let found = try #require(
        detector.anchors.first { WorldPlaneFacts($0).intersectionOverUnion(with: window) > 0.8 })
      #expect(found.classification != .window, "\(walls.count) wall pieces")
    }
  }
}
