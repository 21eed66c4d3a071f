import Combine
import Foundation
import Testing

@Suite struct OperatorTests {
  @Test func mapFilterCompactMapThroughAnyPublisher() {
    let subject = PassthroughSubject<Int, Never>()
    let erased: AnyPublisher<String, Never> =
      subject.filter { $0 % 2 == 0 }.map { $0 * 10 }.compactMap { $0 > 20 ? "\($0)" : nil }
      .eraseToAnyPublisher()
    var received: [String] = []
    let cancellable = erased.sink { received.append($0) }
    for i in 1...6 { subject.send(i) }
    #expect(received == ["40", "60"])
    _ = cancellable
  }

  @Test func removeDuplicatesDropsRepeatsAndReplacesTheirDemand() {
    let subject = PassthroughSubject<Int, Never>()
    let recorder = Recorder<Int, Never>(initial: .max(3))
    subject.removeDuplicates().subscribe(recorder)
    for value in [1, 1, 1, 2, 2, 1, 3, 4] { subject.send(value) }
    #expect(recorder.values == [1, 2, 1], "three values were asked for; repeats do not use up demand")
  }

  @Test func removeDuplicatesComparesPerSubscription() {
    let subject = CurrentValueSubject<Int, Never>(5)
    let deduplicated = subject.removeDuplicates()
    var first: [Int] = []
    var second: [Int] = []
    let a = deduplicated.sink { first.append($0) }
    subject.send(5)
    let b = deduplicated.sink { second.append($0) }
    subject.send(6)
    #expect(first == [5, 6])
    #expect(second == [5, 6])
    _ = (a, b)
  }

  @Test func receiveOnDeliversOnTheQueueInOrder() {
    let queue = DispatchQueue(label: "combine.test.receive")
    let key = DispatchSpecificKey<Int>()
    queue.setSpecific(key: key, value: 7)
    let subject = PassthroughSubject<Int, TestError>()
    let done = DispatchSemaphore(value: 0)
    let state = LockedState()
    let cancellable = subject.receive(on: queue).sink(
      receiveCompletion: { _ in
        state.onQueue(DispatchQueue.getSpecific(key: key) == 7)
        done.signal()
      },
      receiveValue: { value in
        state.onQueue(DispatchQueue.getSpecific(key: key) == 7)
        state.append(value)
      })
    for i in 0..<100 { subject.send(i) }
    subject.send(completion: .finished)
    #expect(done.wait(timeout: .now() + 10) == .success)
    #expect(state.values == Array(0..<100))
    #expect(state.allOnQueue)
    _ = cancellable
  }

  @Test func receiveOnForwardsLaterDemandUpstream() {
    let queue = DispatchQueue(label: "combine.test.demand")
    let subject = PassthroughSubject<Int, Never>()
    let recorder = Recorder<Int, Never>(initial: .max(1), perValue: .max(1))
    subject.receive(on: queue).subscribe(recorder)
    for i in 0..<3 {
      subject.send(i)
      queue.sync {}  // the value is delivered and its extra demand has gone upstream
    }
    #expect(recorder.values == [0, 1, 2])
  }

  @Test func justAndFutureWaitForDemand() {
    let recorder = Recorder<Int, Never>(initial: .none)
    Just(3).subscribe(recorder)
    #expect(recorder.values.isEmpty)
    recorder.subscription?.request(.max(1))
    #expect(recorder.values == [3])
    #expect(recorder.finished)

    var promise: Future<String, TestError>.Promise?
    var runs = 0
    let future = Future<String, TestError> { fulfil in
      runs += 1
      promise = fulfil
    }
    let early = Recorder<String, TestError>()
    future.subscribe(early)
    #expect(early.values.isEmpty)
    promise?(.success("done"))
    promise?(.success("again"))
    let late = Recorder<String, TestError>()
    future.subscribe(late)
    #expect(early.values == ["done"] && early.finished)
    #expect(late.values == ["done"] && late.finished)
    #expect(runs == 1)

    let failing = Future<Int, TestError> { $0(.failure(TestError(code: 9))) }
    let failed = Recorder<Int, TestError>(initial: .none)
    failing.subscribe(failed)
    #expect(failed.completions == [.failure(TestError(code: 9))], "a failure needs no demand")
  }

  @Test func emptyAndFail() {
    let empty = Recorder<Int, Never>()
    Empty<Int, Never>().subscribe(empty)
    #expect(empty.values.isEmpty && empty.finished)
    let failed = Recorder<Int, TestError>()
    Fail<Int, TestError>(error: TestError(code: 1)).subscribe(failed)
    #expect(failed.completions == [.failure(TestError(code: 1))])
  }
}

/// Values and a flag collected from another thread.
final class LockedState: @unchecked Sendable {
  private let lock = NSLock()
  private var _values: [Int] = []
  private var _allOnQueue = true
  var values: [Int] { lock.withLock { _values } }
  var allOnQueue: Bool { lock.withLock { _allOnQueue } }
  func append(_ value: Int) { lock.withLock { _values.append(value) } }
  func onQueue(_ yes: Bool) { lock.withLock { _allOnQueue = _allOnQueue && yes } }
}
