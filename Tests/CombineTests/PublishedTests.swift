import Combine
import Foundation
import Testing

private final class Counter: ObservableObject {
  @Published var count = 0
  @Published private(set) var label = "zero"

  func rename(_ name: String) { label = name }
}

private final class Plain: ObservableObject {
  var hidden = 0
  func bump() {
    objectWillChange.send()
    hidden += 1
  }
}

@Suite struct PublishedTests {
  @Test func publishesCurrentValueThenNewValuesBeforeTheChange() {
    let counter = Counter()
    var seen: [(published: Int, property: Int)] = []
    let cancellable = counter.$count.sink { seen.append(($0, counter.count)) }
    counter.count = 1
    counter.count += 1
    #expect(seen.map(\.published) == [0, 1, 2])
    #expect(
      seen.map(\.property) == [0, 0, 1], "the sink runs in willSet: the property still holds the old value")
    #expect(counter.count == 2)
    _ = cancellable
  }

  @Test func objectWillChangeFiresBeforeEachPublishedChange() {
    let counter = Counter()
    var events: [String] = []
    let a = counter.objectWillChange.sink { events.append("will change (count \(counter.count))") }
    let b = counter.$count.dropFirstValue().sink { events.append("count → \($0)") }
    counter.count = 5
    counter.rename("five")
    #expect(events == ["will change (count 0)", "count → 5", "will change (count 5)"])
    #expect(counter.objectWillChange === counter.objectWillChange)
    _ = (a, b)
  }

  @Test func manualSendReachesSubscribersOfAnObjectWithoutPublishedProperties() {
    let plain = Plain()
    var count = 0
    let cancellable = plain.objectWillChange.sink { count += 1 }
    plain.bump()
    plain.bump()
    #expect(count == 2)
    _ = cancellable
  }

  @Test func assignToPublishedAndOnObject() {
    let counter = Counter()
    let source = PassthroughSubject<Int, Never>()
    source.assign(to: &counter.$count)
    source.send(42)
    #expect(counter.count == 42)
    let target = Counter()
    let cancellable = counter.$count.map { $0 + 1 }.assign(to: \.count, on: target)
    counter.count = 7
    #expect(target.count == 8)
    _ = cancellable
  }

  @Test func removeDuplicatesOnAPublishedStateMachine() {
    let counter = Counter()
    var states: [Bool] = []
    let cancellable = counter.$count.map { $0 > 2 }.removeDuplicates().sink { states.append($0) }
    for value in [1, 2, 3, 4, 1, 0, 5] { counter.count = value }
    #expect(states == [false, true, false, true])
    _ = cancellable
  }
}

extension Publisher {
  /// All values but the first (a test helper: the subset has no `dropFirst`).
  fileprivate func dropFirstValue() -> AnyPublisher<Output, Failure> {
    var first = true
    return filter { _ in
      defer { first = false }
      return !first
    }.eraseToAnyPublisher()
  }
}
