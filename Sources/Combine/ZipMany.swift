// Zips of three and four publishers (Apple's `Publishers.Zip3` and `Publishers.Zip4`), built on the
// two-publisher ``Publishers/Zip``: the values are taken in order, one of each, and the zip finishes or
// fails as the nested pairs do.
extension Publishers {
  /// The values of three publishers in order, one of each at a time (Apple's `Publishers.Zip3`).
  public struct Zip3<A: Publisher, B: Publisher, C: Publisher>: Publisher
  where A.Failure == B.Failure, B.Failure == C.Failure {
    /// One value of each.
    public typealias Output = (A.Output, B.Output, C.Output)
    /// The upstreams' failure.
    public typealias Failure = A.Failure
    /// The first publisher.
    public let a: A
    /// The second publisher.
    public let b: B
    /// The third publisher.
    public let c: C

    /// The triples of `a`'s, `b`'s and `c`'s values.
    public init(_ a: A, _ b: B, _ c: C) {
      self.a = a
      self.b = b
      self.c = c
    }

    /// Subscribes `subscriber` to the triples.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      Zip(Zip(a, b), c).map { ($0.0.0, $0.0.1, $0.1) }.receive(subscriber: subscriber)
    }
  }

  /// The values of four publishers in order, one of each at a time (Apple's `Publishers.Zip4`).
  public struct Zip4<A: Publisher, B: Publisher, C: Publisher, D: Publisher>: Publisher
  where A.Failure == B.Failure, B.Failure == C.Failure, C.Failure == D.Failure {
    /// One value of each.
    public typealias Output = (A.Output, B.Output, C.Output, D.Output)
    /// The upstreams' failure.
    public typealias Failure = A.Failure
    /// The first publisher.
    public let a: A
    /// The second publisher.
    public let b: B
    /// The third publisher.
    public let c: C
    /// The fourth publisher.
    public let d: D

    /// The quadruples of `a`'s, `b`'s, `c`'s and `d`'s values.
    public init(_ a: A, _ b: B, _ c: C, _ d: D) {
      self.a = a
      self.b = b
      self.c = c
      self.d = d
    }

    /// Subscribes `subscriber` to the quadruples.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      Zip(Zip(Zip(a, b), c), d).map { ($0.0.0.0, $0.0.0.1, $0.0.1, $0.1) }.receive(subscriber: subscriber)
    }
  }
}

extension Publisher {
  /// This publisher's values zipped with two others' (Apple's `zip(_:_:)`).
  public func zip<P: Publisher, Q: Publisher>(_ publisher1: P, _ publisher2: Q) -> Publishers.Zip3<Self, P, Q>
  where P.Failure == Failure, Q.Failure == Failure {
    Publishers.Zip3(self, publisher1, publisher2)
  }

  /// This publisher's values zipped with three others' (Apple's `zip(_:_:_:)`).
  public func zip<P: Publisher, Q: Publisher, R: Publisher>(_ publisher1: P, _ publisher2: Q, _ publisher3: R)
    -> Publishers.Zip4<Self, P, Q, R>
  where P.Failure == Failure, Q.Failure == Failure, R.Failure == Failure {
    Publishers.Zip4(self, publisher1, publisher2, publisher3)
  }
}
