import Foundation

// Reading and writing trajectory files. The parsing itself is in TrajectoryFormats.swift, as pure
// functions of text.
extension Trajectory {
  /// The trajectory in the file at `url`, of the given format; for `.kitti`, timestamps come from the
  /// times file at `timesURL` when given (one number per line). Error messages name the file by its
  /// path.
  ///
  /// - Throws: `EvaluationError` `.fileAccess` when a file is not a regular file (a FIFO, a device
  ///   or a directory is refused before it is opened), is over 256 MiB, or is not UTF-8 text; and the
  ///   format's parsing errors (see `init(tumText:source:)`, `init(kittiText:timestamps:source:)`,
  ///   `init(eurocText:source:)`).
  public init(contentsOf url: URL, format: TrajectoryFormat, timesURL: URL? = nil) throws {
    var timestamps: [Double]?
    if let timesURL {
      timestamps = try Trajectory.parseTimestamps(readText(timesURL), source: timesURL.path)
    }
    try self.init(text: readText(url), format: format, timestamps: timestamps, source: url.path)
  }

  /// Writes the trajectory to `url` in TUM format (see `tumText`), atomically: a reader never sees a
  /// half-written file.
  ///
  /// - Throws: `EvaluationError.fileAccess` naming the file when it cannot be written.
  public func writeTUM(to url: URL) throws {
    try writeText(tumText, to: url)
  }

  /// Writes the trajectory to `url` in KITTI format (see `kittiText`), atomically; with `timesURL`, also
  /// the timestamps, one per line, to that file.
  ///
  /// - Throws: `EvaluationError.fileAccess` naming the file when it cannot be written.
  public func writeKITTI(to url: URL, timesURL: URL? = nil) throws {
    try writeText(kittiText, to: url)
    if let timesURL {
      try writeText(timestamps.map { "\($0)\n" }.joined(), to: timesURL)
    }
  }
}

/// The UTF-8 text of the file at `url`, read under the same rules as every input of the package
/// (ARSimMath's `RegularFile`: a regular file of at most 256 MiB, not UTF-16 or binary).
private func readText(_ url: URL) throws(EvaluationError) -> String {
  do {
    return try RegularFile.text(url.path)
  } catch {
    throw EvaluationError(.fileAccess, file: error.path, error.message)
  }
}

/// Writes `text` as UTF-8 to `url`, atomically.
private func writeText(_ text: String, to url: URL) throws {
  do {
    try Data(text.utf8).write(to: url, options: .atomic)
  } catch {
    throw EvaluationError(
      .fileAccess, file: url.path, "cannot write the file (\(error.localizedDescription))")
  }
}
