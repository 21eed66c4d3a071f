import Combine
import Foundation
import Testing

@Suite struct DemandTests {
  @Test func arithmeticSaturates() {
    typealias Demand = Subscribers.Demand
    #expect(Demand.max(2) + .max(3) == .max(5))
    #expect(Demand.max(2) + .unlimited == .unlimited)
    #expect(Demand.max(Int.max) + .max(Int.max) + .max(Int.max) == .unlimited)
    #expect(Demand.max(2) - .max(5) == .none)
    #expect(Demand.unlimited - .max(5) == .unlimited)
    #expect(Demand.max(5) - .unlimited == .none)
    #expect(Demand.max(3) * 4 == .max(12))
    #expect(Demand.max(3) - 1 == .max(2))
    #expect(Demand.unlimited > 1_000_000)
    #expect(Demand.none == 0)
    #expect(Demand.max(1) < .unlimited)
    #expect(Demand.unlimited.max == nil)
    #expect(Demand.max(7).max == 7)
  }
}

@Suite struct PassthroughSubjectTests {
  @Test func sendsOnlyAsDemanded() {
    let subject = PassthroughSubject<Int, Never>()
    let recorder = Recorder<Int, Never>(initial: .max(2))
    subject.subscribe(recorder)
    for i in 1...5 { subject.send(i) }
    #expect(recorder.values == [1, 2])
    recorder.subscription?.request(.max(1))
    #expect(recorder.values == [1, 2], "a passthrough subject does not keep values nobody asked for")
    subject.send(6)
    subject.send(7)
    #expect(recorder.values == [1, 2, 6])
  }

  @Test func demandReturnedFromReceiveAddsUp() {
    let subject = PassthroughSubject<Int, Never>()
    let recorder = Recorder<Int, Never>(initial: .max(1), perValue: .max(1))
    subject.subscribe(recorder)
    for i in 1...4 { subject.send(i) }
    #expect(recorder.values == [1, 2, 3, 4])
  }

  @Test func completionEndsEverySubscriberAndLaterOnesAtOnce() {
    let subject = PassthroughSubject<Int, TestError>()
    let early = Recorder<Int, TestError>(initial: .none)
    subject.subscribe(early)
    subject.send(completion: .failure(TestError(code: 3)))
    subject.send(1)
    subject.send(completion: .finished)
    #expect(early.completions == [.failure(TestError(code: 3))], "completion does not wait for demand")
    let late = Recorder<Int, TestError>()
    subject.subscribe(late)
    #expect(late.values.isEmpty)
    #expect(late.completions == [.failure(TestError(code: 3))])
  }

  @Test func cancelStopsValuesAndReleasesTheSink() {
    let subject = PassthroughSubject<Int, Never>()
    final class Owner { var seen: [Int] = [] }
    weak var weakOwner: Owner?
    var received: [Int] = []
    var cancellable: AnyCancellable?
    do {
      let owner = Owner()
      weakOwner = owner
      cancellable = subject.sink { [owner] in
        owner.seen.append($0)
        received.append($0)
      }
    }
    subject.send(1)
    #expect(weakOwner != nil)
    cancellable?.cancel()
    subject.send(2)
    #expect(received == [1])
    #expect(weakOwner == nil, "cancelling releases the sink's closures")
    _ = cancellable
  }

  @Test func anyCancellableCancelsWhenReleasedAndStoreKeepsIt() {
    let subject = PassthroughSubject<Int, Never>()
    var received: [Int] = []
    var bag = Set<AnyCancellable>()
    subject.sink { received.append($0) }.store(in: &bag)
    var temporary: AnyCancellable? = subject.sink { received.append($0 * 100) }
    subject.send(1)
    temporary = nil
    subject.send(2)
    #expect(received == [1, 100, 2])
    bag.removeAll()
    subject.send(3)
    #expect(received == [1, 100, 2])
    _ = temporary
  }

  @Test func concurrentSendsDeliverEachValueOnce() async {
    let subject = PassthroughSubject<Int, Never>()
    let recorder = Recorder<Int, Never>()
    subject.subscribe(recorder)
    await withTaskGroup(of: Void.self) { group in
      for worker in 0..<4 {
        group.addTask {
          for i in 0..<500 { subject.send(worker * 1000 + i) }
        }
      }
    }
    let values = recorder.values
    #expect(values.count == 2000)
    #expect(Set(values).count == 2000)
  }

  @Test func reentrantSendFromASinkIsDelivered() {
    let subject = PassthroughSubject<Int, Never>()
    var received: [Int] = []
    let cancellable = subject.sink { value in
      received.append(value)
      if value < 3 { subject.send(value + 1) }
    }
    subject.send(1)
    #expect(received == [1, 2, 3])
    _ = cancellable
  }
}

@Suite struct CurrentValueSubjectTests {
  @Test func newSubscriberGetsTheCurrentValueThenChanges() {
    let subject = CurrentValueSubject<String, Never>("a")
    var received: [String] = []
    let cancellable = subject.sink { received.append($0) }
    subject.value = "b"
    subject.send("c")
    #expect(received == ["a", "b", "c"])
    #expect(subject.value == "c")
    _ = cancellable
  }

  @Test func withoutDemandOnlyTheLatestIsKept() {
    let subject = CurrentValueSubject<Int, Never>(0)
    let recorder = Recorder<Int, Never>(initial: .none)
    subject.subscribe(recorder)
    subject.send(1)
    subject.send(2)
    #expect(recorder.values.isEmpty)
    recorder.subscription?.request(.max(5))
    #expect(recorder.values == [2])
    subject.send(3)
    #expect(recorder.values == [2, 3])
  }

  @Test func completionKeepsTheValueAndIgnoresLaterSends() {
    let subject = CurrentValueSubject<Int, Never>(1)
    let recorder = Recorder<Int, Never>()
    subject.subscribe(recorder)
    subject.send(completion: .finished)
    subject.send(9)
    #expect(recorder.values == [1])
    #expect(recorder.finished)
    #expect(subject.value == 1)
  }

  @Test func aSubjectCanSubscribeToAPublisher() {
    let upstream = PassthroughSubject<Int, Never>()
    let downstream = CurrentValueSubject<Int, Never>(0)
    upstream.subscribe(AnySubscriber(downstream))
    upstream.send(4)
    #expect(downstream.value == 4)
    upstream.send(completion: .finished)
    let recorder = Recorder<Int, Never>()
    downstream.subscribe(recorder)
    #expect(recorder.finished)
  }
}
