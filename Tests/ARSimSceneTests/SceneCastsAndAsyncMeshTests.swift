import ARSimScene
import Combine
import Foundation
import Testing

@Suite struct SceneCastsAndAsyncMeshTests {
  /// A 0.2 m box at `x` on the world's x axis, in `group`.
  static func box(at x: Float, group: CollisionGroup, in anchor: AnchorEntity) -> Entity {
    let entity = Entity()
    entity.position = SIMD3(x, 0, 0)
    entity.components.set(
      CollisionComponent(
        shapes: [.generateBox(size: SIMD3(repeating: 0.2))], filter: CollisionFilter(group: group, mask: .all)
      ))
    anchor.addChild(entity)
    return entity
  }

  @Test func segmentCastsStopAtTheirEndAndHonourTheMask() {
    let view = ARView(frame: CGRect(x: 0, y: 0, width: 390, height: 844))
    let anchor = AnchorEntity(world: .zero)
    view.scene.addAnchor(anchor)
    let near = Self.box(at: 1, group: .default, in: anchor)
    let wall = Self.box(at: 2, group: .sceneUnderstanding, in: anchor)

    let short = view.scene.raycast(from: .zero, to: SIMD3(1.5, 0, 0))
    #expect(short.count == 1 && short.first?.entity === near, "the far box lies beyond the segment's end")
    #expect(abs((short.first?.distance ?? 0) - 0.9) < 1e-4, "the near box's face is at x = 0.9")
    let long = view.scene.raycast(from: .zero, to: SIMD3(3, 0, 0), query: .nearest, mask: .sceneUnderstanding)
    #expect(long.count == 1 && long.first?.entity === wall && abs(long[0].position.x - 1.9) < 1e-4)
    #expect(long.first.map { abs($0.normal.x + 1) < 1e-4 } == true, "the wall faces the start")
    #expect(view.scene.raycast(from: SIMD3(1, 0, 0), to: SIMD3(1, 0, 0)).isEmpty, "a point is no segment")
  }

  @Test func boxesStartEmptyAndGrowByUnion() {
    var box = BoundingBox()
    #expect(box.isEmpty)
    box = box.union(BoundingBox(min: SIMD3(0, 0, 0), max: SIMD3(1, 1, 1)))
    box = box.union(BoundingBox(min: SIMD3(-1, 0.5, 0), max: SIMD3(0, 2, 0.5)))
    #expect(box.min == SIMD3(-1, 0, 0) && box.max == SIMD3(1, 2, 1))
  }

  /// The request returns at once; the mesh (or the generation error) arrives afterwards on the main queue.
  @Test @MainActor func meshesGenerateAsynchronously() async {
    var triangle = MeshDescriptor(name: "triangle")
    triangle.positions = MeshBuffers.Positions([SIMD3(0, 0, 0), SIMD3(1, 0, 0), SIMD3(0, 1, 0)])
    triangle.primitives = .triangles([0, 1, 2])
    var broken = MeshDescriptor(name: "broken")
    broken.positions = MeshBuffers.Positions([SIMD3(0, 0, 0)])
    broken.primitives = .triangles([0, 1, 2])
    var delivered = false
    let request = MeshResource.generateAsync(from: [triangle])
    let outcome: (Int, String?) = await withCheckedContinuation { continuation in
      var cancellable: AnyCancellable?
      cancellable = request.sink { completion in
        if case .failure(let error) = completion { continuation.resume(returning: (-1, "\(error)")) }
        _ = cancellable
      } receiveValue: { mesh in
        delivered = true
        continuation.resume(returning: (mesh.bounds.isEmpty ? 0 : 3, nil))
      }
      #expect(!delivered, "nothing is delivered before the call returns")
    }
    #expect(outcome.0 == 3 && outcome.1 == nil)
    let failure: String = await withCheckedContinuation { continuation in
      var cancellable: AnyCancellable?
      cancellable = MeshResource.generateAsync(from: [broken]).sink { completion in
        if case .failure(let error) = completion { continuation.resume(returning: "\(error)") }
        _ = cancellable
      } receiveValue: { _ in
        continuation.resume(returning: "a mesh")
      }
    }
    #expect(failure.contains("broken"), "the error names the descriptor: \(failure)")
  }

  @Test func resettingAPhysicsBodyStopsItWhereItIs() {
    let body = ModelEntity(mesh: .generateBox(size: 0.1))
    let wheel = ModelEntity(mesh: .generateBox(size: 0.05))
    body.addChild(wheel)
    body.position = SIMD3(0.3, 1, -0.5)
    body.physicsMotion = PhysicsMotionComponent(
      linearVelocity: SIMD3(0, -2, 0), angularVelocity: SIMD3(1, 0, 0))
    wheel.physicsMotion = PhysicsMotionComponent(linearVelocity: SIMD3(1, 0, 0))
    wheel.resetPhysicsTransform(recursive: false)
    #expect(
      wheel.physicsMotion?.linearVelocity == .zero && body.physicsMotion?.linearVelocity == SIMD3(0, -2, 0))
    wheel.physicsMotion?.linearVelocity = SIMD3(1, 0, 0)
    body.resetPhysicsTransform()
    #expect(body.position == SIMD3(0.3, 1, -0.5), "the pose stays where it is")
    #expect(body.physicsMotion == PhysicsMotionComponent() && wheel.physicsMotion == PhysicsMotionComponent())
  }
}
