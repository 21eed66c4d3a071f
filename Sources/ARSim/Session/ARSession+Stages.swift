import Foundation

/// One frame's stages, each a small function with a value between them: track, correct the world,
/// detect planes, assemble the frame and its callbacks (``ARSession/process(_:info:next:)`` runs them
/// in that order; delivery is last, ``ARSession/deliver(_:)``).
extension ARSession {
  /// The next frame to track ahead, while this frame's planes are detected: read by `next` when
  /// nothing that runs before its tracking can change what it reads (no observer, which hears each
  /// frame's arrival first), and tracked only when its tracking would start without a question to the
  /// delegate (no interruption before it) and it can be tracked (images, unless depth-only). When it is
  /// not tracked, the frame read stays with the replay for the next step.
  func aheadFrame(
    after recorded: RecordedFrame, next: () -> RecordedFrame?, context: SessionContext,
    configuration: ARWorldTrackingConfiguration
  ) -> RecordedFrame? {
    guard observers.allSatisfy({ $0.observer == nil }), let frame = next() else { return nil }
    guard frame.timestamp - recorded.timestamp <= configuration.tracking.interruptionThreshold,
      frame.hasImage || !context.readsImages
    else { return nil }
    return frame
  }

  /// The world correction and plane detection stages of a frame, timed: the planes' changes; the
  /// seconds of both (when either ran), and of a loop closure's move of the map (counted with the
  /// tracker's recognition too).
  func planeStage(
    _ recorded: RecordedFrame, tracked: TrackedFrame, context: SessionContext,
    configuration: ARWorldTrackingConfiguration
  ) -> PlaneStageOutput {
    var output = PlaneStageOutput()
    let start = ContinuousClock.now
    output.changes = correctWorld(by: tracked.worldCorrection, tracked.worldDeformation)
    if tracked.worldDeformation != nil { lap(&output.recognition, since: start) }
    let detected = detectPlanes(recorded, tracked: tracked, context: context, configuration: configuration)
    if let detected { output.changes.append(detected) }
    if detected != nil || tracked.worldCorrection != nil || tracked.worldDeformation != nil {
      lap(&output.seconds, since: start)
    }
    return output
  }

  /// The tracking stage: the frame's pose and state.
  func track(
    _ recorded: RecordedFrame, context: SessionContext, configuration: ARWorldTrackingConfiguration
  )
    -> TrackedFrame
  {
    let tracker = self.tracker ?? CameraTracker(context, map: configuration.initialWorldMap?.keyframes)
    self.tracker = tracker
    return tracker.track(recorded)
  }

  /// The world correction stage (``WorldCorrectionStage``): planes and anchors follow the world when
  /// tracking corrected it.
  func correctWorld(by correction: RigidTransform?, _ deformation: WorldDeformation?)
    -> PlaneAnchorChanges
  { WorldCorrectionStage.apply(correction, deformation, book: &book, detector: planeDetector) }

  /// The plane detection stage, or nil when it does not run for this frame (no plane detection
  /// configured, or tracking is not normal).
  func detectPlanes(
    _ recorded: RecordedFrame, tracked: TrackedFrame, context: SessionContext,
    configuration: ARWorldTrackingConfiguration
  ) -> PlaneAnchorChanges? {
    guard !configuration.planeDetection.isEmpty, tracked.state == .normal else { return nil }
    let detector =
      planeDetector
      ?? {
        var options = configuration.planeDetectionOptions
        options.alignments = configuration.planeDetection
        // With a map, identifiers unlike those of the session that made it (whose planes it restores).
        let generation = runCount &+ (configuration.initialWorldMap?.identitySeed ?? 0)
        // Tracking with depth: planes from the depth's planar surfaces. Monocular tracking keeps its
        // own scale, which depth need not share, so its planes come from its feature points.
        if context.info.hasDepth && options.depthSurfaces.enabled && context.mode != .mono {
          return SurfacePlaneDetector(options: options, generation: generation, sessionIdentifier: identifier)
        }
        return PlaneDetector(options: options, generation: generation, sessionIdentifier: identifier)
      }()
    planeDetector = detector
    return detector.process(
      recorded, depth: tracked.depth, tracked: tracked,
      intrinsics: context.info.depthIntrinsics ?? context.info.intrinsics)
  }

  /// The frame and its callbacks, in delivery order.
  func assemble(
    _ recorded: RecordedFrame, tracked: TrackedFrame, changes: AnchorChanges, interrupted: Bool,
    info: RecordingInfo, configuration: ARWorldTrackingConfiguration, timings: FrameTimings
  ) -> FrameOutcome {
    let camera = ARCamera(
      worldFromCamera: tracked.worldFromCamera, intrinsics: info.intrinsics, trackingState: tracked.state)
    let features = tracked.featurePoints.map {
      ARPointCloud(points: $0.map { SIMD3<Float>($0.position) }, identifiers: $0.map(\.identifier))
    }
    let frame = ARFrame(
      timestamp: recorded.timestamp, camera: camera,
      anchors: book.anchors(planes: planes) + meshStage.anchors,
      rawFeaturePoints: features, capturedImage: recorded.storedImage, deferredGray: recorded.deferredGray,
      deferredColor: recorded.deferredColor,
      sceneDepth: recorded.depth.map { ARDepthData(depthMap: $0, confidenceMap: recorded.confidence) },
      frameIndex: recorded.index,
      poseSource: tracked.source, closedLoop: tracked.worldDeformation != nil,
      isViewMapped: tracked.isViewMapped,
      estimatesLight: configuration.isLightEstimationEnabled,
      raycaster: { [weak self] query, frame in self?.raycast(query, in: frame) ?? [] })
    _currentFrame = frame
    var events: [SessionEvent] = interrupted ? [.wasInterrupted, .interruptionEnded] : []
    if lastTrackingState != tracked.state { events.append(.trackingStateChanged(camera)) }
    lastTrackingState = tracked.state
    events.append(.frameUpdated(frame))
    if !changes.added.isEmpty { events.append(.anchorsAdded(changes.added)) }
    if !changes.updated.isEmpty { events.append(.anchorsUpdated(changes.updated)) }
    if !changes.removed.isEmpty { events.append(.anchorsRemoved(changes.removed)) }
    events.append(.trackedRaycasts(frame))
    return FrameOutcome(
      recorded: recorded, frame: frame, tracked: tracked, worldEpoch: epochs.current, events: events,
      timings: timings)
  }
}
