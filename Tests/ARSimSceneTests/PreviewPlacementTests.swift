import ARSimEval
import ARSimScene
import ARSimTestSupport
import Foundation
import Testing

@testable import ARSim

/// The "place with a preview" sample app, written as an iOS app would be: while placing, a preview
/// follows the surface under the screen centre each frame; confirming anchors a chair there with an
/// ARAnchor (its AnchorEntity is made when the session reports the anchor); the chair can be dragged
/// along planes, turned and pinched; reset rescans from nothing; pause and resume.
final class PreviewPlacementApp: ARSessionDelegate {
  let arView = phoneView()
  let configuration: ARWorldTrackingConfiguration = {
    let configuration = ARWorldTrackingConfiguration()
    configuration.planeDetection = [.horizontal]
    return configuration
  }()
  /// Holds the preview, at the world origin.
  let previewAnchor = AnchorEntity(world: .zero)
  /// The preview of the chair.
  let preview = ModelEntity(name: "preview", bounds: PreviewPlacementApp.chairBounds)
  /// The surface under the screen centre at the last frame, while placing.
  private(set) var previewHit: ARRaycastResult?
  private(set) var isPlacing = false
  /// The anchor entity of each chair, by its ARAnchor's identifier.
  private(set) var chairs: [UUID: AnchorEntity] = [:]
  /// What the session told the app.
  private(set) var frameCount = 0
  private(set) var trackingStates: [ARCamera.TrackingState] = []
  private(set) var interruptions = 0
  private(set) var interruptionEnds = 0
  private(set) var planesAdded: [(identifier: UUID, time: Double)] = []

  static let chairBounds = BoundingBox(min: SIMD3(-0.2, 0, -0.2), max: SIMD3(0.2, 0.9, 0.2))

  init() {
    arView.sessionDelegate = self
    arView.session.run(configuration)
    preview.isEnabled = false
    previewAnchor.addChild(preview)
    arView.scene.addAnchor(previewAnchor)
  }

  func beginPlacement() { isPlacing = true }

  /// Anchors a chair where the preview is; nil when there is no surface under the centre.
  func confirmPlacement() -> ARAnchor? {
    guard isPlacing, let hit = previewHit else { return nil }
    let anchor = ARAnchor(name: "chair", transform: hit.worldTransform)
    arView.session.add(anchor: anchor)
    endPlacement()
    return anchor
  }

  func cancelPlacement() { endPlacement() }

  private func endPlacement() {
    isPlacing = false
    previewHit = nil
    preview.isEnabled = false
  }

  /// Removes everything and scans afresh.
  func reset() {
    endPlacement()
    arView.session.run(configuration, options: [.resetTracking, .removeExistingAnchors])
  }

  func pause() { arView.session.pause() }
  func resume() { arView.session.run(configuration) }

  /// The chair model of an anchor entity.
  func chair(_ identifier: UUID) -> ModelEntity? { chairs[identifier]?.children.first as? ModelEntity }

  func session(_ session: ARSession, didUpdate frame: ARFrame) {
    frameCount += 1
    guard isPlacing else { return }
    previewHit =
      arView.raycast(from: arView.center, allowing: .existingPlaneGeometry, alignment: .horizontal).first
    preview.isEnabled = previewHit != nil
    if let previewHit { preview.setPosition(previewHit.worldTransform.translation, relativeTo: nil) }
  }

  func session(_ session: ARSession, didAdd anchors: [ARAnchor]) {
    for anchor in anchors {
      if anchor is ARPlaneAnchor {
        planesAdded.append((anchor.identifier, session.currentFrame?.timestamp ?? -1))
      }
      guard anchor.name == "chair" else { continue }
      let entity = AnchorEntity(anchor: anchor)
      entity.addChild(ModelEntity(name: "chair", bounds: Self.chairBounds))
      arView.scene.addAnchor(entity)
      chairs[anchor.identifier] = entity
    }
  }

  func session(_ session: ARSession, didRemove anchors: [ARAnchor]) {
    for anchor in anchors { chairs[anchor.identifier] = nil }
  }

  func session(_ session: ARSession, cameraDidChangeTrackingState camera: ARCamera) {
    trackingStates.append(camera.trackingState)
  }

  func sessionWasInterrupted(_ session: ARSession) { interruptions += 1 }
  func sessionInterruptionEnded(_ session: ARSession) { interruptionEnds += 1 }
}

/// The ground-truth point under the image centre of a recorded frame: the optical axis of the true
/// camera meeting the nearest horizontal ground-truth plane.
func truthUnderImageCentre(_ recorded: RecordedFrame, planes: [GroundTruthPlane]) -> SIMD3<Double>? {
  guard let pose = recorded.groundTruth else { return nil }
  let direction = pose.rotate(SIMD3(0, 0, 1))
  return planes.filter(\.isHorizontal).compactMap { $0.hit(origin: pose.translation, direction: direction) }
    .min { simd_distance($0, pose.translation) < simd_distance($1, pose.translation) }
}

/// The rigid map from the session's world to the ground truth's through the camera of one frame.
func truthFromSession(_ frame: ARFrame, _ recorded: RecordedFrame) -> RigidTransform? {
  recorded.groundTruth.map { $0 * opticalFromCamera * RigidTransform(matrix: frame.camera.transform).inverse }
}

@Suite struct PreviewPlacementTests {
  @Test func previewConfirmCancelDragRotatePinchResetPauseResume() throws {
    let planes = try GroundTruthPlane.load("tabletop")
    let app = PreviewPlacementApp()
    let session = app.arView.session
    let replay = try ARReplay(session: session, recording: Datasets.path("tabletop"))
    var pairs = TrajectoryPairs()
    func step(through time: Double, _ each: () -> Void = {}) throws {
      while replay.lastFrame.map({ $0.timestamp < time - 1e-6 }) ?? true {
        guard try replay.step() != nil else { break }
        pairs.add(frame: session.currentFrame, recorded: replay.lastFrame)
        each()
      }
    }

    // Preview: it appears on the surface under the screen centre once a plane is found there.
    app.beginPlacement()
    var previewSeen: Double?
    try step(through: 1.5) {
      if previewSeen == nil, app.preview.isEnabled { previewSeen = session.currentFrame?.timestamp }
    }
    #expect((previewSeen ?? .infinity) < 1)
    let hit = try #require(app.previewHit)
    #expect(app.preview.isEnabled && app.preview.isAnchored)
    #expect(close(app.preview.position(relativeTo: nil), hit.worldTransform.translation))
    let planeIdentifier = try #require(hit.anchor?.identifier)

    // Confirm: the chair appears with the anchor's didAdd, at the preview's place, on the true surface.
    let frameAtConfirm = try #require(session.currentFrame)
    let recordedAtConfirm = try #require(replay.lastFrame)
    let truthAtConfirm = try #require(truthUnderImageCentre(recordedAtConfirm, planes: planes))
    let chairAnchor = try #require(app.confirmPlacement())
    #expect(!app.preview.isEnabled && app.chairs.isEmpty)
    try replay.step()
    let chair = try #require(app.chair(chairAnchor.identifier))
    let chairAnchorEntity = try #require(app.chairs[chairAnchor.identifier])
    #expect(chairAnchorEntity.anchorIdentifier == chairAnchor.identifier && chair.isAnchored)
    // At the anchor, which a re-level of the world in that step may have moved from the hit.
    let placed = chair.position(relativeTo: nil)
    let anchorNow = try #require(
      session.currentFrame?.anchors.first { $0.identifier == chairAnchor.identifier })
    #expect(close(placed, anchorNow.transform.translation))
    #expect(simd_distance(placed, hit.worldTransform.translation) < 0.005)
    let cameraError = simd_distance(
      try #require(truthFromSession(frameAtConfirm, recordedAtConfirm)).apply(to: placed.double),
      truthAtConfirm)
    print("preview placement: camera-relative error \(cameraError * 100) cm")
    #expect(cameraError <= 0.01)

    // Cancel: a second placement shows the preview again, then leaves nothing behind.
    app.beginPlacement()
    try replay.step(frames: 2)
    #expect(app.preview.isEnabled)
    app.cancelPlacement()
    try replay.step()
    #expect(!app.preview.isEnabled)
    #expect(session.anchors.filter { $0.name == "chair" }.count == 1)
    #expect(app.arView.scene.anchors.count == 2)

    // Drag along the plane: to a point 15 cm away on the same plane, as the camera shows it.
    let plane = try #require(session.anchors.first { $0.identifier == planeIdentifier } as? ARPlaneAnchor)
    let polygon = plane.geometry.boundaryVertices.map { SIMD2(Double($0.x), Double($0.z)) }
    let chairInPlane = plane.transform.inverse * SIMD4(placed, 1)
    let candidates = [SIMD2<Float>(0.15, 0), SIMD2(-0.15, 0), SIMD2(0, 0.15), SIMD2(0, -0.15)].map {
      SIMD2(chairInPlane.x + $0.x, chairInPlane.z + $0.y)
    }
    let inside = try #require(
      candidates.first { Polygon2D.contains(SIMD2(Double($0.x), Double($0.y)), in: polygon) })
    // On the plane's surface: a horizontal plane's geometry (and its centre) lies at the refined height.
    let target = (plane.transform * SIMD4(inside.x, plane.center.y, inside.y, 1))
    let targetPoint = SIMD3(target.x, target.y, target.z)
    let touch = try #require(app.arView.project(targetPoint))
    #expect(app.arView.bounds.contains(touch))
    let drag = TranslationGesture(entity: chair, in: app.arView)
    let dragHit = try #require(drag.changed(to: touch))
    #expect(dragHit.anchor?.identifier == planeIdentifier)
    #expect(close(chair.position(relativeTo: nil), targetPoint, 2e-3))
    #expect(chair.parent === chairAnchorEntity && chair.isAnchored)
    // A touch whose ray meets no plane (off the image) leaves the chair where it is.
    #expect(drag.changed(to: CGPoint(x: -2000, y: -2000)) == nil)
    #expect(close(chair.position(relativeTo: nil), targetPoint, 2e-3))

    // Rotate a quarter turn about the plane's normal: up stays up.
    let up = chair.convert(direction: SIMD3(0, 1, 0), to: nil)
    RotationGesture(entity: chair).changed(rotation: .pi / 2)
    #expect(sameRotation(chair.orientation, rotation(90, SIMD3(0, 1, 0))))
    #expect(close(chair.convert(direction: SIMD3(0, 1, 0), to: nil), up))
    #expect(close(chair.convert(direction: SIMD3(1, 0, 0), to: chairAnchorEntity), SIMD3(0, 0, -1)))

    // Pinch: scaled, and clamped to 0.1...3.0.
    let pinch = ScaleGesture(entity: chair)
    pinch.changed(scale: 2)
    #expect(close(chair.scale, SIMD3(2, 2, 2)))
    #expect(close(chair.visualBounds(relativeTo: chairAnchorEntity).extents, SIMD3(0.8, 1.8, 0.8)))
    pinch.changed(scale: 5)
    #expect(close(chair.scale, SIMD3(3, 3, 3)))
    ScaleGesture(entity: chair).changed(scale: 0.01)
    #expect(close(chair.scale, SIMD3(0.1, 0.1, 0.1)))
    #expect(close(chair.visualBounds(relativeTo: chairAnchorEntity).extents, SIMD3(0.04, 0.09, 0.04)))

    // The whole placement against the ground truth in the world frame, before the reset moves it.
    try step(through: 4)
    let alignment = try pairs.alignment()
    let worldError = simd_distance(alignment.apply(to: placed.double), truthAtConfirm)
    print("preview placement: world error after alignment \(worldError * 100) cm")
    #expect(worldError <= 0.03)

    // Reset: every anchor goes, with its entities; scanning starts over and finds planes again.
    let planesBefore = Set(app.planesAdded.map(\.identifier))
    let statesBefore = app.trackingStates.count
    let chairsBefore = app.chairs.count
    app.reset()
    #expect(session.anchors.isEmpty)
    // As in ARKit, the removal is not called back from inside `run`: it comes with the next frame.
    #expect(app.chairs.count == chairsBefore && chair.scene != nil)
    try replay.step()
    #expect(app.chairs.isEmpty && chair.scene == nil && !chair.isAnchored)
    #expect(app.arView.scene.anchors.count == 1 && app.arView.scene.anchors[0] === app.previewAnchor)
    let resetTime = try #require(session.currentFrame?.timestamp)
    app.beginPlacement()
    pairs = TrajectoryPairs()
    try step(through: 6)
    let statesAfterReset = Array(app.trackingStates[statesBefore...])
    #expect(statesAfterReset.first == .limited(.initializing))
    #expect(statesAfterReset.last == .normal)
    let rescanned = try #require(app.planesAdded.first { !planesBefore.contains($0.identifier) })
    print("reset at \(resetTime) s; first plane again at \(rescanned.time) s")
    #expect(rescanned.time - resetTime < 2)
    let frameAtSecond = try #require(session.currentFrame)
    let recordedAtSecond = try #require(replay.lastFrame)
    let truthAtSecond = try #require(truthUnderImageCentre(recordedAtSecond, planes: planes))
    let secondAnchor = try #require(app.confirmPlacement())
    try replay.step()
    let secondChair = try #require(app.chair(secondAnchor.identifier))
    let secondError = simd_distance(
      try #require(truthFromSession(frameAtSecond, recordedAtSecond)).apply(
        to: secondChair.position(relativeTo: nil).double), truthAtSecond)
    print("placement after reset: camera-relative error \(secondError * 100) cm")
    #expect(secondError <= 0.01)

    // Pause: frames are ignored, nothing changes. Resume: the session reports the gap and relocalises.
    let framesBefore = app.frameCount
    let lastTime = try #require(session.currentFrame?.timestamp)
    let anchorsBefore = Set(session.anchors.map(\.identifier))
    let statesBeforePause = app.trackingStates.count
    app.pause()
    try replay.step(frames: 20)
    #expect(app.frameCount == framesBefore)
    #expect(session.currentFrame?.timestamp == lastTime)
    #expect(Set(session.anchors.map(\.identifier)) == anchorsBefore)
    #expect(app.trackingStates.count == statesBeforePause)
    app.resume()
    try replay.step(frames: 30)
    #expect(app.frameCount == framesBefore + 30)
    #expect(app.interruptions == 1 && app.interruptionEnds == 1)
    let statesAfterResume = Array(app.trackingStates[statesBeforePause...])
    print("tracking after resume: \(statesAfterResume)")
    // The session relocalises against the world it kept (no .initializing: the world is the same).
    #expect(statesAfterResume.first == .limited(.relocalizing))
    #expect(statesAfterResume.allSatisfy { $0 == .limited(.relocalizing) || $0 == .normal })
    #expect(anchorsBefore.isSubset(of: Set(session.anchors.map(\.identifier))))
    #expect(secondChair.isAnchored && app.chairs[secondAnchor.identifier] != nil)
  }
}
