internal import CVision

/// An error reported by the vision layer (CVision): a numeric code and an English message.
///
/// The codes are open-ended: compare `code` against the static members
/// (`error.code == VisionError.decode.code`) or match them in a `catch`
/// (`catch VisionError.decode`), which compares codes only. Equality (`==`)
/// compares code and message.
package struct VisionError: Error, CustomStringConvertible, Equatable, Sendable {
  /// The numeric code (one of CVision's `CV_ERR_*` values).
  package var code: Int32
  /// What went wrong, as one English sentence naming the argument or file concerned.
  package var message: String

  /// Creates an error with a code and a message.
  package init(code: Int32, message: String) {
    self.code = code
    self.message = message
  }

  /// A textual form: the message and the code.
  package var description: String { "\(message) (vision error \(code))" }

  /// An argument was out of range, non-finite, missing or inconsistent.
  package static let invalidArgument = VisionError(
    code: Int32(CV_ERR_INVALID_ARGUMENT), message: "invalid argument")
  /// Data could not be decoded (corrupt, truncated or of the wrong type).
  package static let decode = VisionError(code: Int32(CV_ERR_DECODE), message: "data could not be decoded")
  /// An output buffer was too small (handled inside the Swift wrappers; seen only for odd inputs).
  package static let bufferTooSmall = VisionError(
    code: Int32(CV_ERR_BUFFER_TOO_SMALL), message: "buffer too small")
  /// A file could not be opened, read or written.
  package static let io = VisionError(code: Int32(CV_ERR_IO), message: "input/output error")
  /// OpenCV raised an exception.
  package static let openCV = VisionError(code: Int32(CV_ERR_OPENCV), message: "OpenCV error")
  /// The data do not support an answer (for example too few inliers).
  package static let notEnoughData = VisionError(
    code: Int32(CV_ERR_NOT_ENOUGH_DATA), message: "not enough data")
  /// An unexpected failure inside CVision.
  package static let `internal` = VisionError(code: Int32(CV_ERR_INTERNAL), message: "internal error")

  /// Matches an error against a code in a `catch` clause or `switch` (`catch VisionError.decode`):
  /// true when `value` is a `VisionError` with the pattern's code, whatever its message.
  package static func ~= (pattern: VisionError, value: any Error) -> Bool {
    (value as? VisionError)?.code == pattern.code
  }

  /// True when this error has the same code as `other` (messages may differ).
  package func hasCode(of other: VisionError) -> Bool { code == other.code }
}

extension VisionError {
  /// The error a failed CVision call reported.
  init(_ status: cv_status) {
    var copy = status
    let message = withUnsafeBytes(of: &copy.message) { raw in
      String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
    }
    self.init(code: status.code, message: message.isEmpty ? "CVision error \(status.code)" : message)
  }

  /// An invalid-argument error with a message.
  static func invalidArgument(_ message: String) -> VisionError {
    VisionError(code: Int32(CV_ERR_INVALID_ARGUMENT), message: message)
  }

  /// Throws the status of a CVision call unless `code` is `CV_OK`.
  static func check(_ code: Int32, _ status: cv_status) throws(VisionError) {
    if code != Int32(CV_OK) {
      var status = status
      if status.code == Int32(CV_OK) { status.code = code }
      throw VisionError(status)
    }
  }

  /// `value` as an `Int32`, or an invalid-argument error naming `name`.
  static func int32(_ value: Int, _ name: String) throws(VisionError) -> Int32 {
    guard let result = Int32(exactly: value) else {
      throw .invalidArgument("\(name) (\(value)) does not fit in 32 bits")
    }
    return result
  }
}

/// Process-wide settings of the vision layer.
package enum VisionRuntime {
  /// Makes the decoders' process-wide settings (environment variables OpenCV reads) now, before a
  /// second thread decodes, so that no thread changes the environment while another reads it.
  package static func prepareDecoding() { cv_image_prepare() }

  /// Makes the process's allocator keep freed memory for reuse rather than give it back to the
  /// system and fault it in again on the next frame (see `cv_keep_freed_memory`). Process-wide.
  package static func keepFreedMemory() { cv_keep_freed_memory() }

  /// Sets how many threads KLT on pyramids tracks its points on (1: the calling thread; 2: with a
  /// helper thread, each taking shares of the points in turn), process-wide; the results are the
  /// same either way.
  package static func setKLTThreadCount(_ threads: Int) {
    cv_set_klt_threads(Int32(clamping: threads))
  }

  /// Sets how many threads OpenCV may use (1 gives reproducible timings; 0 disables OpenCV's threading).
  package static func setThreadCount(_ threads: Int) {
    cv_set_num_threads(Int32(clamping: threads))
  }
}
