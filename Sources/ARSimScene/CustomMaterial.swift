import ARSim
import Foundation

#if canImport(Metal)
  import Metal
#else
  /// Metal's shader library where Linux has none: what custom materials name their shader functions
  /// in. A stand-in, not Metal's protocol: only the names of the functions the library holds. ARSim
  /// runs no shaders; a material checks that the functions it names exist.
  public protocol MTLLibrary: AnyObject {
    /// The names of the library's functions.
    var functionNames: [String] { get }
  }
#endif

/// Why a custom material cannot be made (RealityKit throws where the shader function is missing).
public struct CustomMaterialError: Error, CustomStringConvertible, Sendable {
  /// What is wrong.
  public let description: String
}

/// A material whose look comes from the app's Metal shader functions (RealityKit's `CustomMaterial`):
/// a surface shader and an optional geometry modifier over the parameters of a physically based
/// material (`baseColor`, `roughness`, `metallic`, `specular`, `clearcoat`, `emissiveColor`,
/// `blending`, ... are read and set as on ``PhysicallyBasedMaterial``). ARSim draws nothing and runs no
/// shaders: the material keeps its parameters and the names of its functions for the app to read.
@dynamicMemberLookup
public struct CustomMaterial: Material {
  /// The base colour type.
  public typealias BaseColor = PhysicallyBasedMaterial.BaseColor
  /// A scalar parameter: a value, optionally times a texture.
  public typealias ScalarParameter = PhysicallyBasedMaterial.ScalarParameter

  /// How RealityKit lights what the shaders produce (RealityKit's `CustomMaterial.LightingModel`).
  public enum LightingModel: Sendable, Hashable {
    /// Physically based lighting.
    case lit
    /// No lighting.
    case unlit
    /// Lit, with a clear-coat layer.
    case clearcoat
  }

  /// A named function of a Metal library; `Role` tells surface shaders from geometry modifiers.
  public struct ShaderFunction<Role>: Sendable {
    /// The function's name.
    public let name: String
    /// Whether the library holds the function.
    let isInLibrary: Bool
    /// The function `name` of `library`.
    public init(named name: String, in library: any MTLLibrary) {
      self.name = name
      isInLibrary = library.functionNames.contains(name)
    }
  }
  /// The role of a function that computes the surface.
  public enum SurfaceRole {}
  /// The role of a function that moves vertices.
  public enum GeometryRole {}
  /// A shader function that computes the surface (RealityKit's `CustomMaterial.SurfaceShader`).
  public typealias SurfaceShader = ShaderFunction<SurfaceRole>
  /// A shader function that moves vertices (RealityKit's `CustomMaterial.GeometryModifier`).
  public typealias GeometryModifier = ShaderFunction<GeometryRole>

  /// Four floats and a texture the app passes to its shaders (RealityKit's `CustomMaterial.Custom`).
  public struct Custom: Sendable, Hashable {
    /// The values.
    public var value: SIMD4<Float>
    /// The texture, or nil.
    public var texture: MaterialParameters.Texture?
    /// Custom values of `value` and `texture`.
    public init(value: SIMD4<Float> = .zero, texture: MaterialParameters.Texture? = nil) {
      self.value = value
      self.texture = texture
    }
  }

  /// The surface shader, or nil.
  public private(set) var surfaceShader: SurfaceShader?
  /// The geometry modifier, or nil.
  public private(set) var geometryModifier: GeometryModifier?
  /// How the result is lit.
  public private(set) var lightingModel: LightingModel
  /// The app's values for its shaders.
  public var custom = Custom()
  /// The physically based parameters, with ``PhysicallyBasedMaterial``'s defaults.
  private var parameters = PhysicallyBasedMaterial()

  /// A physically based parameter (`material.roughness`, `material.baseColor = ...`).
  public subscript<T>(dynamicMember keyPath: WritableKeyPath<PhysicallyBasedMaterial, T>) -> T {
    get { parameters[keyPath: keyPath] }
    set { parameters[keyPath: keyPath] = newValue }
  }

  /// A material of `surfaceShader` (and `geometryModifier`) with default parameters, lit by
  /// `lightingModel`. Throws when a function is not in its library.
  public init(
    surfaceShader: SurfaceShader, geometryModifier: GeometryModifier? = nil, lightingModel: LightingModel
  ) throws {
    self.lightingModel = lightingModel
    try setShaders(surfaceShader, geometryModifier)
  }

  /// `material`'s parameters with the geometry modifier `geometryModifier` (RealityKit's
  /// `init(from:geometryModifier:)`). Throws when the function is not in its library.
  public init(from material: any Material, geometryModifier: GeometryModifier) throws {
    lightingModel = .lit
    copyParameters(of: material)
    try setShaders(surfaceShader, geometryModifier)
  }

  /// `material`'s parameters with `surfaceShader` (and `geometryModifier`). Throws when a function is
  /// not in its library.
  public init(
    from material: any Material, surfaceShader: SurfaceShader, geometryModifier: GeometryModifier? = nil
  ) throws {
    lightingModel = .lit
    copyParameters(of: material)
    try setShaders(surfaceShader, geometryModifier ?? self.geometryModifier)
  }

  private mutating func setShaders(_ surface: SurfaceShader?, _ geometry: GeometryModifier?) throws {
    for (name, found) in [(surface?.name, surface?.isInLibrary), (geometry?.name, geometry?.isInLibrary)] {
      if let name, found == false {
        throw CustomMaterialError(description: "custom material: no shader function '\(name)' in its library")
      }
    }
    surfaceShader = surface
    geometryModifier = geometry
  }

  /// Takes the parameters `material` has: all of a custom or physically based material's, a simple
  /// material's colour, roughness and metalness, an unlit material's colour and blending (and the unlit
  /// lighting model). Other materials leave the defaults.
  private mutating func copyParameters(of material: any Material) {
    switch material {
    case let custom as CustomMaterial:
      self = custom
    case let pbr as PhysicallyBasedMaterial:
      parameters = pbr
    case let simple as SimpleMaterial:
      parameters.baseColor = simple.color
      parameters.roughness = ScalarParameter(simple.roughness)
      parameters.metallic = ScalarParameter(simple.metallic)
    case let unlit as UnlitMaterial:
      parameters.baseColor = unlit.color
      parameters.blending = unlit.blending
      parameters.opacityThreshold = unlit.opacityThreshold
      lightingModel = .unlit
    default:
      break
    }
  }
}

extension PhysicallyBasedMaterial.ScalarParameter {
  /// RealityKit 1's parameter as a scale and texture: a constant as the scale, a texture at scale 1.
  init(_ parameter: MaterialScalarParameter) {
    switch parameter {
    case .float(let value): self.init(scale: value)
    case .texture(let texture): self.init(scale: 1, texture: MaterialParameters.Texture(texture))
    }
  }
}
