/// One inertial measurement, in the camera's optical frame (x right, y down, z forward).
public struct IMUSample: Sendable, Equatable {
  /// Recorded time in seconds.
  public var timestamp: Double
  /// Specific force in m/s² (what an accelerometer reads: an upright camera at rest reads
  /// about (0, -9.81, 0)), or nil when not recorded.
  public var acceleration: SIMD3<Double>?
  /// Angular rate in rad/s about the optical axes, or nil when not recorded.
  public var rotationRate: SIMD3<Double>?

  /// Creates a sample.
  public init(timestamp: Double, acceleration: SIMD3<Double>?, rotationRate: SIMD3<Double>?) {
    self.timestamp = timestamp
    self.acceleration = acceleration
    self.rotationRate = rotationRate
  }
}

/// A captured image: grey for tracking, colour when the reader was asked for it (see
/// ``RecordedFrame/capturedImage``).
public enum CapturedImage: Sendable, Equatable {
  case gray(GrayImage)
  case rgb(RGBImage)

  /// Width in pixels.
  public var width: Int {
    switch self {
    case .gray(let image): image.width
    case .rgb(let image): image.width
    }
  }

  /// Height in pixels.
  public var height: Int {
    switch self {
    case .gray(let image): image.height
    case .rgb(let image): image.height
    }
  }

  /// The grey image (converted from colour with BT.601 luma when needed).
  public var gray: GrayImage {
    switch self {
    case .gray(let image): image
    case .rgb(let image): image.gray
    }
  }
}

/// One frame of a recording, as a ``FrameSource`` delivers it.
public struct RecordedFrame: Sendable {
  /// Position in the recording, from 0.
  public var index: Int
  /// Recorded time in seconds (the recording's clock, never the wall clock).
  public var timestamp: Double
  /// The image, `intrinsics.width` x `intrinsics.height`; nil when the recording holds no images
  /// (`RecordingInfo.hasImages` false: a Stray Scanner folder without its video), which only the
  /// depth-only tracking mode can replay.
  public var image: CapturedImage? {
    get { storedImage ?? deferredGray?.image.map { .gray($0) } }
    set {
      storedImage = newValue
      deferredGray = nil
    }
  }
  /// ``image`` as the reader made it, without decoding a deferred one.
  package private(set) var storedImage: CapturedImage?
  /// ``image`` when the reader decoded only its reduced version for tracking (``trackingImage``): the
  /// full image is decoded on first read of ``image``.
  package private(set) var deferredGray: DeferredGrayImage?
  /// Whether the frame has an image (decoded or deferred), without decoding it.
  package var hasImage: Bool { storedImage != nil || deferredGray != nil }
  /// Depth in metres registered to the image, NaN where unknown, at the depth sensor's own
  /// resolution: `RecordingInfo.depthIntrinsics` (the image's intrinsics scaled to the depth size;
  /// phones record 256x192 depth under a 1920x1440 image). Nil without a depth sensor.
  public var depth: DepthImage?
  /// The image file as recorded (its bytes and extension), when the reader was asked to keep it
  /// (``FrameSourceOptions/keepEncodedImages``) and the recording stores images as files.
  public var encodedImage: (bytes: [UInt8], fileExtension: String)?
  /// The depth file as recorded, when the reader was asked to keep files
  /// (``FrameSourceOptions/keepEncodedImages``) and it is a 16-bit PNG of millimetres (the ARSim
  /// format's own depth files, so a conversion copies it instead of encoding it again).
  public var encodedDepthMillimetres: [UInt8]?
  /// The confidence file as recorded (an 8-bit PNG of levels 0...2), under the same conditions.
  public var encodedConfidence: [UInt8]?
  /// The colour of ``image``, decoded when first read, when the reader was asked for colour
  /// (``FrameSourceOptions/decodeColor``) and the image is a file (``image`` is then its grey
  /// version, which is what tracking reads); nil otherwise (videos decode colour as they are read).
  public var deferredColor: DeferredColorImage?
  /// The image as an app sees it: the colour of ``deferredColor`` (decoded on first read), else
  /// ``image``.
  public var capturedImage: CapturedImage? {
    CapturedImage.seen(image, color: deferredColor)
  }
  /// The depth sensor's confidence per depth pixel (ARKit's `ARDepthData.confidenceMap`), same
  /// size as `depth`, when recorded.
  public var confidence: ConfidenceMap?
  /// Inertial samples with timestamps in (previous frame's timestamp, this frame's timestamp].
  public var imu: [IMUSample]
  /// Ground truth: the pose of the camera's optical frame in the recording's ground-truth world,
  /// when the recording has it for this time.
  public var groundTruth: RigidTransform?
  /// Whether the recording had a reference pose for this frame that was withheld because the app
  /// wrote it while ARKit was still initialising (``ARKitInitialisingPoses``). Default false.
  public var referenceInitialising = false
  /// The KLT pyramid of ``image``'s grey version, when the reading thread built it ahead of tracking
  /// (``CameraTracker/preparation(_:)``); tracking builds it itself otherwise.
  package var kltPyramid: KLTPyramid?
  /// ``image``'s grey version reduced to the size it is tracked at, when the reading thread made it
  /// (with ``kltPyramid``) and it is smaller than ``image`` (``TrackerOptions/trackingMaxSide``).
  package var trackingImage: GrayImage?

  /// The grey image tracked at `size` (the image reduced `reduction` times): ``trackingImage`` when the
  /// reader or the reading thread made it at that size, else ``image`` reduced (decoding it when
  /// deferred); nil without an image.
  package func trackingImage(size: (width: Int, height: Int), reduction: Int) -> GrayImage? {
    if let made = trackingImage, made.width == size.width, made.height == size.height { return made }
    return image.map { $0.gray.reduced(by: reduction) }
  }

  /// Gives the frame an image decoded reduced for tracking: `reduced` is its ``trackingImage``,
  /// `full` its ``image``, decoded when first read.
  package mutating func setImage(reducedForTracking reduced: GrayImage, full: DeferredGrayImage) {
    storedImage = nil
    deferredGray = full
    trackingImage = reduced
  }

  /// Creates a frame.
  public init(
    index: Int, timestamp: Double, image: CapturedImage?, depth: DepthImage?, imu: [IMUSample],
    groundTruth: RigidTransform?, confidence: ConfidenceMap? = nil
  ) {
    self.index = index
    self.timestamp = timestamp
    storedImage = image
    self.depth = depth
    self.confidence = confidence
    self.imu = imu
    self.groundTruth = groundTruth
  }
}

/// Which recording layout a folder uses.
public enum RecordingFormat: String, Sendable, Codable, CaseIterable {
  /// ARSim's own format (`session.json`), documented in Datasets/README.md.
  case arsim
  /// The TUM RGB-D benchmark layout (`rgb.txt`, `depth.txt`, ...), read as is.
  case tum
  /// A Stray Scanner export folder (`odometry.csv`, `camera_matrix.csv`, `depth/`, `rgb.mp4`).
  case stray
  /// A Record3D export: the EXR+JPG folder (`metadata.json`, `rgb/`, `depth/`) or a `.r3d` file.
  case record3d
  /// One ARKitScenes video folder (`lowres_wide/`, `lowres_depth/`, `lowres_wide.traj`).
  case arkitscenes
  /// A 3D Scanner App "All Data" export (`frame_NNNNN.json`, `depth_NNNNN.png`, colour on some
  /// frames), or the folder holding it as `All_Data/`.
  case scanner3d
}

/// What a recording holds, known before the first frame is read.
public struct RecordingInfo: Sendable {
  /// The recording's folder.
  public var path: String
  /// Its layout.
  public var format: RecordingFormat
  /// Camera intrinsics and image size.
  public var intrinsics: CameraIntrinsics
  /// Where the intrinsics came from (a file, an option or a preset), for summaries.
  public var intrinsicsSource: String
  /// Whether frames carry depth.
  public var hasDepth: Bool
  /// Whether frames carry accelerometer samples.
  public var hasAccelerometer: Bool
  /// Whether frames carry gyroscope samples.
  public var hasGyroscope: Bool
  /// Whether frames carry a ground-truth pose.
  public var hasGroundTruth: Bool
  /// Nominal frame rate in Hz, when the recording states it.
  public var frameRate: Double?
  /// Number of frames listed in the index.
  public var frameCount: Int
  /// Gravity as a unit vector in the ground-truth world frame, when known (ARSim recordings state it).
  public var groundTruthGravity: SIMD3<Double>?
  /// Whether frames carry an image (false for a phone export whose colour video is absent).
  public var hasImages: Bool = true
  /// The intrinsics of the depth maps (the image's, scaled to the depth resolution); nil when
  /// depth is registered at the image's own size or absent.
  public var depthIntrinsics: CameraIntrinsics? = nil
  /// What the recording's reference trajectory is: exact ground truth or ARKit's estimate.
  public var referenceKind: ReferenceKind = .groundTruth
  /// Rolling shutter: seconds from the exposure of the image's first row to its last, the middle row
  /// at the frame's timestamp (tracking undoes its effect on feature positions); nil for a global
  /// shutter or when unknown.
  public var readoutTime: Double? = nil
  /// Facts about the recording worth a line in a summary: gaps, units found, absent files.
  public var notes: [String] = []
}

/// Where a recording's reference trajectory comes from (`groundTruth.kind` in session.json).
public enum ReferenceKind: String, Sendable, Codable, CaseIterable {
  /// Exact ground truth (synthetic sessions, motion capture).
  case groundTruth
  /// ARKit's own estimate on the device (`ARCamera.transform`), as phone capture apps store it;
  /// scores against it say "vs ARKit".
  case arkit
}

/// Options shared by every reader.
public struct FrameSourceOptions: Sendable, Codable, Equatable {
  /// Make colour available: image files are decoded grey for tracking and in colour only when
  /// ``RecordedFrame/capturedImage`` (an app's `ARFrame.capturedImage`) is first read; video
  /// frames are decoded in colour as they are read. Otherwise frames carry grey images only.
  /// Default false.
  public var decodeColor: Bool = false
  /// Intrinsics to use instead of what the recording says (`--intrinsics`). Default nil.
  public var intrinsicsOverride: CameraIntrinsics? = nil
  /// Decode depth when the recording has it. Default true.
  public var loadDepth: Bool = true
  /// Keep each image file's bytes in ``RecordedFrame/encodedImage`` (for lossless conversion).
  /// Default false.
  public var keepEncodedImages: Bool = false
  /// The tracker's ``TrackerOptions/trackingMaxSide``, when the frames are for tracking: a JPEG image
  /// tracking reduces (``TrackerOptions/reduction(width:height:maxSide:)``) is then decoded reduced
  /// as it is read (``RecordedFrame/trackingImage``, far less work than the whole image) and in full
  /// only when ``RecordedFrame/image`` is first read. Default nil: images are decoded in full.
  public var trackingMaxSide: Int? = nil

  /// The defaults.
  public init() {}
}

/// A recording read frame by frame, in time order, with memory that stays flat however long
/// the recording is. One implementation per recording layout.
public protocol FrameSource {
  /// What the recording holds.
  var info: RecordingInfo { get }
  /// Returns the next frame, or nil after the last one.
  /// - Throws: ``RecordingError`` naming the file (and line) when the recording is damaged:
  ///   a missing or corrupt image, a malformed or out-of-order index line, a depth image of the wrong size.
  mutating func nextFrame() throws(RecordingError) -> RecordedFrame?
}
