// TapMakesCup's app code, written against Apple's API as the tutorial (seed 002) describes it; only the
// import lines differ (`ARSimScene` for `RealityKit` and `ARKit`). Stand-ins for what Linux lacks are
// marked STAND-IN.
import ARSimScene
import Combine
import Foundation

final class CupEntity: Entity {
  var model: Entity?

  static var loadAsync: AnyPublisher<CupEntity, Error> {
    // STAND-IN: the app loads "cup_saucer_set.usdz" with `Entity.loadAsync(named:)` (the assets
    // helper's issue 15); until that lands, a generated cup of the real one's size.
    return Future<Entity, Error> { promise in
      let cup = ModelEntity(
        mesh: .generateBox(width: 0.08, height: 0.1, depth: 0.08),
        materials: [SimpleMaterial(color: .white, roughness: 0.2, isMetallic: false)])
      promise(.success(cup))
    }
    .map { loadedCup -> CupEntity in
      let cup = CupEntity()
      loadedCup.name = "Cup"
      cup.model = loadedCup
      return cup
    }
    .eraseToAnyPublisher()
  }
}

enum ResourceLoaderError: Error {
  case resourceNotLoaded
}

class ResourceLoader {
  typealias LoadCompletion = (Result<CupEntity, Error>) -> Void

  private var loadCancellable: AnyCancellable?
  private var cupEntity: CupEntity?

  func loadResources(completion: @escaping LoadCompletion) -> AnyCancellable? {
    guard let cupEntity else {
      loadCancellable = CupEntity.loadAsync.sink { result in
        if case let .failure(error) = result {
          print("Failed to load CupEntity: \(error)")
          completion(.failure(error))
        }
      } receiveValue: { [weak self] cupEntity in
        guard let self else {
          return
        }
        self.cupEntity = cupEntity
        completion(.success(cupEntity))
      }
      return loadCancellable
    }
    completion(.success(cupEntity))
    return loadCancellable
  }

  func createCup() throws -> Entity {
    guard let cup = cupEntity?.model else {
      throw ResourceLoaderError.resourceNotLoaded
    }
    return cup.clone(recursive: true)
  }
}
