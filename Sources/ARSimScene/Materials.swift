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

  /// Black.
  public static let black = MaterialColor(white: 0)
  /// White.
  public static let white = MaterialColor(white: 1)
  /// Mid grey.
  public static let gray = MaterialColor(white: 0.5)
  /// Fully transparent.
  public static let clear = MaterialColor(white: 0, alpha: 0)
  /// Red.
  public static let red = MaterialColor(red: 1, green: 0, blue: 0)
  /// Green.
  public static let green = MaterialColor(red: 0, green: 1, blue: 0)
  /// Blue.
  public static let blue = MaterialColor(red: 0, green: 0, blue: 1)
  /// Yellow.
  public static let yellow = MaterialColor(red: 1, green: 1, blue: 0)
  /// Orange.
  public static let orange = MaterialColor(red: 1, green: 0.5, blue: 0)
  /// Cyan.
  public static let cyan = MaterialColor(red: 0, green: 1, blue: 1)
  /// Magenta.
  public static let magenta = MaterialColor(red: 1, green: 0, blue: 1)
  /// iOS's system blue.
  public static let systemBlue = MaterialColor(red: 0, green: 122.0 / 255, blue: 1)
  /// iOS's system green.
  public static let systemGreen = MaterialColor(red: 52.0 / 255, green: 199.0 / 255, blue: 89.0 / 255)
  /// iOS's system red.
  public static let systemRed = MaterialColor(red: 1, green: 59.0 / 255, blue: 48.0 / 255)
  /// iOS's system yellow.
  public static let systemYellow = MaterialColor(red: 1, green: 204.0 / 255, blue: 0)
}

/// UIKit's colour type where Linux has none: material code that names `UIColor` compiles unchanged.
/// A stand-in, not UIKit's class: only the components and the initialisers of ``MaterialColor``.
public typealias UIColor = MaterialColor

/// A float parameter of a material (RealityKit's `MaterialScalarParameter`); a float literal works.
public enum MaterialScalarParameter: Sendable, Hashable, ExpressibleByFloatLiteral,
  ExpressibleByIntegerLiteral
{
  /// A constant value.
  case float(Float)
  /// The value.
  public init(floatLiteral value: Float) { self = .float(value) }
  /// The value.
  public init(integerLiteral value: Int) { self = .float(Float(value)) }
  /// The constant.
  public var value: Float {
    switch self {
    case .float(let v): v
    }
  }
}

/// How a surface looks (RealityKit's `Material`). ARSim keeps materials for the app to read; it draws
/// nothing.
public protocol Material: Sendable {}

/// A lit material of one colour, roughness and metalness (RealityKit's `SimpleMaterial`).
public struct SimpleMaterial: Material, Hashable {
  /// The colour type materials take.
  public typealias Color = MaterialColor
  /// The base colour (RealityKit's `SimpleMaterial.BaseColor`).
  public struct BaseColor: Sendable, Hashable {
    /// The colour.
    public var tint: MaterialColor
    /// A base colour of `tint`.
    public init(tint: MaterialColor = .white) { self.tint = tint }
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
}

/// A material that ignores lighting, one colour (RealityKit's `UnlitMaterial`).
public struct UnlitMaterial: Material, Hashable {
  /// The colour type materials take.
  public typealias Color = MaterialColor
  /// The colour.
  public var color: SimpleMaterial.BaseColor

  /// A white unlit material.
  public init() { color = SimpleMaterial.BaseColor() }
  /// An unlit material of `color`.
  public init(color: MaterialColor) { self.color = SimpleMaterial.BaseColor(tint: color) }
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
