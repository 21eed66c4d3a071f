/// How a session tracks and what it detects, as ARKit's configurations. A session copies the
/// configuration it is run with, so changing one afterwards does not affect a running session.
open class ARConfiguration: @unchecked Sendable {
  /// How the world's axes are chosen. ARSim implements `.gravity`, the only one ARKit world
  /// tracking recommends for placing content.
  public enum WorldAlignment: Int, Sendable, Codable {
    /// +y up against gravity, origin at the first camera position, -z the first camera's forward
    /// direction projected onto the horizontal plane.
    case gravity
    /// As `.gravity`, and the x and z axes are meant to follow compass headings; ARSim has no
    /// compass and treats it as `.gravity`.
    case gravityAndHeading
    /// The first camera's own axes. Not supported: ARSim treats it as `.gravity`.
    case camera
  }

  /// Whether this configuration can run here: always true, since recordings replace the device.
  open class var isSupported: Bool { true }

  /// How the world's axes are chosen. Default `.gravity`.
  public var worldAlignment: WorldAlignment = .gravity
  /// Whether frames carry an `ARFrame.lightEstimate`, computed from the captured image. Default true.
  public var isLightEstimationEnabled = true
  /// Extra per-frame data to compute (see ``supportsFrameSemantics(_:)``). Default none. ARSim's frames
  /// carry `sceneDepth` whenever the recording has depth, whatever this says.
  public var frameSemantics: FrameSemantics = []
  /// The camera format (see ``supportedVideoFormats``): accepted; frames always have the recording's
  /// resolution and rate.
  public var videoFormat: VideoFormat = .recording
  /// How the camera is tracked (ARSim's addition; ARKit has no such knob). While `tracking.mode` is nil
  /// the mode follows the recording (RGB-D with images and depth, depth-only with depth alone, else
  /// monocular), decided once when tracking starts; a later `run` that keeps tracking keeps that mode.
  public var tracking = TrackerOptions()

  /// A configuration with the defaults.
  public init() {}

  /// A copy (sessions keep their own).
  open func copy() -> ARConfiguration {
    let copy = ARConfiguration()
    copy.copyBase(from: self)
    return copy
  }

  func copyBase(from other: ARConfiguration) {
    worldAlignment = other.worldAlignment
    isLightEstimationEnabled = other.isLightEstimationEnabled
    tracking = other.tracking
    frameSemantics = other.frameSemantics
    videoFormat = other.videoFormat
  }
}

/// Six-degrees-of-freedom tracking of the camera in a gravity-aligned world, with plane
/// detection, as ARKit's `ARWorldTrackingConfiguration`.
public final class ARWorldTrackingConfiguration: ARConfiguration, @unchecked Sendable {
  /// Which planes to detect. Default none, as in ARKit.
  public var planeDetection: ARPlaneDetection = []
  /// The plane detector's tuning (ARSim's addition); its `alignments` are replaced by `planeDetection`.
  public var planeDetectionOptions = PlaneDetectionOptions()
  /// Environment probes for reflections: accepted; ARSim makes no environment textures.
  public var environmentTexturing: EnvironmentTexturing = .none
  /// Whether environment textures would be HDR: accepted, no effect.
  public var wantsHDREnvironmentTextures = true
  /// A mesh of the surroundings, delivered as ``ARMeshAnchor``s, on recordings with depth (see
  /// ``supportsSceneReconstruction(_:)``). Default none.
  public var sceneReconstruction: SceneReconstruction = []
  /// The reconstruction's tuning (ARSim's addition).
  public var sceneReconstructionOptions = SceneReconstructionOptions()
  /// Whether the camera focuses by itself: accepted; recorded images are as they were recorded.
  public var isAutoFocusEnabled = true
  /// Images to detect: accepted; ARSim detects no images (no `ARImageAnchor` is ever added).
  public var detectionImages: Set<ARReferenceImage> = []
  /// How many detected images to track at once: accepted, no effect.
  public var maximumNumberOfTrackedImages = 0
  /// A world map to resume in (ARKit's `initialWorldMap`), or nil. A session run with a map it was
  /// not running with starts tracking afresh, `limited(.relocalizing)` (no planes detected, no poses
  /// recorded) until a frame is located in the map: from that frame on the session world is the
  /// map's, and the map's anchors are added with their identifiers. Until then it stays relocalizing,
  /// however long, as ARKit does. Needs RGB-D tracking (the keyframes hold depth); with another
  /// mode the session never relocalises.
  public var initialWorldMap: ARWorldMap?

  /// Whether `method` can run on the device: the empty set always; `.mesh` and
  /// `.meshWithClassification` when the recording standing in for the device
  /// (``RecordedDevice/recording``) has depth.
  public static func supportsSceneReconstruction(_ method: SceneReconstruction) -> Bool {
    RecordedDevice.recording.map { supportsSceneReconstruction(method, for: $0) } ?? method.isEmpty
  }

  /// A configuration with the defaults.
  public override init() {}

  public override func copy() -> ARConfiguration {
    let copy = ARWorldTrackingConfiguration()
    copy.copyBase(from: self)
    copy.planeDetection = planeDetection
    copy.planeDetectionOptions = planeDetectionOptions
    copy.environmentTexturing = environmentTexturing
    copy.wantsHDREnvironmentTextures = wantsHDREnvironmentTextures
    copy.sceneReconstruction = sceneReconstruction
    copy.sceneReconstructionOptions = sceneReconstructionOptions
    copy.isAutoFocusEnabled = isAutoFocusEnabled
    copy.detectionImages = detectionImages
    copy.maximumNumberOfTrackedImages = maximumNumberOfTrackedImages
    copy.initialWorldMap = initialWorldMap
    return copy
  }
}
