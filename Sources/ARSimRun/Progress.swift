import Foundation

/// A progress bar on standard error: redrawn in place on a terminal, a line every 10% otherwise.
/// It only shows how far the work is; results never depend on it.
public final class ProgressBar {
  private let label: String
  private let total: Int
  private let isTerminal = isatty(STDERR_FILENO) != 0
  private var lastDrawn = -1
  private var lastDrawTime = Date.distantPast

  /// A bar for `total` steps, named `label`.
  public init(label: String, total: Int) {
    self.label = label
    self.total = max(total, 1)
  }

  /// Shows that `done` steps of the total are done.
  public func update(_ done: Int) {
    let percent = min(100, done * 100 / total)
    if isTerminal {
      let now = Date()
      guard done == total || now.timeIntervalSince(lastDrawTime) > 0.1 else { return }
      lastDrawTime = now
      let width = 30
      let filled = width * percent / 100
      let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
      FileHandle.standardError.write(Data("\r\(label) [\(bar)] \(done)/\(total)".utf8))
    } else if percent / 10 != lastDrawn / 10 {
      FileHandle.standardError.write(Data("\(label): \(done)/\(total) frames\n".utf8))
    }
    lastDrawn = percent
  }

  /// Ends the bar (a newline on a terminal).
  public func finish() {
    if isTerminal { FileHandle.standardError.write(Data("\n".utf8)) }
  }
}

/// Writes a line to standard error.
public func printError(_ message: String) {
  FileHandle.standardError.write(Data((message + "\n").utf8))
}
