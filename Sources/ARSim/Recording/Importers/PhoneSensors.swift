import ARSimMath

/// Conventions of the sensors iPhone and iPad capture apps record, fixed once at the IO boundary.

/// ARKit's depth confidence per depth pixel (`ARDepthData.confidenceMap`): 0 low, 1 medium, 2 high.
public struct ConfidenceMap: Sendable, Equatable {
  /// Width in pixels (the depth map's).
  public var width: Int
  /// Height in pixels.
  public var height: Int
  /// `width * height` levels, row-major: 0 (`ARConfidenceLevel.low`), 1 (`.medium`), 2 (`.high`).
  public var levels: [UInt8]

  /// Creates a map; `levels.count` must be `width * height` and every level 0...2 (checked by readers).
  public init(width: Int, height: Int, levels: [UInt8]) {
    precondition(levels.count == width * height, "ConfidenceMap needs width * height levels")
    self.width = width
    self.height = height
    self.levels = levels
  }
}

/// The units an accelerometer file is in, told apart by the magnitude of its readings.
public enum AccelerometerUnits: String, Sendable, Equatable {
  /// Metres per second squared (a phone at rest reads about 9.8).
  case metresPerSecondSquared = "m/s^2"
  /// Standard gravities (a phone at rest reads about 1), as CoreMotion reports.
  case g

  /// m/s² per unit.
  public var metresPerSecondSquared: Double { self == .g ? standardGravity : 1 }

  /// Detects the units from the median magnitude of the first readings: 0.5...1.5 means g,
  /// 5...15 means m/s². Nil when the median is in neither range (or there are no readings).
  public static func detect(magnitudes: [Double]) -> AccelerometerUnits? {
    guard !magnitudes.isEmpty else { return nil }
    let median = magnitudes.sorted()[magnitudes.count / 2]
    if (0.5...1.5).contains(median) { return .g }
    if (5...15).contains(median) { return .metresPerSecondSquared }
    return nil
  }
}

/// The fixed relation between an iPhone's device axes and its back camera.
///
/// CoreMotion's device axes: x to the right of the screen in portrait, y to its top, z out of the
/// screen towards the user. The back camera's sensor is read in landscape-right orientation (top
/// of the device to the left), so ARKit's camera axes are x = -y, y = +x, z = +z of the device,
/// and the optical axes (x right, y down, z forward) are x = -y, y = -x, z = -z of the device.
/// CoreMotion's raw accelerometer reports minus the specific force (a phone face-up on a table
/// reads z = -1 g), so the specific force in the optical frame is (a_y, a_x, a_z) times the units.
public enum PhoneAxes {
  /// A vector in the device axes expressed in the camera's optical axes.
  public static func opticalFromDevice(_ v: SIMD3<Double>) -> SIMD3<Double> { SIMD3(-v.y, -v.x, -v.z) }

  /// CoreMotion's raw accelerometer reading (device axes, in `units`) as specific force in the
  /// optical frame (m/s²): what an accelerometer at rest reads is +9.81 m/s² up.
  public static func specificForce(coreMotion a: SIMD3<Double>, units: AccelerometerUnits) -> SIMD3<Double> {
    -opticalFromDevice(a) * units.metresPerSecondSquared
  }
}
