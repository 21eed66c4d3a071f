import ARSimScene
import Foundation
import Testing

/// A library of named shader functions (Metal's `MTLLibrary` on Apple platforms).
private final class ShaderLibrary: MTLLibrary {
  let functionNames: [String]
  init(_ names: [String]) { functionNames = names }
}

@Suite struct CustomMaterialTests {
  private let library = ShaderLibrary(["seaweedGeometry", "causticSurface"])

  @Test func customMaterialsKeepTheParametersOfTheMaterialTheyStartFrom() throws {
    var pbr = PhysicallyBasedMaterial()
    pbr.baseColor = .init(tint: .red)
    pbr.roughness = 0.25
    pbr.metallic = 1
    pbr.blending = .transparent(opacity: 0.5)
    pbr.clearcoat = 0.7
    let sway = CustomMaterial.GeometryModifier(named: "seaweedGeometry", in: library)
    let material = try CustomMaterial(from: pbr, geometryModifier: sway)
    #expect(
      material.baseColor.tint == .red && material.roughness.scale == 0.25 && material.metallic.scale == 1)
    #expect(material.blending == .transparent(opacity: 0.5) && material.lightingModel == .lit)
    #expect(material.clearcoat.scale == 0.7)
    #expect(material.geometryModifier?.name == "seaweedGeometry" && material.surfaceShader == nil)

    let simple = SimpleMaterial(color: .blue, roughness: 0.75, isMetallic: true)
    let fromSimple = try CustomMaterial(
      from: simple, surfaceShader: .init(named: "causticSurface", in: library))
    #expect(fromSimple.baseColor.tint == .blue && fromSimple.roughness.scale == 0.75)
    #expect(fromSimple.metallic.scale == 1 && fromSimple.surfaceShader?.name == "causticSurface")

    let unlit = try CustomMaterial(from: UnlitMaterial(color: .green), geometryModifier: sway)
    #expect(unlit.lightingModel == .unlit && unlit.baseColor.tint == .green)

    // A custom material keeps its own shaders when another is added.
    let both = try CustomMaterial(from: material, surfaceShader: .init(named: "causticSurface", in: library))
    #expect(both.geometryModifier?.name == "seaweedGeometry" && both.surfaceShader?.name == "causticSurface")
    #expect(both.baseColor.tint == .red)
  }

  @Test func aFunctionMissingFromItsLibraryThrows() {
    let missing = CustomMaterial.GeometryModifier(named: "wave", in: library)
    #expect(throws: CustomMaterialError.self) {
      try CustomMaterial(from: SimpleMaterial(), geometryModifier: missing)
    }
    #expect(throws: CustomMaterialError.self) {
      try CustomMaterial(surfaceShader: .init(named: "glow", in: library), lightingModel: .unlit)
    }
    #expect(
      (try? CustomMaterial(surfaceShader: .init(named: "causticSurface", in: library), lightingModel: .unlit))?
        .lightingModel == .unlit)
  }
}
