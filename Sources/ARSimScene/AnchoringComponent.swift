import ARSim
import Foundation

/// What an anchoring entity is fastened to, as RealityKit's `AnchoringComponent`.
public struct AnchoringComponent: Sendable, Hashable {
  /// The kinds of real-world targets, as RealityKit's `AnchoringComponent.Target` (the cases ARSim can
  /// track: no images, faces, bodies or camera).
  public enum Target: Sendable, Hashable {
    /// A fixed pose in world space: the anchor-to-world transform, metres.
    case world(transform: simd_float4x4)
    /// The ARAnchor with this identifier: the entity follows the anchor's transform and leaves the scene
    /// when the anchor is removed.
    case anchor(identifier: UUID)
    /// The first detected plane with this alignment and classification whose extent is at least
    /// `minimumBounds` (metres, width and depth, either way round).
    case plane(Alignment, classification: Classification, minimumBounds: SIMD2<Float>)

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
    case .world:
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

/// An entity that can be fastened to the real world, as RealityKit's `HasAnchoring`. ``AnchorEntity``
/// is the one to use; a scene's anchors are entities of this kind.
public protocol HasAnchoring: Entity {
  /// What the entity is fastened to.
  var anchoring: AnchoringComponent { get set }
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
