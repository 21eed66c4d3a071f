// ARDemo's app code (seed 003: an MVVM app), written against Apple's API as its README describes it;
// only the import lines differ (`ARSimScene` for `RealityKit` and `ARKit`). Stand-ins for what Linux
// lacks are marked STAND-IN.
import Foundation

enum ARModelFormat: String, Equatable {
  case usdz
  case reality
}

struct ARModel: Identifiable, Equatable {
  let id: String
  let name: String
  let fileName: String
  let format: ARModelFormat
  /// The scene to find in a .reality file.
  let sceneName: String?

  static let catalog: [ARModel] = [
    ARModel(
      id: "rover", name: "Lunar Rover", fileName: "LunarRover_English", format: .reality,
      sceneName: "Rover Flow"),
    ARModel(
      id: "biplane", name: "Toy Biplane", fileName: "toy_biplane_realistic", format: .usdz, sceneName: nil),
    ARModel(id: "car", name: "Toy Car", fileName: "toy_car", format: .usdz, sceneName: nil),
    ARModel(
      id: "habitat", name: "Lunar Habitat", fileName: "LunarHabitat", format: .reality, sceneName: "Flow"),
  ]
}

enum ARPlacementState: Equatable {
  case scanning
  case readyToPlace
  case previewing
  case placed
}

enum ARSessionState: Equatable {
  case notStarted
  case running
  case paused
  case failed(String)
}
