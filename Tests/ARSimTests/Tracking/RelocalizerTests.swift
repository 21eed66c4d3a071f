import ARSim
import ARSimTestSupport
import Foundation
import Testing

/// Stretches of one recording played one after the other, each starting `gap` seconds after the
/// previous stretch's last frame: the camera was carried elsewhere while it was off.
struct StretchSource: FrameSource {
  private var sources: [any FrameSource]
  private let stretches: [Range<Int>]
  private let gap: Double
  private var current = 0
  /// Added to the recorded timestamps of the current stretch.
  private var shift = 0.0
  private var lastTimestamp: Double?
  let info: RecordingInfo

  init(folder: String, stretches: [Range<Int>], gap: Double) throws {
    sources = try stretches.map { _ in try Recording.open(folder: folder) }
    info = sources[0].info
    self.stretches = stretches
    self.gap = gap
  }

  mutating func nextFrame() throws(RecordingError) -> RecordedFrame? {
    while current < stretches.count {
      guard var frame = try sources[current].nextFrame(), frame.index < stretches[current].upperBound else {
        current += 1
        shift = lastTimestamp.map { $0 + gap } ?? 0
        continue
      }
      guard frame.index >= stretches[current].lowerBound else { continue }
      if frame.index == stretches[current].lowerBound, current > 0 { shift -= frame.timestamp }
      frame.timestamp += shift
      lastTimestamp = frame.timestamp
      return frame
    }
    return nil
  }
}

/// Pauses on the bundled recordings during which the camera was carried back to a place seen
/// before: relocalised against the keyframes, in the world of before the pause (issue 16: normal
/// within 10 frames of resuming).
@Suite struct PauseRelocalizationTests {
  /// A recording played to `pausedAfter`, paused, and resumed at frame `resumedAt`.
  struct Pause: Sendable, CustomTestStringConvertible {
    var recording: String
    var pausedAfter: Int
    var resumedAt: Int
    /// The tracking mode (nil: the recording's, RGB-D).
    var mode: TrackerOptions.Mode? = nil
    var testDescription: String {
      "\(recording)\(mode.map { " (\($0.rawValue))" } ?? "") paused after frame \(pausedAfter), resumed at \(resumedAt)"
    }
  }

  /// Monocular too (an ARKit phone without LiDAR): relocalised from the keyframes' ORB points alone,
  /// in the map's scale (the ATE through a Sim(3) alignment).
  static let pauses = [
    Pause(recording: "tabletop", pausedAfter: 100, resumedAt: 40),
    Pause(recording: "room", pausedAfter: 140, resumedAt: 50),
    Pause(recording: "tabletop", pausedAfter: 100, resumedAt: 40, mode: .mono),
  ]

  @Test(arguments: pauses) func normalWithinTenFramesOfResuming(_ pause: Pause) throws {
    try #require(Datasets.exists(pause.recording), "Datasets/\(pause.recording) is absent")
    let configuration = ARWorldTrackingConfiguration()
    configuration.tracking.mode = pause.mode
    let (session, collector) = FrameCollector.running(configuration)
    let source = try StretchSource(
      folder: Datasets.path(pause.recording),
      stretches: [0..<pause.pausedAfter + 1, pause.resumedAt..<100_000],
      gap: 2)
    let replay = ARReplay(session: session, source: source)
    try collector.play(replay, frames: pause.pausedAfter + 1)
    session.pause()
    session.run(configuration)
    try collector.play(replay)
    let before = collector.records.prefix(pause.pausedAfter + 1)
    let resumed = collector.records.dropFirst(pause.pausedAfter + 1)
    #expect(resumed.first?.frameIndex == pause.resumedAt)
    let recovered = try #require(resumed.firstIndex { $0.state == .normal }, "recovers")
    let delay = recovered - resumed.startIndex
    #expect(delay < 10, "normal \(delay) frames after resuming")
    #expect(resumed[..<recovered].allSatisfy { $0.state == .limited(.relocalizing) })
    #expect(resumed[recovered...].allSatisfy { $0.state == .normal })
    // One world: the frames before the pause and after recovery fit one trajectory.
    let ate = try trackingError(
      Array(before + resumed[recovered...]), in: session, scale: pause.mode == .mono)
    // Monocular: a wider bound on this cut of the tabletop (a recording made of frames 0-100 and
    // 40-151, 2 s apart) for the monocular drift over the replay, which the world kept across the
    // pause does not remove; issue 16's 1 cm is RGB-D's here.
    let limit = pause.mode == .mono ? 0.05 : 0.01
    #expect(ate.rmse < limit, "ATE \(ate.rmse) m")
  }
}

/// A recording with frames `dropped` left out and their IMU samples kept: given with the next frame
/// (a gap in the frames while the IMU ran on, as when frames are dropped).
struct DroppedFramesSource: FrameSource {
  var base: any FrameSource
  let dropped: Range<Int>
  var info: RecordingInfo { base.info }

  mutating func nextFrame() throws(RecordingError) -> RecordedFrame? {
    var samples: [IMUSample] = []
    while var frame = try base.nextFrame() {
      guard dropped.contains(frame.index) else {
        frame.imu = samples + frame.imu
        return frame
      }
      samples += frame.imu
    }
    return nil
  }
}

/// A gap of 1.3 s in the tabletop recording (frames 90-109 dropped, the IMU kept), the camera 63 cm
/// and 26 degrees on: its floor's texture repeats every 2 m, and place recognition against the
/// keyframes can find the floor one period away (every frame after it 2 m off, a second table
/// anchor). The IMU's prediction across the gap rejects that pose and resumes tracking (issue 16).
@Suite struct GapRelocalizationTests {
  @Test(.enabled(if: Datasets.exists("tabletop"))) func noFalsePoseAfterGapOnRepeatedTexture() throws {
    let configuration = ARWorldTrackingConfiguration()
    configuration.planeDetection = [.horizontal]
    let gap = 90..<110
    let (session, collector) = try FrameCollector.replay(
      source: DroppedFramesSource(base: try Recording.open(folder: Datasets.path("tabletop")), dropped: gap),
      configuration: configuration)
    let after = collector.records.drop { $0.frameIndex < gap.upperBound }
    #expect(after.first?.frameIndex == gap.upperBound)
    let recovered = try #require(after.firstIndex { $0.state == .normal }, "recovers")
    #expect(recovered - after.startIndex < 10, "normal \(recovered - after.startIndex) frames after the gap")
    // One world across the gap: a pose one texture period off would give an ATE of tens of cm.
    let ate = try trackingError(collector.records, in: session)
    #expect(ate.max < 0.03, "ATE max \(ate.max) m, rmse \(ate.rmse) m")
    // No second table for the one table seen before the gap.
    let tablesAfter = collector.additions.filter { $0.frame >= gap.upperBound }.flatMap(\.anchors)
      .compactMap { $0 as? ARPlaneAnchor }.filter { $0.classification == .table }
    #expect(tablesAfter.isEmpty, "\(tablesAfter.count) table anchors added after the gap")
  }

  /// The same gap (frames 90-109 dropped) without an IMU: no prediction across it, and place
  /// recognition finds the floor's (tabletop) or the walls' (room) texture one period away. The view
  /// check (the frame's depth against the keyframe's, ``Relocalizer/viewAgrees(_:_:keyframeFromFrame:)``)
  /// rejects those poses: the frames after the gap are `limited(.relocalizing)` until the true place
  /// is recognised (room), or to the end (the tabletop's views after the gap were never mapped), and
  /// never tracked in a world 2 m off.
  struct NoIMUGap: Sendable, CustomTestStringConvertible {
    var recording: String
    /// Whether the true place is recognised after the gap, and within how many frames.
    var recoversWithin: Int?
    /// The largest ATE of the frames tracked normally, before and after the gap, metres.
    var maxError: Double
    /// Whether no table anchor is added after the gap (the tabletop's symptom of a world 2 m off).
    var noNewTable: Bool
    var testDescription: String { "\(recording) without IMU" }
  }

  static let noIMUGaps = [
    NoIMUGap(recording: "tabletop", recoversWithin: nil, maxError: 0.01, noNewTable: true),
    // The relocalised pose (few PnP inliers on a keyframe far from the view) is centimetres off and
    // tilted; the world drifts on from it (no loop closes): the table and the floor are found again
    // higher, as new anchors. Hence the wider bound and new tables allowed.
    NoIMUGap(recording: "room", recoversWithin: 20, maxError: 0.05, noNewTable: false),
  ]

  @Test(arguments: noIMUGaps) func noFalsePoseAfterGapWithoutIMU(_ gap: NoIMUGap) throws {
    try #require(Datasets.exists(gap.recording), "Datasets/\(gap.recording) is absent")
    let configuration = ARWorldTrackingConfiguration()
    configuration.planeDetection = [.horizontal]
    // The view check at 0.2 (its default; set here so the test holds if the default moves).
    configuration.tracking.relocalization.maxViewInFront = 0.2
    let dropped = 90..<110
    let (session, collector) = try FrameCollector.replay(
      source: WithoutIMUSource(
        base: DroppedFramesSource(
          base: try Recording.open(folder: Datasets.path(gap.recording)), dropped: dropped)),
      configuration: configuration)
    let after = collector.records.drop { $0.frameIndex < dropped.upperBound }
    #expect(after.first?.frameIndex == dropped.upperBound)
    let recovered = after.firstIndex { $0.state == .normal }
    #expect(after[..<(recovered ?? after.endIndex)].allSatisfy { $0.state == .limited(.relocalizing) })
    if let within = gap.recoversWithin {
      let recovered = try #require(recovered, "recovers")
      #expect(
        recovered - after.startIndex < within, "normal \(recovered - after.startIndex) frames after the gap")
      #expect(after[recovered...].allSatisfy { $0.state == .normal })
    } else {
      #expect(recovered == nil, "normal \(recovered.map { $0 - after.startIndex } ?? 0) frames after the gap")
    }
    // One world across the gap: a pose one texture period off would give an ATE of tens of cm.
    let ate = try trackingError(collector.records, in: session)
    #expect(ate.max < gap.maxError, "ATE max \(ate.max) m, rmse \(ate.rmse) m")
    guard gap.noNewTable else { return }
    let tablesAfter = collector.additions.filter { $0.frame >= dropped.upperBound }.flatMap(\.anchors)
      .compactMap { $0 as? ARPlaneAnchor }.filter { $0.classification == .table }
    #expect(tablesAfter.isEmpty, "\(tablesAfter.count) table anchors added after the gap")
  }
}

/// A recording without its inertial samples (a device without an IMU).
struct WithoutIMUSource: FrameSource {
  var base: any FrameSource
  var info: RecordingInfo {
    var info = base.info
    info.hasAccelerometer = false
    info.hasGyroscope = false
    return info
  }

  mutating func nextFrame() throws(RecordingError) -> RecordedFrame? {
    guard var frame = try base.nextFrame() else { return nil }
    frame.imu = []
    return frame
  }
}

/// Every `step`-th frame of a recording (a low frame rate: wide motion between frames), the IMU's
/// samples of the frames left out given with the next one kept (the IMU runs on between frames).
struct EveryNthSource: FrameSource {
  var base: any FrameSource
  let step: Int
  var info: RecordingInfo { base.info }

  mutating func nextFrame() throws(RecordingError) -> RecordedFrame? {
    var samples: [IMUSample] = []
    while var frame = try base.nextFrame() {
      guard frame.index % step == 0 else {
        samples += frame.imu
        continue
      }
      frame.imu = samples + frame.imu
      return frame
    }
    return nil
  }
}

@Suite struct WideMotionTests {
  /// The tabletop at about 2 fps (every 7th frame of 15 fps: about 20 cm between frames, twice the
  /// issue's 10 cm): tracked to 1 cm, planes found (issue 16).
  @Test(.enabled(if: Datasets.exists("tabletop"))) func tabletopAtTwoFramesPerSecond() throws {
    let configuration = ARWorldTrackingConfiguration()
    configuration.planeDetection = [.horizontal, .vertical]
    let (session, collector) = try FrameCollector.replay(
      source: EveryNthSource(base: try Recording.open(folder: Datasets.path("tabletop")), step: 7),
      configuration: configuration)
    // Gravity takes a few frames from the accelerometer: at this rate about 3 s (frame 7).
    let records = collector.records
    let firstNormal = try #require(records.firstIndex { $0.state == .normal })
    #expect(firstNormal <= 7, "normal from frame \(firstNormal)")
    // At most one frame lost after that.
    let lost = records[firstNormal...].filter { $0.state != .normal }.count
    #expect(lost <= 1, "\(records.map { "\($0.state)" })")
    let ate = try trackingError(collector.records, in: session)
    #expect(ate.rmse < 0.01, "ATE \(ate.rmse) m")
    // Nearly every frame is relocalised (the motion too wide to track frame to frame); the IMU's
    // prediction from the frame before tells which continue the motion, so that gravity is estimated
    // through them (the world left on the first frame's accelerometer is tilted several times more,
    // and on the full-size tabletop at 2 fps leaves a third anchor, a floor too low).
    let gravity = try gravityErrorMedian(collector.records, gravity: SIMD3(0, -1, 0))
    #expect(gravity < 1, "gravity error \(gravity) degrees")
    // The table and the floor (the floor may come in two anchors, apart by the world's remaining tilt
    // over its length).
    let planes = session.anchors.compactMap { $0 as? ARPlaneAnchor }.map(\.classification)
    #expect(planes.contains(.table) && planes.contains(.floor), "\(planes)")
    #expect(planes.allSatisfy { $0 == .table || $0 == .floor }, "\(planes)")
  }

  /// The room at 2 fps (every 5th frame of 10 fps: 10-20 cm and up to 50 degrees between frames,
  /// through a fast turn): where frame-to-frame tracking fails and the keyframes recognise no place
  /// where the IMU puts the camera, the IMU's prediction from the last measured frame is the pose and
  /// the tracks restart from it with the depth, rather than take a place on the walls' repeated texture
  /// 2 m off.
  @Test(.enabled(if: Datasets.exists("room"))) func roomAtTwoFramesPerSecond() throws {
    let configuration = ARWorldTrackingConfiguration()
    configuration.planeDetection = [.horizontal, .vertical]
    let (session, collector) = try FrameCollector.replay(
      source: EveryNthSource(base: try Recording.open(folder: Datasets.path("room")), step: 5),
      configuration: configuration)
    let ate = try trackingError(collector.records, in: session)
    // With the gyroscope's prior on each frame's rotation, the frame after the fast turn's last
    // measured one tracks too few features and is bridged by the IMU: a decision at the edge either
    // way, which the bound allows for (the other sessions at 2-5 fps keep their ATE).
    #expect(ate.rmse < 0.05 && ate.max < 0.1, "ATE rmse \(ate.rmse) m, max \(ate.max) m")
    let gravity = try gravityErrorMedian(collector.records, gravity: SIMD3(0, -1, 0))
    #expect(gravity < 0.5, "gravity error \(gravity) degrees")
  }
}
