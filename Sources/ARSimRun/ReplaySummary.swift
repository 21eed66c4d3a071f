import ARSim
import Foundation

/// Counts what a replay saw; its report is deterministic for a given recording.
public struct ReplaySummary {
  /// Frames replayed.
  public var frames = 0
  /// The first and last frame's timestamps, seconds.
  public var firstTimestamp: Double?
  public var lastTimestamp: Double?
  /// Frames with depth, their valid (finite) depth pixels and all their depth pixels.
  public var depthFrames = 0
  public var validDepth = 0
  public var depthPixels = 0
  /// IMU samples and ground-truth poses.
  public var imuSamples = 0
  public var groundTruthPoses = 0

  public init() {}

  /// Counts `frame`.
  public mutating func add(_ frame: RecordedFrame) {
    frames += 1
    firstTimestamp = firstTimestamp ?? frame.timestamp
    lastTimestamp = frame.timestamp
    if let depth = frame.depth {
      depthFrames += 1
      depthPixels += depth.metres.count
      validDepth += depth.metres.reduce(0) { $0 + ($1.isFinite ? 1 : 0) }
    }
    imuSamples += frame.imu.count
    if frame.groundTruth != nil { groundTruthPoses += 1 }
  }

  /// The summary lines `arsim replay` prints.
  public func report(info: RecordingInfo) -> String {
    let k = info.intrinsics
    let duration = (lastTimestamp ?? 0) - (firstTimestamp ?? 0)
    var lines = [
      "recording: \(info.path) (\(info.format.rawValue))",
      "camera: \(k.width)x\(k.height), fx \(k.fx) fy \(k.fy) cx \(k.cx) cy \(k.cy) (from \(info.intrinsicsSource))",
      String(format: "frames: %d over %.3f s", frames, duration),
      "depth: \(depthFrames) frames"
        + (depthPixels > 0
          ? String(format: ", %.1f%% valid pixels", 100 * Double(validDepth) / Double(depthPixels)) : ""),
      "imu: \(imuSamples) samples",
      (info.referenceKind == .arkit ? "reference (ARKit's poses): " : "ground truth: ")
        + "\(groundTruthPoses) poses",
    ]
    lines += info.notes.map { "note: " + $0 }
    if frames > 0, let first = firstTimestamp, let last = lastTimestamp {
      lines.append(String(format: "time: %.6f to %.6f", first, last))
    }
    return lines.joined(separator: "\n")
  }
}
