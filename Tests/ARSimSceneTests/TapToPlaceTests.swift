import ARSimEval
import ARSimScene
import ARSimTestSupport
import Foundation
import Testing

@testable import ARSim

/// The "tap to place a cup" sample app, written as an iOS app would be: horizontal plane detection; a
/// tap raycasts against existing plane geometry; one `AnchorEntity` per ARAnchor holds the cups placed
/// on that plane, each at its hit. It also shows content on the first horizontal plane found
/// (`AnchorEntity(plane: .horizontal)`) and a marker at the world origin (`AnchorEntity(world: .zero)`).
final class CupPlacementApp: ARSessionDelegate {
  let arView = phoneView()
  /// The anchor entity of each plane anchor that holds cups.
  private(set) var anchorEntities: [UUID: AnchorEntity] = [:]
  /// Anchor entities whose anchor the session removed.
  private(set) var retired: [AnchorEntity] = []
  /// Content on the first horizontal plane.
  let tableContent = AnchorEntity(plane: .horizontal)
  /// A marker at the world origin.
  let originMarker = AnchorEntity(world: .zero)
  /// The first horizontal plane the session reported, and when.
  private(set) var firstHorizontalPlane: (identifier: UUID, time: Double)?
  /// Whether `tableContent` was anchored when the app heard of the first horizontal plane.
  private(set) var contentAnchoredWithFirstPlane = false

  init() {
    arView.sessionDelegate = self
    let configuration = ARWorldTrackingConfiguration()
    configuration.planeDetection = [.horizontal]
    arView.session.run(configuration)
    tableContent.addChild(
      ModelEntity(
        name: "vase", bounds: BoundingBox(min: SIMD3(-0.05, 0, -0.05), max: SIMD3(0.05, 0.25, 0.05))))
    arView.scene.addAnchor(tableContent)
    originMarker.addChild(ModelEntity(name: "origin"))
    arView.scene.addAnchor(originMarker)
  }

  /// Places a cup where the tap at `point` (view points) meets a detected horizontal plane.
  func handleTap(at point: CGPoint) -> (cup: ModelEntity, hit: ARRaycastResult)? {
    guard
      let hit = arView.raycast(from: point, allowing: .existingPlaneGeometry, alignment: .horizontal).first,
      let planeAnchor = hit.anchor
    else { return nil }
    let anchorEntity: AnchorEntity
    if let existing = anchorEntities[planeAnchor.identifier] {
      anchorEntity = existing
    } else {
      anchorEntity = AnchorEntity(anchor: planeAnchor)
      arView.scene.addAnchor(anchorEntity)
      anchorEntities[planeAnchor.identifier] = anchorEntity
    }
    let cup = ModelEntity(
      name: "cup", bounds: BoundingBox(min: SIMD3(-0.04, 0, -0.04), max: SIMD3(0.04, 0.1, 0.04)))
    anchorEntity.addChild(cup)
    cup.setPosition(hit.worldTransform.translation, relativeTo: nil)
    return (cup, hit)
  }

  func session(_ session: ARSession, didAdd anchors: [ARAnchor]) {
    guard firstHorizontalPlane == nil,
      let plane = anchors.first(where: { ($0 as? ARPlaneAnchor)?.alignment == .horizontal }),
      let time = session.currentFrame?.timestamp
    else { return }
    firstHorizontalPlane = (plane.identifier, time)
    contentAnchoredWithFirstPlane =
      tableContent.isAnchored && tableContent.anchorIdentifier == plane.identifier
  }

  func session(_ session: ARSession, didRemove anchors: [ARAnchor]) {
    for anchor in anchors {
      if let entity = anchorEntities.removeValue(forKey: anchor.identifier) { retired.append(entity) }
    }
  }
}

/// What one replay of the cup app gave, as values.
struct TapPlacementRun: Sendable {
  struct Outcome: Sendable {
    var tap: GroundTruthTap
    /// Whether the tap's view point lies within the phone's bounds (the rest is cropped by aspect fill).
    var onScreen: Bool
    /// Whether the tap's true point lies on a plane the session had detected (within 3 cm of it and at
    /// least ``TapPlacementRun/boundaryMargin`` inside its boundary, beyond the shift of the ray's meeting
    /// point by the plane's offset from it), judged through the
    /// session-to-truth alignment.
    var onDetectedPlane: Bool
    /// The placed cup's world position mapped into the ground-truth world, when the tap hit.
    var placedInTruth: SIMD3<Double>?
    /// Whether the cup sits at the hit, under the anchor entity of the hit's plane.
    var placedAtHit: Bool
    /// The placed cup mapped into the ground-truth world through the tap frame's camera (the session's
    /// pose of it, then the true one): the error as the camera saw it, without the trajectory's drift.
    var placedInTruthFromCamera: SIMD3<Double>?
    /// Distance from the true camera to the tap's true point, metres.
    var range: Double
  }

  var outcomes: [Outcome] = []
  /// Anchor entities whose anchor the session removed (merges), and how many of them are still in the
  /// scene (none should be).
  var retiredCount = 0
  var retiredStillInScene = 0
  /// The explicit removal of the plane holding most cups: cups it held, and whether its anchor entity
  /// and cups left the scene with it.
  var explicitlyRemovedCups = 0
  var explicitRemovalLeftScene = false
  /// Whether, at the end, every anchor entity in the scene follows an anchor the session still has.
  var sceneFollowsSessionAnchors = false
  /// Auto-anchoring: when the first horizontal plane was reported, whether the plane-targeted content
  /// was anchored to it by then, and the content's height above or below the camera in the session
  /// and in the ground truth (through the alignment, the plane under it).
  var firstHorizontalPlaneTime: Double?
  var contentAnchoredWithFirstPlane = false
  var contentHeightBelowCamera: Double?
  var truthHeightBelowCamera: Double?
  var contentPlaneLabel: String?
  /// Content targeting a horizontal plane added to the scene halfway: whether it was anchored at once to
  /// the first horizontal plane the session had.
  var lateContentAnchoredAtOnce = false
  /// The world-origin marker: largest distance from the origin over all frames, and whether it was
  /// anchored at every frame.
  var originMaxDistance: Float = 0
  var originAlwaysAnchored = true
  /// Root-mean-square position error of the session trajectory after alignment, metres.
  var trajectoryRMSE = 0.0

  /// Placement errors, metres, of the taps that hit (within `maximumRange` metres of the camera): in
  /// the ground-truth world after the trajectory alignment, or through the tap frame's camera.
  func errors(maximumRange: Double = .infinity, cameraRelative: Bool = false) -> [Double] {
    outcomes.filter { $0.range <= maximumRange }.compactMap { o in
      (cameraRelative ? o.placedInTruthFromCamera : o.placedInTruth).map { simd_distance($0, o.tap.world) }
    }
  }

  /// Replays `dataset` through the cup app, tapping each ground-truth tap on a horizontal surface at its
  /// frame.
  static func replay(_ dataset: String) throws -> TapPlacementRun {
    let planes = try GroundTruthPlane.load(dataset)
    let horizontal = Set(planes.filter(\.isHorizontal).map(\.id))
    var pending = try GroundTruthTap.load(dataset).filter { horizontal.contains($0.planeId) }
    let app = CupPlacementApp()
    let session = app.arView.session
    let replay = try ARReplay(session: session, recording: Datasets.path(dataset))
    let removalFrame = replay.info.frameCount - 3
    var run = TapPlacementRun()
    var pairs = TrajectoryPairs()
    var placed:
      [(
        tap: GroundTruthTap, onScreen: Bool, world: SIMD3<Float>?, atHit: Bool, planes: [ARPlaneAnchor],
        truthFromSession: RigidTransform?, range: Double, truthCamera: SIMD3<Double>?
      )] = []
    var contentAt: (world: SIMD3<Float>, camera: SIMD3<Float>, truthCamera: SIMD3<Double>)?
    var explicitlyRemoved: (entity: AnchorEntity, cups: [Entity])?

    while try replay.step() != nil {
      guard let recorded = replay.lastFrame, let frame = session.currentFrame else { continue }
      pairs.add(frame: frame, recorded: recorded)
      run.originMaxDistance = max(
        run.originMaxDistance, simd_length(app.originMarker.position(relativeTo: nil)))
      run.originAlwaysAnchored = run.originAlwaysAnchored && app.originMarker.children[0].isAnchored
      if contentAt == nil, app.tableContent.isAnchored, let truth = recorded.groundTruth {
        contentAt = (
          app.tableContent.position(relativeTo: nil), frame.camera.transform.translation, truth.translation
        )
      }
      while let tap = pending.first, tap.frame <= recorded.index {
        pending.removeFirst()
        guard tap.frame == recorded.index else { continue }
        let point = viewPoint(
          ofPixel: tap.pixel, in: app.arView, imageResolution: frame.camera.imageResolution)
        let planesNow = frame.anchors.compactMap { $0 as? ARPlaneAnchor }.filter {
          $0.alignment == .horizontal
        }
        let onScreen = app.arView.bounds.contains(point)
        let truthFromSession = recorded.groundTruth.map {
          $0 * opticalFromCamera * RigidTransform(matrix: frame.camera.transform).inverse
        }
        let range = recorded.groundTruth.map { simd_distance($0.translation, tap.world) } ?? .nan
        if let (cup, hit) = app.handleTap(at: point) {
          let world = cup.position(relativeTo: nil)
          let atHit =
            simd_distance(world, hit.worldTransform.translation) < 1e-5
            && cup.parent === app.anchorEntities[hit.anchor!.identifier] && cup.isAnchored
          placed.append(
            (
              tap, onScreen, world, atHit, planesNow, truthFromSession, range,
              recorded.groundTruth?.translation
            ))
        } else {
          placed.append(
            (tap, onScreen, nil, false, planesNow, truthFromSession, range, recorded.groundTruth?.translation)
          )
        }
      }
      if recorded.index == replay.info.frameCount / 2 {
        let late = AnchorEntity(plane: .horizontal)
        app.arView.scene.addAnchor(late)
        let first = session.anchors.first { ($0 as? ARPlaneAnchor)?.alignment == .horizontal }
        run.lateContentAnchoredAtOnce =
          late.isAnchored && first != nil && late.anchorIdentifier == first?.identifier
          && simd_distance(late.position(relativeTo: nil), first!.transform.translation) < 1e-5
        late.removeFromParent()
      }
      if let removed = explicitlyRemoved {
        run.explicitRemovalLeftScene =
          removed.entity.scene == nil && removed.cups.allSatisfy { !$0.isAnchored && $0.scene == nil }
        explicitlyRemoved = nil
      }
      if recorded.index == removalFrame,
        let (identifier, entity) = app.anchorEntities.max(by: {
          $0.value.children.count < $1.value.children.count
        }),
        let anchor = session.anchors.first(where: { $0.identifier == identifier })
      {
        explicitlyRemoved = (entity, Array(entity.children))
        run.explicitlyRemovedCups = entity.children.count
        session.remove(anchor: anchor)
      }
    }

    let alignment = try pairs.alignment()
    run.trajectoryRMSE =
      (zip(pairs.session, pairs.truth).map { simd_distance_squared(alignment.apply(to: $0), $1) }
      .reduce(0, +) / Double(pairs.session.count)).squareRoot()
    let truthToSession = alignment.inverse
    for p in placed {
      let inSession = truthToSession.apply(to: p.tap.world)
      let onPlane = p.planes.contains { plane in
        let local = RigidTransform(matrix: plane.transform).inverse.apply(to: inSession)
        let polygon = plane.geometry.boundaryVertices.map { SIMD2(Double($0.x), Double($0.z)) }
        let point = SIMD2(local.x, local.z)
        // The ray meets the detected plane, |y| off the true point, that far times the ray's
        // horizontal run over its drop away from the point: at grazing angles that shift, not the
        // placement, decides a tap near the edge.
        var shift = 0.0
        if let camera = p.truthCamera {
          let ray =
            local
            - RigidTransform(matrix: plane.transform).inverse.apply(to: truthToSession.apply(to: camera))
          shift = abs(local.y) * simd_length(SIMD2(ray.x, ray.z)) / max(abs(ray.y), 1e-9)
        }
        return abs(local.y) < 0.03 && Polygon2D.contains(point, in: polygon)
          && Self.distance(from: point, toBoundaryOf: polygon) >= Self.boundaryMargin + shift
      }
      run.outcomes.append(
        Outcome(
          tap: p.tap, onScreen: p.onScreen, onDetectedPlane: onPlane,
          placedInTruth: p.world.map { alignment.apply(to: $0.double) }, placedAtHit: p.atHit,
          placedInTruthFromCamera: p.world.flatMap { world in p.truthFromSession?.apply(to: world.double) },
          range: p.range))
    }
    run.retiredCount = app.retired.count
    run.retiredStillInScene = app.retired.filter { $0.scene != nil }.count
    let sessionIDs = Set(session.anchors.map(\.identifier))
    run.sceneFollowsSessionAnchors = app.arView.scene.anchors.allSatisfy { anchor in
      (anchor as? AnchorEntity)?.anchorIdentifier.map { sessionIDs.contains($0) } ?? true
    }
    run.firstHorizontalPlaneTime = app.firstHorizontalPlane?.time
    run.contentAnchoredWithFirstPlane = app.contentAnchoredWithFirstPlane
    if let contentAt {
      run.contentHeightBelowCamera = Double(contentAt.camera.y - contentAt.world.y)
      let inTruth = alignment.apply(to: contentAt.world.double)
      if let plane = planes.filter({ $0.isHorizontal && $0.containsHorizontally(inTruth) })
        .min(by: { abs($0.height - inTruth.y) < abs($1.height - inTruth.y) })
      {
        run.contentPlaneLabel = plane.label
        run.truthHeightBelowCamera = contentAt.truthCamera.y - plane.height
      }
    }
    return run
  }

  /// How far inside a detected plane's boundary a tap's true point must lie to count as on the plane,
  /// metres, beyond the shift of the ray's meeting point by the plane's offset from the point: closer to
  /// the edge, the trajectory alignment's error (about 1 cm) decides the side.
  static let boundaryMargin = 0.02

  /// The distance from `point` to the nearest edge of `polygon` (closed), metres.
  static func distance(from point: SIMD2<Double>, toBoundaryOf polygon: [SIMD2<Double>]) -> Double {
    var nearest = Double.infinity
    for (i, a) in polygon.enumerated() {
      let b = polygon[(i + 1) % polygon.count]
      let edge = b - a
      let length = simd_length_squared(edge)
      let t = length > 0 ? min(max(simd_dot(point - a, edge) / length, 0), 1) : 0
      nearest = min(nearest, simd_distance(point, a + t * edge))
    }
    return nearest
  }

  /// A one-line summary of the placement figures.
  func summary(_ name: String) -> String {
    let hits = outcomes.filter { $0.placedInTruth != nil }
    let onPlane = outcomes.filter(\.onDetectedPlane)
    let onPlaneHits = onPlane.filter { $0.placedInTruth != nil }
    let onScreenErrors = outcomes.filter(\.onScreen).compactMap { o in
      o.placedInTruth.map { simd_distance($0, o.tap.world) }
    }
    func cm(_ value: Double?) -> String { value.map { String(format: "%.2f cm", $0 * 100) } ?? "-" }
    let cameraErrors = self.errors(cameraRelative: true)
    let nearCamera = self.errors(maximumRange: TapToPlaceTests.nearRange, cameraRelative: true)
    let errors = self.errors()
    let near = self.errors(maximumRange: TapToPlaceTests.nearRange)
    return "\(name): \(outcomes.count) taps on horizontal surfaces, \(hits.count) hit; "
      + "\(onPlane.count) on detected planes, \(onPlaneHits.count) of them hit; "
      + "error median \(cm(quantile(errors, 0.5))), p90 \(cm(quantile(errors, 0.9))), max \(cm(errors.max())); "
      + "within \(TapToPlaceTests.nearRange) m: \(near.count) hits, median \(cm(quantile(near, 0.5))), "
      + "p90 \(cm(quantile(near, 0.9))); "
      + "on screen: \(onScreenErrors.count) hits, median \(cm(quantile(onScreenErrors, 0.5))), "
      + "p90 \(cm(quantile(onScreenErrors, 0.9))); camera-relative error median "
      + "\(cm(quantile(cameraErrors, 0.5))), p90 \(cm(quantile(cameraErrors, 0.9))), within "
      + "\(TapToPlaceTests.nearRange) m median \(cm(quantile(nearCamera, 0.5))), "
      + "p90 \(cm(quantile(nearCamera, 0.9))); trajectory RMSE \(cm(trajectoryRMSE))"
  }
}

@Suite struct TapToPlaceTests {
  /// One replay of each dataset, shared by the tests that read it.
  static let tabletop = Result { try TapPlacementRun.replay("tabletop") }
  static let room = Result { try TapPlacementRun.replay("room") }

  /// Taps within this distance of the camera (metres) are held to issue 7's placement targets; farther
  /// ones are floor points seen at grazing angles, where a fraction of a degree of camera or plane error
  /// moves the hit by centimetres.
  static let nearRange = 2.5

  @Test(arguments: ["tabletop", "room"])
  func tapToPlaceACupMatchesGroundTruth(dataset: String) throws {
    let run = try (dataset == "tabletop" ? Self.tabletop : Self.room).get()
    print(run.summary(dataset))
    #expect(run.outcomes.count >= 8)
    // Hit rate: taps whose true point lies on a detected plane hit it.
    let onPlane = run.outcomes.filter(\.onDetectedPlane)
    let onPlaneHits = onPlane.filter { $0.placedInTruth != nil }.count
    #expect(onPlane.count >= run.outcomes.count / 2)
    #expect(Double(onPlaneHits) >= 0.98 * Double(onPlane.count), "taps on detected planes hit")
    // Each cup is where its ray hit, under the anchor entity of the plane it hit.
    #expect(run.outcomes.allSatisfy { $0.placedInTruth == nil || $0.placedAtHit })
    // Placement error against the ground truth within 2.5 m: issue 7's targets as the camera saw it (the
    // tap frame's session pose against its true pose), and in the world after the trajectory alignment,
    // which adds the trajectory's drift: there the median is held to 1.5 cm.
    let nearCamera = run.errors(maximumRange: Self.nearRange, cameraRelative: true)
    #expect(nearCamera.count >= 5)
    #expect((quantile(nearCamera, 0.5) ?? .infinity) <= 0.01)
    #expect((quantile(nearCamera, 0.9) ?? .infinity) <= 0.03)
    let nearWorld = run.errors(maximumRange: Self.nearRange)
    #expect((quantile(nearWorld, 0.5) ?? .infinity) <= 0.015)
    #expect((quantile(nearWorld, 0.9) ?? .infinity) <= 0.04)
    // Every tap, near or far: no more than 1 cm plus 3% of the range (about 1.7°).
    for outcome in run.outcomes {
      guard let placed = outcome.placedInTruth else { continue }
      #expect(
        simd_distance(placed, outcome.tap.world) <= 0.01 + 0.03 * outcome.range,
        "tap at \(outcome.tap.time) s")
    }
    // Over every tap (far floor taps at 3-5 m, grazing, included) issue 7's targets are not met on
    // the small datasets; `arsim eval` reports those figures, and no check here pretends otherwise.
  }

  @Test(arguments: ["tabletop", "room"])
  func anchorEntitiesLeaveWithTheirAnchors(dataset: String) throws {
    let run = try (dataset == "tabletop" ? Self.tabletop : Self.room).get()
    #expect(run.retiredStillInScene == 0)
    #expect(run.explicitlyRemovedCups >= 1)
    #expect(run.explicitRemovalLeftScene)
    #expect(run.sceneFollowsSessionAnchors)
  }

  @Test func autoAnchoringToTheFirstHorizontalPlane() throws {
    let run = try Self.tabletop.get()
    print(
      "auto-anchoring: first horizontal plane at \(run.firstHorizontalPlaneTime ?? -1) s on the "
        + "\(run.contentPlaneLabel ?? "?"), \(run.contentHeightBelowCamera ?? .nan) m below the camera "
        + "(truth \(run.truthHeightBelowCamera ?? .nan) m)")
    // The table is in view from the first frame: a plane is found within the first second, and the
    // content is on it by the time the app hears of it.
    let time = try #require(run.firstHorizontalPlaneTime)
    #expect(time < 1)
    #expect(run.contentAnchoredWithFirstPlane)
    #expect(run.lateContentAnchoredAtOnce)
    let height = try #require(run.contentHeightBelowCamera)
    let truth = try #require(run.truthHeightBelowCamera)
    #expect(["table", "floor"].contains(run.contentPlaneLabel))
    #expect(abs(height - truth) <= 0.01)
  }

  @Test func worldOriginAnchorStaysAtTheOrigin() throws {
    let run = try Self.tabletop.get()
    #expect(run.originMaxDistance == 0)
    #expect(run.originAlwaysAnchored)
  }
}
