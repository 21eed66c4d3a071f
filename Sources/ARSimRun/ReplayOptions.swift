import ARSim

/// An error in how a run was asked for (an option, an output path); the CLI prints it as
/// `arsim COMMAND: message` and exits with status 2.
public struct UsageError: Error, CustomStringConvertible {
  public var description: String
  public init(_ message: String) { description = message }
}

/// How a recording is opened and replayed: the options shared by the replaying commands
/// (`--format`, `--intrinsics`, `--mode`, `--scale`, `--planes`).
public struct ReplayOptions: Sendable {
  /// The tracking mode asked for.
  public enum Mode: String, Sendable {
    /// RGB-D (the recording must have depth).
    case rgbd
    /// Monocular, whether or not the recording has depth.
    case mono
    /// Depth alone (point-to-plane ICP; the recording must have depth, images are not read).
    case depth
    /// RGB-D when the recording has depth and images, depth-only with depth but no images, else
    /// monocular (the recording decides).
    case auto
  }

  /// The recording layout; nil detects it from the files.
  public var format: RecordingFormat?
  /// Camera intrinsics replacing the recording's (the image size is filled in by the reader).
  public var intrinsics: CameraIntrinsics?
  public var mode = Mode.auto
  /// Monocular without depth: the length of the initial baseline, metres (nil: the tracker's default).
  public var monocularScale: Double?
  /// Whether the tracker closes loops (RGB-D; `TrackerOptions.LoopClosure`). Default true.
  public var closesLoops = true
  /// Which planes the session detects. Default horizontal and vertical.
  public var planeDetection: ARPlaneDetection = [.horizontal, .vertical]
  /// Whether frames carry colour images (for rendering; tracking uses their grey version). Default false.
  public var decodeColor = false
  /// Threads of the replay: 1 reads, decodes and tracks each frame in turn on the calling thread;
  /// 2 or more read and decode the next frames, and build their KLT pyramids, on a second thread
  /// (``PrefetchingFrameSource``) while the current one is tracked, and KLT shares its points with
  /// a helper thread for the call's length (more than 2 are not used). Either way OpenCV runs its
  /// loops on the calling thread (``ReplayRun`` sets it process-wide), so these are all the replay's
  /// threads (the KLT helper lives for one call). The outputs are the same bit for bit either way.
  /// Default 2.
  public var threads = 2
  /// The recording's frames to replay, by index (nil: all): one recording played as several
  /// sessions that start at different places.
  public var frames: ClosedRange<Int>?
  /// A world map the session starts from (`ARWorldTrackingConfiguration.initialWorldMap`), or nil.
  public var initialWorldMap: ARWorldMap?
  /// The scene mesh the session reconstructs (`ARWorldTrackingConfiguration.sceneReconstruction`).
  /// Default none.
  public var sceneReconstruction: ARWorldTrackingConfiguration.SceneReconstruction = []

  public init() {}
}
