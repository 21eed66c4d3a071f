/// A set of packed 2-D grid cells (``PlaneCells/key(_:_:)``): an anchor's occupied cells. Open
/// addressing with linear probing, at most half full, and no removal (an anchor's support only grows).
///
/// `Set<Int64>` hashes every key with the standard library's seeded SipHash, which costs more than the
/// rest of a lookup; growth asks a track for up to nine cells per voxel and every frame, so the keys
/// here are mixed by one multiplication (Fibonacci hashing). Iteration order is unspecified (as a
/// `Set`'s, which differs between runs); nothing that uses it depends on it.
struct PlaneCellSet: Sequence {
  /// The keys, ``empty`` where a bucket is free.
  private var buckets: [Int64]
  private var shift: UInt64
  /// Whether the set holds ``empty`` itself (cell `(−2³¹, 0)`), which no bucket can.
  private var holdsEmpty = false
  /// The number of cells.
  private(set) var count = 0

  /// The free-bucket marker.
  private static let empty = Int64.min

  /// An empty set that holds `minimumCapacity` cells before it first grows.
  init(minimumCapacity: Int = 0) {
    let log2Count = PlaneCells.log2BucketCount(holding: minimumCapacity)
    buckets = [Int64](repeating: Self.empty, count: 1 << log2Count)
    shift = UInt64(64 - log2Count)
  }

  /// The set of `keys`.
  init(_ keys: some Collection<Int64>) {
    self.init(minimumCapacity: keys.count)
    for key in keys { insert(key) }
  }

  /// Makes room for `minimumCapacity` cells in all before the set next grows.
  ///
  /// Adding the cells of another set (which come in the order of their hashes) calls for it: into a
  /// smaller table they would pile up in one run of occupied buckets, and each insertion would walk it.
  mutating func reserveCapacity(_ minimumCapacity: Int) {
    while buckets.count < 2 * minimumCapacity { grow() }
  }

  /// Whether the set is empty.
  var isEmpty: Bool { count == 0 }

  @inline(__always)
  private func bucket(_ key: Int64) -> Int { PlaneCells.bucket(key, shift: shift) }

  /// Whether `key` is in the set.
  @inline(__always)
  func contains(_ key: Int64) -> Bool {
    if key == Self.empty { return holdsEmpty }
    return buckets.withUnsafeBufferPointer { buckets in
      let mask = buckets.count - 1
      var b = bucket(key)
      while true {
        let entry = buckets[b]
        if entry == key { return true }
        if entry == Self.empty { return false }
        b = (b + 1) & mask
      }
    }
  }

  /// Adds `key`; true when it was not in the set.
  @discardableResult
  mutating func insert(_ key: Int64) -> Bool {
    if key == Self.empty {
      guard !holdsEmpty else { return false }
      holdsEmpty = true
      count += 1
      return true
    }
    let mask = buckets.count - 1
    var b = bucket(key)
    while true {
      let entry = buckets[b]
      if entry == key { return false }
      if entry == Self.empty { break }
      b = (b + 1) & mask
    }
    if 2 * (count + 1) > buckets.count {
      grow()
      b = bucket(key)
      let mask = buckets.count - 1
      while buckets[b] != Self.empty { b = (b + 1) & mask }
    }
    buckets[b] = key
    count += 1
    return true
  }

  private mutating func grow() {
    let old = buckets
    buckets = [Int64](repeating: Self.empty, count: 2 * old.count)
    shift -= 1
    let mask = buckets.count - 1
    for key in old where key != Self.empty {
      var b = bucket(key)
      while buckets[b] != Self.empty { b = (b + 1) & mask }
      buckets[b] = key
    }
  }

  /// The cells, in no particular order.
  struct Iterator: IteratorProtocol {
    fileprivate let buckets: [Int64]
    fileprivate var index = 0
    fileprivate var pendingEmpty: Bool

    mutating func next() -> Int64? {
      while index < buckets.count {
        let key = buckets[index]
        index += 1
        if key != PlaneCellSet.empty { return key }
      }
      if pendingEmpty {
        pendingEmpty = false
        return PlaneCellSet.empty
      }
      return nil
    }
  }

  func makeIterator() -> Iterator { Iterator(buckets: buckets, pendingEmpty: holdsEmpty) }

  var underestimatedCount: Int { count }
}

extension PlaneCells {
  /// The log₂ of the bucket count of a table of cells that holds `minimumCapacity` of them at most
  /// half full (at least 16 buckets).
  static func log2BucketCount(holding minimumCapacity: Int) -> Int {
    var log2Count = 4
    while (1 << log2Count) < 2 * minimumCapacity { log2Count += 1 }
    return log2Count
  }

  /// The bucket of cell key `key` in a table of `2^(64 − shift)` buckets (Fibonacci hashing: one
  /// multiplication, the product's top bits).
  @inline(__always)
  static func bucket(_ key: Int64, shift: UInt64) -> Int {
    let k = UInt64(bitPattern: key)
    // Fold the x half onto the y half first, so that both reach the product's top bits.
    return Int(truncatingIfNeeded: ((k ^ (k >> 32)) &* 0x9E37_79B9_7F4A_7C15) >> shift)
  }
}

/// A map from packed 2-D grid cells (``PlaneCells/key(_:_:)``) to small non-negative numbers (a cell's
/// index in a list): the segmentation's cells of a plane's inliers and the regions that hold them. Open
/// addressing with linear probing, at most half full, no removal.
///
/// Not a `Dictionary<Int64, Int>`, whose seeded SipHash of every key costs more than the rest of a
/// lookup: the split into regions looks up each inlier's cell and each cell's eight neighbours, so the
/// hashing would be a noticeable share of the plane stage. Nothing iterates it.
struct PlaneCellIndex {
  /// The keys (``empty`` where a bucket is free) and, beside each, its value.
  private var keys: [Int64]
  private var values: [Int32]
  private var shift: UInt64
  /// The value of ``empty`` itself (cell `(−2³¹, 0)`), which no bucket can hold; −1 for none.
  private var valueOfEmpty: Int32 = -1
  /// The number of cells.
  private(set) var count = 0

  /// The free-bucket marker.
  private static let empty = Int64.min

  /// An empty map that holds `minimumCapacity` cells before it first grows.
  init(minimumCapacity: Int = 0) {
    let log2Count = PlaneCells.log2BucketCount(holding: minimumCapacity)
    keys = [Int64](repeating: Self.empty, count: 1 << log2Count)
    values = [Int32](repeating: 0, count: 1 << log2Count)
    shift = UInt64(64 - log2Count)
  }

  /// The value of `key`, nil when it has none.
  @inline(__always)
  subscript(key: Int64) -> Int? {
    if key == Self.empty { return valueOfEmpty >= 0 ? Int(valueOfEmpty) : nil }
    return keys.withUnsafeBufferPointer { keys in
      let mask = keys.count - 1
      var b = PlaneCells.bucket(key, shift: shift)
      while true {
        let entry = keys[b]
        if entry == key { return Int(values[b]) }
        if entry == Self.empty { return nil }
        b = (b + 1) & mask
      }
    }
  }

  /// Gives `key` the value `value` (in `0..<2³¹`), replacing any it had.
  mutating func set(_ key: Int64, _ value: Int) {
    let stored = Int32(value)
    if key == Self.empty {
      if valueOfEmpty < 0 { count += 1 }
      valueOfEmpty = stored
      return
    }
    if 2 * (count + 1) > keys.count { grow() }
    let mask = keys.count - 1
    var b = PlaneCells.bucket(key, shift: shift)
    while keys[b] != Self.empty && keys[b] != key { b = (b + 1) & mask }
    if keys[b] == Self.empty { count += 1 }
    keys[b] = key
    values[b] = stored
  }

  private mutating func grow() {
    let (oldKeys, oldValues) = (keys, values)
    keys = [Int64](repeating: Self.empty, count: 2 * oldKeys.count)
    values = [Int32](repeating: 0, count: 2 * oldKeys.count)
    shift -= 1
    let mask = keys.count - 1
    for (key, value) in zip(oldKeys, oldValues) where key != Self.empty {
      var b = PlaneCells.bucket(key, shift: shift)
      while keys[b] != Self.empty { b = (b + 1) & mask }
      keys[b] = key
      values[b] = value
    }
  }
}

/// Counts per integer key over a contiguous range of keys (a histogram of cell columns or rows), stored
/// densely from the lowest key counted: counting is an index, and the keys come out in order without
/// sorting.
struct PlaneCountLine {
  /// The key of `counts[0]`.
  private(set) var lowest: Int64 = 0
  /// The count of each key from `lowest` on; the last one is never 0 unless set so.
  private(set) var counts: [Int] = []
  /// The sum of the counts.
  private(set) var total = 0

  /// No counts.
  init() {}

  /// The counts of `keys` (each occurrence counts 1): the line that adding them one by one gives, its
  /// range found first and its storage allocated once.
  init(counting keys: [Int64]) {
    guard let low = keys.min(), let high = keys.max() else { return }
    lowest = low
    counts = [Int](repeating: 0, count: Int(high - low) + 1)
    counts.withUnsafeMutableBufferPointer { counts in
      for key in keys { counts[Int(key - low)] += 1 }
    }
    total = keys.count
  }

  /// Whether no key has been counted.
  var isEmpty: Bool { counts.isEmpty }

  /// The highest key counted; nil when none.
  var highest: Int64? { counts.isEmpty ? nil : lowest + Int64(counts.count - 1) }

  /// Adds `count` to `key`'s count, extending the range to `key`. (Inlined: a key within the range,
  /// the common case, is an index and two additions.)
  @inline(__always)
  mutating func add(_ count: Int = 1, at key: Int64) {
    let (offset, overflow) = key.subtractingReportingOverflow(lowest)
    if !overflow && offset >= 0 && offset < Int64(counts.count) {
      counts[Int(offset)] += count
      total += count
      return
    }
    extend(adding: count, at: key)
  }

  /// ``add(_:at:)`` for a key outside the range (or the first key).
  @inline(never)
  private mutating func extend(adding count: Int, at key: Int64) {
    if counts.isEmpty {
      lowest = key
      counts = [0]
    } else if key < lowest {
      counts.insert(contentsOf: repeatElement(0, count: Int(lowest - key)), at: 0)
      lowest = key
    } else if key - lowest >= Int64(counts.count) {
      counts.append(contentsOf: repeatElement(0, count: Int(key - lowest) - counts.count + 1))
    }
    counts[Int(key - lowest)] += count
    total += count
  }
}

/// Packed integer cell coordinates of the 2-D grids on planes.
enum PlaneCells {
  /// `x` rounded down, as `Int64(x.rounded(.down))` (the same value, and the same trap for NaN or a value
  /// out of range), without the call to the C library's `floor` that x86-64 without SSE 4.1 makes.
  @inline(__always)
  static func floor(_ x: Double) -> Int64 {
    let truncated = Int64(x)
    // `&-` cannot wrap: a truncated value above `x` is above −2⁶³.
    return Double(truncated) > x ? truncated &- 1 : truncated
  }

  /// The key of cell `(x, y)` (each within ±2³¹).
  @inline(__always)
  static func key(_ x: Int64, _ y: Int64) -> Int64 {
    (x &<< 32) | (y & 0xFFFF_FFFF)
  }

  /// The cell `(x, y)` of a key (``key(_:_:)``'s inverse).
  @inline(__always)
  static func components(_ key: Int64) -> (Int64, Int64) {
    (key >> 32, Int64(Int32(truncatingIfNeeded: key)))
  }
}
