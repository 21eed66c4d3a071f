import ARSimScene
import Foundation

enum ModelLoadError: Error, LocalizedError, Equatable {
  case fileNotFound(String)
  case loadFailed(String)
  case anchorNotFound(String)

  var errorDescription: String? {
    switch self {
    case .fileNotFound(let name): "Model file \(name) was not found."
    case .loadFailed(let name): "Model \(name) could not be loaded."
    case .anchorNotFound(let name): "Scene \(name) was not found in the Reality file."
    }
  }
}

@MainActor
protocol ModelLoadable {
  func load(model: ARModel) async throws -> Entity
}

/// The only switch on ARModelFormat in the app.
@MainActor
final class ModelLoader: ModelLoadable {
  /// STAND-IN: the bundled files. The app loads .usdz with `ModelEntity(named:in:)` and .reality with
  /// `Entity(contentsOf:withName:)` (the assets helper's issue 15); until that lands, generated meshes of
  /// the models' sizes stand for the files.
  private let bundled: [String: MeshResource] = [
    "LunarRover_English": .generateBox(width: 0.3, height: 0.15, depth: 0.4),
    "toy_biplane_realistic": .generateBox(width: 0.4, height: 0.12, depth: 0.35),
    "toy_car": .generateBox(width: 0.12, height: 0.08, depth: 0.25),
  ]

  func load(model: ARModel) async throws -> Entity {
    guard let mesh = bundled[model.fileName] else { throw ModelLoadError.fileNotFound(model.fileName) }
    switch model.format {
    case .usdz:
      let entity = ModelEntity(mesh: mesh, materials: [SimpleMaterial(color: .gray, isMetallic: true)])
      entity.name = model.name
      return entity
    case .reality:
      let scene = Entity()
      let flow = ModelEntity(mesh: mesh, materials: [SimpleMaterial(color: .white, isMetallic: false)])
      flow.name = "Rover Flow"
      scene.addChild(flow)
      guard let sceneName = model.sceneName, let found = scene.findEntity(named: sceneName) else {
        throw ModelLoadError.anchorNotFound(model.sceneName ?? model.name)
      }
      return found
    }
  }
}

enum ScaleConstraints {
  static let minimum: Float = 0.1
  static let maximum: Float = 3.0

  static func clamp(_ scale: Float) -> Float { min(max(scale, minimum), maximum) }
}

extension ModelEntity {
  var uniformScale: Float {
    get { scale.x }
    set { scale = SIMD3(repeating: ScaleConstraints.clamp(newValue)) }
  }

  func rotateAroundY(by radians: Float) {
    orientation = simd_quatf(angle: radians, axis: SIMD3(0, 1, 0)) * orientation
  }
}

@MainActor
protocol SceneManaging {
  var currentPlacedEntity: Entity? { get }
  func showPreview(of entity: Entity, at result: ARRaycastResult, in arView: ARView)
  func confirmPlacement(in arView: ARView)
  func cancelPreview()
  func removeAllEntities(from arView: ARView)
}

/// Places and removes the AnchorEntity of the placed model; installs the gestures.
@MainActor
final class SceneManager: SceneManaging {
  private(set) var currentPlacedEntity: Entity?
  private var previewAnchor: AnchorEntity?
  private var previewEntity: Entity?
  private(set) var gestureRecognizers: [EntityGestureRecognizer] = []

  func showPreview(of entity: Entity, at result: ARRaycastResult, in arView: ARView) {
    cancelPreview()
    let anchor = AnchorEntity(raycastResult: result)
    anchor.addChild(entity)
    arView.scene.addAnchor(anchor)
    previewAnchor = anchor
    previewEntity = entity
  }

  func confirmPlacement(in arView: ARView) {
    guard let entity = previewEntity as? ModelEntity else { return }
    entity.generateCollisionShapes(recursive: true)
    gestureRecognizers = arView.installGestures([.translation, .rotation, .scale], for: entity)
    for recognizer in gestureRecognizers {
      // STAND-IN for `recognizer.addTarget(self, action: #selector(handlePinch(_:)))`.
      recognizer.addTarget { [weak entity] recognizer in
        guard recognizer is EntityScaleGestureRecognizer, let entity else { return }
        entity.uniformScale = entity.scale.x
      }
    }
    currentPlacedEntity = entity
    previewAnchor = nil
    previewEntity = nil
  }

  func cancelPreview() {
    previewAnchor?.removeFromParent()
    previewAnchor = nil
    previewEntity = nil
  }

  func removeAllEntities(from arView: ARView) {
    cancelPreview()
    arView.scene.anchors.removeAll()
    currentPlacedEntity = nil
    gestureRecognizers = []
  }
}
