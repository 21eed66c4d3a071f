import ARSim
import Foundation

/// Marks an entity as a target of system input (RealityKit's `InputTargetComponent`): on visionOS
/// and in `RealityView`s, gestures reach entities that have it and collision shapes. ARSim's
/// ``ARView`` finds entities by their collision shapes alone (``ARView/entity(at:)``); the component
/// is kept for the app to read.
public struct InputTargetComponent: Component, Hashable {
  /// Kinds of input (RealityKit's `InputTargetComponent.InputType`).
  public struct InputType: OptionSet, Sendable, Hashable {
    /// The raw bits.
    public let rawValue: UInt32
    /// A set of `rawValue`.
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// Input that reaches content by touching it.
    public static let direct = InputType(rawValue: 1 << 0)
    /// Input that reaches content by pointing or looking at it.
    public static let indirect = InputType(rawValue: 1 << 1)
    /// Every kind.
    public static let all: InputType = [.direct, .indirect]
  }

  /// The kinds of input the entity takes.
  public var allowedInputTypes: InputType
  /// Whether the entity takes input. Default true.
  public var isEnabled = true

  /// A target of `allowedInputTypes`.
  public init(allowedInputTypes: InputType = .all) { self.allowedInputTypes = allowedInputTypes }
}

/// A highlight shown while a person looks at or points at an entity (RealityKit's
/// `HoverEffectComponent`). ARSim has neither gaze nor pointer, so nothing is ever hovered; the
/// component keeps its effect for the app to read.
public struct HoverEffectComponent: Component, Hashable {
  /// The colour and strength of an effect; `Kind` tells spotlights from highlights.
  public struct EffectStyle<Kind>: Sendable, Hashable {
    /// The colour, or nil for the system's.
    public var color: MaterialColor?
    /// The strength, 0...1.
    public var strength: Float
    /// A style of `color` and `strength`.
    public init(color: MaterialColor? = nil, strength: Float = 1) {
      self.color = color
      self.strength = strength
    }
    /// The system's style.
    public static var `default`: EffectStyle { EffectStyle() }
  }
  /// The kind of a light spot that follows the pointer.
  public enum SpotlightKind {}
  /// The kind of a tint over the whole entity.
  public enum HighlightKind {}
  /// A light spot that follows the pointer (RealityKit's `SpotlightHoverEffectStyle`).
  public typealias SpotlightHoverEffectStyle = EffectStyle<SpotlightKind>
  /// A tint over the whole entity (RealityKit's `HighlightHoverEffectStyle`).
  public typealias HighlightHoverEffectStyle = EffectStyle<HighlightKind>

  /// One of the effects (RealityKit's `HoverEffectComponent.HoverEffect`).
  public struct HoverEffect: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
      case spotlight(SpotlightHoverEffectStyle)
      case highlight(HighlightHoverEffectStyle)
    }
    let kind: Kind
    /// A spotlight of `style`.
    public static func spotlight(_ style: SpotlightHoverEffectStyle) -> HoverEffect {
      .init(kind: .spotlight(style))
    }
    /// A highlight of `style`.
    public static func highlight(_ style: HighlightHoverEffectStyle) -> HoverEffect {
      .init(kind: .highlight(style))
    }
    /// The spotlight's style, or nil for another effect.
    public var spotlightStyle: SpotlightHoverEffectStyle? {
      if case .spotlight(let style) = kind { return style }
      return nil
    }
    /// The highlight's style, or nil for another effect.
    public var highlightStyle: HighlightHoverEffectStyle? {
      if case .highlight(let style) = kind { return style }
      return nil
    }
  }

  /// The effect.
  public var hoverEffect: HoverEffect

  /// The system's default effect, a spotlight.
  public init() { hoverEffect = .spotlight(.default) }
  /// A component of `hoverEffect`.
  public init(_ hoverEffect: HoverEffect) { self.hoverEffect = hoverEffect }
}
