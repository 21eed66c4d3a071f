import ARSimAssets
import Combine
import Foundation

/// RealityKit's loading calls: model files (`.usdz`, `.usd`, `.usdc`, `.usda`) read into entity
/// hierarchies, from a bundle by name or from a file URL; Apple's `.reality` files are refused with an
/// ``ARSimAssets/AssetError`` saying they cannot be read.
///
/// What a load returns: the root entity stands for the file's stage (no name, identity transform) and
/// holds one child per top-level prim; each prim is an entity named as the prim, a ``ModelEntity``
/// with a ``MeshResource`` for a mesh or shape prim, placed in metres and y-up whatever the file's
/// `metersPerUnit` and `upAxis`. A time-sampled animation is in the root's
/// ``Entity/availableAnimations``. As in RealityKit, loaded entities have no collision shapes until
/// ``Entity/generateCollisionShapes(recursive:)`` is called. Materials, textures, skeletons and
/// variants are not read. Errors are ``ARSimAssets/AssetError``s naming the file and the problem.
///
/// Synchronous loads run on the calling thread. Asynchronous loads read and parse the file on a
/// background queue and make the entities where RealityKit delivers them: ``loadAsync(named:in:)``
/// on the main queue, the `async` initialisers in the calling task, so neither blocks a replay step.
extension Entity {
  /// The model file extensions a name without one is tried with, in RealityKit's order.
  static let modelExtensions = ["usdz", "usd", "usdc", "usda", "reality"]

  /// The URL of the model resource `name` (with or without extension) in `bundle` (the main bundle
  /// when nil); SwiftPM's `Bundle.module` works as any bundle.
  static func modelURL(named name: String, in bundle: Bundle?) throws(AssetError) -> URL {
    let bundle = bundle ?? .main
    let given = (name as NSString).pathExtension.lowercased()
    let base = modelExtensions.contains(given) ? (name as NSString).deletingPathExtension : name
    for fileExtension in modelExtensions.contains(given) ? [given] : modelExtensions {
      if let url = bundle.url(forResource: base, withExtension: fileExtension) { return url }
    }
    throw AssetError(
      file: name,
      problem:
        "no such model in the bundle at \(bundle.bundlePath) (looked for \(modelExtensions.contains(given) ? "." + given : modelExtensions.map { "." + $0 }.joined(separator: ", ")))"
    )
  }

  /// Reads a model file off the calling task's executor (a background queue).
  static func readAsset(_ url: URL) async throws -> ModelAsset {
    try await withCheckedThrowingContinuation { continuation in
      DispatchQueue.global(qos: .userInitiated).async {
        continuation.resume(with: Result { () throws(AssetError) in try ModelAsset(contentsOf: url) })
      }
    }
  }

  /// The entity hierarchy of the model file `name` in `bundle` (the main bundle when nil), with or
  /// without its extension (without: `.usdz`, `.usd`, `.usdc`, `.usda`, then `.reality`), as
  /// RealityKit's `load(named:in:)`. Blocks the calling thread while it reads the file.
  public static func load(named name: String, in bundle: Bundle? = nil) throws -> Entity {
    try load(contentsOf: try modelURL(named: name, in: bundle))
  }

  /// The entity hierarchy of the model file at `url`, as RealityKit's `load(contentsOf:withName:)`.
  /// `resourceName` is accepted (RealityKit uses it for network synchronization, which ARSim does not
  /// have). Blocks the calling thread while it reads the file.
  public static func load(contentsOf url: URL, withName resourceName: String? = nil) throws -> Entity {
    let root = Entity()
    try AssetEntities.root(try ModelAsset(contentsOf: url), into: root)
    return root
  }

  /// Loads the model file `name` in `bundle` in the background and publishes its entity hierarchy
  /// (then finishes) on the main queue, or fails with the error, as RealityKit's
  /// `loadAsync(named:in:)`. The load starts at once; every subscriber gets the same entity.
  public static func loadAsync(named name: String, in bundle: Bundle? = nil) -> LoadRequest<Entity> {
    LoadRequest { () throws -> URL in
      try modelURL(named: name, in: bundle)
    } make: { asset in
      let root = Entity()
      try AssetEntities.root(asset, into: root)
      return root
    }
  }

  /// Loads the model file at `url` in the background and publishes its entity hierarchy on the main
  /// queue, as RealityKit's `loadAsync(contentsOf:withName:)`.
  public static func loadAsync(contentsOf url: URL, withName resourceName: String? = nil) -> LoadRequest<
    Entity
  > {
    LoadRequest {
      url
    } make: { asset in
      let root = Entity()
      try AssetEntities.root(asset, into: root)
      return root
    }
  }

  /// Loads the model file `name` in `bundle` without blocking: the file is read in the background and
  /// this entity becomes the root of its hierarchy, as RealityKit's `Entity(named:in:)`. Called as
  /// `ModelEntity(named:in:)`, the hierarchy is flattened into the model, as by
  /// ``ModelEntity/loadModel(named:in:)``.
  public convenience init(named name: String, in bundle: Bundle? = nil) async throws {
    let url = try Self.modelURL(named: name, in: bundle)
    let asset = try await Self.readAsset(url)
    self.init()
    try fill(from: asset, url: url)
  }

  /// Loads the model file at `url` without blocking, as RealityKit's `Entity(contentsOf:withName:)`
  /// (and, called as `ModelEntity(contentsOf:withName:)`, flattened into the model).
  public convenience init(contentsOf url: URL, withName resourceName: String? = nil) async throws {
    let asset = try await Self.readAsset(url)
    self.init()
    try fill(from: asset, url: url)
  }

  /// Makes this new entity the root of `asset`'s hierarchy, or, for a model entity, its flattening.
  private func fill(from asset: ModelAsset, url: URL) throws(AssetError) {
    if let model = self as? ModelEntity {
      try AssetEntities.flattened(asset, into: model, name: url.deletingPathExtension().lastPathComponent)
    } else {
      try AssetEntities.root(asset, into: self)
    }
  }
}

extension Entity {
  /// One model entity holding every mesh of the model file `name` in `bundle`, each mapped into the
  /// file's space (the hierarchy flattened, as RealityKit's `loadModel(named:in:)`): named after the
  /// file, no children, no animations. Blocks the calling thread while it reads the file.
  public static func loadModel(named name: String, in bundle: Bundle? = nil) throws -> ModelEntity {
    try loadModel(contentsOf: try modelURL(named: name, in: bundle))
  }

  /// The model file at `url` flattened into one model entity, as RealityKit's
  /// `loadModel(contentsOf:withName:)`.
  public static func loadModel(contentsOf url: URL, withName resourceName: String? = nil) throws
    -> ModelEntity
  {
    let model = ModelEntity()
    try AssetEntities.flattened(
      try ModelAsset(contentsOf: url), into: model, name: url.deletingPathExtension().lastPathComponent)
    return model
  }

  /// Loads and flattens the model file `name` in `bundle` in the background, publishing the model on
  /// the main queue, as RealityKit's `loadModelAsync(named:in:)`.
  public static func loadModelAsync(named name: String, in bundle: Bundle? = nil) -> LoadRequest<ModelEntity>
  {
    LoadRequest { () throws -> URL in
      try modelURL(named: name, in: bundle)
    } make: { asset in
      let model = ModelEntity()
      try AssetEntities.flattened(
        asset, into: model, name: URL(fileURLWithPath: asset.file).deletingPathExtension().lastPathComponent)
      return model
    }
  }
}
