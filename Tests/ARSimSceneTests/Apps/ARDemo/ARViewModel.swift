import ARSimScene
import Combine
import Foundation

@MainActor
final class ARViewModel: ObservableObject {
  @Published private(set) var sessionState: ARSessionState = .notStarted
  @Published private(set) var placementState: ARPlacementState = .scanning
  @Published private(set) var isModelPlaced = false
  @Published private(set) var errorMessage: String?
  @Published var selectedModel: ARModel?

  private let sessionManager: ARSessionManaging
  private let modelLoader: ModelLoadable
  private let sceneManager: SceneManaging
  private var cancellables = Set<AnyCancellable>()

  init(sessionManager: ARSessionManaging, modelLoader: ModelLoadable, sceneManager: SceneManaging) {
    self.sessionManager = sessionManager
    self.modelLoader = modelLoader
    self.sceneManager = sceneManager
    sessionManager.sessionStatePublisher
      .receive(on: DispatchQueue.main)
      .sink { [weak self] state in self?.sessionState = state }
      .store(in: &cancellables)
    sessionManager.planeDetector.hasDetectedPlanePublisher
      .receive(on: DispatchQueue.main)
      .sink { [weak self] detected in
        guard let self, self.placementState == .scanning || self.placementState == .readyToPlace else {
          return
        }
        self.placementState = detected ? .readyToPlace : .scanning
      }
      .store(in: &cancellables)
  }

  func startSession(in arView: ARView) { sessionManager.startSession(in: arView) }
  func pauseSession() { sessionManager.pauseSession() }
  func resumeSession() { sessionManager.resumeSession() }

  /// A tap while ready to place: the selected model appears at the tap, waiting for confirmation.
  func handleTap(at point: CGPoint, in arView: ARView) async {
    guard placementState == .readyToPlace, let model = selectedModel,
      let result = arView.raycast(from: point, allowing: .existingPlaneGeometry, alignment: .any).first
    else { return }
    do {
      let entity = try await modelLoader.load(model: model)
      sceneManager.showPreview(of: entity, at: result, in: arView)
      placementState = .previewing
      errorMessage = nil
    } catch {
      errorMessage = error.localizedDescription
    }
  }

  func confirmPlacement(in arView: ARView) {
    guard placementState == .previewing else { return }
    sceneManager.confirmPlacement(in: arView)
    placementState = .placed
    isModelPlaced = true
  }

  func cancelPlacement() {
    guard placementState == .previewing else { return }
    sceneManager.cancelPreview()
    placementState = .readyToPlace
  }

  func resetScene(in arView: ARView) {
    sceneManager.removeAllEntities(from: arView)
    sessionManager.resetSession()
    isModelPlaced = false
    placementState = .scanning
  }
}
