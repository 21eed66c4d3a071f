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
  /// Light estimation is not computed by ARSim; kept so that app code ports. Default true.
  public var isLightEstimationEnabled = true
  /// How the camera is tracked (ARSim's addition; ARKit has no such knob). The mode follows the
  /// recording (RGB-D when it has depth) while `tracking.mode` is nil.
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
  }
}

/// Six-degrees-of-freedom tracking of the camera in a gravity-aligned world, with plane
/// detection, as ARKit's `ARWorldTrackingConfiguration`.
public final class ARWorldTrackingConfiguration: ARConfiguration, @unchecked Sendable {
  /// Which planes to detect. Default none, as in ARKit.
  public var planeDetection: ARPlaneDetection = []
  /// The plane detector's tuning (ARSim's addition); its `alignments` are replaced by `planeDetection`.
  public var planeDetectionOptions = PlaneDetectionOptions()

  /// A configuration with the defaults.
  public override init() {}

  public override func copy() -> ARConfiguration {
    let copy = ARWorldTrackingConfiguration()
    copy.copyBase(from: self)
    copy.planeDetection = planeDetection
    copy.planeDetectionOptions = planeDetectionOptions
    return copy
  }
}
