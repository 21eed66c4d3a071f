import ARSimTestSupport
import Foundation
import Synchronization
import Testing

@testable import ARSim

/// Reading ahead on a second thread gives exactly the frames, and the errors, of reading in turn.
@Suite struct PrefetchingFrameSourceTests {
  /// Everything a frame carries, with depth as bit patterns (NaN holes compare equal).
  struct Fingerprint: Equatable {
    var index: Int
    var timestamp: Double
    var image: CapturedImage?
    var depth: [UInt32]?
    var imu: [IMUSample]
    var groundTruth: [Double]?

    init(_ frame: RecordedFrame) {
      index = frame.index
      timestamp = frame.timestamp
      image = frame.image
      depth = frame.depth?.metres.map(\.bitPattern)
      imu = frame.imu
      groundTruth = frame.groundTruth.map { t in
        let q = t.rotation.vector
        return [t.translation.x, t.translation.y, t.translation.z, q.x, q.y, q.z, q.w]
      }
    }
  }

  /// Reads `source` to its end or its first error, whose message ends the list.
  func readAll(_ source: inout some FrameSource) -> (frames: [Fingerprint], error: String?) {
    var frames: [Fingerprint] = []
    do {
      while let frame = try source.nextFrame() { frames.append(Fingerprint(frame)) }
      // After the end, it stays at the end.
      #expect(try source.nextFrame() == nil)
    } catch {
      return (frames, error.message)
    }
    return (frames, nil)
  }

  @Test(.enabled(if: Datasets.exists("tabletop"), "Datasets/tabletop is absent"), arguments: [1, 3])
  func framesAreTheSequentialReadersBitForBit(depth: Int) throws {
    let folder = Datasets.path("tabletop")
    var sequential = try Recording.open(folder: folder)
    var prefetched = PrefetchingFrameSource(try Recording.open(folder: folder), depth: depth)
    let expected = readAll(&sequential)
    let actual = readAll(&prefetched)
    #expect(expected.error == nil && actual.error == nil)
    #expect(actual.frames.count == prefetched.info.frameCount && actual.frames.count > 100)
    #expect(actual.frames == expected.frames)
    #expect(prefetched.lastReadSeconds > 0)
  }

  /// A frame's reading time is found by its index while it is one of the last two taken (a replay
  /// that tracks ahead has taken the next frame before it reports this one), and not after.
  @Test func readSecondsAreKeptByFrameForTheLastTwo() throws {
    let folder = try RecordingFixtures.writeARSim(frames: 4)
    let source = PrefetchingFrameSource(try Recording.open(folder: folder), depth: 2)
    let first = try #require(try source.nextFrame())
    let firstSeconds = source.lastReadSeconds
    #expect(source.readSeconds(ofFrame: first.index) == firstSeconds)
    let second = try #require(try source.nextFrame())
    #expect(source.readSeconds(ofFrame: first.index) == firstSeconds)
    #expect(source.readSeconds(ofFrame: second.index) == source.lastReadSeconds)
    _ = try source.nextFrame()
    #expect(source.readSeconds(ofFrame: first.index) == nil)
    #expect(source.readSeconds(ofFrame: second.index) != nil)
  }

  /// The reading thread prepares each frame ahead for the tracker that will read it: the grey image's
  /// KLT pyramid with the tracker's parameters (RGB-D and monocular), none for depth-only tracking,
  /// and otherwise the same frames.
  @Test func framesComePreparedForTheirTracker() throws {
    let folder = try RecordingFixtures.writeARSim(frames: 4)
    let info = try Recording.open(folder: folder).info
    var depthOnly = TrackerOptions()
    depthOnly.mode = .depth
    #expect(CameraTracker.preparation(SessionContext(info: info, tracking: depthOnly)) == nil)
    for mode in [TrackerOptions.Mode.rgbd, .mono] {
      var options = TrackerOptions()
      options.mode = mode
      var sequential = try Recording.open(folder: folder)
      let prepare = try #require(CameraTracker.preparation(SessionContext(info: info, tracking: options)))
      let prepared = PrefetchingFrameSource(try Recording.open(folder: folder), prepare: prepare)
      var count = 0
      while let frame = try prepared.nextFrame() {
        let plain = try #require(try sequential.nextFrame())
        #expect(Fingerprint(frame) == Fingerprint(plain))
        let pyramid = try #require(frame.kltPyramid)
        #expect(pyramid.params == options.kltParams && pyramid.width == info.intrinsics.width)
        #expect(plain.kltPyramid == nil)
        count += 1
      }
      #expect(count == 4)
    }
  }

  @Test func aDamagedFrameFailsInItsTurnWithTheSameError() throws {
    let folder = try RecordingFixtures.writeARSim(frames: 6)
    try Data([0x89, 0x50, 0x4E, 0x47]).write(to: URL(fileURLWithPath: folder + "/rgb/000003.png"))
    var sequential = try Recording.open(folder: folder)
    var prefetched = PrefetchingFrameSource(try Recording.open(folder: folder), depth: 2)
    let expected = readAll(&sequential)
    let actual = readAll(&prefetched)
    #expect(expected.frames.count == 3)
    #expect(actual.frames == expected.frames)
    #expect(actual.error != nil && actual.error == expected.error, "\(actual.error ?? "no error")")
  }

  /// With a preparing thread beside the reading one, the end and an error still come in their turn.
  @Test func aDamagedFrameFailsInItsTurnWhenFramesArePrepared() throws {
    let folder = try RecordingFixtures.writeARSim(frames: 6)
    try Data([0x89, 0x50, 0x4E, 0x47]).write(to: URL(fileURLWithPath: folder + "/rgb/000003.png"))
    let info = try Recording.open(folder: folder).info
    let prepare = try #require(
      CameraTracker.preparation(SessionContext(info: info, tracking: TrackerOptions())))
    var sequential = try Recording.open(folder: folder)
    var prefetched = PrefetchingFrameSource(try Recording.open(folder: folder), depth: 2, prepare: prepare)
    let expected = readAll(&sequential)
    let actual = readAll(&prefetched)
    #expect(expected.frames.count == 3)
    #expect(actual.frames == expected.frames)
    #expect(actual.error != nil && actual.error == expected.error, "\(actual.error ?? "no error")")
  }

  /// Both stages together hold at most `depth` frames: the reader reads no further ahead.
  @Test func preparedFramesInFlightStayWithinTheDepth() throws {
    let folder = try RecordingFixtures.writeARSim(frames: 12)
    let info = try Recording.open(folder: folder).info
    let prepare = try #require(
      CameraTracker.preparation(SessionContext(info: info, tracking: TrackerOptions())))
    let produced = Counter()
    let depth = 2
    let prefetched = PrefetchingFrameSource(
      CountingSource(source: try Recording.open(folder: folder), produced: produced), depth: depth,
      prepare: prepare)
    for taken in 1...4 {
      _ = try #require(try prefetched.nextFrame())
      Thread.sleep(forTimeInterval: 0.05)
      let read = produced.value.load(ordering: .sequentiallyConsistent)
      #expect(read <= taken + depth, "\(read) frames read after \(taken) taken")
    }
  }

  @Test func droppingTheSourceEarlyStopsItsThreads() throws {
    let folder = try RecordingFixtures.writeARSim(frames: 20)
    let info = try Recording.open(folder: folder).info
    let prepare = try #require(
      CameraTracker.preparation(SessionContext(info: info, tracking: TrackerOptions())))
    for round in 0..<20 {
      let prefetched = PrefetchingFrameSource(
        try Recording.open(folder: folder), depth: 2, prepare: round % 2 == 0 ? prepare : nil)
      _ = try prefetched.nextFrame()
      // deinit stops both threads (blocked on a full queue, or waiting for a frame) and waits for them.
    }
    var last = PrefetchingFrameSource(try Recording.open(folder: folder), depth: 2, prepare: prepare)
    #expect(readAll(&last).frames.count == 20)
  }

  @Test func droppingTheSourceEarlyStopsItsThread() throws {
    let folder = try RecordingFixtures.writeARSim(frames: 20)
    for _ in 0..<20 {
      let prefetched = PrefetchingFrameSource(try Recording.open(folder: folder), depth: 2)
      _ = try prefetched.nextFrame()
      // deinit stops the reading thread (blocked on a full queue) and waits for it: no hang, no leak.
    }
    var last = PrefetchingFrameSource(try Recording.open(folder: folder), depth: 2)
    #expect(readAll(&last).frames.count == 20)
  }

  /// A source that counts the frames it has handed to the reading thread.
  struct CountingSource: FrameSource {
    var source: any FrameSource
    let produced: Counter
    var info: RecordingInfo { source.info }
    mutating func nextFrame() throws(RecordingError) -> RecordedFrame? {
      let frame = try source.nextFrame()
      produced.value.add(1, ordering: .sequentiallyConsistent)
      return frame
    }
  }

  final class Counter: Sendable {
    let value = Atomic(0)
  }

  @Test func framesTakenAreNotHeldWhileTheReaderStaysAhead() throws {
    let folder = try RecordingFixtures.writeARSim(frames: 10)
    var options = FrameSourceOptions()
    // Each frame carries a DeferredColorImage: an object a weak reference can watch.
    options.decodeColor = true
    let produced = Counter()
    let depth = 2
    let prefetched = PrefetchingFrameSource(
      CountingSource(source: try Recording.open(folder: folder, options: options), produced: produced),
      depth: depth)
    weak var earlier: DeferredColorImage?
    for taken in 0..<8 {
      // Let the reading thread fill the queue, so that it is never empty when a frame is taken.
      while produced.value.load(ordering: .sequentiallyConsistent) < taken + depth {
        Thread.sleep(forTimeInterval: 0.001)
      }
      let frame = try #require(try prefetched.nextFrame())
      #expect(earlier == nil, "frame \(taken - 1) is still held after frame \(taken) was taken")
      earlier = frame.deferredColor
      #expect(earlier != nil)
    }
  }
}
