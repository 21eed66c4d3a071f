import ARSim

/// The frames of a recording whose indices lie in a range (`arsim replay --frames`), with their
/// recorded timestamps and indices.
struct FrameRangeSource: FrameSource {
  private var base: any FrameSource
  let range: ClosedRange<Int>
  let info: RecordingInfo

  init(_ base: any FrameSource, range: ClosedRange<Int>) {
    self.base = base
    self.range = range
    var info = base.info
    info.frameCount = max(0, min(info.frameCount - 1, range.upperBound) - range.lowerBound + 1)
    self.info = info
  }

  mutating func nextFrame() throws(RecordingError) -> RecordedFrame? {
    while let frame = try base.nextFrame() {
      if frame.index > range.upperBound { return nil }
      if frame.index >= range.lowerBound { return frame }
    }
    return nil
  }
}

/// The delegate of a replay without an events file: it only answers that the session should
/// relocalise after a gap in the recording (``EventLog`` answers the same).
final class RelocalizingDelegate: ARSessionDelegate {
  func sessionShouldAttemptRelocalization(_ session: ARSession) -> Bool { true }
}
