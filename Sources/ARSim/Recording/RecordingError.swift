import ARSimMath

/// A problem with a recording's files: which file, which line if any, and what is wrong.
///
/// The description is one line, `FILE:LINE: message` (or `FILE: message`), so that the
/// command-line tool can print it as is.
public struct RecordingError: Error, CustomStringConvertible, Equatable, Sendable {
  /// The file the problem is in, as given or as found in the recording.
  public var file: String
  /// The 1-based line number in `file`, when the problem is on a line of a text file.
  public var line: Int?
  /// What is wrong, in plain words.
  public var message: String

  /// Creates an error naming a file, optionally a line, and the problem. Control characters in the
  /// file or the message (a name or key read from a damaged file can hold a line break) are escaped,
  /// so the error stays one line.
  public init(file: String, line: Int? = nil, _ message: String) {
    self.file = file.escapingControlCharacters
    self.line = line
    self.message = message.escapingControlCharacters
  }

  public var description: String {
    if let line { return "\(file):\(line): \(message)" }
    return "\(file): \(message)"
  }
}
