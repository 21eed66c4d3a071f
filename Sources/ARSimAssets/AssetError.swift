import ARSimMath
import Foundation

/// A model asset that cannot be read: the file (an archive member as `archive.usdz[member]`) and the
/// problem, in one line, as `RecordingError` reports a bad recording.
///
/// Values, not an enum of cases, so that new problems can be reported without breaking callers; compare
/// ``problem`` texts in tests only.
public struct AssetError: Error, LocalizedError, CustomStringConvertible, Sendable, Equatable {
  /// The file the problem is in, as given by the caller (a path, a URL's path, or `archive[member]`).
  public var file: String
  /// What is wrong, starting lower case, with the byte offset, line or key where one is known.
  public var problem: String

  /// An error for `file` with `problem`. Control characters in either (names read from a damaged
  /// file can hold line breaks) are escaped, so the error stays one line.
  public init(file: String, problem: String) {
    self.file = file.escapingControlCharacters
    self.problem = problem.escapingControlCharacters
  }

  /// `file: problem`.
  public var description: String { "\(file): \(problem)" }

  /// `file: problem`, for `localizedDescription`.
  public var errorDescription: String? { description }
}

/// A reading failure below the file level: a problem without a file name, named by the caller that
/// knows the file (``AssetError`` is made from it). The byte reader's own (``ByteReader`` throws it).
typealias FormatError = ByteFormatError

extension FormatError {
  /// The public error for `file`.
  func `in`(_ file: String) -> AssetError { AssetError(file: file, problem: problem) }
}
