import Foundation

/// The device a replay stands in for, as far as ARKit's class-level capability checks go (ARSim's
/// addition): ARKit answers ``ARWorldTrackingConfiguration/supportsSceneReconstruction(_:)`` for the
/// phone it runs on; ARSim answers for the recording declared here, which stands in for the phone that
/// made it. Declared per task (a task-local value), so concurrent replays never see each other's;
/// ``ARReplay`` declares its recording while it processes a frame (the delegate's callbacks see it).
/// Outside any declaration the device has no depth sensor.
public enum RecordedDevice {
  @TaskLocal private static var declared: RecordingInfo?

  /// The recording the current task replays, or nil.
  public static var recording: RecordingInfo? { declared }

  /// Runs `body` with `recording` as the device (an app's set-up before its first frame, for example).
  public static func simulating<T>(_ recording: RecordingInfo, _ body: () throws -> T) rethrows -> T {
    try $declared.withValue(recording, operation: body)
  }
}

extension ARWorldTrackingConfiguration {
  /// Whether `method` can run on the phone that made `recording`: the empty set always; `.mesh` and
  /// `.meshWithClassification` exactly when the recording has depth (ARSim's addition).
  public static func supportsSceneReconstruction(_ method: SceneReconstruction, for recording: RecordingInfo)
    -> Bool
  {
    method.isEmpty
      || (recording.hasDepth && SceneReconstruction.meshWithClassification.isSuperset(of: method))
  }
}

/// The session's scene reconstruction stage: whether it runs (the configuration), the reconstructor,
/// and the mesh anchors' removals the next frame reports (a reset, or reconstruction switched off).
/// Touched under the session's lock, or by the mesh thread's one job while the session waits for it.
final class SceneReconstructionStage: @unchecked Sendable {
  private var reconstructor: SceneReconstructor?
  private var pendingRemoved: [ARMeshAnchor] = []
  /// The configuration's failure (options out of range), reported once.
  private(set) var failure: ReconstructionError?
  /// Whether ``failure`` was handed to the session to report.
  private var failureReported = false
  /// Seconds the last frame's reconstruction took (0 when it did not run).
  private(set) var seconds = 0.0
  /// The last processed frame's changes, until the session takes them.
  private var changes = MeshAnchorChanges()
  let worker = StageWorker(label: "arsim.session.mesh")

  /// The mesh anchors now, sorted by chunk.
  var anchors: [ARMeshAnchor] { reconstructor?.anchors ?? [] }

  /// A `run`: reconstruction is dropped (its anchors removed with the next frame) when it is switched
  /// off or changes, when tracking restarts (`.resetTracking`: a new world) or on
  /// `.resetSceneReconstruction`.
  func run(
    _ configuration: ARWorldTrackingConfiguration, previous: ARWorldTrackingConfiguration?,
    options: ARSession.RunOptions
  ) {
    let changed =
      previous.map {
        $0.sceneReconstruction != configuration.sceneReconstruction
          || $0.sceneReconstructionOptions != configuration.sceneReconstructionOptions
      } ?? true
    if changed || options.contains(.resetTracking) || options.contains(.resetSceneReconstruction) { reset() }
  }

  /// Drops the reconstruction; its anchors are reported removed with the next frame.
  func reset() {
    if let reconstructor { pendingRemoved += reconstructor.reset() }
    reconstructor = nil
    failure = nil
    failureReported = false
  }

  /// The changes of the frame processed last (once), and the reconstruction's failure when it is new.
  func takeChanges() -> (changes: MeshAnchorChanges, failure: ReconstructionError?) {
    defer { changes = MeshAnchorChanges() }
    guard let failure, !failureReported else { return (changes, nil) }
    failureReported = true
    return (changes, failure)
  }

  /// One frame: the world correction tracking made (a loop closure's deformation fuses the kept
  /// depth maps again with their corrected poses and meshes every chunk), then the frame's depth
  /// fused with its tracked pose when tracking is normal and the recording has depth, then the chunks
  /// changed meshed (at the configured interval). The mesh anchors' changes to report with the frame wait for ``takeChanges()``.
  func process(
    _ recorded: RecordedFrame, tracked: TrackedFrame, info: RecordingInfo,
    configuration: ARWorldTrackingConfiguration,
    sessionIdentifier: UUID, seed: UInt64
  ) {
    changes = frameChanges(
      recorded, tracked: tracked, info: info, configuration: configuration,
      sessionIdentifier: sessionIdentifier,
      seed: seed)
  }

  private func frameChanges(
    _ recorded: RecordedFrame, tracked: TrackedFrame, info: RecordingInfo,
    configuration: ARWorldTrackingConfiguration,
    sessionIdentifier: UUID, seed: UInt64
  ) -> MeshAnchorChanges {
    var changes = MeshAnchorChanges()
    changes.removed = pendingRemoved
    pendingRemoved.removeAll()
    seconds = 0
    let method = configuration.sceneReconstruction
    guard !method.isEmpty, info.hasDepth, failure == nil else { return changes }
    let start = ContinuousClock.now
    defer { lap(&seconds, since: start) }
    let reconstructor: SceneReconstructor
    if let existing = self.reconstructor {
      reconstructor = existing
    } else {
      do {
        reconstructor = try SceneReconstructor(
          options: configuration.sceneReconstructionOptions,
          classifies: method.contains(.meshWithClassification),
          planeOptions: configuration.planeDetectionOptions, sessionIdentifier: sessionIdentifier, seed: seed)
      } catch {
        failure = error
        return changes
      }
      self.reconstructor = reconstructor
    }
    if let correction = tracked.worldCorrection {
      changes.updated += reconstructor.applyWorldCorrection(correction)
    }
    var force = false
    if let deformation = tracked.worldDeformation {
      reconstructor.applyWorldDeformation(deformation)
      force = true
    }
    if tracked.state == .normal, let depth = recorded.depth, reconstructor.isDue(at: recorded.timestamp) {
      do {
        try reconstructor.integrate(
          depth: depth, confidence: recorded.confidence, intrinsics: info.depthIntrinsics ?? info.intrinsics,
          worldFromCamera: tracked.worldFromCamera, at: recorded.timestamp)
      } catch {
        // A depth map CVision refuses (sizes that do not match) is left out; the reconstruction goes on.
      }
    }
    let meshed = reconstructor.update(at: recorded.timestamp, force: force)
    changes.added += meshed.added
    // An anchor both moved and re-meshed this frame is reported once, as re-meshed.
    let remeshed = Set(meshed.updated.map(\.identifier))
    changes.updated = changes.updated.filter { !remeshed.contains($0.identifier) } + meshed.updated
    changes.removed += meshed.removed
    return changes
  }
}
