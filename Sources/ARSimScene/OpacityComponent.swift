import Foundation

/// How opaque an entity and its descendants are drawn (RealityKit's `OpacityComponent`): the renderer
/// multiplies `opacity` into every visual component of the entity's family tree, and a descendant's own
/// opacity component multiplies in as well. ARSim draws nothing; the value is state the app sets and reads
/// (and systems animate, as a fade-out does), kept for the app and `arsim render`.
public struct OpacityComponent: Component, Sendable, Hashable {
  /// The opacity, in `0...1`: 0 fully transparent, 1 fully opaque. Kept as given, as RealityKit keeps it.
  public var opacity: Float

  /// An opacity component of `opacity` (default 1, fully opaque).
  public init(opacity: Float = 1.0) { self.opacity = opacity }
}
