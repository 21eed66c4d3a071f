/// The text formats of trajectory files that ARSimEval reads and writes.
public enum TrajectoryFormat: String, Sendable, Hashable, Codable, CaseIterable {
  /// TUM RGB-D: one pose per line, `timestamp tx ty tz qx qy qz qw` (seconds, metres, unit quaternion
  /// with the real part last), `#` comments.
  case tum
  /// KITTI odometry: one pose per line, the 12 numbers of the 3×4 matrix `[R | t]` row-major, no
  /// timestamps (those come from a separate times file, or are the line indices). A 13-column variant
  /// with a leading timestamp is accepted too.
  case kitti
  /// EuRoC MAV ground truth CSV (`state_groundtruth_estimate0/data.csv`): `timestamp [ns], p_x, p_y,
  /// p_z, q_w, q_x, q_y, q_z, ...` (further columns ignored), `#` header.
  case euroc
}

// Parsing and formatting are pure functions of text; reading and writing files is in
// TrajectoryFiles.swift.
extension Trajectory {
  /// The trajectory in TUM format text: `timestamp tx ty tz qx qy qz qw` per line (whitespace or
  /// comma separated), blank lines and lines starting with `#` skipped. Quaternions are normalised.
  ///
  /// - Parameter source: the file name used in error messages.
  /// - Throws: `EvaluationError.malformedInput` naming `source` and the line, for a line without exactly
  ///   eight finite numbers or with a zero quaternion.
  public init(tumText text: String, source: String = "TUM text") throws {
    var timestamps: [Double] = []
    var poses: [RigidTransform] = []
    try forEachDataLine(of: text, source: source) { values, line in
      guard values.count == 8 else {
        throw EvaluationError(
          .malformedInput, file: source, line: line,
          "expected 8 numbers (timestamp tx ty tz qx qy qz qw), found \(values.count)")
      }
      guard let pose = RigidTransform(tumValues: values[1...]) else {
        throw EvaluationError(.malformedInput, file: source, line: line, "the quaternion is zero")
      }
      timestamps.append(values[0])
      poses.append(pose)
    }
    self.init(timestamps: timestamps, poses: poses)
  }

  /// The trajectory in KITTI format text: 12 numbers per line, the 3×4 pose matrix `[R | t]`
  /// row-major (`worldFromCamera`: the camera's position in the world is `t`); or 13 numbers per line,
  /// a timestamp followed by the 12. Blank lines and `#` lines are skipped. The rotation block is
  /// replaced by the nearest rotation (KITTI files hold rounded matrices).
  ///
  /// Timestamps, in order of preference: `timestamps` (for example from a KITTI `times.txt`, see
  /// `parseTimestamps`), the leading column of 13-column lines, the line index `0, 1, 2, ...`.
  ///
  /// - Parameter source: the file name used in error messages.
  /// - Throws: `EvaluationError` `.malformedInput` naming `source` and the line, for a line without
  ///   12 or 13 finite numbers, a line whose count differs from the first line's, or a rotation block
  ///   that is not close to a rotation; `.mismatchedTrajectories` when `timestamps` has a different
  ///   count than the poses.
  public init(kittiText text: String, timestamps: [Double]? = nil, source: String = "KITTI text") throws {
    var stamps: [Double] = []
    var poses: [RigidTransform] = []
    var columns: Int?
    try forEachDataLine(of: text, source: source) { values, line in
      guard values.count == 12 || values.count == 13 else {
        throw EvaluationError(
          .malformedInput, file: source, line: line,
          "expected 12 numbers (a 3x4 pose matrix, row-major), found \(values.count)")
      }
      if let columns, columns != values.count {
        throw EvaluationError(
          .malformedInput, file: source, line: line,
          "found \(values.count) numbers where the previous lines have \(columns)")
      }
      columns = values.count
      let m = Array(values.suffix(12))
      let rows = [SIMD3(m[0], m[1], m[2]), SIMD3(m[4], m[5], m[6]), SIMD3(m[8], m[9], m[10])]
      let block = simd_double3x3(rows: rows)
      let gram = block.transpose * block
      let identity = simd_double3x3.identity
      guard simd_almost_equal_elements(gram, identity, 1e-3), block.determinant > 0 else {
        throw EvaluationError(
          .malformedInput, file: source, line: line,
          "the 3x3 block is not a rotation (determinant \(block.determinant))")
      }
      let matrix = simd_double4x4(
        SIMD4(block.columns.0, 0), SIMD4(block.columns.1, 0), SIMD4(block.columns.2, 0),
        SIMD4(m[3], m[7], m[11], 1))
      poses.append(RigidTransform(matrix: matrix))
      if values.count == 13 { stamps.append(values[0]) }
    }
    if let timestamps {
      guard timestamps.count == poses.count else {
        throw EvaluationError(
          .mismatchedTrajectories, file: source,
          "\(poses.count) poses but \(timestamps.count) timestamps")
      }
      self.init(timestamps: timestamps, poses: poses)
    } else if columns == 13 {
      self.init(timestamps: stamps, poses: poses)
    } else {
      self.init(poses: poses)
    }
  }

  /// The trajectory in EuRoC ground-truth CSV text: `timestamp, p_x, p_y, p_z, q_w, q_x, q_y, q_z`
  /// followed by any further columns; the timestamp in nanoseconds becomes seconds (`ns / 1e9`, in
  /// double precision as evo does), the position is in metres, the quaternion (real part first) is
  /// normalised. Blank lines and lines starting with `#` (the header) are skipped. The pose is EuRoC's
  /// `worldFromBody` (the IMU body frame, not a camera).
  ///
  /// - Parameter source: the file name used in error messages.
  /// - Throws: `EvaluationError.malformedInput` naming `source` and the line, for a line with fewer than
  ///   eight numbers, a non-number, or a zero quaternion.
  public init(eurocText text: String, source: String = "EuRoC text") throws {
    var timestamps: [Double] = []
    var poses: [RigidTransform] = []
    try forEachDataLine(of: text, source: source) { values, line in
      guard values.count >= 8 else {
        throw EvaluationError(
          .malformedInput, file: source, line: line,
          "expected at least 8 numbers (timestamp[ns], p_x, p_y, p_z, q_w, q_x, q_y, q_z), found"
            + " \(values.count)")
      }
      let quaternion = SIMD4(values[5], values[6], values[7], values[4])
      guard simd_length_squared(quaternion) > 0 else {
        throw EvaluationError(.malformedInput, file: source, line: line, "the quaternion is zero")
      }
      timestamps.append(values[0] / 1e9)
      poses.append(
        RigidTransform(
          rotation: simd_quatd(vector: quaternion), translation: SIMD3(values[1], values[2], values[3])))
    }
    self.init(timestamps: timestamps, poses: poses)
  }

  /// The trajectory in `text` of the given format; see the format-specific initialisers. `timestamps`
  /// is used by `.kitti` only.
  public init(
    text: String, format: TrajectoryFormat, timestamps: [Double]? = nil, source: String = "trajectory text"
  ) throws {
    switch format {
    case .tum: try self.init(tumText: text, source: source)
    case .kitti: try self.init(kittiText: text, timestamps: timestamps, source: source)
    case .euroc: try self.init(eurocText: text, source: source)
    }
  }

  /// The numbers of a times file (KITTI `times.txt`): one timestamp in seconds per line, blank lines and
  /// `#` lines skipped.
  ///
  /// - Throws: `EvaluationError.malformedInput` naming `source` and the line, for a line that is not
  ///   exactly one finite number.
  public static func parseTimestamps(_ text: String, source: String = "times text") throws -> [Double] {
    var result: [Double] = []
    try forEachDataLine(of: text, source: source) { values, line in
      guard values.count == 1 else {
        throw EvaluationError(
          .malformedInput, file: source, line: line, "expected one timestamp, found \(values.count) numbers")
      }
      result.append(values[0])
    }
    return result
  }

  /// The trajectory as TUM format text: a `# timestamp tx ty tz qx qy qz qw` header, then one line per
  /// pose, numbers in Swift's shortest round-trip form (reading the text back gives the same values).
  public var tumText: String {
    var text = "# timestamp tx ty tz qx qy qz qw\n"
    for k in poses.indices {
      let values = [timestamps[k]] + poses[k].tumValues
      text += values.map { "\($0)" }.joined(separator: " ") + "\n"
    }
    return text
  }

  /// The trajectory as KITTI format text: the 12 numbers of each pose's 3×4 matrix `[R | t]`,
  /// row-major, one pose per line, no timestamps (write them separately, one per line, for a times
  /// file).
  public var kittiText: String {
    var text = ""
    for pose in poses {
      let r = simd_double3x3(pose.rotation)
      let t = pose.translation
      let values = [
        r[0, 0], r[1, 0], r[2, 0], t.x, r[0, 1], r[1, 1], r[2, 1], t.y, r[0, 2], r[1, 2], r[2, 2], t.z,
      ]
      text += values.map { "\($0)" }.joined(separator: " ") + "\n"
    }
    return text
  }
}

/// Calls `body` with the numbers of each line of `text` that is not blank and does not start with `#`,
/// and the line's 1-based number. Numbers are separated by spaces, tabs or commas.
///
/// - Throws: `EvaluationError.malformedInput` for a field that is not a finite number, and whatever
///   `body` throws.
private func forEachDataLine(
  of text: String, source: String, _ body: ([Double], Int) throws -> Void
) throws {
  var lineNumber = 0
  var values: [Double] = []
  for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
    lineNumber += 1
    let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," || $0 == "\r" })
    guard let first = fields.first, !first.hasPrefix("#") else { continue }
    values.removeAll(keepingCapacity: true)
    for field in fields {
      guard let value = Double(field), value.isFinite else {
        throw EvaluationError(
          .malformedInput, file: source, line: lineNumber, "'\(field)' is not a finite number")
      }
      values.append(value)
    }
    try body(values, lineNumber)
  }
}
