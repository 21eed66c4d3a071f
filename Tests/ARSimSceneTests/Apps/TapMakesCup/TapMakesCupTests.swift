import ARSimScene
import ARSimTestSupport
import Combine
import Foundation
import Testing

/// TapMakesCup on the tabletop recording, as a device would run it: the view model loads its cup
/// (published through Combine), configures the session and makes itself the session's delegate; taps
/// on detected horizontal planes place cups on them, one `AnchorEntity` per plane anchor; a removed
/// anchor takes its cups away.
@MainActor
@Suite struct TapMakesCupTests {
  @Test func tapsPlaceCupsOnDetectedPlanesAndRemovalTakesThemAway() async throws {
    guard Datasets.exists("tabletop") else {
      Issue.record("Datasets/tabletop is missing")
      return
    }
    let viewModel = ViewModel()
    var published: [Bool] = []
    let watch = viewModel.$assetsLoaded.sink { published.append($0) }
    var changes = 0
    let willChange = viewModel.objectWillChange.sink { changes += 1 }
    viewModel.resume()
    let deadline = Date().addingTimeInterval(10)
    while !viewModel.assetsLoaded && Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
    #expect(viewModel.assetsLoaded && published == [false, true] && changes == 1)

    let container = ARViewContainer(viewModel: viewModel)
    let arView = container.makeUIView()
    arView.frame = CGRect(x: 0, y: 0, width: 390, height: 844)  // SwiftUI lays the view out full screen
    #expect(arView.session.delegate === viewModel)
    #expect(arView.debugOptions.contains(.showAnchorGeometry))

    let replay = try ARReplay(session: arView.session, recording: Datasets.path("tabletop"))
    let centre = CGPoint(x: 195, y: 422)
    var placedAt: [SIMD3<Float>] = []
    while try replay.step() {
      let frame = try #require(arView.session.currentFrame)
      guard frame.frameIndex % 10 == 0, placedAt.count < 6 else { continue }
      let before = viewModel.anchorEntities.values.reduce(0) { $0 + $1.children.count }
      container.viewTapped(at: centre, in: arView)
      let after = viewModel.anchorEntities.values.reduce(0) { $0 + $1.children.count }
      if after > before,
        let hit = arView.raycast(from: centre, allowing: .existingPlaneGeometry, alignment: .horizontal).first
      {
        placedAt.append(hit.worldTransform.columns.3.xyz)
      }
      if placedAt.count == 3 { break }
    }
    #expect(placedAt.count == 3, "three taps hit detected planes")

    // Each cup stands where its tap hit, on its plane anchor, anchored in the scene.
    let cups = viewModel.anchorEntities.values.flatMap { Array($0.children) }
    #expect(
      cups.count == 3 && cups.allSatisfy { $0.name == "Cup" && $0.isAnchored && $0.scene === arView.scene })
    for (anchorID, anchorEntity) in viewModel.anchorEntities {
      let plane = try #require(arView.session.anchors.first { $0.identifier == anchorID } as? ARPlaneAnchor)
      #expect(plane.alignment == .horizontal && anchorEntity.anchorIdentifier == anchorID)
      for cup in anchorEntity.children {
        let local = plane.transform.inverse * SIMD4(cup.position(relativeTo: nil), 1)
        #expect(abs(local.y) < 0.01, "the cup stands on its plane")
      }
    }
    for point in placedAt {
      #expect(cups.contains { simd_distance($0.position(relativeTo: nil), point) < 0.03 })
    }
    // The cups are clones of one loaded model: same mesh, their own transforms.
    let meshes = Set(cups.compactMap { ($0 as? ModelEntity)?.model?.mesh }.map(ObjectIdentifier.init))
    #expect(meshes.count == 1)

    // The session removes an anchor (here the app's own removal of the plane): with the next frame
    // the delegate takes its anchor entity and cups out of the scene.
    let (gone, entity) = try #require(viewModel.anchorEntities.first)
    let plane = try #require(arView.session.anchors.first { $0.identifier == gone })
    arView.session.remove(anchor: plane)
    #expect(entity.scene != nil, "not from inside remove(anchor:)")
    try replay.step()
    #expect(viewModel.anchorEntities[gone] == nil && entity.scene == nil)
    #expect(entity.children.allSatisfy { !$0.isAnchored })
    _ = (watch, willChange)
  }
}

extension SIMD4 where Scalar == Float {
  var xyz: SIMD3<Float> { SIMD3(x, y, z) }
}
