import ARSim
import Foundation

/// The recordings committed in Datasets/ and the shared data beside the repository.
public enum Datasets {
  /// The repository's root folder, found from this file's path.
  public static let root: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.path
  }()

  /// The path of a committed dataset, e.g. `Datasets.path("tabletop")`.
  public static func path(_ name: String) -> String { root + "/Datasets/" + name }

  /// Whether a committed dataset is present.
  public static func exists(_ name: String) -> Bool {
    FileManager.default.fileExists(atPath: path(name) + "/session.json")
  }

  /// `../shared/datasets` beside the repository (absent in a user's fresh clone).
  public static let shared = root + "/../shared/datasets"

  /// Whether a shared dataset folder is present.
  public static func sharedExists(_ name: String) -> Bool {
    FileManager.default.fileExists(atPath: shared + "/" + name)
  }
}

/// Replays a recording through a session and keeps every frame's camera, for tests.
public final class FrameCollector: ARSessionDelegate {
  public struct Record: Sendable {
    public var timestamp: Double
    public var frameIndex: Int
    public var state: ARCamera.TrackingState
    public var transform: simd_float4x4
    public var groundTruth: RigidTransform?
  }

  public private(set) var records: [Record] = []
  public private(set) var stateChanges: [ARCamera.TrackingState] = []
  public private(set) var errors: [String] = []
  /// Every `didAdd`: the frame index (of the session's current frame) and the anchors.
  public private(set) var additions: [(frame: Int, anchors: [ARAnchor])] = []
  /// The frames whose `worldMappingStatus` was `.mapped`.
  public private(set) var mappedFrames: Set<Int> = []
  /// The answer to `sessionShouldAttemptRelocalization`. Default true.
  public var attemptsRelocalization = true

  public init() {}

  public func sessionShouldAttemptRelocalization(_ session: ARSession) -> Bool { attemptsRelocalization }

  public func session(_ session: ARSession, didAdd anchors: [ARAnchor]) {
    additions.append((session.currentFrame?.frameIndex ?? -1, anchors))
  }

  public func session(_ session: ARSession, didUpdate frame: ARFrame) {
    if frame.worldMappingStatus == .mapped { mappedFrames.insert(frame.frameIndex) }
    records.append(
      Record(
        timestamp: frame.timestamp, frameIndex: frame.frameIndex, state: frame.camera.trackingState,
        transform: frame.camera.transform, groundTruth: nil))
  }

  public func session(_ session: ARSession, cameraDidChangeTrackingState camera: ARCamera) {
    stateChanges.append(camera.trackingState)
  }

  public func session(_ session: ARSession, didFailWithError error: any Error) { errors.append("\(error)") }

  /// Gives the last record the recording's ground-truth pose of its frame.
  public func attachGroundTruth(_ truth: RigidTransform?) {
    guard let truth, !records.isEmpty else { return }
    records[records.count - 1].groundTruth = truth
  }

  /// Replays `folder` to the end with `configuration`; records carry the recording's ground truth.
  public static func replay(
    _ folder: String, configuration: ARWorldTrackingConfiguration = ARWorldTrackingConfiguration(),
    options: FrameSourceOptions = FrameSourceOptions()
  ) throws -> (session: ARSession, collector: FrameCollector) {
    try replay(source: Recording.open(folder: folder, options: options), configuration: configuration)
  }

  /// Replays `source` to the end with `configuration`; records carry the recording's ground truth.
  public static func replay(
    source: any FrameSource, configuration: ARWorldTrackingConfiguration = ARWorldTrackingConfiguration()
  ) throws -> (session: ARSession, collector: FrameCollector) {
    let (session, collector) = running(configuration)
    try collector.play(ARReplay(session: session, source: source))
    return (session, collector)
  }

  /// A new session with a new collector as its delegate, running `configuration`.
  public static func running(
    _ configuration: ARWorldTrackingConfiguration = ARWorldTrackingConfiguration()
  ) -> (session: ARSession, collector: FrameCollector) {
    let session = ARSession()
    let collector = FrameCollector()
    session.delegate = collector
    session.run(configuration)
    return (session, collector)
  }

  /// Steps `replay` (whose session has this collector as its delegate) through `frames` more frames,
  /// or to the end of its recording when nil or sooner; records carry the recording's ground truth.
  public func play(_ replay: ARReplay, frames: Int? = nil) throws {
    var played = 0
    while played < frames ?? .max, try replay.step() != nil {
      attachGroundTruth(replay.lastFrame?.groundTruth)
      played += 1
    }
  }
}
