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
/// material. ARSim draws nothing and runs no shaders: the material keeps its parameters and the names
/// of its functions for the app to read.
public struct CustomMaterial: Material {
  /// The base colour type.
  public typealias BaseColor = PhysicallyBasedMaterial.BaseColor
  /// A scalar parameter: a value, optionally times a texture.
  public typealias ScalarParameter = PhysicallyBasedMaterial.ScalarParameter
  /// The emissive colour type.
  public typealias EmissiveColor = PhysicallyBasedMaterial.EmissiveColor
  /// How the surface blends with what is behind it.
  public typealias Blending = PhysicallyBasedMaterial.Blending
  /// Which faces are drawn.
  public typealias FaceCulling = PhysicallyBasedMaterial.FaceCulling

  /// How RealityKit lights what the shaders produce (RealityKit's `CustomMaterial.LightingModel`).
  public enum LightingModel: Sendable, Hashable {
    /// Physically based lighting.
    case lit
    /// No lighting.
    case unlit
    /// Lit, with a clear-coat layer.
    case clearcoat
  }

  /// A shader function that computes the surface (RealityKit's `CustomMaterial.SurfaceShader`).
  public struct SurfaceShader: Sendable {
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

  /// A shader function that moves vertices (RealityKit's `CustomMaterial.GeometryModifier`).
  public struct GeometryModifier: Sendable {
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
  /// The base colour. Default white.
  public var baseColor = BaseColor()
  /// Roughness. Default 0.5.
  public var roughness: ScalarParameter = 0.5
  /// Metalness. Default 0.
  public var metallic: ScalarParameter = 0
  /// Specular strength. Default 0.5.
  public var specular: ScalarParameter = 0.5
  /// Clear-coat strength. Default 0.
  public var clearcoat: ScalarParameter = 0
  /// Clear-coat roughness. Default 0.
  public var clearcoatRoughness: ScalarParameter = 0
  /// Emitted colour. Default black.
  public var emissiveColor = EmissiveColor()
  /// Opaque or transparent. Default opaque.
  public var blending: Blending = .opaque
  /// Alpha below which a pixel is discarded, or nil.
  public var opacityThreshold: Float?
  /// Culled faces. Default back.
  public var faceCulling: FaceCulling = .back
  /// The app's values for its shaders.
  public var custom = Custom()

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

  /// Takes the parameters `material` has: all of a custom material's, a physically based one's, a
  /// simple material's colour, roughness and metalness, an unlit material's colour and blending (and
  /// the unlit lighting model). Other materials leave the defaults.
  private mutating func copyParameters(of material: any Material) {
    switch material {
    case let custom as CustomMaterial:
      self = custom
    case let pbr as PhysicallyBasedMaterial:
      baseColor = pbr.baseColor
      roughness = pbr.roughness
      metallic = pbr.metallic
      specular = pbr.specular
      clearcoat = pbr.clearcoat
      clearcoatRoughness = pbr.clearcoatRoughness
      emissiveColor = pbr.emissiveColor
      blending = pbr.blending
      opacityThreshold = pbr.opacityThreshold
      faceCulling = pbr.faceCulling
    case let simple as SimpleMaterial:
      baseColor = simple.color
      roughness = ScalarParameter(simple.roughness)
      metallic = ScalarParameter(simple.metallic)
    case let unlit as UnlitMaterial:
      baseColor = unlit.color
      blending = unlit.blending
      opacityThreshold = unlit.opacityThreshold
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
