import Combine
import Foundation
import Testing

@Suite struct ZipManyTests {
  @Test func threeAndFourPublishersZipInOrderAndFinishWithTheShortest() {
    let numbers = PassthroughSubject<Int, Never>()
    let words = PassthroughSubject<String, Never>()
    let flags = PassthroughSubject<Bool, Never>()
    var triples: [String] = []
    var finished = false
    let three = numbers.zip(words, flags).sink(
      receiveCompletion: { _ in finished = true },
      receiveValue: { triples.append("\($0.0)\($0.1)\($0.2)") })
    numbers.send(1)
    numbers.send(2)
    words.send("a")
    #expect(triples.isEmpty, "no triple before each has a value")
    flags.send(true)
    words.send("b")
    flags.send(false)
    #expect(triples == ["1atrue", "2bfalse"])
    words.send(completion: .finished)
    #expect(finished, "words finished with all its values used")
    _ = three

    let four = Just(1).zip(Just("x"), Just(2.5), Just(7)).map { "\($0)\($1)\($2)\($3)" }
    var quadruples: [String] = []
    let cancellable = four.sink { quadruples.append($0) }
    #expect(quadruples == ["1x2.57"], "each Just gives one value, so one quadruple")
    _ = cancellable
  }
}
