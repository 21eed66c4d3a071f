import ARSimScene
import ARSimTestSupport
import Combine
import Foundation
import Testing

/// ARDemo on the tabletop recording, wired as its AppCoordinator wires it, through its flows: scan,
/// preview, cancel, confirm, drag / rotate / pinch (clamped to 0.1–3.0×), typed load errors, reset and
/// pause / resume.
@MainActor
@Suite struct ARDemoTests {
  /// Lets the main queue deliver what `receive(on: DispatchQueue.main)` scheduled.
  func settle() async throws { try await Task.sleep(for: .milliseconds(2)) }

  @Test func scanPlaceManipulateResetPauseResume() async throws {
    guard Datasets.exists("tabletop") else {
      Issue.record("Datasets/tabletop is missing")
      return
    }
    let sessionManager = ARSessionManager()
    let sceneManager = SceneManager()
    let viewModel = ARViewModel(
      sessionManager: sessionManager, modelLoader: ModelLoader(), sceneManager: sceneManager)
    let arView = ARView(frame: CGRect(x: 0, y: 0, width: 390, height: 844))
    viewModel.startSession(in: arView)
    try await settle()
    #expect(viewModel.sessionState == .running && viewModel.placementState == .scanning)
    let configuration = try #require(arView.session.configuration as? ARWorldTrackingConfiguration)
    #expect(
      configuration.planeDetection == [.horizontal, .vertical]
        && configuration.environmentTexturing == .automatic)

    // Scanning until a plane is found.
    let replay = try ARReplay(session: arView.session, recording: Datasets.path("tabletop"))
    while viewModel.placementState == .scanning, try replay.step() { try await settle() }
    #expect(viewModel.placementState == .readyToPlace)
    try replay.step(frames: 10)

    // A model that is not bundled: a typed error in the overlay, nothing placed.
    let centre = CGPoint(x: 195, y: 422)
    viewModel.selectedModel = ARModel.catalog[3]
    await viewModel.handleTap(at: centre, in: arView)
    #expect(viewModel.errorMessage == ModelLoadError.fileNotFound("LunarHabitat").localizedDescription)
    #expect(viewModel.placementState == .readyToPlace && arView.scene.anchors.isEmpty)

    // Preview at the tap, cancel, preview again, confirm.
    viewModel.selectedModel = ARModel.catalog[2]
    await viewModel.handleTap(at: centre, in: arView)
    #expect(viewModel.placementState == .previewing && viewModel.errorMessage == nil)
    let preview = try #require(arView.scene.anchors.first?.children.first)
    #expect(preview.isAnchored && preview.name == "Toy Car")
    viewModel.cancelPlacement()
    #expect(arView.scene.anchors.isEmpty && preview.scene == nil && viewModel.placementState == .readyToPlace)
    await viewModel.handleTap(at: centre, in: arView)
    viewModel.confirmPlacement(in: arView)
    let car = try #require(sceneManager.currentPlacedEntity as? ModelEntity)
    #expect(viewModel.isModelPlaced && viewModel.placementState == .placed && car.isAnchored)
    #expect(car.collision?.shapes.count == 1 && sceneManager.gestureRecognizers.count == 3)
    let anchorID = try #require((car.anchor as? AnchorEntity)?.anchorIdentifier)
    let planeAnchor = try #require(arView.session.anchors.first { $0.identifier == anchorID })
    func heightOnPlane(_ entity: Entity) -> Float {
      (planeAnchor.transform.inverse * SIMD4(entity.position(relativeTo: nil), 1)).y
    }
    #expect(abs(heightOnPlane(car)) < 0.01)

    // Drag: the car slides on its plane, the touched point staying under the finger.
    let translate = try #require(
      sceneManager.gestureRecognizers.compactMap { $0 as? EntityTranslationGestureRecognizer }.first)
    let onScreen = try #require(arView.project(car.position(relativeTo: nil)))
    #expect(!translate.began(at: CGPoint(x: 5, y: 5)), "a touch beside the car does not drag it")
    #expect(translate.began(at: onScreen) && translate.state == .began)
    let start = car.position(relativeTo: nil)
    let target = CGPoint(x: onScreen.x + 60, y: onScreen.y - 40)
    translate.changed(to: target)
    translate.ended()
    let moved = car.position(relativeTo: nil)
    #expect(translate.state == .ended && simd_distance(moved, start) > 0.05)
    #expect(abs(heightOnPlane(car)) < 0.01, "still on the plane")
    if let whereTouched = arView.project(moved) {
      #expect(abs(whereTouched.x - target.x) < 1 && abs(whereTouched.y - target.y) < 1)
    }
    #expect(simd_distance(translate.translation(in: nil), moved - start) < 1e-5)

    // Twist: about the plane's normal, clockwise on screen.
    let rotate = try #require(
      sceneManager.gestureRecognizers.compactMap { $0 as? EntityRotationGestureRecognizer }.first)
    let before = car.orientation
    #expect(rotate.began(at: try #require(arView.project(moved))))
    rotate.changed(rotation: 0.5)
    let turn = car.orientation * before.inverse
    #expect(abs(turn.angle - 0.5) < 1e-4 && turn.axis.y < -0.999)

    // Pinch, clamped by the app to 0.1–3.0×.
    let pinch = try #require(
      sceneManager.gestureRecognizers.compactMap { $0 as? EntityScaleGestureRecognizer }.first)
    #expect(pinch.began(at: try #require(arView.project(moved))))
    pinch.changed(scale: 2)
    #expect(abs(car.uniformScale - 2) < 1e-5)
    pinch.changed(scale: 5)
    #expect(car.uniformScale == 3)
    pinch.changed(scale: 0.01)
    #expect(car.uniformScale == 0.1)
    pinch.ended()

    // Reset: the scene and the anchors go at once; scanning starts over and finds planes again.
    viewModel.resetScene(in: arView)
    try await settle()
    #expect(arView.scene.anchors.isEmpty && car.scene == nil && !car.isAnchored)
    #expect(
      arView.session.anchors.isEmpty && viewModel.placementState == .scanning && !viewModel.isModelPlaced)
    try replay.step()
    #expect(arView.session.currentFrame?.camera.trackingState == .limited(.initializing))
    while viewModel.placementState == .scanning, try replay.step() { try await settle() }
    #expect(viewModel.placementState == .readyToPlace)

    // Pause: frames stop; resume: they come again.
    viewModel.pauseSession()
    try await settle()
    #expect(viewModel.sessionState == .paused)
    let pausedAt = arView.session.currentFrame?.timestamp
    try replay.step(frames: 5)
    #expect(arView.session.currentFrame?.timestamp == pausedAt)
    viewModel.resumeSession()
    try await settle()
    try replay.step()
    #expect(viewModel.sessionState == .running)
    #expect((arView.session.currentFrame?.timestamp ?? 0) > (pausedAt ?? .infinity))
  }

  @Test func realityFilesYieldTheirNamedScene() async throws {
    let entity = try await ModelLoader().load(model: ARModel.catalog[0])
    #expect(
      entity.name == "Rover Flow"
        && ModelLoadError.anchorNotFound("Flow").localizedDescription.contains("Flow"))
  }
}
