import Foundation

/// Progress of long work on standard error, with its rate and the estimated time left: a bar redrawn
/// in place (at most 10 times a second) when stderr is a terminal, otherwise a plain line at every
/// tenth of the work (`replay: 61/601 frames, 42.1 frames/s, ETA 13 s`) and one at the end. It only
/// shows how far the work is; results never depend on it. The rate is the mean since the bar was
/// made, on the monotonic clock.
public final class ProgressBar {
  private let label: String
  private let total: Int
  private let unit: String
  private let isTerminal: Bool
  private let output: (String) -> Void
  private let clock = ContinuousClock()
  private let start: ContinuousClock.Instant
  private var lastDrawn = -1
  private var lastDrawTime: ContinuousClock.Instant?
  private var drewBar = false

  /// A bar for `total` steps of `unit` (a plural noun), named `label`; `isTerminal` and `output`
  /// (default: whether stderr is a terminal, and stderr) are for tests.
  public init(
    label: String, total: Int, unit: String = "frames", isTerminal: Bool? = nil,
    output: ((String) -> Void)? = nil
  ) {
    self.label = label
    self.total = max(total, 1)
    self.unit = unit
    self.isTerminal = isTerminal ?? (isatty(STDERR_FILENO) != 0)
    self.output = output ?? { FileHandle.standardError.write(Data($0.utf8)) }
    start = clock.now
  }

  /// Shows that `done` steps of the total are done.
  public func update(_ done: Int) {
    let percent = min(100, done * 100 / total)
    let now = clock.now
    let elapsed = (now - start).seconds
    let rate = elapsed > 0 ? Double(done) / elapsed : nil
    let remaining = rate.map { $0 > 0 ? Double(max(total - done, 0)) / $0 : .infinity }
    if isTerminal {
      if done < total, let last = lastDrawTime, (now - last).seconds < 0.1 { return }
      lastDrawTime = now
      let width = 24
      let filled = width * percent / 100
      let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
      var line = "\r\u{1B}[K\(label) [\(bar)] \(done)/\(total) \(unit)"
      if let rate { line += "  " + Self.rate(rate, unit) }
      if let remaining, done < total { line += "  ETA " + Self.duration(remaining) }
      output(line)
      drewBar = true
    } else if percent / 10 != lastDrawn / 10 {
      var line = "\(label): \(done)/\(total) \(unit)"
      if let rate { line += ", " + Self.rate(rate, unit) }
      if done >= total {
        line += ", in " + Self.duration(elapsed)
      } else if let remaining {
        line += ", ETA " + Self.duration(remaining)
      }
      output(line + "\n")
    }
    lastDrawn = percent
  }

  /// Ends the bar (a newline on a terminal).
  public func finish() {
    if isTerminal && drewBar { output("\n") }
  }

  /// `42.1 frames/s` (three significant digits, at least one decimal below 100).
  static func rate(_ rate: Double, _ unit: String) -> String {
    (rate >= 100 ? String(format: "%.0f", rate) : String(format: "%.1f", rate)) + " \(unit)/s"
  }

  /// `13 s`, `4:05`, `1:02:03`; `?` when unknown (not finite).
  static func duration(_ seconds: Double) -> String {
    guard seconds.isFinite else { return "?" }
    if seconds < 60 { return String(format: "%.0f s", seconds) }
    let total = Int(seconds.rounded())
    let (hours, minutes, rest) = (total / 3600, total / 60 % 60, total % 60)
    return hours > 0
      ? String(format: "%d:%02d:%02d", hours, minutes, rest) : String(format: "%d:%02d", minutes, rest)
  }
}

extension Duration {
  /// This duration in seconds.
  public var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}

/// Writes a line to standard error.
public func printError(_ message: String) {
  FileHandle.standardError.write(Data((message + "\n").utf8))
}
