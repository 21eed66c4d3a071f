import Dispatch
import Foundation
import Synchronization

/// A ``FrameSource`` that reads and decodes the frames of another source ahead, on a thread of its
/// own, into a small bounded queue, so that decoding the next frames overlaps with tracking the
/// current one.
///
/// The wrapped source is read on that thread only, in order, one frame after another, exactly as a
/// sequential reader reads it: the frames (and the error of a damaged frame, delivered in its turn)
/// are the same, bit for bit. At most `depth` decoded frames wait in the queue, so memory stays flat.
/// Reading ahead stops at the end of the recording or at the first error; dropping the source
/// stops the thread and waits for it (at most the frame it is decoding). A `prepare` function, when
/// given, runs on each frame after it is read (work that depends on the frame alone, such as its KLT
/// pyramid: ``CameraTracker/preparation(_:)``) on a second thread of its own, in order,
/// while the reading thread decodes the next frame: the two stages use both cores when tracking
/// waits for frames. Its time counts as reading. The frames are the same whatever the threads do:
/// each stage takes the frames one after another, in recording order.
package final class PrefetchingFrameSource: FrameSource {
  /// What the recording holds (the wrapped source's).
  package let info: RecordingInfo
  /// Seconds the reading thread spent reading and decoding the frame last returned by
  /// ``nextFrame()``, and the preparing thread preparing it (their own time, not the time the
  /// caller waited for it); 0 before the first.
  package var lastReadSeconds: Double { recentReads.last?.seconds ?? 0 }
  /// The reading thread's seconds for the last two frames returned, by frame index: a replay that
  /// tracks ahead (``ARReplay/tracksAhead``) has taken the next frame before it reports this one.
  private var recentReads: [(index: Int, seconds: Double)] = []
  private let pipeline: Pipeline
  private var ended = false

  /// Starts reading `source` ahead, at most `depth` frames (1...16; default 3), each passed through
  /// `prepare` when given.
  package init(
    _ source: sending any FrameSource, depth: Int = 3,
    prepare: (@Sendable (inout RecordedFrame) -> Void)? = nil
  ) {
    precondition((1...16).contains(depth), "prefetch depth must be in 1...16")
    info = source.info
    VisionRuntime.prepareDecoding()
    pipeline = Pipeline(source: source, depth: depth, prepare: prepare)
    let pipeline = pipeline
    let thread = Thread { pipeline.produce() }
    thread.name = "arsim.prefetch"
    thread.start()
    if prepare != nil {
      let preparing = Thread { pipeline.prepareInTurn() }
      preparing.name = "arsim.prepare"
      preparing.start()
    }
  }

  deinit { pipeline.stop() }

  /// Seconds the reading thread spent on the frame with `index`, when it is one of the last two
  /// returned by ``nextFrame()``.
  package func readSeconds(ofFrame index: Int) -> Double? {
    recentReads.last { $0.index == index }?.seconds
  }

  /// The next frame in recording order (waiting for the reading thread when it is behind), or nil
  /// after the last one.
  /// - Throws: the wrapped source's ``RecordingError``, at the frame where it occurred.
  package func nextFrame() throws(RecordingError) -> RecordedFrame? {
    guard !ended else { return nil }
    let entry = pipeline.take()
    switch entry.result {
    case .success(let frame):
      if let frame {
        recentReads.append((frame.index, entry.seconds))
        if recentReads.count > 2 { recentReads.removeFirst() }
      } else {
        ended = true
      }
      return frame
    case .failure(let error):
      ended = true
      throw error
    }
  }
}

/// The state shared by the reading thread, the preparing thread (with a `prepare` function) and the
/// consumer: the source (locked by the reading thread only), the frames read and not yet prepared,
/// the queue of finished frames, and counting semaphores (frames read, frames ready, free slots).
/// A slot is taken before a frame is read and freed when the consumer takes it: at most `depth`
/// frames are in flight in both stages together.
private final class Pipeline: Sendable {
  struct Entry: Sendable {
    var result: Result<RecordedFrame?, RecordingError>
    var seconds: Double
  }

  struct Queue {
    /// The frames read and not yet taken, oldest first (at most `depth`): a taken frame leaves
    /// the queue at once, so nothing here holds frames the consumer is done with.
    var entries: [Entry] = []
    /// The entries read and not yet prepared, oldest first (with a `prepare` function only).
    var read: [Entry] = []
    var stopped = false
  }

  private let source: Mutex<any FrameSource>
  private let prepare: (@Sendable (inout RecordedFrame) -> Void)?
  private let queue = Mutex(Queue())
  private let ready = DispatchSemaphore(value: 0)
  private let free = DispatchSemaphore(value: 0)
  private let readForPreparing = DispatchSemaphore(value: 0)
  private let finished = DispatchSemaphore(value: 0)

  init(source: sending any FrameSource, depth: Int, prepare: (@Sendable (inout RecordedFrame) -> Void)?) {
    self.source = Mutex(source)
    self.prepare = prepare
    // Every semaphore starts at 0 and is raised by signals: libdispatch traps when a semaphore is
    // released below the value it was created with, as `free` may be when the reader is dropped early.
    for _ in 0..<depth { free.signal() }
  }

  /// The reading thread's loop: reads frames while there is room, until the end, an error or a stop.
  func produce() {
    while true {
      free.wait()
      if queue.withLock({ $0.stopped }) { break }
      var seconds = 0.0
      let start = ContinuousClock.now
      let result = source.withLock { source -> Result<RecordedFrame?, RecordingError> in
        do throws(RecordingError) {
          return .success(try source.nextFrame())
        } catch {
          return .failure(error)
        }
      }
      lap(&seconds, since: start)
      if prepare != nil {
        // Every entry, the end and an error too, passes through the preparing thread, in order.
        queue.withLock { $0.read.append(Entry(result: result, seconds: seconds)) }
        readForPreparing.signal()
      } else {
        queue.withLock { $0.entries.append(Entry(result: result, seconds: seconds)) }
        ready.signal()
      }
      guard case .success(.some) = result else { break }
    }
    finished.signal()
  }

  /// The preparing thread's loop: prepares each frame read, in order, and queues it, until the end,
  /// an error or a stop.
  func prepareInTurn() {
    while true {
      readForPreparing.wait()
      // Nothing read after a wake-up: the stop's signal.
      guard var entry = queue.withLock({ $0.stopped || $0.read.isEmpty ? nil : $0.read.removeFirst() }) else {
        break
      }
      if let prepare, case .success(.some(var frame)) = entry.result {
        let start = ContinuousClock.now
        prepare(&frame)
        entry.result = .success(frame)
        lap(&entry.seconds, since: start)
      }
      queue.withLock { $0.entries.append(entry) }
      ready.signal()
      guard case .success(.some) = entry.result else { break }
    }
    finished.signal()
  }

  /// The oldest entry, waiting until the reading thread has put one in the queue.
  func take() -> Entry {
    ready.wait()
    let entry = queue.withLock { $0.entries.removeFirst() }
    free.signal()
    return entry
  }

  /// Stops the reading thread (and the preparing thread) and waits until they have left their loops.
  func stop() {
    queue.withLock { $0.stopped = true }
    free.signal()
    finished.wait()
    if prepare != nil {
      readForPreparing.signal()
      finished.wait()
    }
  }
}
