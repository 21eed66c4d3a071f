/// A ``FrameSource`` that withholds the reference poses an app wrote while ARKit was still
/// initialising, and passes every frame on otherwise unchanged.
///
/// Before ARKit's world exists, capture apps (Stray Scanner among them) write the camera's position
/// as exactly (0, 0, 0) while its orientation already moves. Those poses are not a trajectory: scored
/// as one they put the camera still at the origin for the first second, and the world's level taken
/// from them is the device's attitude before ARKit's gravity alignment. The rule: the frames at the
/// start of the recording whose reference position is exactly zero, when there are at least two of
/// them, lose their reference pose (``RecordedFrame/groundTruth`` nil, ``RecordedFrame/referenceInitialising``
/// true). A single zero position on the first frame is kept: formats whose poses are relative to the
/// first camera (Record3D) start at the identity by construction. Frames after the first non-zero
/// position are never touched. One frame is held back at most (memory stays flat).
public struct ARKitInitialisingPoses: FrameSource {
  private var base: any FrameSource
  /// Frames read ahead and not yet passed on, oldest first (two at most: the first zero position
  /// and the frame that decides whether a run follows it).
  private var ready: [RecordedFrame] = []
  /// Whether the run of zero positions at the start is over (a non-zero position was read).
  private var runEnded = false
  /// Whether the run at the start is an initialising one (two or more zero positions).
  private var initialising = false

  public var info: RecordingInfo { base.info }

  /// Wraps `base`; only recordings whose reference is ARKit's own estimate need it
  /// (``ReferenceKind/arkit``).
  public init(_ base: any FrameSource) { self.base = base }

  /// Whether `frame`'s reference position is exactly zero.
  private static func hasZeroPosition(_ frame: RecordedFrame) -> Bool {
    frame.groundTruth.map { $0.translation == .zero } ?? false
  }

  public mutating func nextFrame() throws(RecordingError) -> RecordedFrame? {
    if !ready.isEmpty { return ready.removeFirst() }
    guard var frame = try base.nextFrame() else { return nil }
    guard !runEnded, frame.groundTruth != nil else { return frame }
    guard Self.hasZeroPosition(frame) else {
      runEnded = true
      return frame
    }
    if initialising {
      frame.withholdReference()
      return frame
    }
    // The first zero position: the next frame tells whether a run follows.
    guard var after = try base.nextFrame() else { return frame }
    if Self.hasZeroPosition(after) {
      initialising = true
      frame.withholdReference()
      after.withholdReference()
    } else if after.groundTruth != nil {
      runEnded = true
    }
    ready.append(after)
    return frame
  }
}

extension RecordedFrame {
  /// Drops the reference pose as one written while ARKit was initialising.
  fileprivate mutating func withholdReference() {
    groundTruth = nil
    referenceInitialising = true
  }
}
