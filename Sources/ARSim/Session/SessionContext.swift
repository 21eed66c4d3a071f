/// What a session tracks a recording with, decided once when tracking starts (the first frame after a
/// run that starts tracking afresh) and kept until tracking is reset: the recording's sensors, the
/// tracking options the run gave, and the tracking mode they resolve to. Everything below the session
/// (the tracker, the frame reader's preparation, plane detection, the replay's image check, the CLI's
/// summary) reads ``mode`` here; nothing decides it again.
package struct SessionContext: Sendable {
  /// What the recording holds.
  package let info: RecordingInfo
  /// The tracking options, with ``TrackerOptions/mode`` set to ``mode``.
  package let tracking: TrackerOptions
  /// The tracking mode: the options' when set, else the one the recording supports
  /// (``TrackerOptions/Mode/following(_:)``).
  package let mode: TrackerOptions.Mode
  /// Whether ``mode`` was chosen from what the recording holds (the options left it open).
  package let modeChosen: Bool

  /// The context of tracking `info` with `tracking`: the one place the mode is resolved.
  package init(info: RecordingInfo, tracking: TrackerOptions) {
    self.info = info
    modeChosen = tracking.mode == nil
    mode = tracking.mode ?? .following(info)
    var resolved = tracking
    resolved.mode = mode
    self.tracking = resolved
  }

  /// Whether tracking reads images (every mode but depth-only), so frames without one cannot be tracked.
  package var readsImages: Bool { mode != .depth }
}
