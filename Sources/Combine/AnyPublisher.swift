/// A type-erased publisher (Apple's `AnyPublisher`): hides the operator chain behind it, as APIs
/// return it.
public struct AnyPublisher<Output, Failure: Error>: Publisher, CustomStringConvertible {
  private let box: PublisherBoxBase<Output, Failure>

  /// Wraps `publisher`.
  public init<P: Publisher>(_ publisher: P) where P.Output == Output, P.Failure == Failure {
    if let erased = publisher as? AnyPublisher<Output, Failure> {
      box = erased.box
    } else {
      box = PublisherBox(publisher)
    }
  }

  /// Subscribes `subscriber` to the wrapped publisher.
  public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    box.receive(subscriber: subscriber)
  }

  /// "AnyPublisher".
  public var description: String { "AnyPublisher" }
}

/// The erased interface (a class so that the generic method can be overridden).
class PublisherBoxBase<Output, Failure: Error>: @unchecked Sendable {
  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    fatalError("PublisherBoxBase is abstract")
  }
}

final class PublisherBox<P: Publisher>: PublisherBoxBase<P.Output, P.Failure>, @unchecked Sendable {
  let publisher: P
  init(_ publisher: P) { self.publisher = publisher }
  override func receive<S: Subscriber>(subscriber: S) where S.Input == P.Output, S.Failure == P.Failure {
    publisher.receive(subscriber: subscriber)
  }
}

extension Publisher {
  /// This publisher as an ``AnyPublisher``.
  public func eraseToAnyPublisher() -> AnyPublisher<Output, Failure> { AnyPublisher(self) }
}
