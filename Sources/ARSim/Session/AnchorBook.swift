import Foundation

/// What one frame changed in the session's anchors, in delivery order: added, updated, removed.
package struct AnchorChanges: Sendable {
  /// Anchors new this frame: detected planes, then the app's added since the last frame.
  package var added: [ARAnchor] = []
  /// Detected planes that changed this frame, then the app's anchors a world correction moved.
  package var updated: [ARAnchor] = []
  /// Anchors gone this frame: detected planes (merged into another, or the app's removal), then the
  /// app's removed since the last frame.
  package var removed: [ARAnchor] = []

  /// No changes.
  package init() {}
}

/// The one owner of the session's anchor lifecycle (as stella_vslam's `map_database`): the app's
/// anchors, the app's additions and removals not yet delivered, the detected planes the app removed
/// (kept out of frames and callbacks from then on), and which anchor absorbed a merged plane. The
/// plane detector owns the detected planes themselves; the book filters and merges its changes with
/// the app's. Not thread-safe: the session calls it under its lock.
package struct AnchorBook {
  /// The app's anchors, in the order they were added.
  package private(set) var userAnchors: [ARAnchor] = []
  private var pendingAdded: [ARAnchor] = []
  private var pendingRemoved: [ARAnchor] = []
  /// App anchors a world correction moved, the delegate not told yet.
  private var pendingUpdated: [ARAnchor] = []
  /// Detected planes the app removed.
  private var removedPlanes: Set<UUID> = []
  /// Removed plane identifier to the identifier of the plane that absorbed it.
  private var absorbers: [UUID: UUID] = [:]
  /// When each app anchor was added (the session time of the last frame then), for loop closures.
  private var addedAt: [UUID: Double] = [:]

  /// An empty book.
  package init() {}

  /// The detected planes the app has not removed, then the app's anchors: what a frame holds.
  package func anchors(planes: [ARPlaneAnchor]) -> [ARAnchor] { visible(planes) + userAnchors }

  /// The detected planes the app has not removed.
  package func visible(_ planes: [ARPlaneAnchor]) -> [ARAnchor] {
    planes.filter { !removedPlanes.contains($0.identifier) }
  }

  /// The anchor that absorbed a removed plane, or nil.
  package func absorber(of identifier: UUID) -> UUID? { absorbers[identifier] }

  /// Adds an app anchor (once); it is reported added with the next frame. `time` is the session time
  /// it is placed at (nil: before anything was mapped, as a world map's anchors), the time a loop
  /// closure's deformation moves it by (``applyWorldDeformation(_:)``).
  package mutating func add(_ anchor: ARAnchor, at time: Double? = nil) {
    guard !userAnchors.contains(where: { $0 === anchor }) else { return }
    if let time { addedAt[anchor.identifier] = time }
    userAnchors.append(anchor)
    pendingAdded.append(anchor)
  }

  /// Removes an app anchor or a detected plane among `planes` (the detector's current ones); it is
  /// reported removed with the next frame. An app anchor added and removed between two frames is
  /// never reported. Unknown anchors are ignored.
  package mutating func remove(_ anchor: ARAnchor, planes: [ARPlaneAnchor]) {
    if let index = userAnchors.firstIndex(where: { $0.identifier == anchor.identifier }) {
      let removed = userAnchors.remove(at: index)
      addedAt[removed.identifier] = nil
      pendingUpdated.removeAll { $0 === removed }
      if let pending = pendingAdded.firstIndex(where: { $0 === removed }) {
        pendingAdded.remove(at: pending)
      } else {
        pendingRemoved.append(removed)
      }
    } else if anchor is ARPlaneAnchor, !removedPlanes.contains(anchor.identifier),
      planes.contains(where: { $0.identifier == anchor.identifier })
    {
      removedPlanes.insert(anchor.identifier)
      pendingRemoved.append(anchor)
    }
  }

  /// Moves the app's anchors by a rigid correction of the world (`newWorldFromOld`): each is replaced
  /// by a copy with the same identifier at the same place in the corrected world
  /// (``ARAnchor/moved(by:)``), reported updated with the next frame (or added, when the delegate has
  /// not heard of it yet), as ARKit updates anchors when it refines its map.
  package mutating func applyWorldCorrection(_ correction: RigidTransform) {
    move { _ in correction }
  }

  /// Moves the app's anchors by a loop closure's deformation of the world, each by the correction of
  /// the time it was added (``add(_:at:)``; those added before the deformation's held part stay),
  /// reported as ``applyWorldCorrection(_:)`` does.
  package mutating func applyWorldDeformation(_ deformation: WorldDeformation) {
    let times = addedAt
    move { anchor in times[anchor.identifier].flatMap { deformation.correction(at: $0) } }
  }

  /// Replaces each app anchor that `correction` gives a correction for by its moved copy.
  private mutating func move(_ correction: (ARAnchor) -> RigidTransform?) {
    for i in userAnchors.indices {
      let old = userAnchors[i]
      guard let correction = correction(old) else { continue }
      let moved = old.moved(by: correction)
      userAnchors[i] = moved
      if let pending = pendingAdded.firstIndex(where: { $0 === old }) {
        pendingAdded[pending] = moved
      } else if let pending = pendingUpdated.firstIndex(where: { $0 === old }) {
        pendingUpdated[pending] = moved
      } else {
        pendingUpdated.append(moved)
      }
    }
  }

  /// Applies one frame's plane changes: records absorbers, drops the planes the app removed, and joins
  /// the app's pending additions, updates (by a world correction) and removals, which are then delivered
  /// (cleared).
  package mutating func apply(_ changes: PlaneAnchorChanges) -> AnchorChanges {
    for removal in changes.removed {
      if let absorber = removal.absorbedBy { absorbers[removal.anchor.identifier] = absorber }
    }
    var result = AnchorChanges()
    result.added = visible(changes.added) + pendingAdded
    result.updated = visible(changes.updated) + pendingUpdated
    result.removed = visible(changes.removed.map(\.anchor)) + pendingRemoved
    pendingAdded.removeAll()
    pendingUpdated.removeAll()
    pendingRemoved.removeAll()
    return result
  }

  /// Forgets the planes' bookkeeping (a new detector starts; its planes are new): the visible `planes`
  /// of the old detector are reported removed with the next frame.
  package mutating func restartPlanes(_ planes: [ARPlaneAnchor]) {
    pendingRemoved += visible(planes)
    removedPlanes.removeAll()
  }

  /// Removes every anchor: the visible `planes`, then the app's anchors the delegate has heard of, are
  /// reported removed with the next frame; app anchors added since the last frame are dropped silently.
  package mutating func removeAll(planes: [ARPlaneAnchor]) {
    let announced = userAnchors.filter { anchor in !pendingAdded.contains { $0 === anchor } }
    pendingRemoved += visible(planes) + announced
    userAnchors.removeAll()
    addedAt.removeAll()
    pendingAdded.removeAll()
    pendingUpdated.removeAll()
    removedPlanes.removeAll()
  }
}
