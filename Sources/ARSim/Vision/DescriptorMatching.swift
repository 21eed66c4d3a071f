internal import CVision

/// A correspondence between two descriptor lists.
package struct DescriptorMatch: Sendable, Equatable {
  /// Index in the first list.
  package var a: Int
  /// Index in the second list.
  package var b: Int
  /// Hamming distance in bits (0...256).
  package var distance: Int

  /// Creates a match.
  package init(a: Int, b: Int, distance: Int) {
    self.a = a
    self.b = b
    self.distance = distance
  }
}

/// Brute-force matching of ORB descriptors by Hamming distance.
package enum DescriptorMatcher {
  /// Matches each descriptor of `a` to its nearest neighbour in `b`.
  ///
  /// A match is kept when its distance is at most `maxDistance` bits, it passes Lowe's ratio
  /// test (best < `ratio` * second best; `ratio` in (0, 1], 1 disables the test) and, when
  /// `crossCheck` is true, `a` is also the nearest neighbour of its match in `b`. Ties go to
  /// the lower index. The result is sorted by index in `a`.
  package static func match(
    _ a: [ORBDescriptor], _ b: [ORBDescriptor], maxDistance: Int = 64, ratio: Float = 0.8,
    crossCheck: Bool = true
  ) throws(VisionError) -> [DescriptorMatch] {
    let countA = try VisionError.int32(a.count, "a.count")
    let countB = try VisionError.int32(b.count, "b.count")
    let cMaxDistance = try VisionError.int32(maxDistance, "maxDistance")
    let bytesA = packedBytes(a)
    let bytesB = packedBytes(b)
    var pairs = [Int32](repeating: 0, count: 2 * a.count)
    var distances = [Int32](repeating: 0, count: a.count)
    var count: Int32 = 0
    var status = cv_status()
    let code = bytesA.withUnsafeBufferPointer { bufferA in
      bytesB.withUnsafeBufferPointer { bufferB in
        pairs.withUnsafeMutableBufferPointer { pairBuffer in
          distances.withUnsafeMutableBufferPointer { distanceBuffer in
            cv_match_descriptors(
              bufferA.baseAddress, countA, bufferB.baseAddress, countB, cMaxDistance, ratio,
              crossCheck ? 1 : 0,
              pairBuffer.baseAddress, distanceBuffer.baseAddress, countA, &count, &status)
          }
        }
      }
    }
    try VisionError.check(code, status)
    return (0..<Int(count)).map {
      DescriptorMatch(a: Int(pairs[2 * $0]), b: Int(pairs[2 * $0 + 1]), distance: Int(distances[$0]))
    }
  }
}

/// The descriptors' bytes (``ORBDescriptor/bytes``) one after the other. On a little-endian machine
/// that is the array's own memory, copied at once: relocalisation matches a frame's 800 descriptors
/// against several keyframes' per frame, and building each descriptor's byte array cost as much as
/// the matching itself.
private func packedBytes(_ descriptors: [ORBDescriptor]) -> [UInt8] {
  guard MemoryLayout<ORBDescriptor>.stride == 32, UInt64(1).littleEndian == 1 else {
    return descriptors.flatMap(\.bytes)
  }
  return descriptors.withUnsafeBytes { Array($0) }
}
