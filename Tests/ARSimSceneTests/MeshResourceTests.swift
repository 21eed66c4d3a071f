import ARSimScene
import Foundation
import Testing

@Suite struct MeshResourceTests {
  @Test func boxPlaneAndSphereHaveRealGeometry() {
    let box = MeshResource.generateBox(width: 0.2, height: 0.4, depth: 0.6)
    #expect(box.vertexCount == 24 && box.triangleCount == 12)
    #expect(close(box.bounds.min, SIMD3(-0.1, -0.2, -0.3)) && close(box.bounds.max, SIMD3(0.1, 0.2, 0.3)))
    // Every triangle faces outward: its normal agrees with the vertex normals.
    for t in 0..<box.triangleCount {
      let i = box.triangleIndices[(3 * t)..<(3 * t + 3)].map(Int.init)
      let n = simd_cross(box.positions[i[1]] - box.positions[i[0]], box.positions[i[2]] - box.positions[i[0]])
      #expect(simd_dot(n, box.normals[i[0]]) > 0)
    }
    #expect(MeshResource.generateBox(size: 0.5).bounds.extents == SIMD3(repeating: 0.5))

    let floor = MeshResource.generatePlane(width: 2, depth: 1)
    #expect(floor.vertexCount == 4 && floor.triangleCount == 2)
    #expect(floor.bounds.extents == SIMD3(2, 0, 1))
    let n = simd_cross(floor.positions[1] - floor.positions[0], floor.positions[2] - floor.positions[0])
    #expect(n.y > 0, "a horizontal plane faces up")
    #expect(MeshResource.generatePlane(width: 1, height: 3).bounds.extents == SIMD3(1, 3, 0))

    let sphere = MeshResource.generateSphere(radius: 0.25)
    #expect(sphere.vertexCount == 703 && sphere.triangleCount == 1224)
    #expect(
      close(sphere.bounds.min, SIMD3(repeating: -0.25)) && close(sphere.bounds.max, SIMD3(repeating: 0.25)))
    #expect(sphere.positions.allSatisfy { abs(simd_length($0) - 0.25) < 1e-5 })
    #expect(MeshResource.generateBox(size: -1).bounds.extents == .zero, "negative sizes count as zero")
  }

  @Test func generateFromDescriptorsChecksItsInput() throws {
    var quad = MeshDescriptor(name: "quad")
    quad.positions = MeshBuffers.Positions([SIMD3(0, 0, 0), SIMD3(1, 0, 0), SIMD3(1, 1, 0), SIMD3(0, 1, 0)])
    quad.primitives = .polygons([4], [0, 1, 2, 3])
    var triangle = MeshDescriptor()
    triangle.positions = [SIMD3(0, 0, 2), SIMD3(1, 0, 2), SIMD3(0, 1, 2)]
    triangle.primitives = .triangles([0, 1, 2])
    let mesh = try MeshResource.generate(from: [quad, triangle])
    #expect(mesh.vertexCount == 7 && mesh.triangleCount == 3)
    #expect(Array(mesh.triangleIndices.suffix(3)) == [4, 5, 6])
    #expect(mesh.bounds.max == SIMD3(1, 1, 2))

    var broken = quad
    broken.primitives = .triangles([0, 1, 7])
    #expect {
      try MeshResource.generate(from: [broken])
    } throws: { error in
      "\(error)" == "descriptor 'quad': index 7 out of range for 4 positions"
    }
    var unfinished = MeshDescriptor(name: "lid")
    unfinished.positions = [SIMD3(0, 0, 0)]
    #expect(throws: MeshResource.GenerationError.self) { try MeshResource.generate(from: [unfinished]) }
  }

  @Test func componentsCollisionShapesAndVisualBounds() {
    let cup = ModelEntity(
      mesh: .generateBox(size: 0.1), materials: [SimpleMaterial(color: .blue, isMetallic: false)])
    #expect(cup.components[ModelComponent.self]?.mesh === cup.model?.mesh)
    #expect((cup.model?.materials.first as? SimpleMaterial)?.color.tint == .blue)
    #expect(cup.collision == nil && cup.components.count == 1)
    let saucer = ModelEntity(
      mesh: .generatePlane(width: 0.3, depth: 0.3), materials: [UnlitMaterial(color: .white)])
    saucer.position = SIMD3(0, -0.05, 0)
    cup.children.append(saucer)
    cup.generateCollisionShapes(recursive: true)
    #expect(cup.collision?.shapes.first?.bounds.extents == SIMD3(repeating: 0.1))
    #expect(saucer.collision?.shapes.count == 1)

    let root = Entity()
    root.addChild(cup)
    cup.position = SIMD3(1, 0, 0)
    cup.scale = SIMD3(repeating: 2)
    cup.orientation = simd_quatf(angle: .pi / 4, axis: SIMD3(0, 1, 0))
    let bounds = root.visualBounds(relativeTo: nil)
    // The cup's 0.2 m box turned 45° spans 0.2·√2 in x and z; the 0.6 m saucer, 0.6·√2.
    #expect(abs(bounds.extents.x - 0.6 * Float(2).squareRoot()) < 1e-4)
    #expect(
      abs(bounds.min.y + 0.1) < 1e-5 && abs(bounds.max.y - 0.1) < 1e-5, "the saucer sits at the box's bottom")
    saucer.isEnabled = false
    #expect(
      abs(root.visualBounds(relativeTo: nil, excludeInactive: true).extents.x - 0.2 * Float(2).squareRoot())
        < 1e-4)

    cup.children.remove(saucer)
    #expect(cup.children.isEmpty && saucer.parent == nil)
    cup.children.insert(saucer, at: 0)
    cup.children.append(Entity())
    #expect(cup.children.count == 2 && cup.children[0] === saucer)
    cup.children.removeAll()
    #expect(cup.children.isEmpty)

    let copy = cup.clone(recursive: true)
    #expect(copy.model?.mesh === cup.model?.mesh && copy.collision?.shapes.count == 1)
    copy.components.remove(CollisionComponent.self)
    #expect(copy.collision == nil && cup.collision != nil, "components are values: the clone's are its own")
  }

  @Test func lookAtPointsMinusZAtTheTarget() {
    let camera = PerspectiveCamera()
    camera.look(at: .zero, from: SIMD3(1, 1, 1), relativeTo: nil)
    #expect(close(camera.position(relativeTo: nil), SIMD3(1, 1, 1)))
    let forward = camera.convert(direction: SIMD3(0, 0, -1), to: nil)
    #expect(close(forward, -simd_normalize(SIMD3<Float>(1, 1, 1))))
    let up = camera.convert(direction: SIMD3(0, 1, 0), to: nil)
    #expect(up.y > 0 && abs(simd_dot(up, forward)) < 1e-5)
    #expect(camera.camera.fieldOfViewInDegrees == 60)
  }
}
