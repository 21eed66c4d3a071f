import ARSim
import Foundation

// RealityKit's lights: components and entities the app sets and reads. ARSim draws nothing; a light's
// pose is its entity's (it shines along the entity's −z, as RealityKit's directional and spot lights
// do), so `look(at:from:upVector:relativeTo:)` aims it.

/// A light shining in all directions from a point (RealityKit's `PointLightComponent`).
public struct PointLightComponent: Component, Sendable, Hashable {
  /// The light's colour type.
  public typealias Color = MaterialColor
  /// The colour. Default white.
  public var color: MaterialColor
  /// The brightness, lumens. Default 26963.76.
  public var intensity: Float
  /// The distance at which the light fades to nothing, metres. Default 10.
  public var attenuationRadius: Float

  /// A point light of these values.
  public init(color: MaterialColor = .white, intensity: Float = 26963.76, attenuationRadius: Float = 10) {
    self.color = color
    self.intensity = intensity
    self.attenuationRadius = attenuationRadius
  }
}

/// A light of parallel rays, as the sun (RealityKit's `DirectionalLightComponent`).
public struct DirectionalLightComponent: Component, Sendable, Hashable {
  /// The light's colour type.
  public typealias Color = MaterialColor
  /// The colour. Default white.
  public var color: MaterialColor
  /// The illuminance, lux. Default 2145.7078.
  public var intensity: Float
  /// Whether the light only casts shadows onto real surfaces (RealityKit 1). Default false.
  public var isRealWorldProxy: Bool

  /// A directional light of these values.
  public init(color: MaterialColor = .white, intensity: Float = 2145.7078, isRealWorldProxy: Bool = false) {
    self.color = color
    self.intensity = intensity
    self.isRealWorldProxy = isRealWorldProxy
  }

  /// The shadows a directional light casts (RealityKit's `DirectionalLightComponent.Shadow`).
  public struct Shadow: Component, Sendable, Hashable {
    /// How far from the camera shadows are drawn, metres. Default 5.
    public var maximumDistance: Float
    /// The offset that keeps surfaces from shadowing themselves. Default 1.
    public var depthBias: Float
    /// Shadows of these values.
    public init(maximumDistance: Float = 5, depthBias: Float = 1) {
      self.maximumDistance = maximumDistance
      self.depthBias = depthBias
    }
  }
}

/// A cone of light (RealityKit's `SpotLightComponent`).
public struct SpotLightComponent: Component, Sendable, Hashable {
  /// The light's colour type.
  public typealias Color = MaterialColor
  /// The colour. Default white.
  public var color: MaterialColor
  /// The brightness, lumens. Default 6740.94.
  public var intensity: Float
  /// The angle of the cone's full-strength core, degrees. Default 45.
  public var innerAngleInDegrees: Float
  /// The angle at which the light fades to nothing, degrees. Default 60.
  public var outerAngleInDegrees: Float
  /// The distance at which the light fades to nothing, metres. Default 10.
  public var attenuationRadius: Float

  /// A spot light of these values.
  public init(
    color: MaterialColor = .white, intensity: Float = 6740.94, innerAngleInDegrees: Float = 45,
    outerAngleInDegrees: Float = 60, attenuationRadius: Float = 10
  ) {
    self.color = color
    self.intensity = intensity
    self.innerAngleInDegrees = innerAngleInDegrees
    self.outerAngleInDegrees = outerAngleInDegrees
    self.attenuationRadius = attenuationRadius
  }

  /// The shadows a spot light casts (RealityKit's `SpotLightComponent.Shadow`).
  public struct Shadow: Component, Sendable, Hashable {
    /// The offset that keeps surfaces from shadowing themselves. Default 1.
    public var depthBias: Float
    /// Shadows of this bias.
    public init(depthBias: Float = 1) { self.depthBias = depthBias }
  }

  /// Whether a world point (metres) lies in the cone of a spot light at `lightToWorld` (shining along
  /// its −z) within the outer angle and the attenuation radius.
  public func illuminates(_ point: SIMD3<Float>, lightToWorld: simd_float4x4) -> Bool {
    let p4 = lightToWorld.inverse * SIMD4(point, 1)
    let p = SIMD3(p4.x, p4.y, p4.z)
    let distance = simd_length(p)
    guard distance > 0, distance <= attenuationRadius else { return distance == 0 }
    let angle = acos(Swift.min(Swift.max(-p.z / distance, -1), 1)) * 180 / .pi
    return angle <= outerAngleInDegrees / 2
  }
}

/// An entity that is a point light (RealityKit's `HasPointLight`).
public protocol HasPointLight: Entity {}
/// An entity that is a directional light (RealityKit's `HasDirectionalLight`).
public protocol HasDirectionalLight: Entity {}
/// An entity that is a spot light (RealityKit's `HasSpotLight`).
public protocol HasSpotLight: Entity {}

extension HasPointLight {
  /// The light.
  public var light: PointLightComponent {
    get { components[PointLightComponent.self] ?? PointLightComponent() }
    set { components[PointLightComponent.self] = newValue }
  }
}

extension HasDirectionalLight {
  /// The light.
  public var light: DirectionalLightComponent {
    get { components[DirectionalLightComponent.self] ?? DirectionalLightComponent() }
    set { components[DirectionalLightComponent.self] = newValue }
  }
  /// The shadows it casts, or nil for none.
  public var shadow: DirectionalLightComponent.Shadow? {
    get { components[DirectionalLightComponent.Shadow.self] }
    set { components[DirectionalLightComponent.Shadow.self] = newValue }
  }
}

extension HasSpotLight {
  /// The light.
  public var light: SpotLightComponent {
    get { components[SpotLightComponent.self] ?? SpotLightComponent() }
    set { components[SpotLightComponent.self] = newValue }
  }
  /// The shadows it casts, or nil for none.
  public var shadow: SpotLightComponent.Shadow? {
    get { components[SpotLightComponent.Shadow.self] }
    set { components[SpotLightComponent.Shadow.self] = newValue }
  }
}

/// A point light entity (RealityKit's `PointLight`).
open class PointLight: Entity, HasPointLight {
  /// A white point light of the default strength.
  public required init() {
    super.init()
    components.set(PointLightComponent())
  }
}

/// A directional light entity (RealityKit's `DirectionalLight`), shining along its −z.
open class DirectionalLight: Entity, HasDirectionalLight {
  /// A white directional light of the default strength, without shadows.
  public required init() {
    super.init()
    components.set(DirectionalLightComponent())
  }
}

/// A spot light entity (RealityKit's `SpotLight`), shining along its −z.
open class SpotLight: Entity, HasSpotLight {
  /// A white spot light of the default strength and cone, without shadows.
  public required init() {
    super.init()
    components.set(SpotLightComponent())
  }
}

/// Shows one ingredient of a model's shading instead of its final colour (RealityKit's
/// `ModelDebugOptionsComponent`); kept for the app and `arsim render`.
public struct ModelDebugOptionsComponent: Component, Sendable, Hashable {
  /// What is shown (RealityKit's `ModelDebugOptionsComponent.VisualizationMode`).
  public enum VisualizationMode: Sendable, Hashable {
    case none, normal, tangent, bitangent, baseColor, textureCoordinates, finalColor, finalAlpha
    case roughness, metallic, ambientOcclusion, specular, emissive, clearcoat, clearcoatRoughness
    case lightingDiffuse, lightingSpecular
  }
  /// What is shown.
  public var visualizationMode: VisualizationMode
  /// Options showing `visualizationMode`.
  public init(visualizationMode: VisualizationMode) { self.visualizationMode = visualizationMode }
}
