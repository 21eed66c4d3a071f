internal import CZip
import Foundation

/// Writes a zip archive through libzip, member by member, with flat memory: each member's bytes go
/// to a staging file beside the archive and libzip copies them in (stored, not deflated: what it
/// holds is already compressed) when ``finish()`` writes the archive. Until then the archive does
/// not exist; a writer released without `finish()` leaves nothing behind.
/// Not `Sendable`: one writer from one task at a time.
package final class ZipWriter {
  /// The archive's path.
  package let path: String
  private var handle: OpaquePointer?
  private let staging: String
  private var count = 0

  /// Prepares a new archive at `path`, which must not exist.
  /// - Throws: ``RecordingError`` naming the file when it exists or cannot be created.
  package init(path: String) throws(RecordingError) {
    self.path = path
    staging = path + ".members"
    var code: Int32 = 0
    guard let handle = zip_open(path, ZIP_CREATE | ZIP_EXCL, &code) else {
      var error = zip_error_t()
      zip_error_init_with_code(&error, code)
      defer { zip_error_fini(&error) }
      throw RecordingError(
        file: path, "cannot be created as a zip archive (\(String(cString: zip_error_strerror(&error))))")
    }
    self.handle = handle
    do {
      try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: false)
    } catch {
      zip_discard(handle)
      self.handle = nil
      throw RecordingError(file: staging, "cannot be created: \(error.localizedDescription)")
    }
  }

  deinit {
    if let handle { zip_discard(handle) }
    try? FileManager.default.removeItem(atPath: staging)
  }

  /// Adds member `name` holding `bytes`.
  /// - Throws: ``RecordingError`` naming `archive:member`.
  package func add(_ name: String, bytes: [UInt8]) throws(RecordingError) {
    try add(name) { (file) throws(RecordingError) in
      guard FileManager.default.createFile(atPath: file, contents: Data(bytes)) else {
        throw RecordingError(file: file, "cannot be written")
      }
    }
  }

  /// Adds member `name` holding the file that `write` writes at the staging path it is given.
  /// - Throws: what `write` throws, or ``RecordingError`` naming `archive:member`.
  package func add(_ name: String, writing write: (String) throws(RecordingError) -> Void)
    throws(RecordingError)
  {
    guard let handle else { throw RecordingError(file: path, "the archive is already written") }
    let file = staging + "/\(count)" + (name.contains(".") ? "." + name.split(separator: ".").last! : "")
    count += 1
    try write(file)
    guard let source = zip_source_file(handle, file, 0, -1) else {
      throw RecordingError(file: path + ":" + name, "cannot be added: \(archiveError())")
    }
    let index = zip_file_add(handle, name, source, zip_flags_t(ZIP_FL_ENC_UTF_8))
    guard index >= 0 else {
      zip_source_free(source)
      throw RecordingError(file: path + ":" + name, "cannot be added: \(archiveError())")
    }
    guard zip_set_file_compression(handle, zip_uint64_t(index), ZIP_CM_STORE, 0) == 0 else {
      throw RecordingError(file: path + ":" + name, "cannot be stored: \(archiveError())")
    }
  }

  /// Writes the archive and removes the staging files.
  /// - Throws: ``RecordingError`` naming the archive.
  package func finish() throws(RecordingError) {
    guard let handle else { return }
    defer { try? FileManager.default.removeItem(atPath: staging) }
    guard zip_close(handle) == 0 else {
      let reason = archiveError()
      zip_discard(handle)
      self.handle = nil
      try? FileManager.default.removeItem(atPath: path)
      throw RecordingError(file: path, "cannot be written: \(reason)")
    }
    self.handle = nil
  }

  private func archiveError() -> String {
    handle.map { String(cString: zip_strerror($0)).lowercased() } ?? "closed"
  }
}
