import Foundation

/// A real-world position and orientation that the session tracks, with ARKit's names and semantics
/// (`ARAnchor`).
///
/// An anchor is a reference type, as in ARKit, and it is immutable: when the session updates an anchor
/// it hands out a new object with the same ``identifier``. Like ARKit's (an `NSObject`), it is
/// `Hashable` and `Equatable` by object identity, so `Set<ARAnchor>` and `[ARAnchor: Entity]` work as
/// there; to find the same real-world anchor across updates, compare ``identifier``s.
///
/// Apps subclass it to attach their own data; a subclass must override ``init(anchor:)`` to copy that
/// data, as ARKit requires.
///
/// `@unchecked Sendable`: the compiler cannot check `Sendable` for a non-final (`open`) class, because a
/// subclass could add mutable state. Every stored property declared here is an immutable `let` of a
/// `Sendable` type, so an `ARAnchor` is safe to share between threads; subclasses must keep that promise
/// by storing only immutable, `Sendable` values.
open class ARAnchor: @unchecked Sendable, CustomStringConvertible {
  /// The anchor's unique identifier. It stays the same across the updates of one anchor. Anchors that
  /// the session creates (plane anchors) get identifiers from the session's seed, so two replays of one
  /// recording give the same identifiers; anchors made with ``init(transform:)`` get a random one, as in
  /// ARKit.
  public let identifier: UUID

  /// An optional name, for the app's own use (ARKit's `name`).
  public let name: String?

  /// The anchor's pose: the anchor-to-world transform (`worldFromAnchor`), metres, rigid. Column 3 is the
  /// anchor's origin in world coordinates; columns 0, 1, 2 its x, y, z axes.
  public let transform: simd_float4x4

  /// The identifier of the session that owns the anchor, or `nil` for an anchor not (yet) in a session.
  public let sessionIdentifier: UUID?

  /// An anchor at `transform` (anchor to world, metres) with a new random identifier and no name.
  public convenience init(transform: simd_float4x4) {
    self.init(identifier: UUID(), name: nil, transform: transform, sessionIdentifier: nil)
  }

  /// A named anchor at `transform` (anchor to world, metres) with a new random identifier.
  public convenience init(name: String, transform: simd_float4x4) {
    self.init(identifier: UUID(), name: name, transform: transform, sessionIdentifier: nil)
  }

  /// A copy of `anchor` with the same identifier, name, transform and session (ARKit's
  /// `ARAnchorCopying`). Subclasses override it to copy their own properties.
  public required init(anchor: ARAnchor) {
    identifier = anchor.identifier
    name = anchor.name
    let relocation = Self.relocation
    transform = relocation?.identifier == anchor.identifier ? relocation!.transform : anchor.transform
    sessionIdentifier = anchor.sessionIdentifier
  }

  /// A transform that ``init(anchor:)`` gives the copy of the anchor with this identifier instead of
  /// the original's (set only around ``moved(by:)``'s copy).
  private struct Relocation: Sendable {
    var identifier: UUID
    var transform: simd_float4x4
  }
  @TaskLocal private static var relocation: Relocation?

  /// A copy (through ``init(anchor:)``, so a subclass keeps its own data) with the same identifier,
  /// moved by a rigid correction of the world (`newWorldFromOld`): the same place in the corrected
  /// world. The product is formed in double precision and rounded once.
  package func moved(by correction: RigidTransform) -> ARAnchor {
    let moved = simd_float4x4(correction.matrix * simd_double4x4(transform))
    return Self.$relocation.withValue(Relocation(identifier: identifier, transform: moved)) {
      type(of: self).init(anchor: self)
    }
  }

  /// An anchor with every property given: ARSim's designated initializer, for anchors the session
  /// creates or restamps with its ``sessionIdentifier``.
  package init(identifier: UUID, name: String?, transform: simd_float4x4, sessionIdentifier: UUID?) {
    self.identifier = identifier
    self.name = name
    self.transform = transform
    self.sessionIdentifier = sessionIdentifier
  }

  /// A short description: the class name, identifier, name and position (metres, world).
  open var description: String {
    let p = transform.columns.3
    let label = name.map { " name=\"\($0)\"" } ?? ""
    return "<\(type(of: self)) identifier=\(identifier)\(label) position=(\(p.x), \(p.y), \(p.z))>"
  }
}

extension ARAnchor: Hashable {
  /// Whether `lhs` and `rhs` are the same object (`NSObject`'s default equality, which ARKit's anchors
  /// keep): two updates of one anchor are different objects with the same ``identifier``.
  public static func == (lhs: ARAnchor, rhs: ARAnchor) -> Bool { lhs === rhs }

  /// Hashes the object's identity.
  public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
