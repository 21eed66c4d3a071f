import ARSim
import Foundation

extension ARView {
  /// The manipulations ``installGestures(_:for:)`` can install (RealityKit's `ARView.EntityGestures`).
  public struct EntityGestures: OptionSet, Sendable, Hashable {
    /// One bit per gesture.
    public let rawValue: UInt
    /// The set with these bits.
    public init(rawValue: UInt) { self.rawValue = rawValue }
    /// One-finger drag.
    public static let translation = EntityGestures(rawValue: 1 << 0)
    /// Two-finger twist.
    public static let rotation = EntityGestures(rawValue: 1 << 1)
    /// Pinch.
    public static let scale = EntityGestures(rawValue: 1 << 2)
    /// All three.
    public static let all: EntityGestures = [.translation, .rotation, .scale]
  }

  /// Installs recognizers that let touches move, turn and scale `entity`, as RealityKit's
  /// `installGestures(_:for:)`, and returns them (also kept in ``gestureRecognizers``). A gesture
  /// begins only when its touch point hits the entity or a descendant through their collision shapes
  /// (see ``hitTest(_:query:mask:)``). There are no real touches on Linux: drive the recognizers with
  /// their `began`/`changed`/`ended` methods (synthetic touches).
  @discardableResult
  public func installGestures(_ gestures: EntityGestures = .all, for entity: any HasCollision)
    -> [EntityGestureRecognizer]
  {
    var made: [EntityGestureRecognizer] = []
    if gestures.contains(.translation) {
      made.append(EntityTranslationGestureRecognizer(entity: entity, view: self))
    }
    if gestures.contains(.rotation) {
      made.append(EntityRotationGestureRecognizer(entity: entity, view: self))
    }
    if gestures.contains(.scale) { made.append(EntityScaleGestureRecognizer(entity: entity, view: self)) }
    gestureRecognizers += made
    return made
  }

  /// Attaches `gestureRecognizer` to this view (UIKit's `addGestureRecognizer(_:)`): it recognises
  /// touches in this view, taken from the view it was on. Adding it twice keeps one.
  public func addGestureRecognizer(_ gestureRecognizer: EntityGestureRecognizer) {
    if let previous = gestureRecognizer.view, previous !== self {
      previous.removeGestureRecognizer(gestureRecognizer)
    }
    gestureRecognizer.view = self
    if !gestureRecognizers.contains(where: { $0 === gestureRecognizer }) {
      gestureRecognizers.append(gestureRecognizer)
    }
  }

  /// Detaches `gestureRecognizer` from this view (UIKit's `removeGestureRecognizer(_:)`): it leaves
  /// ``gestureRecognizers`` and recognises no more touches (its `view` becomes nil). A recognizer of
  /// another view is left alone.
  public func removeGestureRecognizer(_ gestureRecognizer: EntityGestureRecognizer) {
    guard gestureRecognizer.view === self || gestureRecognizers.contains(where: { $0 === gestureRecognizer })
    else {
      return
    }
    gestureRecognizers.removeAll { $0 === gestureRecognizer }
    gestureRecognizer.view = nil
  }
}

/// A recognizer of touches that manipulate an entity (RealityKit's `EntityGestureRecognizer`), driven
/// by synthetic touches. UIKit's target–action cannot exist without Objective-C: ``addTarget(_:)``
/// takes a closure instead, called after each state change once the entity has been updated (a
/// stand-in, marked as such).
open class EntityGestureRecognizer {
  /// A recognizer's state (UIKit's `UIGestureRecognizer.State`).
  public enum State: Sendable, Hashable {
    /// No gesture under way.
    case possible
    /// A gesture started on the entity.
    case began
    /// The gesture moved.
    case changed
    /// The gesture ended.
    case ended
    /// The gesture was cancelled (the entity left the scene).
    case cancelled
    /// The touch did not start on the entity.
    case failed
  }

  /// The entity the gestures manipulate.
  public weak var entity: (any HasCollision)?
  /// The view whose touches drive the recognizer.
  public internal(set) weak var view: ARView?
  /// The state after the last touch.
  public internal(set) var state: State = .possible
  /// Whether touches are recognised. Default true.
  public var isEnabled = true
  /// The last touch point, view points from the top-left.
  public internal(set) var touchLocation: CGPoint = .zero
  private var actions: [(EntityGestureRecognizer) -> Void] = []

  init(entity: any HasCollision, view: ARView) {
    self.entity = entity
    self.view = view
  }

  /// The last touch point in `view`'s coordinates (UIKit's `location(in:)`; one view here).
  public func location(in view: ARView?) -> CGPoint { touchLocation }

  /// Calls `action` after each state change (stand-in for UIKit's `addTarget(_:action:)`).
  public func addTarget(_ action: @escaping (EntityGestureRecognizer) -> Void) {
    actions.append(action)
  }

  /// Starts a gesture at `point` if it touches the entity: returns whether it began (state `.began`;
  /// otherwise `.failed`).
  func begin(at point: CGPoint) -> Bool {
    guard isEnabled, let entity, let view, entity.scene === view.scene else {
      return settle(.failed)
    }
    touchLocation = point
    let touched = view.entities(at: point).contains { $0 === entity || entity.isAncestor(of: $0) }
    return settle(touched ? .began : .failed)
  }

  /// Whether a gesture is under way.
  var isActive: Bool { state == .began || state == .changed }

  /// Sets the state and tells the targets; returns whether the gesture is under way.
  @discardableResult
  func settle(_ new: State) -> Bool {
    state = new
    for action in actions { action(self) }
    return isActive
  }

  /// Ends the gesture under way.
  public func ended() {
    guard isActive else { return }
    settle(.ended)
  }
}

/// A one-finger drag that slides an entity over the plane it stands on (RealityKit's
/// `EntityTranslationGestureRecognizer`): the plane through the entity's origin whose normal is its
/// parent's y axis (the detected plane's normal for content under a plane's anchor entity). The point
/// of the plane first touched stays under the finger; a touch whose ray misses the plane moves nothing.
public final class EntityTranslationGestureRecognizer: EntityGestureRecognizer {
  private var grabOffset = SIMD3<Float>.zero
  private var start = SIMD3<Float>.zero

  /// The entity's movement since the gesture began, in `referenceEntity`'s space (world for nil),
  /// metres.
  public func translation(in referenceEntity: Entity?) -> SIMD3<Float> {
    guard let entity else { return .zero }
    let now = entity.position(relativeTo: nil)
    let m = Entity.worldMatrix(of: referenceEntity).inverse
    let d = m * SIMD4(now - start, 0)
    return SIMD3(d.x, d.y, d.z)
  }

  /// A touch lands at `point` (view points); returns whether the drag began (it touched the entity).
  @discardableResult
  public func began(at point: CGPoint) -> Bool {
    guard let entity else { return settle(.failed) }
    start = entity.position(relativeTo: nil)
    guard begin(at: point), let touched = planePoint(under: point) else {
      if isActive { settle(.failed) }
      return false
    }
    grabOffset = start - touched
    return true
  }

  /// The finger moved to `point`: the entity follows on its plane.
  public func changed(to point: CGPoint) {
    guard isActive, let entity else { return }
    touchLocation = point
    if let touched = planePoint(under: point) {
      entity.setPosition(touched + grabOffset, relativeTo: nil)
    }
    settle(.changed)
  }

  /// Where the ray through `point` meets the entity's plane, world space.
  private func planePoint(under point: CGPoint) -> SIMD3<Float>? {
    guard let entity, let view else { return nil }
    var plane = Entity.worldMatrix(of: entity.parent)
    let origin = entity.position(relativeTo: nil)
    plane.columns.3 = SIMD4(origin, 1)
    return view.unproject(point, ontoPlane: plane)
  }
}

/// A two-finger twist that turns an entity about its parent's y axis (RealityKit's
/// `EntityRotationGestureRecognizer`). ``rotation`` follows UIKit's `UIRotationGestureRecognizer`:
/// radians, positive clockwise on screen, which for a camera looking down at the plane turns the entity
/// clockwise seen from above.
public final class EntityRotationGestureRecognizer: EntityGestureRecognizer {
  /// The twist since the gesture began, radians, clockwise on screen.
  public private(set) var rotation: Float = 0
  private var turn: RotationGesture?

  /// Two fingers land around `point`; returns whether the twist began (it touched the entity).
  @discardableResult
  public func began(at point: CGPoint) -> Bool {
    rotation = 0
    guard let entity, begin(at: point) else { return false }
    turn = RotationGesture(entity: entity)
    return true
  }

  /// The fingers turned by `rotation` radians in total since the gesture began.
  public func changed(rotation: Float) {
    guard isActive, let turn, rotation.isFinite else { return }
    self.rotation = rotation
    turn.changed(rotation: -rotation)
    settle(.changed)
  }
}

/// A pinch that scales an entity uniformly (RealityKit's `EntityScaleGestureRecognizer`): its scale
/// becomes the scale when the pinch began times ``scale``. Like RealityKit's, it sets no limits; apps
/// clamp in their target (ARDemo's 0.1–3.0×, see ``ScaleGesture/defaultLimits``).
public final class EntityScaleGestureRecognizer: EntityGestureRecognizer {
  /// The pinch factor since the gesture began (UIKit's `UIPinchGestureRecognizer.scale`).
  public private(set) var scale: Float = 1
  private var pinch: ScaleGesture?

  /// Two fingers land around `point`; returns whether the pinch began (it touched the entity).
  @discardableResult
  public func began(at point: CGPoint) -> Bool {
    scale = 1
    guard let entity, begin(at: point) else { return false }
    pinch = ScaleGesture(entity: entity, limits: Float.leastNormalMagnitude...Float.greatestFiniteMagnitude)
    return true
  }

  /// The fingers spread to `scale` times their starting distance (positive and finite, or ignored).
  public func changed(scale: Float) {
    guard isActive, let pinch, scale.isFinite, scale > 0 else { return }
    self.scale = scale
    pinch.changed(scale: scale)
    settle(.changed)
  }
}
