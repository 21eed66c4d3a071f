import ARSim
import ARSimScene
import ARSimTestSupport
import Foundation
import Testing

@Suite struct MaterialTextureTests {
  /// A 3 × 2 image whose pixels all differ.
  static let image = RGBImage(width: 3, height: 2, pixels: (0..<18).map { UInt8($0 * 14) })

  @Test func pngAndJpegTexturesKeepTheirSizeAndPixels() throws {
    let folder = RecordingFixtures.temporaryFolder("textures")
    let png = folder + "/checker.png"
    try ImageCodec.write(Self.image, to: png)
    let texture = try TextureResource.load(contentsOf: URL(fileURLWithPath: png))
    #expect(texture.width == 3 && texture.height == 2 && texture.name == "checker")
    #expect(texture.image == Self.image, "PNG is lossless")
    let flat = RGBImage(width: 16, height: 8, fill: (200, 40, 90))
    let jpeg = folder + "/flat.jpg"
    try ImageCodec.write(flat, to: jpeg, quality: 95)
    let photo = try TextureResource.load(contentsOf: URL(fileURLWithPath: jpeg), withName: "photo")
    #expect(photo.width == 16 && photo.height == 8 && photo.name == "photo")
    let worst = zip(photo.image.pixels, flat.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 255
    #expect(worst <= 3, "a flat colour survives JPEG within \(worst)")
  }

  @Test func unreadableTexturesFailWithTheFileAndTheProblem() throws {
    let folder = RecordingFixtures.temporaryFolder("textures")
    let fake = folder + "/notes.png"
    try "not an image".write(toFile: fake, atomically: true, encoding: .utf8)
    #expect {
      try TextureResource.load(contentsOf: URL(fileURLWithPath: fake))
    } throws: { error in
      "\(error)".contains("notes.png") && "\(error)".contains("not a PNG or JPEG")
    }
    #expect {
      try TextureResource.load(contentsOf: URL(fileURLWithPath: folder + "/missing.jpg"))
    } throws: { error in
      "\(error)".contains("missing.jpg") && "\(error)".contains("cannot be read")
    }
    #expect(throws: TextureError.self) { try TextureResource.load(named: "no-such-texture", in: .main) }
  }

  @Test func materialsKeepTheirParameters() throws {
    let texture = TextureResource(image: Self.image, name: "checker")
    var unlit = UnlitMaterial(color: .clear)
    unlit.baseColor = .texture(texture)
    unlit.tintColor = Material.Color.white.withAlphaComponent(0.5)
    #expect(unlit.color.texture?.resource === texture && unlit.color.tint.alpha == 0.5)
    guard case .texture(let kept) = unlit.baseColor else {
      Issue.record("the texture is the base colour")
      return
    }
    #expect(kept === texture)
    unlit.baseColor = .color(.systemPink)
    #expect(unlit.color.texture == nil && unlit.color.tint == .systemPink)
    unlit.color = .init(tint: .white, texture: .init(texture))
    #expect(unlit.color.texture?.resource.width == 3)

    var pbr = PhysicallyBasedMaterial()
    #expect(pbr.baseColor.tint == .white && pbr.roughness.scale == 0.5 && pbr.metallic.scale == 0)
    #expect(pbr.blending == .opaque && pbr.emissiveColor.color == .black)
    pbr.baseColor = .init(tint: .black.withAlphaComponent(0.3))
    pbr.emissiveColor = .init(color: .systemYellow)
    pbr.emissiveIntensity = 2
    pbr.roughness = .init(floatLiteral: 0.1)
    pbr.metallic = 1
    pbr.blending = .transparent(opacity: .init(floatLiteral: 0.4))
    let model = ModelEntity(mesh: .generatePlane(width: 1, depth: 1), materials: [pbr, unlit])
    let stored = try #require(model.model?.materials.first as? PhysicallyBasedMaterial)
    #expect(stored == pbr && stored.emissiveIntensity == 2 && stored.emissiveColor.color == .systemYellow)
    #expect(abs(stored.baseColor.tint.alpha - 0.3) < 1e-6 && stored.metallic.scale == 1)
    #expect(model.model?.materials.last is UnlitMaterial)

    var simple = SimpleMaterial(color: .blue, isMetallic: true)
    simple.baseColor = .texture(texture)
    #expect(simple.color.tint == .blue && simple.color.texture?.resource === texture)
  }

  @Test func perFaceMaterialsFollowTheirFacesIntoTriangles() throws {
    var descriptor = MeshDescriptor(name: "wedge")
    descriptor.positions = [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 1]]
    descriptor.primitives = .polygons([4, 3], [0, 1, 2, 3, 0, 4, 1])
    descriptor.materials = .perFace([2, 1])
    let mesh = try MeshResource.generate(from: [descriptor])
    #expect(
      mesh.triangleCount == 3 && mesh.triangleMaterials == [2, 2, 1], "the quad's two triangles keep its 2")
    var plain = MeshDescriptor()
    plain.positions = [[0, 0, 0], [1, 0, 0], [0, 1, 0]]
    plain.primitives = .triangles([0, 1, 2])
    #expect(try MeshResource.generate(from: [plain, descriptor]).triangleMaterials == [0, 2, 2, 1])
    descriptor.materials = .perFace([0, 1, 2])
    #expect {
      try MeshResource.generate(from: [descriptor])
    } throws: { error in
      "\(error)".contains("'wedge'") && "\(error)".contains("3 per-face material indices for 2 faces")
    }
  }

  /// RealityKit 1's textured scalar parameters: the texture is kept, and its value is the mean of its
  /// first channel.
  @Test func scalarParametersTakeATexture() {
    let map = TextureResource(
      image: RGBImage(width: 2, height: 1, pixels: [0, 9, 9, 255, 9, 9]), name: "rough")
    var material = SimpleMaterial()
    material.roughness = .texture(map)
    material.metallic = 0.25
    guard case .texture(let kept) = material.roughness else {
      Issue.record("the roughness texture was not kept")
      return
    }
    #expect(kept === map)
    #expect(abs(material.roughness.value - 0.5) < 1e-6 && material.metallic.value == 0.25)
  }
}
