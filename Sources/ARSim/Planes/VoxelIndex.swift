/// A hash index from packed voxel coordinates (``PlaneVoxelMap/key(of:)``: 21 bits per axis) to slots:
/// open addressing with linear probing, at most half full, and backward-shift deletion (Knuth, TAOCP
/// vol. 3, 6.4, algorithm R), so that no tombstones accumulate as the map evicts voxels.
///
/// The plane detector looks up every depth point of every frame here, and the lookups are bound by
/// cache misses. So the hash keeps space together: a block of 4×4×4 voxels hashes (Fibonacci hashing)
/// to a run of 64 buckets and each voxel of the block to its own bucket in the run; the points of a
/// frame, sampled along image rows over surfaces, then find their voxels in a few cache lines. Only
/// lookups go through the index: which slot a voxel gets does not depend on it, so results are the same
/// as with any other map.
package struct VoxelIndex {
  /// A bucket: the key (``empty`` when free) and its slot, side by side so one cache line holds both.
  private struct Bucket {
    var key: Int64
    var slot: Int32
  }

  private var buckets: [Bucket]
  private var shift: UInt64
  package private(set) var count = 0

  /// A key that no voxel has: packed coordinates are non-negative.
  private static let empty: Int64 = -1

  /// An empty index that holds `minimumCapacity` keys before it first grows (at least 512).
  package init(minimumCapacity: Int = 0) {
    var log2Count = 10
    while (1 << log2Count) < 2 * minimumCapacity { log2Count += 1 }
    buckets = [Bucket](repeating: Bucket(key: Self.empty, slot: 0), count: 1 << log2Count)
    shift = UInt64(64 - log2Count)
  }

  @inline(__always)
  private func bucket(_ key: Int64) -> Int {
    let k = UInt64(bitPattern: key)
    // Bits 0-1, 21-22 and 42-43 are the voxel's place in its block; the rest name the block.
    let lowMask: UInt64 = (3 << 42) | (3 << 21) | 3
    let block = k & ~lowMask
    let local = ((k >> 38) & 0b11_0000) | ((k >> 19) & 0b1100) | (k & 0b11)
    // The top bits of the block's hash pick its run; the six below them permute the voxels within it
    // (an exclusive or, which keeps each group of four buckets, one cache line, together). Without it,
    // blocks of one flat surface that share a run (a floor's, all at the same place in their blocks)
    // would all claim the same buckets and probe past each other.
    let hash = (block &* 0x9E37_79B9_7F4A_7C15) &>> shift
    return Int(truncatingIfNeeded: hash ^ local)
  }

  /// The slot stored for `key`, or nil.
  @inline(__always)
  package func slot(of key: Int64) -> Int32? { probe(key).slot }

  /// The slot stored for `key` and its bucket, or nil and the free bucket that ends its probe run.
  @inline(__always)
  private func probe(_ key: Int64) -> (slot: Int32?, bucket: Int) {
    buckets.withUnsafeBufferPointer { buckets in
      let mask = buckets.count - 1
      var b = bucket(key)
      while true {
        let entry = buckets[b]
        if entry.key == key { return (entry.slot, b) }
        if entry.key == Self.empty { return (nil, b) }
        b = (b + 1) & mask
      }
    }
  }

  /// The slot stored for `key`; when there is none, stores `slot` for it and returns nil: a lookup and,
  /// on a miss, ``insert(_:slot:)``, in one probe of the buckets.
  @inline(__always)
  package mutating func slot(of key: Int64, insertingIfAbsent slot: Int32) -> Int32? {
    let (found, free) = probe(key)
    if let found { return found }
    guard 2 * (count + 1) <= buckets.count else {
      insert(key, slot: slot)  // grows first, then probes the new buckets
      return nil
    }
    buckets[free] = Bucket(key: key, slot: slot)
    count += 1
    return nil
  }

  /// Stores `slot` for `key`, which must not be in the index.
  package mutating func insert(_ key: Int64, slot: Int32) {
    if 2 * (count + 1) > buckets.count { grow() }
    let mask = buckets.count - 1
    var b = bucket(key)
    while buckets[b].key != Self.empty { b = (b + 1) & mask }
    buckets[b] = Bucket(key: key, slot: slot)
    count += 1
  }

  /// Removes `key` if present, shifting later members of its probe run back so lookups stay correct.
  package mutating func remove(_ key: Int64) {
    let mask = buckets.count - 1
    var hole = bucket(key)
    while buckets[hole].key != key {
      if buckets[hole].key == Self.empty { return }
      hole = (hole + 1) & mask
    }
    var next = (hole + 1) & mask
    while buckets[next].key != Self.empty {
      let home = bucket(buckets[next].key)
      // Move the entry at `next` into the hole unless its home lies cyclically in (hole, next].
      if (next - home) & mask >= (next - hole) & mask {
        buckets[hole] = buckets[next]
        hole = next
      }
      next = (next + 1) & mask
    }
    buckets[hole].key = Self.empty
    count -= 1
  }

  private mutating func grow() {
    let old = buckets
    buckets = [Bucket](repeating: Bucket(key: Self.empty, slot: 0), count: 2 * old.count)
    shift -= 1
    count = 0
    for entry in old where entry.key != Self.empty { insert(entry.key, slot: entry.slot) }
  }
}
