import ARSim
import Testing

@Suite("Voxel index")
struct VoxelIndexTests {
  /// Packed voxel coordinates as `PlaneVoxelMap` makes them: 21 bits per axis.
  private func key(_ x: Int64, _ y: Int64, _ z: Int64) -> Int64 {
    let offset: Int64 = 1 << 20
    return ((x + offset) << 42) | ((y + offset) << 21) | (z + offset)
  }

  @Test("Agrees with a dictionary through inserts, lookups and removals, across growth")
  func matchesADictionary() {
    var index = VoxelIndex()
    var reference: [Int64: Int32] = [:]
    var random = SplitMix64(seed: 11)
    // Voxels of a few planes and a cloud, clustered the way surfaces fill blocks of the index.
    for step in 0..<40_000 {
      let k: Int64
      if step % 3 == 0 {
        k = key(Int64(random.next() % 200) - 100, Int64(random.next() % 4), Int64(random.next() % 200) - 100)
      } else {
        k = key(Int64(random.next() % 60) - 30, Int64(random.next() % 60) - 30, 7)
      }
      if reference[k] == nil {
        if random.next() % 4 != 0 {
          let slot = Int32(step)
          index.insert(k, slot: slot)
          reference[k] = slot
        }
      } else if random.next() % 2 == 0 {
        index.remove(k)
        reference[k] = nil
      }
      #expect(index.slot(of: k) == reference[k])
    }
    #expect(index.count == reference.count)
    #expect(reference.allSatisfy { index.slot(of: $0.key) == $0.value })
    // Removing everything leaves an empty index that still answers.
    for k in reference.keys { index.remove(k) }
    #expect(index.count == 0)
    #expect(reference.keys.allSatisfy { index.slot(of: $0) == nil })
    index.remove(key(1, 2, 3))
    #expect(index.count == 0)
  }

  @Test("A lookup that inserts on a miss agrees with a dictionary, across growth and removals")
  func lookupOrInsertMatchesADictionary() {
    var index = VoxelIndex()
    var reference: [Int64: Int32] = [:]
    var random = SplitMix64(seed: 12)
    for step in 0..<30_000 {
      let k = key(Int64(random.next() % 80) - 40, Int64(random.next() % 3), Int64(random.next() % 80) - 40)
      let slot = Int32(step)
      if let stored = reference[k], random.next() % 3 == 0 {
        index.remove(k)
        reference[k] = nil
        #expect(index.slot(of: k) == nil, "removed \(stored)")
        continue
      }
      // A hit returns the stored slot and leaves it; a miss stores `slot`.
      #expect(index.slot(of: k, insertingIfAbsent: slot) == reference[k])
      if reference[k] == nil { reference[k] = slot }
      #expect(index.slot(of: k) == reference[k])
    }
    #expect(index.count == reference.count)
    #expect(reference.allSatisfy { index.slot(of: $0.key) == $0.value })
  }
}
