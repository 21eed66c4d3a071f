/// A keyframe's words for place recognition's shortlist (``Relocalizer``): multi-table
/// locality-sensitive hashing of its ORB descriptors by bit sampling. Table `t`'s word of a descriptor
/// is its 16 bits `16t ..< 16t + 16`; two descriptors of one scene point (Hamming distance ~30 of 256)
/// share a table's word with probability ~0.13 (0.88^16), unrelated ones with ~1/65 536, so over
/// ``tables`` tables a keyframe with 100 true matches shares ~100 words with an 800-feature frame
/// against ~50 shared by chance (800 x 500 x 8 / 65 536) with any keyframe.
///
/// Why this and not a bag of words with a trained vocabulary (DBoW2's k-majority tree): ORB's tests
/// were chosen for high variance and low correlation (rBRIEF), so its bits are already nearly
/// balanced, independent hash bits and a fixed slice of them needs no training data, no vocabulary
/// file and no retraining as the map grows; the words are a function of the descriptors alone, so a
/// world map's keyframes get theirs on load (nothing is added to the archive) and the shortlist is
/// deterministic. The first 128 bits are taken: OpenCV's ORB pattern lists its tests in the order
/// they were selected, the most discriminative first.
///
/// The words only shortlist keyframes; the shortlisted ones are matched in full (cross-checked
/// Hamming) and ranked by those matches as before, so the shortlist costs accuracy only when the
/// keyframe brute force would rank first is not on it.
struct PlaceWords: Sendable {
  /// Tables (16-bit words per descriptor).
  static let tables = 8
  /// The keyframe's distinct words, each `table << 16 | word`, ascending. Distinct, so that a
  /// pattern many of its descriptors share (a repeated texture) counts once per table.
  let words: [UInt32]

  init(_ descriptors: [ORBDescriptor]) {
    var words: [UInt32] = []
    words.reserveCapacity(descriptors.count * Self.tables)
    for descriptor in descriptors {
      for table in 0..<Self.tables { words.append(Self.word(descriptor, table: table)) }
    }
    words.sort()
    var distinct: [UInt32] = []
    distinct.reserveCapacity(words.count)
    for word in words where word != distinct.last { distinct.append(word) }
    self.words = distinct
  }

  /// Table `table`'s word of `descriptor`, with the table in the upper 16 bits.
  static func word(_ descriptor: ORBDescriptor, table: Int) -> UInt32 {
    let chunk = UInt32(truncatingIfNeeded: descriptor.words[table / 4] >> UInt64(16 * (table % 4))) & 0xFFFF
    return UInt32(table) << 16 | chunk
  }
}

/// A frame's words (``PlaceWords``) as a bit set over every table's 65 536 words (64 KiB), against
/// which a keyframe is scored by one lookup per keyframe word: 40 keyframes of 500 features are
/// 160 000 lookups, against 40 x 800 x 500 x 2 Hamming distances for matching the frame's
/// descriptors against each of them (cross-checked).
struct PlaceQuery {
  private var bits: [UInt64]

  init(_ descriptors: [ORBDescriptor]) {
    bits = [UInt64](repeating: 0, count: PlaceWords.tables << 10)
    for descriptor in descriptors {
      for table in 0..<PlaceWords.tables {
        let word = Int(PlaceWords.word(descriptor, table: table))
        bits[word >> 6] |= 1 << UInt64(word & 63)
      }
    }
  }

  /// How many of the keyframe's distinct words the frame has too.
  func score(_ keyframe: PlaceWords) -> Int {
    bits.withUnsafeBufferPointer { bits in
      var shared = 0
      for word in keyframe.words {
        shared += Int((bits[Int(word >> 6)] >> UInt64(word & 63)) & 1)
      }
      return shared
    }
  }
}
