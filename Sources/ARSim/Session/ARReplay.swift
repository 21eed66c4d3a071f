/// Drives an ``ARSession`` through a recording in recorded time: one call to ``step()`` hands the
/// session the next frame, as a camera would, and returns once every callback for it has been
/// delivered. Tests step frame by frame; tools run to the end.
public final class ARReplay {
  /// The session being fed.
  public let session: ARSession
  /// What the recording holds.
  public var info: RecordingInfo { source.info }
  /// The last frame handed to the session, or nil before the first.
  public private(set) var lastFrame: RecordedFrame?
  private var source: any FrameSource
  private var finished = false
  /// Whether the session may track the next frame while it detects this frame's planes (ARSim's
  /// addition, for tools; default false). Only for a replay whose callbacks and code between steps
  /// never change what tracking reads: nothing calls the session's `run`, `pause`, `gravitySource`,
  /// world map or `addObserver` between a frame's processing and the next step (the session traps if
  /// they are called while a frame is tracked ahead). The callbacks are the same, in the same order.
  package var tracksAhead = false
  /// The next frame, read by the session while it processed the last one (``tracksAhead``), with the
  /// seconds the read took.
  private var readAhead: (frame: Result<RecordedFrame?, RecordingError>, seconds: Double)?

  /// A replay of `source` into `session`.
  public init(session: ARSession, source: any FrameSource) {
    self.session = session
    self.source = source
  }

  /// A replay of the recording in `folder` (ARSim or TUM layout, detected when `format` is nil).
  /// - Throws: ``RecordingError`` when the recording cannot be opened.
  public convenience init(
    session: ARSession, recording folder: String, format: RecordingFormat? = nil,
    options: FrameSourceOptions = FrameSourceOptions()
  ) throws(RecordingError) {
    self.init(session: session, source: try Recording.open(folder: folder, format: format, options: options))
  }

  /// Hands the next frame to the session and returns what it gave, once every callback for it has
  /// been delivered; nil after the last frame.
  /// - Throws: the ``RecordingError`` of a damaged frame, after the session's delegate has heard it
  ///   through `session(_:didFailWithError:)` (the session is then paused).
  @discardableResult
  public func step() throws(RecordingError) -> FrameOutcome? {
    guard !finished else { return nil }
    let frame: RecordedFrame?
    let (read, readSeconds) = readAhead ?? readNext()
    readAhead = nil
    do {
      frame = try read.get()
    } catch {
      finished = true
      session.fail(error)
      throw error
    }
    guard let frame else {
      finished = true
      return nil
    }
    if !frame.hasImage, session.context(for: source.info)?.readsImages ?? true {
      finished = true
      let error = RecordingError(
        file: source.info.path,
        "frame \(frame.index) has no image (\(source.info.notes.first ?? "no colour frames")), and the "
          + "configuration asks for tracking that reads images; depth-only tracking (--mode depth) reads none"
      )
      session.fail(error)
      throw error
    }
    lastFrame = frame
    var next: (() -> RecordedFrame?)?
    if tracksAhead {
      next = {
        let read = self.readNext()
        self.readAhead = read
        return try? read.frame.get()
      }
    }
    var outcome = RecordedDevice.simulating(source.info) {
      session.process(frame, info: source.info, next: next)
    }
    outcome.timings.read = readSeconds
    return outcome
  }

  /// Reads the source's next frame, timed.
  private func readNext() -> (frame: Result<RecordedFrame?, RecordingError>, seconds: Double) {
    let start = ContinuousClock.now
    var seconds = 0.0
    let frame = Result { () throws(RecordingError) in try source.nextFrame() }
    lap(&seconds, since: start)
    return (frame, seconds)
  }

  /// Steps until the next frame would be later than `time` (seconds, recording clock).
  /// Returns false when the recording ended first.
  @discardableResult
  public func step(through time: Double) throws(RecordingError) -> Bool {
    while lastFrame.map({ $0.timestamp < time }) ?? true {
      guard try step() != nil else { return false }
    }
    return true
  }

  /// Steps `count` frames; returns false when the recording ended first.
  @discardableResult
  public func step(frames count: Int) throws(RecordingError) -> Bool {
    for _ in 0..<count {
      guard try step() != nil else { return false }
    }
    return true
  }

  /// Steps to the end of the recording.
  public func runToEnd() throws(RecordingError) {
    while try step() != nil {}
  }
}
