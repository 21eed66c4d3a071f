import ARSim
import ARSimTestSupport
import Foundation
import Testing

/// Records the order of callbacks, and whether one came from inside `run`.
private final class CallbackLog: ARSessionDelegate {
  var events: [String] = []
  var insideRun = false
  var calledInsideRun = false
  func note(_ event: String) {
    if insideRun { calledInsideRun = true }
    events.append(event)
  }
  func session(_ session: ARSession, didUpdate frame: ARFrame) { note("frame") }
  func session(_ session: ARSession, didAdd anchors: [ARAnchor]) { note("add \(anchors.count)") }
  func session(_ session: ARSession, didRemove anchors: [ARAnchor]) { note("remove \(anchors.count)") }
}

@Suite struct ARKitSurfaceTests {
  @Test func errorsCarryApplesCodesAndDescribeTheProblem() {
    let error = ARError(.invalidWorldMap, message: "map.arexperience: not a world map")
    #expect(ARError.errorDomain == "com.apple.arkit.error" && error.errorCode == 302)
    #expect(
      ARError.Code.unsupportedConfiguration.rawValue == 100 && ARError.Code.requestFailed.rawValue == 501)
    #expect(error.localizedDescription == "map.arexperience: not a world map")
    #expect((error as NSError).domain == ARErrorDomain && (error as NSError).code == 302)
    let caught: Bool
    do { throw error } catch ARError.invalidWorldMap { caught = true } catch { caught = false }
    #expect(caught)
    let fromUserInfo = ARError(.sensorUnavailable, userInfo: [NSLocalizedDescriptionKey: "no depth"])
    #expect(fromUserInfo.errorDescription == "no depth")

    let recording: any Error = RecordingError(
      file: "Datasets/x/frames.txt", line: 12, "timestamp 0.4 is not after 0.5")
    #expect(recording.localizedDescription == "Datasets/x/frames.txt:12: timestamp 0.4 is not after 0.5")
  }

  @Test func configurationMembersAreAcceptedAndCopied() {
    let configuration = ARWorldTrackingConfiguration()
    #expect(configuration.environmentTexturing == .none && configuration.isAutoFocusEnabled)
    configuration.environmentTexturing = .automatic
    configuration.sceneReconstruction = .mesh
    configuration.frameSemantics = .sceneDepth
    configuration.isAutoFocusEnabled = false
    configuration.videoFormat = ARWorldTrackingConfiguration.supportedVideoFormats[0]
    configuration.detectionImages = [
      ARReferenceImage(.gray(GrayImage(width: 4, height: 2)), physicalWidth: 0.2)
    ]
    let copy = configuration.copy() as? ARWorldTrackingConfiguration
    #expect(copy?.environmentTexturing == .automatic && copy?.sceneReconstruction == .mesh)
    #expect(copy?.frameSemantics == .sceneDepth && copy?.isAutoFocusEnabled == false)
    #expect(copy?.detectionImages.first?.physicalSize == CGSize(width: 0.2, height: 0.1))
    #expect(copy?.videoFormat == .recording)
    #expect(!ARWorldTrackingConfiguration.supportsSceneReconstruction(.mesh))
    #expect(ARWorldTrackingConfiguration.supportsSceneReconstruction([]))
    #expect(ARWorldTrackingConfiguration.supportsFrameSemantics([.sceneDepth, .smoothedSceneDepth]))
    #expect(!ARWorldTrackingConfiguration.supportsFrameSemantics(.personSegmentation))
    #expect(ARReferenceImage.referenceImages(inGroupNamed: "AR Resources", bundle: nil) == nil)
  }

  /// ARKit calls back after the call that caused a change: removing anchors with `run` is reported
  /// with the next frame, after its `didUpdate frame`, deterministically.
  @Test(.enabled(if: Datasets.exists("tabletop"))) func runRemovesAnchorsWithTheNextFrameNotFromInsideRun()
    throws
  {
    func run() throws -> [String] {
      let session = ARSession()
      let log = CallbackLog()
      session.delegate = log
      let configuration = ARWorldTrackingConfiguration()
      configuration.planeDetection = [.horizontal]
      session.run(configuration)
      let replay = try ARReplay(session: session, recording: Datasets.path("tabletop"))
      while session.anchors.isEmpty, try replay.step() != nil {}
      session.add(anchor: ARAnchor(name: "cup", transform: .identity))
      try replay.step()
      let count = session.anchors.count
      session.add(anchor: ARAnchor(name: "never announced", transform: .identity))
      log.events.removeAll()
      log.insideRun = true
      session.run(configuration, options: .removeExistingAnchors)
      log.insideRun = false
      #expect(!log.calledInsideRun && log.events.isEmpty && session.anchors.isEmpty)
      try replay.step()
      #expect(log.events.first == "frame" && log.events.contains("remove \(count)"))
      #expect(log.events.filter { $0 == "frame" }.count == 1, "the removal comes with that frame")
      return log.events
    }
    #expect(try run() == run())
  }

  @Test(.enabled(if: Datasets.exists("tabletop"))) func mappingStatusAndLegacyHitTestFollowTheSession() throws
  {
    let session = ARSession()
    let configuration = ARWorldTrackingConfiguration()
    configuration.planeDetection = [.horizontal]
    session.run(configuration)
    let replay = try ARReplay(session: session, recording: Datasets.path("tabletop"))
    try replay.step()
    #expect(session.currentFrame?.worldMappingStatus == .notAvailable, "initialising")
    var statuses: Set<Int> = []
    while try replay.step() != nil, session.anchors.isEmpty {
      statuses.insert(session.currentFrame!.worldMappingStatus.rawValue)
    }
    try replay.step(frames: 5)
    let frame = try #require(session.currentFrame)
    // The orbit explores: no keyframe but the latest ones covers the view (WorldMapTests: mapped where a map covers).
    #expect(frame.worldMappingStatus == .extending)

    // The legacy hit test agrees with the raycast it maps onto.
    let centre = CGPoint(x: 0.5, y: 0.5)
    let legacy = frame.hitTest(centre, types: [.existingPlaneUsingGeometry, .featurePoint])
    let raycast = session.raycast(
      frame.raycastQuery(from: centre, allowing: .existingPlaneGeometry, alignment: .any))
    let planeHits = legacy.filter { $0.type == .existingPlaneUsingGeometry }
    #expect(planeHits.count == raycast.count)
    if let hit = planeHits.first, let ray = raycast.first {
      #expect(hit.worldTransform == ray.worldTransform && hit.anchor?.identifier == ray.anchor?.identifier)
      let local = try #require(hit.anchor).transform * hit.localTransform
      #expect((0..<4).allSatisfy { simd_length(local[$0] - hit.worldTransform[$0]) < 1e-4 })
    }
    #expect(zip(legacy, legacy.dropFirst()).allSatisfy { $0.distance <= $1.distance })
    // A ray through a tracked feature point hits it.
    let point = try #require(frame.rawFeaturePoints?.points.first)
    let resolution = frame.camera.imageResolution
    let pixel = frame.camera.projectPoint(point, orientation: .landscapeRight, viewportSize: resolution)
    let throughPoint = frame.hitTest(
      CGPoint(x: pixel.x / resolution.width, y: pixel.y / resolution.height), types: .featurePoint)
    #expect(throughPoint.contains { simd_distance($0.worldTransform.translation, point) < 0.02 })
  }
}

extension simd_float4x4 {
  fileprivate var translation: SIMD3<Float> { SIMD3(columns.3.x, columns.3.y, columns.3.z) }
}
