import ARSim
import ARSimMath

/// One rendered frame with what the renderer knows exactly about it.
public struct RenderedFrame: Sendable {
  /// Frame index, from 0.
  public var index: Int
  /// Seconds: the middle of the exposure.
  public var timestamp: Double
  /// `worldFromOptical` at `timestamp` (the ground truth written for the frame).
  public var pose: RigidTransform
  /// The colour image with the sensor model applied.
  public var image: RGBImage
  /// Z-depth in metres with the sensor model applied (NaN where unknown), at the image's size or the
  /// phone profile's depth size (``SceneRenderer/phoneDepthCamera``); nil without a depth sensor.
  public var depth: DepthImage?
  /// The phone profile's depth confidence (same size as `depth`); nil without one.
  public var confidence: ConfidenceMap?
  /// Per pixel, row-major: the index into the scene's surfaces of what the pixel centre's ray hits at
  /// `timestamp` (no blur), or −1.
  public var surfaceIndex: [Int16]
  /// Per surface (scene order): how many pixels `surfaceIndex` gives it.
  public var visiblePixels: [Int]
}

/// Where a ray meets the scene.
public struct SurfaceHit: Sendable, Equatable {
  /// Index into the scene's surfaces.
  public var surface: Int
  /// The hit point in the world, metres.
  public var world: SIMD3<Double>
  /// Its z in the camera's optical frame, metres (what a depth camera measures).
  public var depth: Double
}
