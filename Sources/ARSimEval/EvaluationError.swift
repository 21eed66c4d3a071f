/// A problem found while reading or evaluating trajectories: what kind (`code`), where (file and line,
/// when the problem is in a text file) and what is wrong.
///
/// The description is one line, `FILE:LINE: message`, `FILE: message` or just `message`, so that a
/// command-line tool can print it as is.
public struct EvaluationError: Error, CustomStringConvertible, Hashable, Sendable {
  /// The kind of problem. New kinds may be added; compare with the static members instead of
  /// switching exhaustively.
  public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// A short lowercase name of the kind of problem.
    public var rawValue: String

    /// A code with the given name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A line of a trajectory or times file that is not in the expected format.
    public static let malformedInput = Code(rawValue: "malformed input")
    /// A file that could not be read or written.
    public static let fileAccess = Code(rawValue: "file access")
    /// Two trajectories (or a trajectory and its times) whose lengths or timestamps do not fit together.
    public static let mismatchedTrajectories = Code(rawValue: "mismatched trajectories")
    /// A trajectory with too few poses (or pose pairs) for the requested computation.
    public static let tooFewPoses = Code(rawValue: "too few poses")
    /// Positions without spread, for which a scale cannot be estimated.
    public static let degenerateGeometry = Code(rawValue: "degenerate geometry")
    /// An option outside its documented range.
    public static let invalidOption = Code(rawValue: "invalid option")

    /// The name, as `rawValue`.
    public var description: String { rawValue }
  }

  /// The kind of problem.
  public var code: Code
  /// The file the problem is in (a path or a caller-chosen name), when it comes from a file.
  public var file: String?
  /// The 1-based line number in `file`, when the problem is on one line of a text file.
  public var line: Int?
  /// What is wrong, in plain words.
  public var message: String

  /// An error of kind `code`, optionally naming a file and a 1-based line, with a plain message.
  public init(_ code: Code, file: String? = nil, line: Int? = nil, _ message: String) {
    self.code = code
    self.file = file
    self.line = line
    self.message = message
  }

  /// `FILE:LINE: message`, `FILE: message` or `message`.
  public var description: String {
    switch (file, line) {
    case (let file?, let line?): return "\(file):\(line): \(message)"
    case (let file?, nil): return "\(file): \(message)"
    default: return message
    }
  }
}
