internal import CZip

/// A zip archive opened for reading through libzip (Debian's `libzip-dev`), with consistency
/// checks on: a truncated or damaged archive fails to open or fails its CRC when a member is read.
/// Not `Sendable`: one reader from one task at a time.
final class ZipArchive {
  /// The archive's path, for errors.
  let path: String
  private let handle: OpaquePointer

  /// Opens `path`.
  /// - Throws: ``RecordingError`` naming the file: missing, not a zip, truncated or inconsistent.
  init(path: String) throws(RecordingError) {
    self.path = path
    var code: Int32 = 0
    guard let handle = zip_open(path, ZIP_RDONLY | ZIP_CHECKCONS, &code) else {
      var error = zip_error_t()
      zip_error_init_with_code(&error, code)
      defer { zip_error_fini(&error) }
      let reason = String(cString: zip_error_strerror(&error))
      throw RecordingError(file: path, "not a readable zip archive (\(reason.lowercased()); truncated?)")
    }
    self.handle = handle
  }

  deinit { zip_discard(handle) }

  /// Whether the archive holds a member called `name`.
  func contains(_ name: String) -> Bool { zip_name_locate(handle, name, 0) >= 0 }

  /// The number of members (directories included).
  var memberCount: Int { max(0, Int(zip_get_num_entries(handle, 0))) }

  /// The bytes of member `name`, or nil when there is no such member.
  ///
  /// `limit` is the most bytes the member can hold given what it must contain (`what`, for the
  /// error): a member whose central directory declares more is refused before anything is
  /// inflated, and inflating stops at the declared size, so at most `limit` bytes are allocated
  /// whatever the compressed stream holds.
  /// - Throws: ``RecordingError`` naming `archive:member` when it is larger than `limit` or cannot
  ///   be read (bad CRC, damage).
  func read(_ name: String, limit: Int, _ what: String) throws(RecordingError) -> [UInt8]? {
    let index = zip_name_locate(handle, name, 0)
    guard index >= 0 else { return nil }
    var stat = zip_stat_t()
    zip_stat_init(&stat)
    guard zip_stat_index(handle, zip_uint64_t(index), 0, &stat) == 0,
      stat.valid & zip_uint64_t(ZIP_STAT_SIZE) != 0
    else { throw RecordingError(file: path + ":" + name, "cannot be examined: \(archiveError())") }
    guard stat.size <= UInt64(max(0, min(limit, Int(Int32.max)))) else {
      throw RecordingError(
        file: path + ":" + name,
        "declares \(stat.size) bytes uncompressed, more than the \(limit) that \(what) can take")
    }
    guard let file = zip_fopen_index(handle, zip_uint64_t(index), 0) else {
      throw RecordingError(file: path + ":" + name, "cannot be opened: \(archiveError())")
    }
    defer { zip_fclose(file) }
    let size = Int(stat.size)
    var failure: String?
    let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
      var done = 0
      while done < size {
        let n = zip_fread(file, buffer.baseAddress! + done, zip_uint64_t(size - done))
        if n <= 0 {
          failure = n < 0 ? String(cString: zip_file_strerror(file)) : "ends after \(done) of \(size) bytes"
          break
        }
        done += Int(n)
      }
      initialized = failure == nil ? size : 0
    }
    if let failure {
      throw RecordingError(file: path + ":" + name, "cannot be read: \(failure.lowercased())")
    }
    return bytes
  }

  private func archiveError() -> String { String(cString: zip_strerror(handle)).lowercased() }
}
