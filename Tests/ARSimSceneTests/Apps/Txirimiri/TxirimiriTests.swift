import ARSimScene
import ARSimTestSupport
import Foundation
import Testing

/// Txirimiri's model view: a virtual camera looking at the model at the world origin, then AR mode,
/// where the model waits for the first horizontal plane (`AnchorEntity(plane: .horizontal)`) of a
/// session the view configures by itself.
@MainActor
@Suite struct TxirimiriTests {
  @Test func virtualCameraThenAnchoredOnTheFirstHorizontalPlane() async throws {
    guard Datasets.exists("tabletop") else {
      Issue.record("Datasets/tabletop is missing")
      return
    }
    let pelota = Model3D(
      name: "Pelota", description: "A souvenir Basque pelota", ext: "usdz", model: Data([0x50, 0x4B, 3, 4]),
      thumbnail: nil, id: "pelota")
    let manager = ContentManager(records: [pelota])
    #expect(manager.models.first?.model == nil, "the list holds lightweight records")
    let viewModel = Model3DView.ViewModel(model: try #require(manager.models.first))
    let arView = ARView(frame: CGRect(x: 0, y: 0, width: 390, height: 844))
    let content = RealityViewContent(view: arView)
    let realityView = Model3DRealityView(viewModel: viewModel, manager: manager)
    await realityView.make(content)
    let entity = try #require(viewModel.entity)
    #expect(viewModel.model.model != nil, "the full record was fetched")
    realityView.update(content)

    // Virtual camera: at (1, 1, 1) looking at the origin, where the model sits, 30 cm across.
    #expect(arView.cameraMode == .nonAR && arView.scene.anchors.count == 1)
    let bounds = entity.visualBounds(relativeTo: nil)
    #expect(abs(bounds.extents.max() - 0.3) < 1e-4 && abs(bounds.min.y) < 1e-4)
    entity.generateCollisionShapes(recursive: true)
    #expect(arView.entity(at: CGPoint(x: 195, y: 422)) === entity, "the model is in the middle of the view")
    #expect(arView.entity(at: CGPoint(x: 20, y: 40)) == nil)

    // AR: the update rebuilds the scene around a plane anchor; the view runs its session itself.
    viewModel.isSpatialTracking = true
    realityView.update(content)
    let anchor = try #require(arView.scene.anchors.first as? AnchorEntity)
    #expect(arView.scene.anchors.count == 1 && entity.parent === anchor && !entity.isAnchored)
    let replay = try ARReplay(session: arView.session, recording: Datasets.path("tabletop"))
    try replay.step()
    let configuration = try #require(arView.session.configuration as? ARWorldTrackingConfiguration)
    #expect(configuration.planeDetection == [.horizontal, .vertical], "RealityKit's automatic configuration")
    while !entity.isAnchored, try replay.step() {}
    let plane = try #require(
      arView.session.anchors.first { $0.identifier == anchor.anchorIdentifier } as? ARPlaneAnchor)
    #expect(plane.alignment == .horizontal)
    let firstHorizontal = arView.session.anchors.compactMap { $0 as? ARPlaneAnchor }.first {
      $0.alignment == .horizontal
    }
    #expect(firstHorizontal?.identifier == plane.identifier)
    let onPlane = plane.transform.inverse * SIMD4(entity.visualBounds(relativeTo: nil).min, 1)
    #expect(abs(onPlane.y) < 0.01, "the model sits on the plane")
  }

  @Test func unsupportedExtensionsGiveNoEntity() async {
    let glb = Model3D(name: "Boat", description: "", ext: "glb", model: Data([1]), thumbnail: nil, id: "boat")
    let viewModel = Model3DView.ViewModel(model: glb)
    #expect(await viewModel.getEntity(from: ContentManager(records: [])) == nil)
  }
}
