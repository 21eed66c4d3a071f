import ARSimAssets
import ARSimScene
import Combine
import Foundation
import Testing

/// RealityKit's loading calls on models made with Pixar's USD (Tools/make_usd_fixtures.py): names,
/// hierarchy, meshes and bounds as USD's BBoxCache computes them, animations, errors, delivery queues.
@Suite struct EntityLoadingTests {
  struct Expected: Decodable {
    struct Bounds: Decodable {
      var min: [Double]
      var max: [Double]
    }
    struct Prim: Decodable {
      var path: String
      var name: String
      var children: [String]
      var vertices: Int?
      var worldBounds: Bounds?
    }
    struct AnimatedBounds: Decodable {
      var path: String
      var time: Double
      var worldBounds: Bounds
    }
    var prims: [Prim]
    var worldBounds: Bounds
    var animatedBounds: [AnimatedBounds]
  }

  static func expected(_ name: String) throws -> Expected {
    let url = try #require(Bundle.module.url(forResource: name, withExtension: "expected.json"))
    return try JSONDecoder().decode(Expected.self, from: Data(contentsOf: url))
  }

  static func expectClose(_ box: BoundingBox, _ bounds: Expected.Bounds, _ label: String) {
    for axis in 0..<3 {
      #expect(abs(Double(box.min[axis]) - bounds.min[axis]) <= 1e-5, "\(label) min[\(axis)]")
      #expect(abs(Double(box.max[axis]) - bounds.max[axis]) <= 1e-5, "\(label) max[\(axis)]")
    }
  }

  /// The entity at a prim path below the loaded root.
  static func entity(_ root: Entity, _ path: String) -> Entity? {
    var entity: Entity? = root
    for name in path.split(separator: "/") { entity = entity?.children.first { $0.name == name } }
    return entity
  }

  @Test(arguments: [("scene", "scene.usdz"), ("zup", "zup.usdz"), ("scene.usda", "scene.usdz")])
  func loadsTheHierarchyWithUSDsBounds(_ name: String, _ expectedName: String) throws {
    let expected = try Self.expected(expectedName)
    let root = try Entity.load(named: name, in: .module)
    #expect(root.name.isEmpty)
    #expect(root.children.map(\.name) == ["Scene"])  // the class prim /_Template is not in the scene
    for prim in expected.prims {
      let entity = try #require(Self.entity(root, prim.path), "\(prim.path)")
      #expect(entity.name == prim.name)
      #expect(entity.children.map(\.name) == prim.children, "\(prim.path)")
      if let vertices = prim.vertices {
        let model = try #require(entity as? ModelEntity, "\(prim.path)")
        #expect(model.model?.mesh.vertexCount == vertices, "\(prim.path)")
      }
      if let bounds = prim.worldBounds {
        #expect(entity is ModelEntity, "\(prim.path)")
        Self.expectClose(
          entity.visualBounds(recursive: false, relativeTo: nil), bounds, "\(name) \(prim.path)")
      } else {
        #expect(!(entity is ModelEntity), "\(prim.path)")
      }
    }
    Self.expectClose(root.visualBounds(relativeTo: nil), expected.worldBounds, "\(name) scene")
  }

  @Test func meshesKeepTheirFacesAsTriangles() throws {
    let root = try Entity.load(named: "scene.usdz", in: .module)
    let top = try #require(root.findEntity(named: "Top") as? ModelEntity)
    #expect(top.model?.mesh.triangleCount == 12)  // 6 quads
    let body = try #require(root.findEntity(named: "Body") as? ModelEntity)  // from the referenced layer
    #expect(body.model?.mesh.vertexCount == 48)
    #expect(body.model?.mesh.triangleCount == 48)  // 24 quads
  }

  @Test func collisionShapesFromBoundsOnRequest() throws {
    let root = try Entity.load(named: "scene", in: .module)
    let base = try #require(root.findEntity(named: "Base") as? ModelEntity)
    #expect(base.collision == nil)  // as RealityKit: none until asked for
    root.generateCollisionShapes(recursive: true)
    let shape = try #require(base.collision?.shapes.first)
    #expect(shape.bounds == base.model?.mesh.bounds)
  }

  @Test func flattenedModelHoldsEveryMesh() throws {
    let expected = try Self.expected("scene.usdz")
    let model = try ModelEntity.loadModel(named: "scene", in: .module)
    #expect(model.name == "scene")
    #expect(model.children.isEmpty)
    let vertices = expected.prims.compactMap(\.vertices).reduce(0, +) + 3 * 24  // three shapes as boxes
    #expect(model.model?.mesh.vertexCount == vertices)
    Self.expectClose(model.visualBounds(relativeTo: nil), expected.worldBounds, "flattened")
  }

  @Test func animationFollowsUSDsTimeSamples() throws {
    let expected = try Self.expected("scene.usdz")
    let root = try Entity.load(named: "scene", in: .module)
    let animation = try #require(root.availableAnimations.first)
    #expect(root.availableAnimations.count == 1)
    #expect(animation.name == "default subtree animation")
    #expect(animation.duration == 2)  // 48 time codes at 24 per second
    let track = try #require(animation.tracks.first)
    #expect(track.targetPath == ["Scene", "Spinner"])
    let spinner = try #require(Self.entity(root, "/Scene/Spinner"))
    let blade = try #require(Self.entity(root, "/Scene/Spinner/Blade"))
    for sample in expected.animatedBounds {
      spinner.transform = try #require(track.sample(at: sample.time))
      Self.expectClose(blade.visualBounds(relativeTo: nil), sample.worldBounds, "t=\(sample.time)")
    }
  }

  @Test func badFilesThrowTheAssetError() throws {
    let missing = try #require(throws: AssetError.self) { try Entity.load(named: "nothing", in: .module) }
    #expect(missing.problem.contains("no such model in the bundle"))
    let reality = FileManager.default.temporaryDirectory.appendingPathComponent("Experience.reality")
    try Data("PK".utf8).write(to: reality)
    defer { try? FileManager.default.removeItem(at: reality) }
    let refused = try #require(throws: AssetError.self) { try Entity.load(contentsOf: reality) }
    #expect(refused.problem.contains("proprietary and cannot be read"))
  }

  @Test func asyncInitialisersLoadWithoutBlocking() async throws {
    let entity = try await Entity(named: "scene", in: .module)
    #expect(entity.children.map(\.name) == ["Scene"])
    let url = try #require(Bundle.module.url(forResource: "zup", withExtension: "usdz"))
    let model = try await ModelEntity(contentsOf: url)
    #expect(model.children.isEmpty)
    #expect(model.model?.mesh.vertexCount ?? 0 > 0)
    await #expect(throws: AssetError.self) { _ = try await Entity(named: "nothing", in: .module) }
  }

  /// The publisher returns at once and delivers the entity, then a finish, on the main queue.
  @Test @MainActor func loadAsyncDeliversOnTheMainQueue() async throws {
    let mainQueue = DispatchSpecificKey<Bool>()
    DispatchQueue.main.setSpecific(key: mainQueue, value: true)
    let request = Entity.loadAsync(named: "scene", in: .module)
    var cancellables: Set<AnyCancellable> = []
    let (names, onMain, finished) = await withCheckedContinuation { continuation in
      var names: [String] = []
      var onMain = true
      request.sink { completion in
        if case .finished = completion { continuation.resume(returning: (names, onMain, true)) }
        if case .failure = completion { continuation.resume(returning: (names, onMain, false)) }
      } receiveValue: { entity in
        onMain = onMain && DispatchQueue.getSpecific(key: mainQueue) == true
        names = entity.children.map(\.name)
      }
      .store(in: &cancellables)
    }
    #expect(finished)
    #expect(onMain)
    #expect(names == ["Scene"])
  }

  @Test @MainActor func loadAsyncPublishesTheError() async {
    let failed = await withCheckedContinuation { continuation in
      let request = ModelEntity.loadModelAsync(named: "nothing", in: .module)
      var cancellable: AnyCancellable?
      cancellable = request.sink { completion in
        if case .failure(let error) = completion { continuation.resume(returning: error is AssetError) }
        _ = cancellable
      } receiveValue: { _ in
      }
    }
    #expect(failed)
  }

  @Test func loadsAreDeterministic() throws {
    let a = try Entity.load(named: "scene", in: .module)
    let b = try Entity.load(named: "scene", in: .module)
    func transforms(_ e: Entity) -> [simd_float4x4] { [e.transform.matrix] + e.children.flatMap(transforms) }
    #expect(transforms(a) == transforms(b))
  }
}
