import ARSim
import Foundation

/// Writes a trajectory in TUM format (`timestamp tx ty tz qx qy qz qw`): the pose of the camera's
/// optical frame in the session world, which compares directly with a TUM `groundtruth.txt`.
public final class TrajectoryFile {
  private let file: OutputFile

  /// Opens `path` and writes the header line.
  public init(path: String) throws {
    file = try OutputFile(path: path)
    try file.write("# timestamp tx ty tz qx qy qz qw (camera optical frame in the session world)")
  }

  /// Appends one pose (timestamp in seconds, the optical frame in the session world).
  public func write(timestamp: Double, worldFromOptical: RigidTransform) throws {
    let values = worldFromOptical.tumValues.map { String(format: "%.9f", $0) }
    try file.write(String(format: "%.6f", timestamp) + " " + values.joined(separator: " "))
  }

  /// Moves the file into place.
  public func close() throws { try file.close() }
}
