import Foundation

/// The publisher an ``ObservableObject`` sends on before one of its properties changes (Apple's
/// `ObservableObjectPublisher`). Thread-safe.
public final class ObservableObjectPublisher: Publisher, @unchecked Sendable {
  /// A value without content: something is about to change.
  public typealias Output = Void
  /// It cannot fail.
  public typealias Failure = Never
  private let subject = PassthroughSubject<Void, Never>()

  /// A publisher with no subscribers.
  public init() {}

  /// Subscribes `subscriber`.
  public func receive<S: Subscriber>(subscriber: S) where S.Input == Void, S.Failure == Never {
    subject.receive(subscriber: subscriber)
  }

  /// Tells the subscribers that the object is about to change.
  public func send() { subject.send(()) }
}

/// An object that announces its changes before they happen (Apple's `ObservableObject`). With the
/// default publisher, every `@Published` property of the object sends on ``objectWillChange`` before
/// it is set, and the app may call `objectWillChange.send()` itself.
public protocol ObservableObject: AnyObject {
  /// The type of ``objectWillChange``.
  associatedtype ObjectWillChangePublisher: Publisher = ObservableObjectPublisher
  where ObjectWillChangePublisher.Failure == Never
  /// Sends before the object changes.
  var objectWillChange: ObjectWillChangePublisher { get }
}

extension ObservableObject where ObjectWillChangePublisher == ObservableObjectPublisher {
  /// The object's own publisher: the same one at every access while the object lives.
  public var objectWillChange: ObservableObjectPublisher { WillChangeRegistry.shared.publisher(for: self) }
}

/// The default `objectWillChange` publishers, one per live object, made on first access. Entries of
/// objects that are gone are swept as the table grows.
final class WillChangeRegistry: @unchecked Sendable {
  static let shared = WillChangeRegistry()

  private struct Entry {
    weak var object: AnyObject?
    let publisher: ObservableObjectPublisher
  }

  private let lock = NSLock()
  private var entries: [ObjectIdentifier: Entry] = [:]
  private var sweepAt = 64

  /// The publisher of `object`, made when missing.
  func publisher(for object: AnyObject) -> ObservableObjectPublisher {
    lock.withLock {
      let key = ObjectIdentifier(object)
      if let entry = entries[key], entry.object === object { return entry.publisher }
      if entries.count >= sweepAt {
        entries = entries.filter { $0.value.object != nil }
        sweepAt = max(64, entries.count * 2)
      }
      let made = ObservableObjectPublisher()
      entries[key] = Entry(object: object, publisher: made)
      return made
    }
  }

  /// The publisher of `object` if one was made (nobody can listen otherwise).
  func existingPublisher(for object: AnyObject) -> ObservableObjectPublisher? {
    lock.withLock {
      guard let entry = entries[ObjectIdentifier(object)], entry.object === object else { return nil }
      return entry.publisher
    }
  }
}

/// A property of a class that publishes its changes (Apple's `@Published`): `$property` is a
/// publisher that sends the current value to a new subscriber, then each new value *before* the
/// property changes (reading the property in the sink still gives the old value); in an
/// ``ObservableObject``, `objectWillChange` sends first. Only for properties of classes.
@propertyWrapper
public struct Published<Value> {
  private let storage: Storage

  /// A published property starting at `wrappedValue`.
  public init(wrappedValue: Value) {
    storage = Storage(wrappedValue)
  }

  /// A published property starting at `initialValue`.
  public init(initialValue: Value) {
    self.init(wrappedValue: initialValue)
  }

  /// Not available: `@Published` works through its enclosing class instance.
  @available(*, unavailable, message: "@Published is only available on properties of classes")
  public var wrappedValue: Value {
    get { fatalError("@Published is only available on properties of classes") }
    set { fatalError("@Published is only available on properties of classes") }
  }

  /// The property's publisher (`$property`); assigning a publisher makes the property follow it
  /// (`assign(to: &$property)`).
  public var projectedValue: Publisher {
    get { Publisher(storage: storage) }
    set { if newValue.storage !== storage { storage.follow(newValue) } }
  }

  /// The property's publisher, reached through its enclosing object (which it then knows as its
  /// owner, so that ``ObservableObject/objectWillChange`` hears of changes made through it).
  public static subscript<EnclosingSelf: AnyObject>(
    _enclosingInstance object: EnclosingSelf,
    projected projectedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Publisher>,
    storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Published<Value>>
  ) -> Publisher {
    get {
      let storage = object[keyPath: storageKeyPath].storage
      storage.adopt(object)
      return Publisher(storage: storage)
    }
    set {
      let storage = object[keyPath: storageKeyPath].storage
      storage.adopt(object)
      if newValue.storage !== storage { storage.follow(newValue) }
    }
  }

  /// The property's value, read and written through its enclosing object, so that the object's
  /// `objectWillChange` hears of changes.
  public static subscript<EnclosingSelf: AnyObject>(
    _enclosingInstance object: EnclosingSelf,
    wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
    storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Published<Value>>
  ) -> Value {
    get { object[keyPath: storageKeyPath].storage.value }
    set {
      let storage = object[keyPath: storageKeyPath].storage
      storage.adopt(object)
      storage.set(newValue)
    }
  }

  /// The publisher of a `@Published` property (Apple's `Published.Publisher`).
  public struct Publisher: Combine.Publisher {
    /// The property's values.
    public typealias Output = Value
    /// It cannot fail.
    public typealias Failure = Never
    fileprivate let storage: Storage

    /// Subscribes `subscriber`: the current value once it has demand, then each change.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Value, S.Failure == Never {
      storage.subject.receive(subscriber: subscriber)
    }
  }

  /// The value, its subject and the object that owns it (known after the first write).
  fileprivate final class Storage: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Value
    let subject: CurrentValueSubject<Value, Never>
    private weak var owner: AnyObject?
    private var following: AnyCancellable?

    init(_ value: Value) {
      current = value
      subject = CurrentValueSubject(value)
    }

    var value: Value { lock.withLock { current } }

    /// Remembers the enclosing object (the first one; a property belongs to one object).
    func adopt(_ object: AnyObject) {
      lock.withLock { if owner == nil { owner = object } }
    }

    /// willSet order: the owner's `objectWillChange`, the property's publisher, then the value.
    func set(_ new: Value) {
      if let owner = lock.withLock({ owner }) {
        WillChangeRegistry.shared.existingPublisher(for: owner)?.send()
      }
      subject.send(new)
      lock.withLock { current = new }
    }

    /// Sets the value from each of `publisher`'s values, for as long as the property lives.
    func follow(_ publisher: Publisher) {
      following = publisher.storage.subject.sink { [weak self] in self?.set($0) }
    }
  }
}

extension Publisher where Failure == Never {
  /// Republishes this publisher's values through a `@Published` property (`assign(to: &$property)`),
  /// for as long as the property lives.
  public func assign(to published: inout Published<Output>.Publisher) {
    let storage = published.storage
    storage.followUpstream(self.eraseToAnyPublisher())
  }
}

extension Published.Storage {
  fileprivate func followUpstream(_ upstream: AnyPublisher<Value, Never>) {
    following = upstream.sink { [weak self] in self?.set($0) }
  }
}
