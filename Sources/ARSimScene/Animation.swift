import ARSim
import Foundation

/// How an animation's progress follows time (RealityKit's `AnimationTimingFunction`): a cubic Bézier
/// from (0, 0) to (1, 1), as CSS defines its timing functions.
public struct AnimationTimingFunction: Sendable, Hashable {
  /// The first control point (time, progress).
  public let controlPoint1: SIMD2<Float>
  /// The second control point (time, progress).
  public let controlPoint2: SIMD2<Float>

  /// A curve through the control points; their times are clamped to 0...1 so that it is a function of
  /// time.
  public static func cubicBezier(controlPoint1: SIMD2<Float>, controlPoint2: SIMD2<Float>) -> Self {
    Self(
      controlPoint1: SIMD2(Swift.min(Swift.max(controlPoint1.x, 0), 1), controlPoint1.y),
      controlPoint2: SIMD2(Swift.min(Swift.max(controlPoint2.x, 0), 1), controlPoint2.y))
  }

  /// Constant speed.
  public static let linear = cubicBezier(controlPoint1: [0, 0], controlPoint2: [1, 1])
  /// Starting slowly.
  public static let easeIn = cubicBezier(controlPoint1: [0.42, 0], controlPoint2: [1, 1])
  /// Ending slowly.
  public static let easeOut = cubicBezier(controlPoint1: [0, 0], controlPoint2: [0.58, 1])
  /// Starting and ending slowly.
  public static let easeInOut = cubicBezier(controlPoint1: [0.42, 0], controlPoint2: [0.58, 1])
  /// RealityKit's default; ARSim takes it to be ``easeInOut``.
  public static let `default` = easeInOut

  /// The progress (0 at 0, 1 at 1) at `fraction` of the duration (clamped to 0...1).
  public func progress(at fraction: Float) -> Float {
    let x = Swift.min(Swift.max(fraction, 0), 1)
    func bezier(_ s: Float, _ a: Float, _ b: Float) -> Float {
      let r = 1 - s
      return 3 * r * r * s * a + 3 * r * s * s * b + s * s * s
    }
    // The curve's time is monotonic in s (control times in 0...1): bisect for s with time x.
    var low: Float = 0
    var high: Float = 1
    for _ in 0..<32 {
      let mid = (low + high) / 2
      if bezier(mid, controlPoint1.x, controlPoint2.x) < x { low = mid } else { high = mid }
    }
    return bezier((low + high) / 2, controlPoint1.y, controlPoint2.y)
  }
}

/// Keyframes of one entity's transform (ARSim's form of an animation track): where the entity is, in
/// its parent's space, at given times; between keyframes positions and scales are interpolated
/// linearly and rotations spherically.
public struct TransformTrack: Sendable {
  /// One sample.
  public struct Keyframe: Sendable {
    /// Seconds from the start of the animation.
    public var time: TimeInterval
    /// The entity's transform then (parent space).
    public var transform: Transform
    /// A keyframe at `time` seconds.
    public init(time: TimeInterval, transform: Transform) {
      self.time = time
      self.transform = transform
    }
  }

  /// The names of the entities from the one playing the animation down to the animated one ("" or
  /// empty for the playing entity itself), as a USD prim path below the model's root.
  public var targetPath: [String]
  /// The keyframes, in increasing time.
  public var keyframes: [Keyframe]
  /// How progress follows time within each span between two keyframes. Default linear.
  public var timing: AnimationTimingFunction
  /// For a track that starts where the entity is when the animation starts playing (a from-to-by
  /// animation without `from`): the keyframes from that transform.
  var keyframesFromPlayPose: (@Sendable (Transform) -> [Keyframe])?

  /// A track moving the entity at `targetPath` through `keyframes` (sorted here by time), with
  /// `timing` within each span.
  public init(targetPath: [String] = [], keyframes: [Keyframe], timing: AnimationTimingFunction = .linear) {
    self.targetPath = targetPath.filter { !$0.isEmpty }
    self.keyframes = keyframes.sorted { $0.time < $1.time }
    self.timing = timing
  }

  /// The track as it plays on an entity whose transform is `pose` when the animation starts.
  func resolved(startingAt pose: Transform) -> TransformTrack {
    guard let keyframesFromPlayPose else { return self }
    return TransformTrack(targetPath: targetPath, keyframes: keyframesFromPlayPose(pose), timing: timing)
  }

  /// The transform at `time` seconds (the first keyframe before it, the last after it); nil without
  /// keyframes.
  public func sample(at time: TimeInterval) -> Transform? {
    guard let first = keyframes.first, let last = keyframes.last else { return nil }
    if time <= first.time { return first.transform }
    if time >= last.time { return last.transform }
    let next = keyframes.firstIndex { $0.time > time } ?? keyframes.count - 1
    let (a, b) = (keyframes[next - 1], keyframes[next])
    let span = b.time - a.time
    let fraction = span > 0 ? Float((time - a.time) / span) : 1
    return interpolate(a.transform, b.transform, timing == .linear ? fraction : timing.progress(at: fraction))
  }
}

/// The transform a fraction `t` of the way from `a` to `b`: linear in translation and scale, spherical
/// in rotation (the shorter way).
func interpolate(_ a: Transform, _ b: Transform, _ t: Float) -> Transform {
  Transform(
    scale: a.scale + (b.scale - a.scale) * t, rotation: simd_slerp(a.rotation, b.rotation, t),
    translation: a.translation + (b.translation - a.translation) * t)
}

/// An animation an entity can play (RealityKit's `AnimationResource`): transform tracks of the entity
/// and its descendants over ``duration`` seconds, played once or repeated. Model loaders make them
/// (``Entity/availableAnimations``); apps may build their own from tracks. Immutable.
public final class AnimationResource: Sendable {
  /// The animation's name (a USD animation's prim name), or nil.
  public let name: String?
  /// The tracks.
  public let tracks: [TransformTrack]
  /// Seconds of one pass: the last keyframe's time.
  public let duration: TimeInterval
  /// How many passes play: 1, a count, or infinity for ``repeat()``.
  public let repeatCount: Double

  /// An animation of `tracks`, played once.
  public convenience init(name: String? = nil, tracks: [TransformTrack]) {
    self.init(name: name, tracks: tracks, repeatCount: 1)
  }

  private init(name: String?, tracks: [TransformTrack], repeatCount: Double) {
    self.name = name
    self.tracks = tracks
    duration = tracks.compactMap { $0.keyframes.last?.time }.max() ?? 0
    self.repeatCount = repeatCount
  }

  /// The animation played `count` times in a row.
  public func `repeat`(count: Int) -> AnimationResource {
    AnimationResource(name: name, tracks: tracks, repeatCount: Double(Swift.max(count, 0)))
  }

  /// The animation repeated forever.
  public func `repeat`() -> AnimationResource {
    AnimationResource(name: name, tracks: tracks, repeatCount: .infinity)
  }
}

/// Controls an animation that is playing (RealityKit's `AnimationPlaybackController`). Animations
/// advance with the recording's clock: an ``ARView`` advances every animation of its scene's entities
/// by the time between camera frames, before its scene's ``SceneEvents/Update`` event. An entity not in
/// a view's scene does not advance. Deterministic; not thread-safe (see ``Entity``).
public final class AnimationPlaybackController {
  /// The animated entity (the one `move` or `playAnimation` was called on), while it lives.
  public private(set) weak var entity: Entity?
  /// Seconds of the whole playback (infinity for an endless repeat).
  public let duration: TimeInterval
  /// Seconds played so far (scaled by ``speed``).
  public private(set) var time: TimeInterval = 0
  /// How fast the playback advances: 1 is real time, 0 holds it. Negative values count as 0.
  public var speed: Float = 1
  /// Whether the playback was paused (it holds its pose until resumed).
  public private(set) var isPaused: Bool
  /// Whether the playback was stopped before the end.
  public private(set) var isStopped = false
  /// Whether the playback reached its end.
  public private(set) var isComplete = false
  /// Whether the playback is under way: neither paused, stopped nor complete.
  public var isPlaying: Bool { !isPaused && !isStopped && !isComplete }
  /// What moves the entities at a given time.
  private let apply: (TimeInterval) -> Void
  /// Whether the playback moves the entity's own transform (a new move replaces it).
  let movesTransform: Bool

  init(
    entity: Entity, duration: TimeInterval, startsPaused: Bool, movesTransform: Bool,
    apply: @escaping (TimeInterval) -> Void
  ) {
    self.entity = entity
    self.duration = Swift.max(duration, 0)
    isPaused = startsPaused
    self.movesTransform = movesTransform
    self.apply = apply
  }

  /// Holds the animation where it is.
  public func pause() { isPaused = true }
  /// Continues a paused animation.
  public func resume() { isPaused = false }
  /// Ends the animation where it is; it cannot resume.
  public func stop() { isStopped = true }

  /// Advances by `seconds` of the recording clock and applies the pose; returns true when the playback
  /// completed in this step.
  func advance(by seconds: TimeInterval) -> Bool {
    guard isPlaying, entity != nil else { return false }
    time = Swift.min(time + seconds * Double(Swift.max(speed, 0)), duration)
    apply(time)
    if time >= duration {
      isComplete = true
      return true
    }
    return false
  }

  /// Applies the final pose at once (for a zero duration).
  func finishNow() {
    apply(duration)
    time = duration
    isComplete = true
  }
}

extension Entity {
  /// Moves the entity to `target` (relative to `referenceEntity`, world for nil) over `duration`
  /// seconds of the recording clock, with `timingFunction`, as RealityKit's
  /// `move(to:relativeTo:duration:timingFunction:)`; a zero duration moves it at once. The start is
  /// where the entity is now relative to `referenceEntity`. A new move replaces a move still under way.
  @discardableResult
  public func move(
    to target: Transform, relativeTo referenceEntity: Entity?, duration: TimeInterval = 0,
    timingFunction: AnimationTimingFunction = .default
  ) -> AnimationPlaybackController {
    let start = Transform(matrix: transformMatrix(relativeTo: referenceEntity))
    let span = duration.isFinite ? Swift.max(duration, 0) : 0
    let controller = AnimationPlaybackController(
      entity: self, duration: span, startsPaused: false, movesTransform: true
    ) { [weak self, weak referenceEntity] time in
      let fraction = span > 0 ? Float(time / span) : 1
      let pose = interpolate(start, target, timingFunction.progress(at: fraction))
      self?.setTransformMatrix(pose.matrix, relativeTo: referenceEntity)
    }
    for running in playbacks where running.movesTransform { running.stop() }
    if span == 0 {
      controller.finishNow()
    } else {
      playbacks.append(controller)
    }
    return controller
  }

  /// Moves the entity to the pose of `transform` (a matrix relative to `referenceEntity`) over
  /// `duration` seconds (as the move to a ``Transform``).
  @discardableResult
  public func move(
    to transform: simd_float4x4, relativeTo referenceEntity: Entity?, duration: TimeInterval = 0,
    timingFunction: AnimationTimingFunction = .default
  ) -> AnimationPlaybackController {
    move(
      to: Transform(matrix: transform), relativeTo: referenceEntity, duration: duration,
      timingFunction: timingFunction)
  }

  /// Plays `animation` on this entity and its descendants (each track moves the entity at its path,
  /// relative to its parent), as RealityKit's `playAnimation(_:transitionDuration:startsPaused:)`.
  /// `transitionDuration` is accepted; the animation starts from its first keyframe at once. Tracks
  /// whose path names no descendant are skipped.
  @discardableResult
  public func playAnimation(
    _ animation: AnimationResource, transitionDuration: TimeInterval = 0, startsPaused: Bool = false
  ) -> AnimationPlaybackController {
    let targets: [(Entity, TransformTrack)] = animation.tracks.compactMap { track in
      var node: Entity? = self
      for name in track.targetPath { node = node?.children.first { $0.name == name } }
      return node.map { ($0, track.resolved(startingAt: $0.transform)) }
    }
    let pass = animation.duration
    let controller = AnimationPlaybackController(
      entity: self, duration: pass * animation.repeatCount, startsPaused: startsPaused,
      movesTransform: targets.contains { $0.0 === self }
    ) { time in
      let local = pass > 0 && time > 0 ? time - pass * ((time / pass).rounded(.up) - 1) : 0
      for (entity, track) in targets {
        if let pose = track.sample(at: local) { entity.transform = pose }
      }
    }
    if pass == 0 && !startsPaused {
      controller.finishNow()
    } else {
      playbacks.append(controller)
    }
    return controller
  }

  /// Advances this entity's playbacks (not its descendants') by `seconds`; returns the ones that
  /// completed.
  func advancePlaybacks(by seconds: TimeInterval) -> [AnimationPlaybackController] {
    guard !playbacks.isEmpty else { return [] }
    let running = playbacks
    let completed = running.filter { $0.advance(by: seconds) }
    playbacks.removeAll { $0.isComplete || $0.isStopped }
    return completed
  }
}
