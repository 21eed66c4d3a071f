import ARSimScene
import ARSimTestSupport
import Combine
import Foundation
import Testing

@MainActor
@Suite struct RealityKitSnippetTests {
  /// The app is its session's delegate, never runs the session itself, and its plane anchor still
  /// anchors: the view configures the session on the first frame and follows it as an observer.
  @Test func delegateIsTheAppAndThePlaneAnchorStillAnchors() throws {
    guard Datasets.exists("tabletop") else {
      Issue.record("Datasets/tabletop is missing")
      return
    }
    let controller = PlacementController()
    controller.viewDidLoad()
    let arView = controller.arView
    #expect(arView.session.delegate === controller && arView.session.configuration == nil)
    let replay = try ARReplay(session: arView.session, recording: Datasets.path("tabletop"))
    while !controller.tableAnchor.isAnchored, try replay.step() {}
    #expect(controller.tableAnchor.isAnchored && controller.box.isAnchored)
    let planeID = try #require(controller.tableAnchor.anchorIdentifier)
    #expect(controller.planesHeard.contains(planeID), "the delegate heard of the plane the anchor took")
    #expect(controller.frameCount == arView.session.currentFrame.map { $0.frameIndex + 1 })
    let plane = try #require(arView.session.anchors.first { $0.identifier == planeID } as? ARPlaneAnchor)
    #expect(min(plane.planeExtent.width, plane.planeExtent.height) >= 0.2)

    // The box is where a device would draw it, and a tap on it finds it.
    try replay.step(frames: 3)
    let onScreen = try #require(arView.project(controller.box.position(relativeTo: nil)))
    if arView.bounds.contains(onScreen) {
      #expect(controller.handleTap(at: onScreen) === controller.box)
    }
    // The update events carry the recording clock: the ball turned with it.
    let recorded = try #require(arView.session.currentFrame?.timestamp) - controller.firstFrameTime(replay)
    #expect(abs(controller.elapsed - recorded) < 1e-9)
    #expect(
      abs(controller.ball.orientation.angle - Float(recorded.truncatingRemainder(dividingBy: 4)) * .pi / 2)
        < 1e-3)

    // A move lasts half a second of the recording.
    let start = controller.box.position
    let slide = controller.slideBox()
    try replay.step(frames: 3)
    #expect(
      slide.isPlaying && controller.box.position.x < start.x && controller.box.position.x > start.x - 0.2)
    try replay.step(frames: 10)
    #expect(slide.isComplete && abs(controller.box.position.x - (start.x - 0.2)) < 1e-5)
  }

  /// With `automaticallyConfigureSession` off and no `run`, the session stays off: no frames.
  @Test func withoutAutomaticConfigurationNothingRuns() throws {
    guard Datasets.exists("tabletop") else {
      Issue.record("Datasets/tabletop is missing")
      return
    }
    let arView = ARView(
      frame: CGRect(x: 0, y: 0, width: 390, height: 844), cameraMode: .ar,
      automaticallyConfigureSession: false)
    let replay = try ARReplay(session: arView.session, recording: Datasets.path("tabletop"))
    try replay.step(frames: 5)
    #expect(arView.session.currentFrame == nil && arView.session.configuration == nil)
  }
}

extension PlacementController {
  /// The recorded time of the recording's first frame.
  func firstFrameTime(_ replay: ARReplay) -> TimeInterval {
    guard var source = try? Recording.open(folder: replay.info.path) else { return 0 }
    return (try? source.nextFrame()?.timestamp) ?? 0
  }
}
