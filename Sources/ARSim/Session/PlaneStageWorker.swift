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
/// semaphore: written before ``PlaneStageWorker/run(_:)``'s job ends, read after its `wait()`).
final class PlaneStageResult: @unchecked Sendable {
  var output = PlaneStageOutput()
}

/// The thread a session detects a frame's planes on while it tracks the next frame (a replay that
/// tracks ahead, ``ARReplay/tracksAhead``): one job at a time, each waited for before the next.
final class PlaneStageWorker: Sendable {
  private let queue = DispatchQueue(label: "arsim.session.planes", qos: .userInitiated)
  private let done = DispatchSemaphore(value: 0)

  /// Starts `job` on the plane thread.
  func run(_ job: @escaping @Sendable () -> Void) {
    queue.async { [done] in
      job()
      done.signal()
    }
  }

  /// Waits until the job started last has ended.
  func wait() { done.wait() }
}
