import Foundation

/// One tracked landmark, as ARKit's `ARPointCloud` (`rawFeaturePoints`) holds it: a stable identifier
/// and a position in world coordinates, metres.
package struct FeaturePoint: Sendable, Hashable {
  /// The landmark's identifier, stable while it is tracked.
  package var identifier: UInt64
  /// The landmark's position in world coordinates, metres, in the tracker's double precision (the
  /// session rounds it to Float only for ``ARPointCloud``).
  package var position: SIMD3<Double>

  /// A landmark from its identifier and world position (metres).
  package init(identifier: UInt64, position: SIMD3<Double>) {
    self.identifier = identifier
    self.position = position
  }
}

/// What the plane detector sees of one frame.
package struct PlaneDetectionInput: Sendable {
  /// The frame's timestamp, seconds (recorded time).
  package var timestamp: Double
  /// The camera pose: ARKit's camera frame (x right, y up, looking along −z) to world (y up, metres).
  package var worldFromCamera: RigidTransform
  /// Tracked landmarks in world coordinates (ARKit's raw feature points). Non-finite positions are
  /// ignored.
  package var featurePoints: [FeaturePoint]
  /// Points sampled from the depth image, world coordinates, metres (may be empty). Non-finite points
  /// are ignored.
  package var depthPoints: [SIMD3<Float>]

  /// An input from its parts; see the properties for frames and units.
  package init(
    timestamp: Double, worldFromCamera: RigidTransform, featurePoints: [FeaturePoint],
    depthPoints: [SIMD3<Float>]
  ) {
    self.timestamp = timestamp
    self.worldFromCamera = worldFromCamera
    self.featurePoints = featurePoints
    self.depthPoints = depthPoints
  }
}

extension PlaneDetector {
  /// Processes one tracked frame: its feature points and, when `depth` is given (the frame's depth,
  /// low-confidence pixels already masked), the depth pixels `DepthSampler.step` picks for
  /// ``PlaneDetectionOptions/depthSamplesPerRow`` (at the depth map's own resolution; `intrinsics` are the depth
  /// camera's). The frame's feature points must be known (tracking past initialisation).
  package func process(
    _ recorded: RecordedFrame, depth: DepthImage?, tracked: TrackedFrame, intrinsics: CameraIntrinsics
  ) -> PlaneAnchorChanges {
    let depthPoints =
      depth.map {
        DepthSampler.worldPoints(
          depth: $0, intrinsics: intrinsics, worldFromCamera: tracked.worldFromCamera,
          step: DepthSampler.step(width: $0.width, samplesPerRow: options.depthSamplesPerRow))
      } ?? []
    return process(
      PlaneDetectionInput(
        timestamp: recorded.timestamp, worldFromCamera: tracked.worldFromCamera,
        featurePoints: tracked.featurePoints ?? [], depthPoints: depthPoints))
  }
}

/// A plane anchor that left the session, and the anchor that absorbed it when two planes turned out to
/// be one surface.
package struct RemovedPlaneAnchor: Sendable {
  /// The anchor as it was last reported.
  package var anchor: ARPlaneAnchor
  /// The identifier of the anchor that absorbed it, or `nil` when it was removed for another reason.
  package var absorbedBy: UUID?

  /// A removal record.
  package init(anchor: ARPlaneAnchor, absorbedBy: UUID?) {
    self.anchor = anchor
    self.absorbedBy = absorbedBy
  }
}

/// What one frame changed, in the order the session delivers it: anchors added, updated, removed. Each
/// list is in the order the anchors were first detected. An anchor appears in at most one list.
package struct PlaneAnchorChanges: Sendable {
  /// New anchors.
  package var added: [ARPlaneAnchor] = []
  /// Anchors whose centre, extent, geometry or classification changed (new objects, same identifiers).
  package var updated: [ARPlaneAnchor] = []
  /// Anchors removed, with the absorbing anchor when two merged.
  package var removed: [RemovedPlaneAnchor] = []

  /// No changes.
  package init() {}

  /// Whether nothing changed.
  package var isEmpty: Bool { added.isEmpty && updated.isEmpty && removed.isEmpty }

  /// Records a detector's report of `anchor`, last reported as `previous`: added when new, updated
  /// when it differs from `previous` (``PlaneDetector/isSame(_:_:)``), else nothing.
  package mutating func report(_ anchor: ARPlaneAnchor, previous: ARPlaneAnchor?) {
    if let previous {
      if !PlaneDetector.isSame(anchor, previous) { updated.append(anchor) }
    } else {
      added.append(anchor)
    }
  }

  /// These changes followed by `later` ones of the same detector in the same frame (a world correction,
  /// then detection), as one frame's changes: an anchor updated by both is reported once, as `later`
  /// made it, in its first place; one that `later` removes is not reported updated.
  package mutating func append(_ later: PlaneAnchorChanges) {
    let gone = Set(later.removed.map(\.anchor.identifier))
    updated.removeAll { gone.contains($0.identifier) }
    for anchor in later.updated {
      if let i = updated.firstIndex(where: { $0.identifier == anchor.identifier }) {
        updated[i] = anchor
      } else {
        updated.append(anchor)
      }
    }
    added += later.added
    removed += later.removed
  }
}
