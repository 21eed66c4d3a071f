import Foundation

/// What a frame's world correction and plane detection stages gave (``ARSession``'s plane stage).
struct PlaneStageOutput {
  /// The detected planes' changes: the world correction's updates, then detection's.
  var changes = PlaneAnchorChanges()
  /// Seconds of both stages, when either ran (else 0).
  var seconds = 0.0
  /// Seconds of a loop closure's move of the map (counted with the tracker's recognition).
  var recognition = 0.0
}

/// The plane stage's output, handed from the plane thread to the session's (ordered by the worker's
/// semaphore: written before ``StageWorker/run(_:)``'s job ends, read after its `wait()`).
final class PlaneStageResult: @unchecked Sendable {
  var output = PlaneStageOutput()
}

/// A thread a session runs one stage of a frame on while it tracks the next frame (a replay that
/// tracks ahead, ``ARReplay/tracksAhead``): the plane stage, the scene reconstruction stage. One job
/// at a time, each waited for before the next.
final class StageWorker: Sendable {
  private let queue: DispatchQueue
  private let done = DispatchSemaphore(value: 0)

  /// A worker whose thread is named `label`.
  init(label: String) { queue = DispatchQueue(label: label, qos: .userInitiated) }

  /// Starts `job` on the worker's thread.
  func run(_ job: @escaping @Sendable () -> Void) {
    queue.async { [done] in
      job()
      done.signal()
    }
  }

  /// Waits until the job started last has ended.
  func wait() { done.wait() }
}
