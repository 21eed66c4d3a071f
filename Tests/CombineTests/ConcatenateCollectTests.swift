import Combine
import Foundation
import Testing

@Suite struct ConcatenateCollectTests {
  @Test func appendDeliversTheSuffixOnlyAfterThePrefixFinished() {
    let first = PassthroughSubject<Int, TestError>()
    let second = PassthroughSubject<Int, TestError>()
    let recorder = Recorder<Int, TestError>()
    first.append(second).subscribe(recorder)
    second.send(99)
    first.send(1)
    first.send(2)
    #expect(recorder.values == [1, 2], "the suffix is not subscribed yet")
    first.send(completion: .finished)
    second.send(3)
    #expect(recorder.values == [1, 2, 3] && !recorder.finished)
    second.send(completion: .finished)
    #expect(recorder.finished && recorder.completions.count == 1)

    let failing = PassthroughSubject<Int, TestError>()
    let never = PassthroughSubject<Int, TestError>()
    let failed = Recorder<Int, TestError>()
    failing.append(never).subscribe(failed)
    failing.send(completion: .failure(TestError(code: 1)))
    never.send(5)
    #expect(failed.values.isEmpty && failed.completions.count == 1 && !failed.finished)
  }

  @Test func demandCarriesOverToTheSuffix() {
    let recorder = Recorder<Int, Never>(initial: .max(3))
    Just(1).append(Just(2)).append(Just(3)).append(Just(4)).subscribe(recorder)
    #expect(recorder.values == [1, 2, 3] && !recorder.finished, "three asked for, three given")
    recorder.subscription?.request(.max(1))
    #expect(recorder.values == [1, 2, 3, 4] && recorder.finished)
  }

  @Test func collectGivesAllValuesAtTheEnd() {
    let subject = PassthroughSubject<String, TestError>()
    var arrays: [[String]] = []
    var failures = 0
    let cancellable = subject.collect().sink(
      receiveCompletion: { if case .failure = $0 { failures += 1 } }, receiveValue: { arrays.append($0) })
    subject.send("a")
    subject.send("b")
    #expect(arrays.isEmpty)
    subject.send(completion: .finished)
    #expect(arrays == [["a", "b"]])
    _ = cancellable

    let broken = PassthroughSubject<String, TestError>()
    let lost = broken.collect().sink(
      receiveCompletion: { if case .failure = $0 { failures += 1 } }, receiveValue: { arrays.append($0) })
    broken.send("c")
    broken.send(completion: .failure(TestError(code: 1)))
    #expect(arrays.count == 1 && failures == 1, "a failure ends it without the array")
    _ = lost
  }
}
