/// How the camera is tracked. All defaults live here, in one place: the value written on each
/// property (and on those of the module sub-structs) is what `init()` gives.
public struct TrackerOptions: Codable, Sendable, Equatable {
  /// Which sensors carry the pose.
  public enum Mode: String, Codable, Sendable, CaseIterable {
    /// Features with depth become metric 3D points; depth alignment carries the pose where
    /// features are scarce.
    case rgbd
    /// Images only: two-view initialisation, triangulation, PnP against the map.
    case mono
    /// Depth only: point-to-plane ICP of each depth map against a keyframe's, at the depth map's
    /// own resolution; reads no image (recordings without colour, rooms without texture).
    case depth

    /// The mode a recording asks for: `.depth` when it has depth but no images, `.rgbd` when it has
    /// both, `.mono` when it has no depth.
    public static func following(_ info: RecordingInfo) -> Mode {
      guard info.hasDepth else { return .mono }
      return info.hasImages ? .rgbd : .depth
    }
  }

  /// Tracking mode, or nil to follow the recording (``Mode/following(_:)``: `.rgbd` when it has
  /// depth and images, `.depth` for depth without images, else `.mono`). Default nil.
  /// The session resolves it once, when tracking starts (``SessionContext``).
  public var mode: Mode? = nil

  /// Number of tracked features the tracker keeps alive. Default 300.
  public var targetFeatures: Int = 300
  /// Minimum distance between features in pixels. Default 12.
  public var featureSpacing: Double = 12
  /// Corner quality for new features (GFTT quality level, relative to the strongest). Default 0.005.
  public var featureQuality: Double = 0.005
  /// Absolute minimum corner strength of new features (the structure tensor's smaller eigenvalue
  /// as OpenCV scales it for 8-bit images). Textured surfaces give 0.005...0.1; sensor noise and
  /// compression artefacts on a blank wall about 1e-4, which must not become features. Default 0.0004.
  public var minCornerStrength: Double = 0.0004
  /// KLT window side in pixels. Default nil: 15 in RGB-D mode, 21 in monocular mode (where
  /// motion between frames is larger relative to what the map predicts).
  public var kltWindow: Int? = nil
  /// KLT pyramid levels above the base. Default 3.
  public var kltLevels: Int = 3
  /// Images whose longer side exceeds this many pixels are tracked at a half, a quarter, ... of their
  /// size, the largest that fits (``GrayImage/reduced(by:)``, or libjpeg's DCT scaling when the reader
  /// decodes a JPEG at that size: ``FrameSourceOptions/trackingMaxSide``): a phone's full 1440x1920 colour is
  /// tracked at 720x960, as phone apps export it, a quarter of the pixels for the same features
  /// (which the pixel settings here, KLT window, feature spacing and thresholds, are set for); smaller
  /// images keep the precision of their full size. Depth-only tracking reads no image. What the
  /// session reports (poses, feature points, the camera's intrinsics) is in the recording's own image
  /// whatever the setting. 0: always full size. Default 960.
  public var trackingMaxSide: Int = 960
  /// RGB-D: whether each track KLT found is then aligned to its reference patch, the image around it
  /// where its landmark was made, warped as the landmark's surface moves (``FeatureReferences``).
  /// Frame-to-frame KLT passes its error on along a track, and the landmark's pixel drifts by it.
  /// Default true: aligned, a track keeps one frame's error and its landmark the point that was
  /// measured (`PhoneRGBDTrackingTests.alignedTracksTrackCloser`; over seeds, Tools/seed-figures.sh).
  /// Monocular tracking does not align: on a long real monocular sequence (KITTI) aligning lowers the
  /// frame-to-frame error but lets the scale drift more, and the trajectory ends further off.
  public var alignsFeatures = true
  /// PnP RANSAC inlier threshold in pixels. Default 2.
  public var reprojectionThreshold: Double = 2
  /// Inliers needed for a pose from features. Default 20.
  public var minInliers: Int = 20
  /// Inliers below which the state is `limited(.insufficientFeatures)` even when a pose was found. Default 40.
  public var normalInliers: Int = 40
  /// Depth range in metres accepted for new 3D points. Default 0.1...8.
  public var minDepth: Double = 0.1
  public var maxDepth: Double = 8
  /// Translation in metres beyond the constant-velocity prediction that counts as a jump. Default 0.15.
  public var maxTranslationJump: Double = 0.15
  /// Rotation in degrees beyond the constant-velocity prediction that counts as a jump. Default 15.
  public var maxRotationJumpDegrees: Double = 15
  /// Seconds from the start during which the world is provisional (`limited(.initializing)`, poses
  /// reported, no plane detection) at least. Default 0.3.
  public var gravityWindow: Double = 0.3
  /// With an accelerometer, the world stays provisional until the gravity estimate's direction is
  /// known to within this many degrees (one standard deviation), or for at most 10 gravity windows.
  /// The world is fixed from then on. Default 1.
  public var gravitySettledDegrees: Double = 1
  /// With an accelerometer, the world is re-levelled (rotated about the origin, planes and anchors
  /// moved with it and reported in `didUpdate`) whenever the gravity estimate's direction has moved by
  /// this many degrees since the last level, while the world is provisional, and for the whole
  /// session with ``relevelsOnceSettled``. Default 0.05.
  public var relevelDegrees: Double = 0.05
  /// Whether the world keeps re-levelling after it has settled, as gravity is refined for the whole
  /// session. Each re-level is reported as ARKit reports a refined map: anchors move and come in
  /// `didUpdate`. Poses already delivered (``ARFrame/camera``) stay in the world of their time; the
  /// session's recorded trajectory (``ARSession/trajectory``) follows every re-level, so it stays rigid.
  /// Default true.
  public var relevelsOnceSettled: Bool = true
  /// With an accelerometer, the random walk of gravity's direction in the odometry frame that the
  /// gravity estimate allows for, degrees per √s: the tracked orientation drifts slowly, so older
  /// evidence says less about gravity under the current camera, and the world follows the drift and
  /// stays level; the accelerometer's bias is held for the whole session. Nil: gravity in the odometry
  /// frame is taken to be constant.
  /// Default 0.1.
  public var gravityDriftDegrees: Double? = 0.1
  /// Seconds without frames after which the session reports an interruption and the tracker
  /// relocalises. Default 1.
  public var interruptionThreshold: Double = 1
  /// Monocular only: metric scale to apply when the recording has no depth (`--scale`). Default nil.
  public var monocularScale: Double? = nil
  /// Depth pixels whose recorded confidence (ARKit's 0 low, 1 medium, 2 high) is below this are
  /// skipped by tracking and plane detection. Default 1 (skip low). Recordings without a
  /// confidence map use every pixel.
  public var minDepthConfidence: UInt8 = 1
  /// Seed of every random choice (RANSAC). Default 1.
  public var seed: UInt64 = 1
  /// The RGB-D odometry's depth model and fall-backs.
  public var rgbd = RGBD()
  /// Keyframes and relocalisation (RGB-D).
  public var relocalization = Relocalization()
  /// Loop closure (RGB-D).
  public var loopClosure = LoopClosure()
  /// Monocular initialisation.
  public var monoInitialization = MonoInitialization()
  /// The monocular map's local bundle adjustment.
  public var localBundle = LocalBundle()
  /// Raycasts against an estimated plane.
  public var estimatedPlane = EstimatedPlane()
  /// Depth-only odometry.
  public var depthOnly = DepthOnly()
  /// The level held by the depth's level surfaces without an accelerometer.
  public var surfaceLevel = SurfaceLevel()
  /// The gravity estimate's filter where there is an accelerometer.
  public var gravityFilter = GravityFilter()

  /// The defaults.
  public init() {}

  /// How many times smaller (a power of two) images of `intrinsics` are tracked
  /// (``trackingMaxSide``).
  package func trackingReduction(for intrinsics: CameraIntrinsics) -> Int {
    Self.reduction(width: intrinsics.width, height: intrinsics.height, maxSide: trackingMaxSide)
  }

  /// How many times smaller (a power of two) an image of `width` x `height` is tracked with
  /// ``trackingMaxSide`` `maxSide` (0: never reduced).
  package static func reduction(width: Int, height: Int, maxSide: Int) -> Int {
    var reduction = 1
    while maxSide > 0, max(width, height) / reduction > maxSide { reduction *= 2 }
    return reduction
  }

  /// The KLT window in effect.
  var effectiveKLTWindow: Int { kltWindow ?? (mode == .mono ? 21 : 15) }

  /// The KLT parameters the feature front ends build pyramids and track with.
  var kltParams: KLTParams {
    KLTParams(window: effectiveKLTWindow, levels: kltLevels, maxIterations: 20, epsilon: 0.02, maxError: 25)
  }

  /// Whether a measured pose departs from the constant-velocity prediction by more than the
  /// jump thresholds (translation: the larger of `maxTranslationJump` and half the predicted step).
  package func isJump(from last: RigidTransform, predicted: RigidTransform, measured: RigidTransform) -> Bool
  {
    let error = predicted.inverse * measured
    let step = simd_length((last.inverse * predicted).translation)
    return simd_length(error.translation) > max(maxTranslationJump, 0.5 * step)
      || error.angle > maxRotationJumpDegrees * .pi / 180
  }
}

extension TrackerOptions {
  /// Options from JSON: a missing key keeps its documented default (in the module sub-structs too); an
  /// unknown key is an error.
  public init(from decoder: any Decoder) throws {
    self.init()
    let c = try decoder.optionsContainer(keyedBy: CodingKeys.self)
    try c.decode(.mode, into: &mode)
    try c.decode(.targetFeatures, into: &targetFeatures)
    try c.decode(.featureSpacing, into: &featureSpacing)
    try c.decode(.featureQuality, into: &featureQuality)
    try c.decode(.minCornerStrength, into: &minCornerStrength)
    try c.decode(.kltWindow, into: &kltWindow)
    try c.decode(.kltLevels, into: &kltLevels)
    try c.decode(.trackingMaxSide, into: &trackingMaxSide)
    try c.decode(.alignsFeatures, into: &alignsFeatures)
    try c.decode(.reprojectionThreshold, into: &reprojectionThreshold)
    try c.decode(.minInliers, into: &minInliers)
    try c.decode(.normalInliers, into: &normalInliers)
    try c.decode(.minDepth, into: &minDepth)
    try c.decode(.maxDepth, into: &maxDepth)
    try c.decode(.maxTranslationJump, into: &maxTranslationJump)
    try c.decode(.maxRotationJumpDegrees, into: &maxRotationJumpDegrees)
    try c.decode(.gravityWindow, into: &gravityWindow)
    try c.decode(.gravitySettledDegrees, into: &gravitySettledDegrees)
    try c.decode(.relevelDegrees, into: &relevelDegrees)
    try c.decode(.relevelsOnceSettled, into: &relevelsOnceSettled)
    try c.decode(.gravityDriftDegrees, into: &gravityDriftDegrees)
    try c.decode(.interruptionThreshold, into: &interruptionThreshold)
    try c.decode(.monocularScale, into: &monocularScale)
    try c.decode(.minDepthConfidence, into: &minDepthConfidence)
    try c.decode(.seed, into: &seed)
    try c.decode(.rgbd, into: &rgbd)
    try c.decode(.relocalization, into: &relocalization)
    try c.decode(.loopClosure, into: &loopClosure)
    try c.decode(.monoInitialization, into: &monoInitialization)
    try c.decode(.localBundle, into: &localBundle)
    try c.decode(.estimatedPlane, into: &estimatedPlane)
    try c.decode(.depthOnly, into: &depthOnly)
    try c.decode(.surfaceLevel, into: &surfaceLevel)
    try c.decode(.gravityFilter, into: &gravityFilter)
  }
}
