// Txirimiri's scene code (seed 000), written against Apple's API as the tutorial shows it; only the
// import lines differ (`ARSimScene` for `RealityKit`). SwiftUI's `RealityView` and CloudKit do not
// exist on Linux: their parts are STAND-INs, marked.
import ARSimScene
import Foundation
import Observation

struct Model3D: Identifiable, Hashable {
  var name: String
  var description: String
  var ext: String?  // extension
  var model: Data?
  var thumbnail: Data?
  var id: String
}

/// STAND-IN for the CloudKit-backed ContentManager: the records it would fetch, held in memory.
@MainActor
@Observable
final class ContentManager {
  var models: [Model3D] = []
  private var stored: [String: Model3D] = [:]

  init(records: [Model3D]) {
    models = records.map { Model3D(name: $0.name, description: $0.description, ext: $0.ext, id: $0.id) }
    for record in records { stored[record.id] = record }
  }

  func fetchModel(for id: String) async -> Model3D? { stored[id] }
}

/// The view around the view model (its SwiftUI body is the STAND-IN below).
enum Model3DView {}

extension Model3DView {
  @MainActor
  @Observable
  class ViewModel {
    var model: Model3D
    var entity: ModelEntity?
    var isSpatialTracking = false

    init(model: Model3D) {
      self.model = model
    }
  }
}

extension Model3DView.ViewModel {
  func getEntity(from manager: ContentManager) async -> ModelEntity? {
    // If the entity has already been loaded, return it
    if let entity {
      return entity
    }

    // If the entity has not been loaded, get the stored data, or fetch
    var data: Data? = model.model
    if data == nil, let fetchedModel = await manager.fetchModel(for: model.id) {
      data = fetchedModel.model
      model = fetchedModel
    }
    guard let data else { return nil }

    guard model.ext == "usdz" else {
      print(
        "WARNING: \(model.ext ?? "nil") is not a supported file extension for loading an entity, returning nil"
      )
      return nil
    }

    // Convert the stored Data to a USDZ file into a temporary directory,
    // and give it an extension so RealityKit recognizes which loader to use
    let tempDir = FileManager.default.temporaryDirectory
    let tempURL =
      tempDir
      .appendingPathComponent(model.id)
      .appendingPathExtension(model.ext ?? "usdz")
    try? data.write(to: tempURL)

    // Load the entity, clean up the temporary file, and return the entity
    // STAND-IN: `try? await ModelEntity(contentsOf: tempURL)` is the assets helper's issue 15; until it
    // lands, a generated pelota (a 6 cm ball) stands for the file's model.
    entity =
      FileManager.default.fileExists(atPath: tempURL.path)
      ? ModelEntity(mesh: .generateSphere(radius: 0.03)) : nil
    try? FileManager.default.removeItem(at: tempURL)
    return entity
  }

  var currentAnchorEntity: AnchorEntity {
    let anchor: AnchorEntity
    if isSpatialTracking {
      anchor = AnchorEntity(plane: .horizontal)
    } else {
      anchor = AnchorEntity(world: .zero)
      let camera = PerspectiveCamera()
      camera.look(at: .zero, from: .one, relativeTo: nil)
      camera.setParent(anchor)
    }
    return anchor
  }

  /// Centres the model on its anchor, sitting on it, about 30 cm across ("vanilla RealityKit code"
  /// the tutorial leaves to its repository).
  func fit(_ entity: ModelEntity, size: Float = 0.3) {
    let bounds = entity.visualBounds(relativeTo: entity)
    let largest = max(bounds.extents.x, bounds.extents.y, bounds.extents.z)
    guard largest > 0 else { return }
    let scale = size / largest
    entity.scale = SIMD3(repeating: scale)
    entity.position = (SIMD3(0, bounds.extents.y / 2, 0) - bounds.center) * scale
  }
}

/// STAND-IN for SwiftUI's `RealityView` content: the camera choice and the entities, kept in a
/// headless ARView (`.virtual` is its `.nonAR` mode, `.spatialTracking` its `.ar` mode).
@MainActor
struct RealityViewContent {
  enum Camera {
    case virtual
    case spatialTracking
  }

  let view: ARView

  var camera: Camera {
    get { view.cameraMode == .ar ? .spatialTracking : .virtual }
    nonmutating set { view.cameraMode = newValue == .spatialTracking ? .ar : .nonAR }
  }

  var entities: Scene.AnchorCollection { view.scene.anchors }

  func add(_ anchor: AnchorEntity) { view.scene.addAnchor(anchor) }
}

/// The tutorial's `RealityView { make } update: { ... }` closures.
@MainActor
struct Model3DRealityView {
  let viewModel: Model3DView.ViewModel
  let manager: ContentManager

  func make(_ content: RealityViewContent) async {
    let _ = await viewModel.getEntity(from: manager)
  }

  func update(_ content: RealityViewContent) {
    content.camera = viewModel.isSpatialTracking ? .spatialTracking : .virtual
    content.entities.removeAll()
    let anchor = viewModel.currentAnchorEntity
    content.add(anchor)
    viewModel.entity?.setParent(anchor)
    if let entity = viewModel.entity { viewModel.fit(entity) }
  }
}
