import Testing

@testable import ARSim

@Suite("Plane cell set and count line")
struct PlaneCellSetTests {
  /// The key of step `step` of a random walk through cells: mostly cells of a support around the
  /// origin (negative coordinates too), some far ones, and now and then the key that marks a free
  /// bucket (cell (−2³¹, 0)).
  private static func randomKey(_ step: Int, _ random: inout SplitMix64) -> Int64 {
    switch step % 5 {
    case 0: PlaneCells.key(Int64(random.next() % 2_000_000) - 1_000_000, Int64(random.next() % 7))
    case 1 where step % 1000 == 1: PlaneCells.key(Int64(Int32.min), 0)
    default: PlaneCells.key(Int64(random.next() % 80) - 40, Int64(random.next() % 80) - 40)
    }
  }

  @Test("The cell set agrees with a Set through inserts and lookups, across growth")
  func cellSetMatchesASet() {
    var cells = PlaneCellSet()
    var reference = Set<Int64>()
    var random = SplitMix64(seed: 5)
    for step in 0..<20_000 {
      let key = Self.randomKey(step, &random)
      #expect(cells.insert(key) == reference.insert(key).inserted)
      #expect(cells.count == reference.count)
      let probe = PlaneCells.key(Int64(random.next() % 100) - 50, Int64(random.next() % 100) - 50)
      #expect(cells.contains(probe) == reference.contains(probe))
    }
    #expect(cells.contains(Int64.min))
    #expect(reference.allSatisfy { cells.contains($0) })
    // Iteration gives each cell once.
    let listed = Array(cells)
    #expect(listed.count == reference.count)
    #expect(Set(listed) == reference)
    #expect(PlaneCellSet(listed).count == reference.count)
    #expect(PlaneCellSet().isEmpty && Array(PlaneCellSet()).isEmpty)
  }

  @Test("The cell index agrees with a Dictionary through sets, overwrites and lookups, across growth")
  func cellIndexMatchesADictionary() {
    var random = SplitMix64(seed: 11)
    for _ in 0..<20 {
      var index = PlaneCellIndex(minimumCapacity: Int(random.next() % 64))
      var reference: [Int64: Int] = [:]
      for step in 0..<3000 {
        let key = Self.randomKey(step, &random)
        if random.next() % 3 == 0 {
          let value = Int(random.next() % 100_000)
          index.set(key, value)
          reference[key] = value
        }
        #expect(index[key] == reference[key])
        #expect(index.count == reference.count)
        let probe = PlaneCells.key(Int64(random.next() % 80) - 40, Int64(random.next() % 80) - 40)
        #expect(index[probe] == reference[probe])
      }
      #expect(reference.allSatisfy { index[$0.key] == $0.value })
    }
  }

  @Test("The count line holds a dictionary's counts in key order, extending both ways")
  func countLineMatchesADictionary() {
    var line = PlaneCountLine()
    var reference: [Int64: Int] = [:]
    #expect(line.isEmpty && line.highest == nil && line.total == 0)
    for key: Int64 in [5, 3, 9, -4, 5, 0, 12, -4, 5] {
      line.add(at: key)
      reference[key, default: 0] += 1
    }
    #expect(line.lowest == -4 && line.highest == 12)
    #expect(line.total == 9)
    for key in Int64(-4)...12 { #expect(line.counts[Int(key - line.lowest)] == reference[key] ?? 0) }
    let span = PlaneTrack.robustSpan(line, cellSize: 0.02)
    let expected = Self.sortedSpan(reference, cellSize: 0.02)
    #expect(span != nil && span?.low == expected?.low && span?.high == expected?.high)
  }

  @Test("The robust span of a count line is, bit for bit, that of the sorted counts")
  func robustSpanMatchesSortedCounts() {
    var random = SplitMix64(seed: 17)
    for _ in 0..<200 {
      var line = PlaneCountLine()
      var reference: [Int64: Int] = [:]
      let base = Int64(random.next() % 400) - 200
      for _ in 0..<(1 + Int(random.next() % 300)) {
        let key = base + Int64(random.next() % 150)
        line.add(at: key)
        reference[key, default: 0] += 1
      }
      let span = PlaneTrack.robustSpan(line, cellSize: PlaneTrack.extentCellSize)
      let expected = Self.sortedSpan(reference, cellSize: PlaneTrack.extentCellSize)
      #expect(span?.low == expected?.low && span?.high == expected?.high)
    }
  }

  /// The robust span as it was computed before the count line: the dictionary's bins sorted by key.
  private static func sortedSpan(_ counts: [Int64: Int], cellSize: Double, tail: Double = 0.02) -> (
    low: Double, high: Double
  )? {
    let bins = counts.sorted { $0.key < $1.key }
    let total = Double(bins.reduce(0) { $0 + $1.value })
    guard total > 0, let last = bins.last else { return nil }
    func quantile(_ q: Double) -> Double {
      let target = q * total
      var before = 0.0
      for (key, count) in bins where count > 0 {
        let n = Double(count)
        if before + n >= target { return (Double(key) + (target - before) / n) * cellSize }
        before += n
      }
      return Double(last.key + 1) * cellSize
    }
    let (low, high) = (quantile(tail), quantile(1 - tail))
    let margin = (high - low) * tail / (1 - 2 * tail)
    return (low - margin, high + margin)
  }
}
