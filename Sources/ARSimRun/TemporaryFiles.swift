import Foundation

/// The temporary files of outputs being written, removed when the process ends early: on an error
/// (``removeAll()``, called by `main` before it exits) and on SIGINT, SIGTERM, SIGHUP or SIGPIPE (a
/// signal handler that unlinks the registered paths and then re-raises the signal with its default
/// action, so the exit status still says which signal ended the run). SIGKILL cannot be caught:
/// after it the `PATH.PID.partial` files stay (and never replace a finished output).
///
/// The handler is async-signal-safe: it only reads a fixed table of C strings allocated before
/// they are registered and calls `unlink`, `signal` and `raise`.
public enum TemporaryFiles {
  /// How many temporary files may be registered at once.
  static let capacity = 64
  /// The table the handler reads: C strings (from `strdup`) or nil.
  nonisolated(unsafe) private static let slots: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = {
    let table = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: capacity)
    table.initialize(repeating: nil, count: capacity)
    return table
  }()
  nonisolated(unsafe) private static var installed = false

  /// Registers `path` for removal if the process ends early; returns its slot for ``unregister(_:)``.
  /// Without a free slot the file is still written, just not removed on a signal.
  static func register(_ path: String) -> Int? {
    installHandlers()
    for i in 0..<capacity where slots[i] == nil {
      slots[i] = strdup(path)
      return i
    }
    return nil
  }

  /// Forgets a registered path (after it was renamed into place or removed).
  static func unregister(_ slot: Int?) {
    guard let slot, let pointer = slots[slot] else { return }
    slots[slot] = nil
    free(pointer)
  }

  /// Removes every registered file (the error path of `main`).
  public static func removeAll() {
    for i in 0..<capacity {
      if let pointer = slots[i] {
        unlink(pointer)
        unregister(i)
      }
    }
  }

  private static func installHandlers() {
    guard !installed else { return }
    installed = true
    _ = slots
    // Deliverable even when the parent blocked them (a spawned child inherits the signal mask).
    var unblock = sigset_t()
    sigemptyset(&unblock)
    for signalNumber in [SIGINT, SIGTERM, SIGHUP, SIGPIPE] { sigaddset(&unblock, signalNumber) }
    sigprocmask(SIG_UNBLOCK, &unblock, nil)
    for signalNumber in [SIGINT, SIGTERM, SIGHUP, SIGPIPE] {
      let previous = signal(signalNumber) { received in
        let table = TemporaryFiles.slots
        for i in 0..<TemporaryFiles.capacity {
          if let pointer = table[i] { unlink(pointer) }
        }
        signal(received, SIG_DFL)
        raise(received)
      }
      // A signal the parent chose to ignore (nohup, a background job) stays ignored.
      if let previous, unsafeBitCast(previous, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) {
        signal(signalNumber, SIG_IGN)
      }
    }
  }
}
