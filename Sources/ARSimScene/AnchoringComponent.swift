import ARSim
import Foundation

/// What an anchoring entity is fastened to, as RealityKit's `AnchoringComponent`: the component behind
/// ``HasAnchoring/anchoring``.
public struct AnchoringComponent: Component, Sendable, Hashable {
  /// The kinds of real-world targets, as RealityKit's `AnchoringComponent.Target` (the cases ARSim can
  /// track: no images, faces or bodies).
  public enum Target: Sendable, Hashable {
    /// A fixed pose in world space: the anchor-to-world transform, metres.
    case world(transform: simd_float4x4)
    /// The ARAnchor with this identifier: the entity follows the anchor's transform and leaves the scene
    /// when the anchor is removed.
    case anchor(identifier: UUID)
    /// The first detected plane with this alignment and classification whose extent is at least
    /// `minimumBounds` (metres, width and depth, either way round).
    case plane(Alignment, classification: Classification, minimumBounds: SIMD2<Float>)
    /// The camera: the entity is at the camera's pose (ARKit's camera frame, looking along its −z) in
    /// every frame, so its children stay fixed in front of the camera. Anchored once a frame arrived.
    case camera

    /// Plane orientations a plane target accepts (RealityKit's `AnchoringComponent.Target.Alignment`).
    public struct Alignment: OptionSet, Sendable, Hashable {
      /// The bits of the set: 1 horizontal, 2 vertical.
      public let rawValue: UInt8
      /// Creates the set with the given bits.
      public init(rawValue: UInt8) { self.rawValue = rawValue }
      /// Horizontal planes (floors, tables, ceilings).
      public static let horizontal = Alignment(rawValue: 1 << 0)
      /// Vertical planes (walls).
      public static let vertical = Alignment(rawValue: 1 << 1)
      /// Either.
      public static let any: Alignment = [.horizontal, .vertical]
    }

    /// Plane classifications a plane target accepts (RealityKit's
    /// `AnchoringComponent.Target.Classification`). ``any`` also accepts planes without a
    /// classification; any other set needs the plane to be classified as one of its members.
    public struct Classification: OptionSet, Sendable, Hashable {
      /// The bits of the set, one per classification.
      public let rawValue: UInt64
      /// Creates the set with the given bits.
      public init(rawValue: UInt64) { self.rawValue = rawValue }
      /// Walls.
      public static let wall = Classification(rawValue: 1 << 0)
      /// Floors.
      public static let floor = Classification(rawValue: 1 << 1)
      /// Ceilings.
      public static let ceiling = Classification(rawValue: 1 << 2)
      /// Table tops.
      public static let table = Classification(rawValue: 1 << 3)
      /// Seats.
      public static let seat = Classification(rawValue: 1 << 4)
      /// Every plane, classified or not.
      public static let any: Classification = [.wall, .floor, .ceiling, .table, .seat]
    }
  }

  /// The target.
  public var target: Target

  /// A component anchoring to `target`.
  public init(_ target: Target) {
    self.target = target
  }
}

extension AnchoringComponent.Target {
  /// Whether `anchor` is what this target looks for: the anchor with the identifier for `.anchor`, a
  /// plane anchor of the alignment, classification and size for `.plane`; never for `.world`.
  public func matches(_ anchor: ARAnchor) -> Bool {
    switch self {
    case .world, .camera:
      return false
    case .anchor(let identifier):
      return anchor.identifier == identifier
    case .plane(let alignment, let classification, let minimumBounds):
      guard let plane = anchor as? ARPlaneAnchor else { return false }
      switch plane.alignment {
      case .horizontal: guard alignment.contains(.horizontal) else { return false }
      case .vertical: guard alignment.contains(.vertical) else { return false }
      }
      if !classification.isSuperset(of: .any) {
        let wanted: Classification
        switch plane.classification {
        case .wall: wanted = .wall
        case .floor: wanted = .floor
        case .ceiling: wanted = .ceiling
        case .table: wanted = .table
        case .seat: wanted = .seat
        case .none, .window, .door: return false
        }
        guard classification.contains(wanted) else { return false }
      }
      let size = (plane.planeExtent.width, plane.planeExtent.height)
      let needed = (min(minimumBounds.x, minimumBounds.y), max(minimumBounds.x, minimumBounds.y))
      return min(size.0, size.1) >= needed.0 && max(size.0, size.1) >= needed.1
    }
  }
}

/// An entity that can be fastened to the real world, as RealityKit's `HasAnchoring`: a scene's anchors
/// are entities of this kind. ``AnchorEntity`` is the usual one; an app's own `Entity` subclass that
/// adopts the protocol gets ``anchoring`` (kept in its components, a world target at the origin until
/// set) and is placed by the view in the same way.
public protocol HasAnchoring: Entity {}

extension HasAnchoring {
  /// What the entity is fastened to. Setting it makes the entity look for the new target: a world target
  /// moves it to that pose at once; in a view's scene, other targets are looked up among the session's
  /// anchors (or the camera) at once and in later callbacks. Without an ``AnchoringComponent``, a world
  /// target at the origin that leaves the entity where the app puts it.
  public var anchoring: AnchoringComponent {
    get { components[AnchoringComponent.self] ?? AnchoringComponent(.world(transform: .identity)) }
    set {
      components[AnchoringComponent.self] = newValue
      anchoringTargetChanged()
    }
  }

  /// The identifier of the ARAnchor the entity follows: the target's for `.anchor(identifier:)`, the
  /// plane's once a `.plane` target was found; nil for world and camera targets and for a plane not yet
  /// found (RealityKit's `anchorIdentifier`).
  public var anchorIdentifier: UUID? { anchoringState.anchorIdentifier }

  /// Fastens the entity to `target` (RealityKit's `reanchor(_:preservingWorldTransform:)`). With
  /// `preservingWorldTransform`, its children keep their world poses across the move.
  public func reanchor(_ target: AnchoringComponent.Target, preservingWorldTransform: Bool = true) {
    let worlds = preservingWorldTransform ? children.map { ($0, $0.transformMatrix(relativeTo: nil)) } : []
    anchoring = AnchoringComponent(target)
    for (child, world) in worlds { child.setTransformMatrix(world, relativeTo: nil) }
  }
}

extension Entity {
  /// Resets the target state after an anchoring entity's target changed: a world target is attached and
  /// applied at once, an ARAnchor target remembers its identifier; in a view's scene the view looks for
  /// the target at once.
  func anchoringTargetChanged() {
    anchoringState = AnchoringState()
    switch components[AnchoringComponent.self]?.target {
    case .world(let transform):
      anchoringState.isAttached = true
      setTransformMatrix(transform, relativeTo: nil)
    case .anchor(let identifier):
      anchoringState.anchorIdentifier = identifier
    case .plane, .camera, nil:
      break
    }
    scene?.view?.resolve(self)
  }

  /// Fastens this anchoring entity to `anchor` with its pose `anchorFromEntity` in the anchor's space.
  func attach(to anchor: ARAnchor, anchorFromEntity: simd_float4x4) {
    anchoringState.isAttached = true
    anchoringState.anchorIdentifier = anchor.identifier
    anchoringState.anchorFromEntity = anchorFromEntity
    setTransformMatrix(anchor.transform * anchorFromEntity, relativeTo: nil)
  }
}

/// Where an anchoring entity stands with its target (kept on ``Entity``, managed by ``ARView``).
struct AnchoringState {
  /// Whether the target was found (a world target always is).
  var isAttached = false
  /// The ARAnchor the entity follows, once known.
  var anchorIdentifier: UUID?
  /// The entity's pose in the followed ARAnchor's space: the identity unless the entity was made from a
  /// raycast hit or moved over to a plane that absorbed its own.
  var anchorFromEntity: simd_float4x4 = .identity
}
