/// Streams of timestamped records read from text files, consumed in time order
/// (IMU samples, ground-truth poses). Memory stays bounded by a few records.

/// IMU samples from a text file, handed out frame by frame.
final class IMUStream {
  private let reader: LineReader
  private let parse: (LineReader, [Substring]) throws(RecordingError) -> IMUSample?
  private var pending: IMUSample?
  private var lastTimestamp = -Double.infinity

  /// - Parameter parse: turns one record's fields into a sample (throwing with the reader's line),
  ///   or nil for a record to skip (a header line).
  init(
    path: String, parse: @escaping (LineReader, [Substring]) throws(RecordingError) -> IMUSample?
  ) throws(RecordingError) {
    reader = try LineReader(path: path)
    self.parse = parse
  }

  /// Returns the samples with timestamps up to and including `time`, not returned before.
  func samples(through time: Double) throws(RecordingError) -> [IMUSample] {
    var out: [IMUSample] = []
    while true {
      if pending == nil {
        guard let sample = try readSample() else { break }
        pending = sample
      }
      guard let sample = pending, sample.timestamp <= time else { break }
      out.append(sample)
      pending = nil
    }
    return out
  }

  private func readSample() throws(RecordingError) -> IMUSample? {
    var parsed: IMUSample?
    while parsed == nil {
      guard let fields = try reader.nextRecord() else { return nil }
      parsed = try parse(reader, fields)
    }
    let sample = parsed!
    guard sample.timestamp > lastTimestamp else {
      throw reader.error("timestamp \(sample.timestamp) is not after the previous sample's \(lastTimestamp)")
    }
    lastTimestamp = sample.timestamp
    return sample
  }

  /// Reads and checks the rest of the file (after the last frame), so that a damaged line anywhere
  /// fails the run; memory stays flat.
  func finish() throws(RecordingError) {
    pending = nil
    while try readSample() != nil {}
  }
}

/// A TUM-format trajectory (`timestamp tx ty tz qx qy qz qw`), sampled at frame times by
/// interpolation (linear in translation, spherical in rotation) between the two poses that
/// bracket the time, when they are at most `maxGap` seconds apart.
final class TrajectoryStream {
  private let reader: LineReader
  private var before: (time: Double, pose: RigidTransform)?
  private var after: (time: Double, pose: RigidTransform)?
  private var finished = false
  private let maxGap: Double

  init(path: String, maxGap: Double) throws(RecordingError) {
    reader = try LineReader(path: path)
    self.maxGap = maxGap
  }

  private func readPose() throws(RecordingError) -> (time: Double, pose: RigidTransform)? {
    guard let fields = try reader.nextRecord() else { return nil }
    guard fields.count >= 8 else {
      throw reader.error("expected 'timestamp tx ty tz qx qy qz qw', got \(fields.count) fields")
    }
    var values: [Double] = []
    values.append(try reader.timestamp(fields[0]))
    for (field, name) in zip(fields[1..<8], ["tx", "ty", "tz", "qx", "qy", "qz", "qw"]) {
      values.append(try reader.number(field, name, within: LineReader.maxCoordinate))
    }
    let norm = (values[4...7].map { $0 * $0 }.reduce(0, +)).squareRoot()
    guard abs(norm - 1) < 1e-3 else { throw reader.error("quaternion has length \(norm), expected 1") }
    if let last = after ?? before, values[0] <= last.time {
      throw reader.error("timestamp \(values[0]) is not after the previous pose's \(last.time)")
    }
    guard let pose = RigidTransform(tumValues: values[1...7]) else {
      throw reader.error("not a valid pose")
    }
    return (values[0], pose)
  }

  /// Reads and checks the rest of the file (after the last frame), so that a damaged line anywhere
  /// fails the run; memory stays flat.
  func finish() throws(RecordingError) {
    while !finished {
      if let next = try readPose() {
        before = after
        after = next
      } else {
        finished = true
      }
    }
  }

  /// The interpolated pose at `time`, or nil when the trajectory does not cover it.
  /// Times must be asked in increasing order.
  func pose(at time: Double) throws(RecordingError) -> RigidTransform? {
    while !finished, after == nil || after!.time < time {
      if let next = try readPose() {
        before = after
        after = next
      } else {
        finished = true
      }
    }
    let tolerance = 1e-6
    if let after, abs(after.time - time) <= tolerance { return after.pose }
    if let before, abs(before.time - time) <= tolerance { return before.pose }
    guard let before, let after, before.time <= time, time <= after.time, after.time - before.time <= maxGap
    else { return nil }
    let s = (time - before.time) / (after.time - before.time)
    return RigidTransform(
      rotation: simd_slerp(before.pose.rotation, after.pose.rotation, s),
      translation: before.pose.translation + (after.pose.translation - before.pose.translation) * s)
  }
}
