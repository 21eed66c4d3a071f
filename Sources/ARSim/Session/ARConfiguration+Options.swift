import Foundation

extension ARConfiguration {
  /// Extra per-frame data (ARKit's `ARConfiguration.FrameSemantics`).
  public struct FrameSemantics: OptionSet, Sendable, Hashable {
    /// The bits of the set, as ARKit's.
    public let rawValue: Int
    /// The set with these bits.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// People masks.
    public static let personSegmentation = FrameSemantics(rawValue: 1 << 0)
    /// People masks with depth.
    public static let personSegmentationWithDepth = FrameSemantics(rawValue: (1 << 0) | (1 << 1))
    /// 2D body poses.
    public static let bodyDetection = FrameSemantics(rawValue: 1 << 2)
    /// Depth per frame (`ARFrame.sceneDepth`).
    public static let sceneDepth = FrameSemantics(rawValue: 1 << 3)
    /// Depth smoothed over frames.
    public static let smoothedSceneDepth = FrameSemantics(rawValue: 1 << 4)
  }

  /// Whether `frameSemantics` can run: `.sceneDepth` and `.smoothedSceneDepth` (frames carry the
  /// recording's depth, when it has depth; ARSim does not smooth it), and nothing about people.
  public class func supportsFrameSemantics(_ frameSemantics: FrameSemantics) -> Bool {
    FrameSemantics([.sceneDepth, .smoothedSceneDepth]).isSuperset(of: frameSemantics)
  }

  /// A camera format (ARKit's `ARConfiguration.VideoFormat`).
  public final class VideoFormat: Hashable, Sendable, CustomStringConvertible {
    /// The image size, pixels; zero for ``recording`` (the recording decides).
    public let imageResolution: CGSize
    /// Frames per second; zero for ``recording``.
    public let framesPerSecond: Int

    /// A format of `imageResolution` pixels at `framesPerSecond`.
    public init(imageResolution: CGSize, framesPerSecond: Int) {
      self.imageResolution = imageResolution
      self.framesPerSecond = framesPerSecond
    }

    /// The recording's own format, whatever it is (the only one ARSim supports): an opened recording's
    /// actual format is `RecordingInfo.videoFormat`, and each frame's size `camera.imageResolution`.
    public static let recording = VideoFormat(imageResolution: .zero, framesPerSecond: 0)

    /// Same resolution and rate.
    public static func == (lhs: VideoFormat, rhs: VideoFormat) -> Bool {
      lhs.imageResolution == rhs.imageResolution && lhs.framesPerSecond == rhs.framesPerSecond
    }

    /// Hashes the resolution and rate.
    public func hash(into hasher: inout Hasher) {
      hasher.combine(imageResolution.width)
      hasher.combine(imageResolution.height)
      hasher.combine(framesPerSecond)
    }

    /// `WIDTHxHEIGHT@FPS`, or "recording".
    public var description: String {
      self == .recording
        ? "recording" : "\(Int(imageResolution.width))x\(Int(imageResolution.height))@\(framesPerSecond)"
    }
  }

  /// The formats the configuration can run with: one, ``VideoFormat/recording``, since the recording
  /// replaces the camera.
  public class var supportedVideoFormats: [VideoFormat] { [.recording] }
}

extension RecordingInfo {
  /// The recording's camera format: its image size and its frame rate rounded (0 when unknown).
  public var videoFormat: ARConfiguration.VideoFormat {
    ARConfiguration.VideoFormat(
      imageResolution: CGSize(width: intrinsics.width, height: intrinsics.height),
      framesPerSecond: Int((frameRate ?? 0).rounded()))
  }
}

extension ARWorldTrackingConfiguration {
  /// Environment probes (ARKit's `ARWorldTrackingConfiguration.EnvironmentTexturing`).
  public enum EnvironmentTexturing: Int, Sendable, Hashable {
    /// None.
    case none
    /// Probes the app places.
    case manual
    /// Probes the session places.
    case automatic
  }

  /// Scene meshes (ARKit's `ARConfiguration.SceneReconstruction`).
  public struct SceneReconstruction: OptionSet, Sendable, Hashable {
    /// The bits of the set, as ARKit's.
    public let rawValue: Int
    /// The set with these bits.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// A mesh.
    public static let mesh = SceneReconstruction(rawValue: 1 << 0)
    /// A mesh with a classification per face.
    public static let meshWithClassification = SceneReconstruction(rawValue: (1 << 0) | (1 << 1))
  }
}

/// An image to detect (ARKit's `ARReferenceImage`). ARSim detects no images: configurations accept
/// them and no image anchor is ever added.
public final class ARReferenceImage: Hashable, @unchecked Sendable {
  /// A name for the image.
  public var name: String?
  /// The printed size of the image, metres.
  public let physicalSize: CGSize
  /// The image.
  public let image: CapturedImage

  /// A reference image of `image` printed `physicalWidth` metres wide (the height follows the aspect).
  public init(_ image: CapturedImage, physicalWidth: CGFloat) {
    self.image = image
    let aspect = image.width > 0 ? CGFloat(image.height) / CGFloat(image.width) : 0
    physicalSize = CGSize(width: physicalWidth, height: physicalWidth * aspect)
  }

  /// The images of an asset catalogue group: always nil, since Linux has no asset catalogues.
  public static func referenceImages(inGroupNamed name: String, bundle: Bundle?) -> Set<ARReferenceImage>? {
    nil
  }

  /// Identity.
  public static func == (lhs: ARReferenceImage, rhs: ARReferenceImage) -> Bool { lhs === rhs }
  /// Hashes the identity.
  public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
