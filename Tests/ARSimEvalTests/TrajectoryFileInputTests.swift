import ARSimEval
import Foundation
import Testing

/// `Trajectory(contentsOf:)` reads under the package's input rules: only regular files (a FIFO or
/// a device would hang or fill memory), UTF-8 text, each refusal a one-line error naming the file.
@Suite struct TrajectoryFileInputTests {
  func failure(_ path: String) -> EvaluationError? {
    do {
      _ = try Trajectory(contentsOf: URL(fileURLWithPath: path), format: .tum)
      return nil
    } catch {
      return error as? EvaluationError
    }
  }

  @Test func specialFilesAndBinaryDataAreRefused() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "eval-input-\(UUID().uuidString)"
    )
    .path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let fifo = folder + "/fifo.txt"
    #expect(mkfifo(fifo, 0o644) == 0)
    let utf16 = folder + "/utf16.txt"
    try Data([0xFF, 0xFE] + Array("1 0 0 0 0 0 0 1\n".utf8).flatMap { [$0, 0] }).write(
      to: URL(fileURLWithPath: utf16))
    let loop = folder + "/loop.txt"
    #expect(symlink(loop, loop) == 0)
    for (path, problem) in [
      (fifo, "is a FIFO (named pipe), expected a regular file"),
      ("/dev/zero", "is a device, expected a regular file"),
      (folder, "is a directory, expected a regular file"),
      (utf16, "is UTF-16 text; expected UTF-8 (convert it, e.g. with iconv)"),
      (loop, "is a symbolic link loop"),
    ] {
      let error = try #require(failure(path), "\(path) was read")
      #expect(error.code == .fileAccess)
      #expect(error.description == "\(path): \(problem)")
    }
  }
}
