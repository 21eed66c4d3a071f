import ARSim
import Foundation

/// A colour for materials: red, green, blue and alpha, each 0...1 in sRGB (the values UIKit's
/// `UIColor(red:green:blue:alpha:)` takes). ARSim renders nothing; materials keep their colour for
/// the app to read back.
public struct MaterialColor: Sendable, Hashable {
  /// Red, 0...1.
  public var red: Float
  /// Green, 0...1.
  public var green: Float
  /// Blue, 0...1.
  public var blue: Float
  /// Opacity, 0 (transparent) ... 1 (opaque).
  public var alpha: Float

  /// A colour of these components (clamped to 0...1).
  public init(red: CGFloat, green: CGFloat, blue: CGFloat, alpha: CGFloat = 1) {
    func unit(_ v: CGFloat) -> Float { Float(Swift.min(Swift.max(v.isNaN ? 0 : v, 0), 1)) }
    self.red = unit(red)
    self.green = unit(green)
    self.blue = unit(blue)
    self.alpha = unit(alpha)
  }

  /// A grey of brightness `white` (0...1).
  public init(white: CGFloat, alpha: CGFloat = 1) {
    self.init(red: white, green: white, blue: white, alpha: alpha)
  }

  /// The colour with opacity `alpha`.
  public func withAlphaComponent(_ alpha: CGFloat) -> MaterialColor {
    MaterialColor(red: CGFloat(red), green: CGFloat(green), blue: CGFloat(blue), alpha: alpha)
  }
}

/// UIKit's colour type where Linux has none: material code that names `UIColor` compiles unchanged.
/// A stand-in, not UIKit's class: only the components and the initialisers of ``MaterialColor``.
public typealias UIColor = MaterialColor

/// A float parameter of a material (RealityKit 1's `MaterialScalarParameter`): a constant (a float literal
/// works) or a texture whose pixels give the value across the surface.
public enum MaterialScalarParameter: Sendable, Hashable, ExpressibleByFloatLiteral,
  ExpressibleByIntegerLiteral
{
  /// A constant value.
  case float(Float)
  /// A value per texel: the texture's first channel, 0...255 read as 0...1.
  case texture(TextureResource)
  /// The value.
  public init(floatLiteral value: Float) { self = .float(value) }
  /// The value.
  public init(integerLiteral value: Int) { self = .float(Float(value)) }
  /// The constant, or for a texture the mean of its first channel (0...1): the value a surface shows
  /// on average.
  public var value: Float {
    switch self {
    case .float(let v): return v
    case .texture(let texture):
      let pixels = texture.image.pixels
      guard !pixels.isEmpty else { return 0 }
      let sum = stride(from: 0, to: pixels.count, by: 3).reduce(0) { $0 + Int(pixels[$1]) }
      return Float(sum) / Float(pixels.count / 3) / 255
    }
  }
}

/// How a surface looks (RealityKit's `Material`). ARSim keeps materials for the app to read; it draws
/// nothing.
public protocol Material: Sendable {}

extension Material {
  /// The colour type materials take (RealityKit's `Material.Color`, UIKit's `UIColor`).
  public typealias Color = MaterialColor
}

/// A lit material of one colour (or texture), roughness and metalness (RealityKit's `SimpleMaterial`).
public struct SimpleMaterial: Material, Hashable {
  /// The colour type materials take.
  public typealias Color = MaterialColor
  /// The base colour: a tint, and a texture multiplied by it (RealityKit's `SimpleMaterial.BaseColor`).
  public struct BaseColor: Sendable, Hashable {
    /// The colour (multiplies the texture's, when there is one).
    public var tint: MaterialColor
    /// The image, or nil for the tint alone.
    public var texture: MaterialParameters.Texture?
    /// A base colour of `tint` and `texture`.
    public init(tint: MaterialColor = .white, texture: MaterialParameters.Texture? = nil) {
      self.tint = tint
      self.texture = texture
    }
  }

  /// The surface colour.
  public var color: BaseColor
  /// 0 (mirror) ... 1 (matte).
  public var roughness: MaterialScalarParameter
  /// 0 (dielectric) ... 1 (metal).
  public var metallic: MaterialScalarParameter

  /// A white, matte-ish dielectric (roughness 0.5).
  public init() {
    self.init(color: .white, roughness: 0.5, isMetallic: false)
  }

  /// A material of `color`, `roughness`, metallic or not.
  public init(color: MaterialColor, roughness: MaterialScalarParameter = 0, isMetallic: Bool) {
    self.color = BaseColor(tint: color)
    self.roughness = roughness
    metallic = .float(isMetallic ? 1 : 0)
  }

  /// The base colour as RealityKit 1 spelled it: the texture when there is one, else the tint.
  /// Setting a colour sets the tint and drops the texture; setting a texture keeps the tint.
  public var baseColor: MaterialColorParameter {
    get { color.texture.map { .texture($0.resource) } ?? .color(color.tint) }
    set { color.setParameter(newValue) }
  }

  /// The tint as RealityKit 1 spelled it (``BaseColor/tint``).
  public var tintColor: MaterialColor {
    get { color.tint }
    set { color.tint = newValue }
  }
}

extension SimpleMaterial.BaseColor {
  /// Sets the tint (dropping the texture) or the texture (keeping the tint).
  mutating func setParameter(_ parameter: MaterialColorParameter) {
    switch parameter {
    case .color(let tint):
      self.tint = tint
      texture = nil
    case .texture(let resource):
      texture = MaterialParameters.Texture(resource)
    }
  }
}

/// A material that ignores lighting: one colour, or a texture times a tint (RealityKit's
/// `UnlitMaterial`).
public struct UnlitMaterial: Material, Hashable {
  /// The colour type materials take.
  public typealias Color = MaterialColor
  /// The base colour type (RealityKit's `UnlitMaterial.BaseColor`).
  public typealias BaseColor = SimpleMaterial.BaseColor
  /// The colour.
  public var color: BaseColor
  /// How the surface blends with what is behind it.
  public var blending: PhysicallyBasedMaterial.Blending = .opaque
  /// Alpha below which a pixel is discarded, or nil.
  public var opacityThreshold: Float?

  /// A white unlit material.
  public init() { color = BaseColor() }
  /// An unlit material of `color`.
  public init(color: MaterialColor) { self.color = BaseColor(tint: color) }
  /// An unlit material that draws the camera image (RealityKit's `init(applyPostProcessToneMap:)`);
  /// white here.
  public init(applyPostProcessToneMap: Bool) { color = BaseColor() }

  /// The base colour as RealityKit 1 spelled it: the texture when there is one, else the tint.
  public var baseColor: MaterialColorParameter {
    get { color.texture.map { .texture($0.resource) } ?? .color(color.tint) }
    set { color.setParameter(newValue) }
  }

  /// The tint as RealityKit 1 spelled it (``SimpleMaterial/BaseColor/tint``).
  public var tintColor: MaterialColor {
    get { color.tint }
    set { color.tint = newValue }
  }
}

/// A physically based material (RealityKit's `PhysicallyBasedMaterial`): base colour, roughness,
/// metalness, emission and blending, each a value and optionally a texture.
public struct PhysicallyBasedMaterial: Material, Hashable {
  /// The colour type materials take.
  public typealias Color = MaterialColor
  /// The base colour (RealityKit's `PhysicallyBasedMaterial.BaseColor`).
  public typealias BaseColor = SimpleMaterial.BaseColor

  /// A scalar and an optional texture (RealityKit's `Roughness`, `Metallic`, ...).
  public struct ScalarParameter: Sendable, Hashable, ExpressibleByFloatLiteral, ExpressibleByIntegerLiteral {
    /// The value, 0...1.
    public var scale: Float
    /// A texture whose values the scale multiplies, or nil.
    public var texture: MaterialParameters.Texture?
    /// A value and a texture.
    public init(scale: Float = 0, texture: MaterialParameters.Texture? = nil) {
      self.scale = scale
      self.texture = texture
    }
    /// A value.
    public init(floatLiteral value: Float) { self.init(scale: value) }
    /// A value.
    public init(integerLiteral value: Int) { self.init(scale: Float(value)) }
  }

  /// Roughness: 0 (mirror) ... 1 (matte).
  public typealias Roughness = ScalarParameter
  /// Metalness: 0 (dielectric) ... 1 (metal).
  public typealias Metallic = ScalarParameter
  /// Specular strength.
  public typealias Specular = ScalarParameter
  /// Ambient occlusion.
  public typealias AmbientOcclusion = ScalarParameter
  /// The strength of a clear lacquer layer (RealityKit's `Clearcoat`).
  public typealias Clearcoat = ScalarParameter
  /// The roughness of the clear layer (RealityKit's `ClearcoatRoughness`).
  public typealias ClearcoatRoughness = ScalarParameter

  /// The light the surface gives off (RealityKit's `EmissiveColor`).
  public struct EmissiveColor: Sendable, Hashable {
    /// The colour.
    public var color: MaterialColor
    /// The image, or nil.
    public var texture: MaterialParameters.Texture?
    /// An emission of `color` and `texture` (black: none).
    public init(color: MaterialColor = .black, texture: MaterialParameters.Texture? = nil) {
      self.color = color
      self.texture = texture
    }
  }

  /// The opacity of a transparent material (RealityKit's `Opacity`).
  public typealias Opacity = ScalarParameter

  /// How the surface blends with what is behind it (RealityKit's `Blending`).
  public enum Blending: Sendable, Hashable {
    /// Hides what is behind.
    case opaque
    /// Lets what is behind show through by `opacity`.
    case transparent(opacity: Opacity)
  }

  /// Which faces are drawn (RealityKit's `FaceCulling`).
  public enum FaceCulling: Sendable, Hashable {
    /// Both faces.
    case none
    /// The front face only.
    case back
    /// The back face only.
    case front
  }

  /// The base colour. Default white.
  public var baseColor = BaseColor()
  /// Default 0.5... RealityKit's default roughness is 0.5 (kept).
  public var roughness: Roughness = 0.5
  /// Default 0.
  public var metallic: Metallic = 0
  /// Default 0.5.
  public var specular: Specular = 0.5
  /// Default none.
  public var ambientOcclusion: AmbientOcclusion = 1
  /// Clear-coat strength, 0 (none, the default) ... 1.
  public var clearcoat: Clearcoat = 0
  /// Clear-coat roughness. Default 0.
  public var clearcoatRoughness: ClearcoatRoughness = 0
  /// Default black (no emission).
  public var emissiveColor = EmissiveColor()
  /// How strongly ``emissiveColor`` shines. Default 1.
  public var emissiveIntensity: Float = 1
  /// Default opaque.
  public var blending: Blending = .opaque
  /// Alpha below which a pixel is discarded, or nil. Default nil.
  public var opacityThreshold: Float?
  /// Default: back faces culled.
  public var faceCulling: FaceCulling = .back

  /// A white, half-rough dielectric.
  public init() {}
}

/// A material that draws nothing but hides the virtual content behind it (RealityKit's
/// `OcclusionMaterial`), for real objects standing in front of virtual ones.
public struct OcclusionMaterial: Material, Hashable {
  /// Whether the surface also receives shadows (accepted; nothing is drawn).
  public var receivesDynamicLighting: Bool
  /// An occluder.
  public init(receivesDynamicLighting: Bool = false) {
    self.receivesDynamicLighting = receivesDynamicLighting
  }
}
