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
  /// Keys of the table; `empty` marks a free bucket.
  private var keys: [Int64]
  private var slots: [Int32]
  private var shift: UInt64
  package private(set) var count = 0

  /// A key that no voxel has: packed coordinates are non-negative.
  private static let empty: Int64 = -1

  package init() {
    keys = [Int64](repeating: Self.empty, count: 1024)
    slots = [Int32](repeating: 0, count: 1024)
    shift = 64 - 10
  }

  @inline(__always)
  private func bucket(_ key: Int64) -> Int {
    let k = UInt64(bitPattern: key)
    // Bits 0-1, 21-22 and 42-43 are the voxel's place in its block; the rest name the block.
    let lowMask: UInt64 = (3 << 42) | (3 << 21) | 3
    let block = k & ~lowMask
    let local = ((k >> 38) & 0b11_0000) | ((k >> 19) & 0b1100) | (k & 0b11)
    let run = (block &* 0x9E37_79B9_7F4A_7C15) >> (shift + 6)
    return Int(truncatingIfNeeded: (run << 6) | local)
  }

  /// The slot stored for `key`, or nil.
  @inline(__always)
  package func slot(of key: Int64) -> Int32? {
    keys.withUnsafeBufferPointer { keys in
      let mask = keys.count - 1
      var b = bucket(key)
      while true {
        let k = keys[b]
        if k == key { return slots[b] }
        if k == Self.empty { return nil }
        b = (b + 1) & mask
      }
    }
  }

  /// Stores `slot` for `key`, which must not be in the index.
  package mutating func insert(_ key: Int64, slot: Int32) {
    if 2 * (count + 1) > keys.count { grow() }
    let mask = keys.count - 1
    var b = bucket(key)
    while keys[b] != Self.empty { b = (b + 1) & mask }
    keys[b] = key
    slots[b] = slot
    count += 1
  }

  /// Removes `key` if present, shifting later members of its probe run back so lookups stay correct.
  package mutating func remove(_ key: Int64) {
    let mask = keys.count - 1
    var hole = bucket(key)
    while keys[hole] != key {
      if keys[hole] == Self.empty { return }
      hole = (hole + 1) & mask
    }
    var next = (hole + 1) & mask
    while keys[next] != Self.empty {
      let home = bucket(keys[next])
      // Move the entry at `next` into the hole unless its home lies cyclically in (hole, next].
      if (next - home) & mask >= (next - hole) & mask {
        keys[hole] = keys[next]
        slots[hole] = slots[next]
        hole = next
      }
      next = (next + 1) & mask
    }
    keys[hole] = Self.empty
    count -= 1
  }

  private mutating func grow() {
    let (oldKeys, oldSlots) = (keys, slots)
    keys = [Int64](repeating: Self.empty, count: 2 * oldKeys.count)
    slots = [Int32](repeating: 0, count: 2 * oldKeys.count)
    shift -= 1
    count = 0
    for (key, slot) in zip(oldKeys, oldSlots) where key != Self.empty { insert(key, slot: slot) }
  }
}
