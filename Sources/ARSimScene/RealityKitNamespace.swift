// RealityKit's module name as a namespace: app code that qualifies names with the module
// (`struct Fear: RealityKit.Component`, `class Flocking: RealityKit.System`, `RealityKit.Scene`) compiles
// unchanged once `import RealityKit` reads `import ARSimScene`.

/// RealityKit's types under RealityKit's module name.
public enum RealityKit {
  /// ``ARSimScene/Component``.
  public typealias Component = ARSimScene.Component
  /// ``ARSimScene/System``.
  public typealias System = ARSimScene.System
  /// ``ARSimScene/Scene``.
  public typealias Scene = ARSimScene.Scene
  /// ``ARSimScene/Material``.
  public typealias Material = ARSimScene.Material
  /// ``ARSimScene/Entity``.
  public typealias Entity = ARSimScene.Entity
  /// ``ARSimScene/ModelEntity``.
  public typealias ModelEntity = ARSimScene.ModelEntity
  /// ``ARSimScene/AnchorEntity``.
  public typealias AnchorEntity = ARSimScene.AnchorEntity
  /// ``ARSimScene/MeshResource``.
  public typealias MeshResource = ARSimScene.MeshResource
  /// ``ARSimScene/Transform``.
  public typealias Transform = ARSimScene.Transform
  /// ``ARSimScene/ARView``.
  public typealias ARView = ARSimScene.ARView
}
