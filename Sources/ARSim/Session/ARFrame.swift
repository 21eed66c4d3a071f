import Foundation

/// Points the tracker follows, in world coordinates, with identifiers stable across frames
/// (ARKit's raw feature points).
public final class ARPointCloud: Sendable {
  /// Positions in world coordinates, metres.
  public let points: [simd_float3]
  /// One identifier per point; the same physical feature keeps its identifier while tracked.
  public let identifiers: [UInt64]
  /// The number of points.
  public var count: Int { points.count }

  /// A point cloud; `points` and `identifiers` have the same length.
  public init(points: [simd_float3], identifiers: [UInt64]) {
    precondition(points.count == identifiers.count, "one identifier per point")
    self.points = points
    self.identifiers = identifiers
  }
}

/// A depth map registered to the captured image (ARKit's `ARDepthData`).
public struct ARDepthData: Sendable {
  /// Z-depth in metres along the camera's viewing direction, at the depth sensor's own resolution
  /// (a phone's 256x192 under a larger image; `RecordingInfo.depthIntrinsics`); NaN where unknown.
  public let depthMap: DepthImage
  /// The sensor's confidence per depth pixel (ARKit's `ARConfidenceLevel`: 0 low, 1 medium, 2 high),
  /// or nil when the recording has none.
  public let confidenceMap: ConfidenceMap?

  /// Depth data of one frame.
  public init(depthMap: DepthImage, confidenceMap: ConfidenceMap? = nil) {
    self.depthMap = depthMap
    self.confidenceMap = confidenceMap
  }
}

/// One captured frame with its camera, anchors and points, as the session delivers it.
/// Immutable: a new frame is made for each captured image.
public final class ARFrame: Sendable {
  /// Recorded time in seconds.
  public let timestamp: TimeInterval
  /// The camera's pose, intrinsics and tracking state for this frame.
  public let camera: ARCamera
  /// Every anchor the session has at this frame (planes and the app's own).
  public let anchors: [ARAnchor]
  /// Tracked feature points in world coordinates, or nil before tracking starts.
  public let rawFeaturePoints: ARPointCloud?
  /// The captured image, in the sensor's orientation: colour when the replay makes colour
  /// available (`FrameSourceOptions.decodeColor`; an image file is then decoded in colour on the
  /// first read of this property, not before), else grey; nil when the recording holds no images
  /// (replayed by depth-only tracking).
  public var capturedImage: CapturedImage? {
    CapturedImage.seen(image ?? deferredGray?.image.map { .gray($0) }, color: deferredColor)
  }
  /// Depth registered to the image, when the recording has it.
  public let sceneDepth: ARDepthData?
  /// Index of the frame in the recording (ARSim's addition).
  public let frameIndex: Int
  /// What carried the camera's pose, when a session's tracker made the frame (ARSim's addition, for
  /// the replay's trajectory and evaluation).
  package let poseSource: PoseSource?
  /// Whether the tracker closed a loop with this frame (its world deformed; ARSim's addition).
  package let closedLoop: Bool
  /// The scene's light estimated from ``capturedImage`` (see ``ARLightEstimate``), or nil when the
  /// configuration's `isLightEstimationEnabled` is off. Computed on first read.
  public var lightEstimate: ARLightEstimate? { light?.value }
  /// How well the world around the camera is mapped (see ``WorldMappingStatus``).
  public let worldMappingStatus: WorldMappingStatus
  /// The session's raycast against the world as it was at a frame, for ``hitTest(_:types:)``.
  let raycaster: (@Sendable (ARRaycastQuery, ARFrame) -> [ARRaycastResult])?
  /// The image as read (grey when `deferredColor` holds its colour), or nil and its grey version in
  /// `deferredGray` when the reader decoded it only reduced for tracking.
  private let image: CapturedImage?
  private let deferredGray: DeferredGrayImage?
  private let deferredColor: DeferredColorImage?
  private let light: LazyValue<ARLightEstimate?>?

  package init(
    timestamp: TimeInterval, camera: ARCamera, anchors: [ARAnchor], rawFeaturePoints: ARPointCloud?,
    capturedImage: CapturedImage?, deferredGray: DeferredGrayImage? = nil,
    deferredColor: DeferredColorImage? = nil,
    sceneDepth: ARDepthData?,
    frameIndex: Int, poseSource: PoseSource? = nil, closedLoop: Bool = false, isViewMapped: Bool? = nil,
    estimatesLight: Bool = false,
    raycaster: (@Sendable (ARRaycastQuery, ARFrame) -> [ARRaycastResult])? = nil
  ) {
    light =
      estimatesLight
      ? LazyValue {
        CapturedImage.seen(capturedImage ?? deferredGray?.image.map { .gray($0) }, color: deferredColor)
          .flatMap { ARLightEstimate(image: $0) }
      } : nil
    worldMappingStatus = Self.mappingStatus(
      camera: camera, featureCount: rawFeaturePoints?.count ?? 0, isViewMapped: isViewMapped)
    self.raycaster = raycaster
    self.timestamp = timestamp
    self.camera = camera
    self.anchors = anchors
    self.rawFeaturePoints = rawFeaturePoints
    image = capturedImage
    self.deferredGray = deferredGray
    self.deferredColor = deferredColor
    self.sceneDepth = sceneDepth
    self.frameIndex = frameIndex
    self.poseSource = poseSource
    self.closedLoop = closedLoop
  }

  /// The transform from normalized image coordinates (0...1, origin at the captured image's
  /// top-left corner) to normalized coordinates of a view of `viewportSize` points shown in
  /// `orientation`, with the image filling the view (aspect fill, centred), as ARKit's.
  public func displayTransform(for orientation: UIInterfaceOrientation, viewportSize: CGSize)
    -> CGAffineTransform
  {
    Viewport(size: viewportSize, orientation: orientation).displayTransform(
      imageResolution: camera.imageResolution)
  }
}
