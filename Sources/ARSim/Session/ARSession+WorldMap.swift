import Foundation

extension ARSession {
  // MARK: World maps

  /// The session's world map now (ARKit's): the tracker's keyframes and every anchor, in the session
  /// world. ARSim calls `completionHandler` before returning, on `delegateQueue` when set, else on the
  /// calling thread, with the map or an ``ARError``: ``ARError/Code/insufficientFeatures`` before the
  /// first tracked frame, while the world is not mapped (`worldMappingStatus` `.notAvailable`:
  /// initialising, or relocalising to an initial map) and when the tracker keeps no keyframes
  /// (depth-only tracking makes none: its keyframes need images).
  public func getCurrentWorldMap(completionHandler: @escaping @Sendable (ARWorldMap?, (any Error)?) -> Void) {
    let result = locked { currentWorldMap() }
    let call = {
      switch result {
      case .success(let map): completionHandler(map, nil)
      case .failure(let error): completionHandler(nil, error)
      }
    }
    if let queue = delegateQueue { queue.sync(execute: call) } else { call() }
  }

  /// The world map now, or why there is none (see ``getCurrentWorldMap(completionHandler:)``).
  package func currentWorldMap() -> Result<ARWorldMap, ARError> {
    locked {
      requireNothingTrackedAhead("currentWorldMap")
      guard let tracker, let frame = _currentFrame else {
        return .failure(
          ARError(.insufficientFeatures, message: "no world map: no frame has been tracked yet"))
      }
      let keyframes = tracker.worldKeyframes()
      guard frame.worldMappingStatus != .notAvailable, !keyframes.isEmpty else {
        let why =
          tracker.mode == .depth
          ? "depth tracking keeps no keyframes (world maps need images: rgbd or mono)"
          : "the world is not mapped yet (\(frame.camera.trackingState))"
        return .failure(ARError(.insufficientFeatures, message: "no world map: " + why))
      }
      return .success(ARWorldMap(keyframes: keyframes, anchors: book.anchors(planes: planes)))
    }
  }

  /// The anchors of the world map the session relocalised to, restamped with this session's identifier,
  /// except those the session has already (a run that did not reset them): the app's anchors go to the
  /// book; the plane anchors are returned, for ``restoredPlanes``.
  func restoreAnchors(of map: ARWorldMap) -> [ARPlaneAnchor] {
    let present = Set(book.anchors(planes: planes).map(\.identifier))
    var restored: [ARPlaneAnchor] = []
    for anchor in map.anchors where !present.contains(anchor.identifier) {
      let copy = anchor.restamped(sessionIdentifier: identifier)
      if let plane = copy as? ARPlaneAnchor { restored.append(plane) } else { book.add(copy) }
    }
    return restored
  }

  /// For each world epoch up to now (``FrameOutcome/worldEpoch``), the session's world now from that
  /// epoch's world: how a pose or point delivered in that epoch is re-expressed in the world now (see
  /// ``trajectory``).
  package func worldNowFromEpochs() -> [RigidTransform] { locked { epochs.nowFromEpoch() } }
}
