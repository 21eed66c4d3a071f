import ARSim
import Foundation

/// A value an animation can change over time (RealityKit's `AnimatableData`). ARSim animates
/// transforms only.
public protocol AnimatableData: Sendable {}

extension Transform: AnimatableData {}

/// What an animation changes (RealityKit's `BindTarget`).
public enum BindTarget: Sendable, Hashable {
  /// The entity's transform.
  case transform
  /// The transforms of a model's joints.
  case jointTransforms
  /// A named parameter.
  case parameter(String)
}

/// What happens when an animation reaches its end (RealityKit's `AnimationRepeatMode`).
public enum AnimationRepeatMode: Sendable, Hashable {
  /// It stops.
  case none
  /// It starts again from the beginning, forever.
  case `repeat`
  /// It plays backwards to the beginning, then forwards again, forever.
  case autoReverse
  /// It starts again from where it ended (RealityKit); ARSim starts again from the beginning, as
  /// ``repeat``.
  case cumulative
}

/// Which value an animation shows outside its active time (RealityKit's `AnimationFillMode`). Kept
/// for the app; ARSim's animations hold their first value before they start and their last after.
public struct AnimationFillMode: OptionSet, Sendable, Hashable {
  /// The raw bits.
  public let rawValue: UInt8
  /// A fill mode of `rawValue`.
  public init(rawValue: UInt8) { self.rawValue = rawValue }
  /// The first value before the start.
  public static let backwards = AnimationFillMode(rawValue: 1)
  /// The last value after the end.
  public static let forwards = AnimationFillMode(rawValue: 2)
  /// Both.
  public static let both: AnimationFillMode = [.backwards, .forwards]
}

/// A description of an animation that ``AnimationResource/generate(with:)`` turns into a resource
/// (RealityKit's `AnimationDefinition`).
public protocol AnimationDefinition: Sendable {
  /// The animation's name.
  var name: String { get set }
  /// Seconds of one pass.
  var duration: TimeInterval { get }
  /// What the animation changes.
  var bindTarget: BindTarget { get set }
  /// What happens at the end.
  var repeatMode: AnimationRepeatMode { get set }
  /// How fast it plays: 2 plays a pass in half its duration.
  var speed: Float { get set }
  /// Seconds held at the first value before each pass.
  var delay: TimeInterval { get set }
}

/// An animation between two values (RealityKit's `FromToByAnimation`): from `from` to `to`, or from
/// `from` by `by`; without `from` it starts from the entity's transform when it starts playing, and
/// without `to` and `by` it ends there. `by` is composed with the start as a transform (translations
/// add, rotations compose, scales multiply).
public struct FromToByAnimation<Value: AnimatableData>: AnimationDefinition {
  /// The animation's name.
  public var name: String
  /// The start, or nil for the value when it starts playing.
  public var fromValue: Value?
  /// The end, or nil.
  public var toValue: Value?
  /// The change from the start to the end, used when ``toValue`` is nil.
  public var byValue: Value?
  /// Seconds of one pass at speed 1.
  public var duration: TimeInterval
  /// How progress follows time.
  public var timing: AnimationTimingFunction
  /// Whether RealityKit adds the animation to the value instead of replacing it. Kept for the app;
  /// ARSim replaces the value.
  public var isAdditive: Bool
  /// What the animation changes.
  public var bindTarget: BindTarget
  /// RealityKit's blending layer. Kept for the app; ARSim plays one animation per entity transform.
  public var blendLayer: Int32
  /// What happens at the end.
  public var repeatMode: AnimationRepeatMode
  /// Which value shows outside the active time (see ``AnimationFillMode``).
  public var fillMode: AnimationFillMode
  /// RealityKit's trimming of the played range. Kept for the app; ARSim plays the whole pass.
  public var trimStart: TimeInterval?
  /// See ``trimStart``.
  public var trimEnd: TimeInterval?
  /// See ``trimStart``.
  public var trimDuration: TimeInterval?
  /// RealityKit's start offset into the animation. Kept for the app; ARSim starts at the beginning.
  public var offset: TimeInterval
  /// Seconds held at the start value before each pass.
  public var delay: TimeInterval
  /// How fast it plays: 2 plays a pass in half ``duration``.
  public var speed: Float

  /// An animation of these values and options (RealityKit's initialiser and defaults; `bindTarget`
  /// nil means the transform).
  public init(
    name: String = "", from: Value? = nil, to: Value? = nil, by: Value? = nil, duration: TimeInterval = 1.0,
    timing: AnimationTimingFunction = .linear, isAdditive: Bool = false, bindTarget: BindTarget? = nil,
    blendLayer: Int32 = 0, repeatMode: AnimationRepeatMode = .none, fillMode: AnimationFillMode = [],
    trimStart: TimeInterval? = nil, trimEnd: TimeInterval? = nil, trimDuration: TimeInterval? = nil,
    offset: TimeInterval = 0, delay: TimeInterval = 0, speed: Float = 1.0
  ) {
    self.name = name
    fromValue = from
    toValue = to
    byValue = by
    self.duration = duration
    self.timing = timing
    self.isAdditive = isAdditive
    self.bindTarget = bindTarget ?? .transform
    self.blendLayer = blendLayer
    self.repeatMode = repeatMode
    self.fillMode = fillMode
    self.trimStart = trimStart
    self.trimEnd = trimEnd
    self.trimDuration = trimDuration
    self.offset = offset
    self.delay = delay
    self.speed = speed
  }
}

/// A definition ARSim can play: one transform track.
protocol TransformAnimationDefinition: AnimationDefinition {
  /// The track of one pass, or nil when the definition binds something else than the transform.
  func transformTrack() -> TransformTrack?
}

extension FromToByAnimation: TransformAnimationDefinition where Value == Transform {
  func transformTrack() -> TransformTrack? {
    guard bindTarget == .transform else { return nil }
    let (to, by, reverses) = (toValue, byValue, repeatMode == .autoReverse)
    let pass = speed > 0 && duration.isFinite ? Swift.max(duration, 0) / Double(speed) : 0
    let hold = Swift.max(delay.isFinite ? delay : 0, 0)
    @Sendable func keyframes(from start: Transform) -> [TransformTrack.Keyframe] {
      let end = to ?? by.map { compose(start, $0) } ?? start
      var frames = [
        TransformTrack.Keyframe(time: 0, transform: start),
        TransformTrack.Keyframe(time: hold + pass, transform: end),
      ]
      if hold > 0 { frames.insert(TransformTrack.Keyframe(time: hold, transform: start), at: 1) }
      if reverses { frames.append(TransformTrack.Keyframe(time: hold + 2 * pass, transform: start)) }
      return frames
    }
    var track = TransformTrack(keyframes: keyframes(from: fromValue ?? .identity), timing: timing)
    if fromValue == nil { track.keyframesFromPlayPose = keyframes(from:) }
    return track
  }
}

/// `by` applied to `start`: translations add, rotations compose (`by` after `start`), scales multiply.
private func compose(_ start: Transform, _ by: Transform) -> Transform {
  Transform(
    scale: start.scale * by.scale, rotation: by.rotation * start.rotation,
    translation: start.translation + by.translation)
}

/// Why a definition cannot become an animation in ARSim.
public struct AnimationDefinitionError: Error, CustomStringConvertible, Sendable {
  /// What is wrong.
  public let description: String
}

extension AnimationResource {
  /// The animation `definition` describes (RealityKit's `generate(with:)`): a from-to-by animation of
  /// an entity's transform, repeated as its ``AnimationDefinition/repeatMode`` says. Throws for a
  /// definition that changes anything else than the transform, which ARSim does not animate.
  public static func generate(with definition: any AnimationDefinition) throws -> AnimationResource {
    guard let transformDefinition = definition as? any TransformAnimationDefinition,
      let track = transformDefinition.transformTrack()
    else {
      throw AnimationDefinitionError(
        description: "animation '\(definition.name)': ARSim animates an entity's transform only")
    }
    let resource = AnimationResource(name: definition.name.isEmpty ? nil : definition.name, tracks: [track])
    return definition.repeatMode == .none ? resource : resource.repeat()
  }
}
