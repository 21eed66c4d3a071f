import ARSim
import Foundation
import Synchronization

/// Counts what a replay saw; its report is deterministic for a given recording.
public struct ReplaySummary: Sendable {
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
  /// Reference poses withheld as written while ARKit was initialising (``ARKitInitialisingPoses``).
  public var initialisingPoses = 0

  public init() {}

  /// Counts `frame`.
  public mutating func add(_ frame: RecordedFrame) {
    frames += 1
    firstTimestamp = firstTimestamp ?? frame.timestamp
    lastTimestamp = frame.timestamp
    if let depth = frame.depth {
      depthFrames += 1
      depthPixels += depth.metres.count
      validDepth += Self.finiteCount(depth.metres)
    }
    imuSamples += frame.imu.count
    if frame.groundTruth != nil { groundTruthPoses += 1 }
    if frame.referenceInitialising { initialisingPoses += 1 }
  }

  /// The number of finite values: those whose exponent bits are not all ones (IEEE 754), tested on
  /// the bit patterns, eight at a time in SIMD lanes (each lane counts how many of its values are
  /// finite), the tail one by one. A plain loop does not vectorise: it tests and branches on every
  /// pixel of every depth map.
  static func finiteCount(_ values: [Float]) -> Int {
    values.withUnsafeBytes { raw in
      let exponent: UInt32 = 0x7F80_0000
      let lanes = SIMD8<UInt32>(repeating: exponent)
      let chunks = raw.count / MemoryLayout<SIMD8<UInt32>>.size
      var counts = SIMD8<UInt32>()
      for k in 0..<chunks {
        let offset = k * MemoryLayout<SIMD8<UInt32>>.size
        let bits = raw.loadUnaligned(fromByteOffset: offset, as: SIMD8<UInt32>.self)
        counts &+= SIMD8<UInt32>(repeating: 1).replacing(with: 0, where: bits & lanes .== lanes)
      }
      var count = Int(counts.wrappedSum())
      for i in chunks * 8..<values.count {
        let pattern = raw.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self)
        if pattern & exponent != exponent { count += 1 }
      }
      return count
    }
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
        + "\(groundTruthPoses) poses"
        + (initialisingPoses > 0
          ? " (\(initialisingPoses) more withheld: written while ARKit was initialising, position exactly 0)"
          : ""),
    ]
    lines += info.notes.map { "note: " + $0 }
    if frames > 0, let first = firstTimestamp, let last = lastTimestamp {
      lines.append(String(format: "time: %.6f to %.6f", first, last))
    }
    return lines.joined(separator: "\n")
  }
}

/// A ``FrameSource`` that counts every frame it passes on into a ``ReplaySummary``, on the thread
/// that reads it: with decoding ahead (``PrefetchingFrameSource``), the reading thread, so that
/// counting a frame's valid depth pixels overlaps with tracking instead of adding to it.
struct SummarizingFrameSource: FrameSource {
  /// The counts, shared with the replay that reads them once the recording has been read.
  final class Counts: Sendable {
    let summary = Mutex(ReplaySummary())
  }

  private var base: any FrameSource
  let counts = Counts()
  var info: RecordingInfo { base.info }

  init(_ base: any FrameSource) { self.base = base }

  mutating func nextFrame() throws(RecordingError) -> RecordedFrame? {
    guard let frame = try base.nextFrame() else { return nil }
    counts.summary.withLock { $0.add(frame) }
    return frame
  }
}
