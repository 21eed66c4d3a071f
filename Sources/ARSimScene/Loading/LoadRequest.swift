import ARSimAssets
import Combine
import Foundation

/// A load under way, as RealityKit's `LoadRequest`: a publisher of the loaded entity or resource (once, then
/// finished) or of the error. The file is read and parsed on a background queue as soon as the request
/// is made; the entities are made and delivered on the main queue, so subscribers receive them there
/// (as RealityKit delivers). Every subscriber, early or late, receives the same outcome.
public final class LoadRequest<Output>: Publisher, @unchecked Sendable {
  /// Loading fails with an ``ARSimAssets/AssetError``.
  public typealias Failure = any Error

  /// The future that holds the outcome (thread-safe).
  private let future: Future<Output, any Error>

  /// A request that finds the file with `locate`, reads it in the background and makes its entities
  /// with `make` on the main queue.
  init(
    _ locate: @escaping @Sendable () throws -> URL, make: @escaping @Sendable (ModelAsset) throws -> Output
  ) {
    future = Future { promise in
      let fulfil = Promise(promise)
      DispatchQueue.global(qos: .userInitiated).async {
        let asset = Result { try ModelAsset(contentsOf: try locate()) }
        DispatchQueue.main.async { fulfil.promise(asset.flatMap { asset in Result { try make(asset) } }) }
      }
    }
  }

  /// A request that makes its output with `make` on the main queue, after the call that made the request
  /// has returned (resources generated asynchronously, such as ``MeshResource/generateAsync(from:)``).
  init(generating make: @escaping @Sendable () throws -> Output) {
    future = Future { promise in
      let fulfil = Promise(promise)
      DispatchQueue.main.async { fulfil.promise(Result { try make() }) }
    }
  }

  /// Subscribes `subscriber`: it receives the entity and a finish, or the error.
  public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    future.receive(subscriber: subscriber)
  }

  /// The future's promise, handed to the queues that fulfil it: `Future` serialises fulfilment under
  /// its lock, and the entity is made and passed on the main queue only.
  private struct Promise: @unchecked Sendable {
    let promise: Future<Output, any Error>.Promise
    init(_ promise: @escaping Future<Output, any Error>.Promise) { self.promise = promise }
  }
}
