/// Decoding of Apple's LZFSE streams (`COMPRESSION_LZFSE`; what Record3D stores depth and
/// confidence in), written from Apple's published description of the format.
///
/// A stream is a sequence of blocks, each starting with a 4-byte magic: `bvx2` (LZFSE with
/// entropy-coded frequency tables), `bvx1` (LZFSE with plain tables), `bvxn` (LZVN), `bvx-`
/// (stored bytes), and `bvx$` (end of stream). Matches may reach back into earlier blocks.
/// Every length, distance and table is checked: corrupt or truncated data gives an
/// ``LZFSEError``, never a crash or bytes made up.
public enum LZFSE {
  private static let endOfStream: UInt32 = 0x2478_7662  // bvx$
  private static let stored: UInt32 = 0x2d78_7662  // bvx-
  private static let lzfseV1: UInt32 = 0x3178_7662  // bvx1
  private static let lzfseV2: UInt32 = 0x3278_7662  // bvx2
  private static let lzvn: UInt32 = 0x6e78_7662  // bvxn
  /// Bytes of a `bvx1` header: the C struct of the reference implementation (770 bytes of
  /// fields, padded to its 4-byte alignment).
  static let v1HeaderSize = 772

  /// Decodes a whole LZFSE stream.
  /// - Parameter maxSize: the most bytes the output may have (a guard against corrupt sizes);
  ///   default 1 GiB.
  /// - Throws: ``LZFSEError`` with the offset of the block at fault.
  public static func decode(_ data: [UInt8], maxSize: Int = 1 << 30) throws(LZFSEError) -> [UInt8] {
    var output: [UInt8] = []
    try data.withUnsafeBufferPointer { (source) throws(LZFSEError) in
      var position = 0
      while true {
        guard position + 4 <= source.count else {
          throw LZFSEError(offset: position, "truncated: the stream ends without an end-of-stream block")
        }
        let magic = UInt32(load(source, position, 4))
        if magic == endOfStream { return }
        guard [stored, lzvn, lzfseV1, lzfseV2].contains(magic) else {
          throw LZFSEError(offset: position, "unknown block magic 0x\(String(magic, radix: 16))")
        }
        guard position + 12 <= source.count else {
          throw LZFSEError(offset: position, "truncated block header")
        }
        let rawCount = Int(load(source, position + 4, 4))
        let base = output.count
        guard rawCount <= maxSize - base else {
          throw LZFSEError(offset: position, "block of \(rawCount) bytes exceeds the \(maxSize)-byte limit")
        }
        output.append(contentsOf: repeatElement(0, count: rawCount))
        position = try output.withUnsafeMutableBufferPointer { (target) throws(LZFSEError) in
          let block = Block(source: source, start: position, target: target, base: base, end: base + rawCount)
          switch magic {
          case stored: return try block.decodeStored()
          case lzvn: return try block.decodeLZVN()
          default: return try block.decodeLZFSE(v2: magic == lzfseV2)
          }
        }
      }
    }
    return output
  }

  /// Encodes `bytes` as a valid LZFSE stream without compressing: stored blocks (`bvx-`, at most
  /// 1 MiB each) and the end-of-stream block. Every LZFSE decoder reads it (Apple's included);
  /// what ARSim writes where a format asks for LZFSE (Record3D's `.r3d` depth and confidence).
  public static func encodeStored(_ bytes: [UInt8]) -> [UInt8] {
    let blockSize = 1 << 20
    var output: [UInt8] = []
    output.reserveCapacity(bytes.count + 8 * (bytes.count / blockSize + 1) + 4)
    func append(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { output.append(contentsOf: $0) } }
    var start = 0
    repeat {  // at least one block, empty for empty input, as Apple's encoder writes it
      let end = min(bytes.count, start + blockSize)
      append(stored)
      append(UInt32(end - start))
      output.append(contentsOf: bytes[start..<end])
      start = end
    } while start < bytes.count
    append(endOfStream)
    return output
  }

  /// Little-endian unsigned integer of `bytes` bytes at `position` (bounds checked by the caller).
  @inline(__always)
  static func load(_ data: UnsafeBufferPointer<UInt8>, _ position: Int, _ bytes: Int) -> UInt64 {
    var value: UInt64 = 0
    for i in 0..<bytes { value |= UInt64(data[position + i]) << UInt64(8 * i) }
    return value
  }
}

/// One block being decoded into `target[base..<end]`.
private struct Block {
  let source: UnsafeBufferPointer<UInt8>
  let start: Int
  let target: UnsafeMutableBufferPointer<UInt8>
  let base: Int
  let end: Int

  private func error(_ message: String) -> LZFSEError { LZFSEError(offset: start, message) }

  /// `bvx-`: n raw bytes follow the 8-byte header. Returns the position after the block.
  func decodeStored() throws(LZFSEError) -> Int {
    let first = start + 8
    guard end - base <= source.count - first else { throw error("stored block is truncated") }
    target.baseAddress!.advanced(by: base).update(
      from: source.baseAddress!.advanced(by: first), count: end - base)
    return first + end - base
  }

  // MARK: LZVN

  /// `bvxn`: raw size, payload size, then LZVN opcodes up to an end-of-stream opcode.
  func decodeLZVN() throws(LZFSEError) -> Int {
    let payloadCount = Int(LZFSE.load(source, start + 8, 4))
    var p = start + 12
    guard payloadCount <= source.count - p else { throw error("LZVN block is truncated") }
    let payloadEnd = p + payloadCount
    var out = base
    var distance = 0
    while true {
      guard p < payloadEnd else { throw error("LZVN payload ends without an end-of-stream opcode") }
      let op = Int(source[p])
      var literals = 0
      var match = 0
      var length = 1
      switch op {
      case 0x06:
        guard out == end else {
          throw error("LZVN block decodes to \(out - base) bytes, its header says \(end - base)")
        }
        return payloadEnd
      case 0x0e, 0x16:
        p += 1
        continue
      case 0x1e, 0x26, 0x2e, 0x36, 0x3e, 0x70...0x7f, 0xd0...0xdf:
        throw error("undefined LZVN opcode 0x\(String(op, radix: 16)) at byte \(p)")
      case 0xa0...0xbf:
        length = 3
        guard p + 3 <= payloadEnd else { break }
        let word = Int(LZFSE.load(source, p + 1, 2))
        literals = (op >> 3) & 3
        match = ((op & 7) << 2 | word & 3) + 3
        distance = word >> 2
      case 0xe0:
        length = 2
        guard p + 2 <= payloadEnd else { break }
        literals = Int(source[p + 1]) + 16
      case 0xe1...0xef: literals = op & 0xf
      case 0xf0:
        length = 2
        guard p + 2 <= payloadEnd else { break }
        match = Int(source[p + 1]) + 16
      case 0xf1...0xff: match = op & 0xf
      default:
        literals = op >> 6
        match = (op >> 3 & 7) + 3
        switch op & 7 {
        case 6: break
        case 7:
          length = 3
          guard p + 3 <= payloadEnd else { break }
          distance = Int(LZFSE.load(source, p + 1, 2))
        default:
          length = 2
          guard p + 2 <= payloadEnd else { break }
          distance = (op & 7) << 8 | Int(source[p + 1])
        }
      }
      guard p + length + literals <= payloadEnd else { throw error("LZVN payload is truncated at byte \(p)") }
      p += length
      guard out + literals + match <= end else {
        throw error("LZVN data runs past the block's \(end - base) bytes")
      }
      target.baseAddress!.advanced(by: out).update(from: source.baseAddress!.advanced(by: p), count: literals)
      p += literals
      out += literals
      if match > 0 {
        try copyMatch(at: out, distance: distance, count: match)
        out += match
      }
    }
  }

  @inline(__always)
  private func copyMatch(at out: Int, distance: Int, count: Int) throws(LZFSEError) {
    guard distance > 0, distance <= out else {
      throw error("match distance \(distance) reaches before the start of the data")
    }
    let p = target.baseAddress!
    if distance >= count {
      (p + out).update(from: p + out - distance, count: count)
    } else {
      for i in out..<out + count { p[i] = p[i - distance] }
    }
  }

  // MARK: LZFSE

  private struct Header {
    var literalCount = 0, matchCount = 0, literalPayload = 0, lmdPayload = 0
    var literalBits = 0, lmdBits = 0
    var literalStates = [0, 0, 0, 0]
    var lState = 0, mState = 0, dState = 0
    var frequencies: [UInt16] = []
    var size = 0
  }

  private func headerV1() throws(LZFSEError) -> Header {
    guard start + LZFSE.v1HeaderSize <= source.count else { throw error("LZFSE v1 header is truncated") }
    func u(_ offset: Int, _ bytes: Int) -> Int { Int(LZFSE.load(source, start + offset, bytes)) }
    func i32(_ offset: Int) -> Int { Int(Int32(truncatingIfNeeded: LZFSE.load(source, start + offset, 4))) }
    var h = Header()
    h.literalCount = u(12, 4)
    h.matchCount = u(16, 4)
    h.literalPayload = u(20, 4)
    h.lmdPayload = u(24, 4)
    h.literalBits = i32(28)
    h.literalStates = (0..<4).map { u(32 + 2 * $0, 2) }
    h.lmdBits = i32(40)
    h.lState = u(44, 2)
    h.mState = u(46, 2)
    h.dState = u(48, 2)
    h.frequencies = (0..<LZFSEFrequencies.count).map { UInt16(u(50 + 2 * $0, 2)) }
    h.size = LZFSE.v1HeaderSize
    return h
  }

  private func headerV2() throws(LZFSEError) -> Header {
    guard start + 32 <= source.count else { throw error("LZFSE v2 header is truncated") }
    let packed = (0..<3).map { LZFSE.load(source, start + 8 + 8 * $0, 8) }
    func field(_ word: Int, _ offset: UInt64, _ bits: UInt64) -> Int {
      Int(packed[word] >> offset & ((1 << bits) - 1))
    }
    var h = Header()
    h.literalCount = field(0, 0, 20)
    h.literalPayload = field(0, 20, 20)
    h.matchCount = field(0, 40, 20)
    h.literalBits = field(0, 60, 3) - 7
    h.literalStates = (0..<4).map { field(1, UInt64(10 * $0), 10) }
    h.lmdPayload = field(1, 40, 20)
    h.lmdBits = field(1, 60, 3) - 7
    h.size = field(2, 0, 32)
    h.lState = field(2, 32, 10)
    h.mState = field(2, 42, 10)
    h.dState = field(2, 52, 10)
    guard h.size >= 32, h.size <= 32 + 2 * LZFSEFrequencies.count, h.size <= source.count - start else {
      throw error("LZFSE v2 header size \(h.size) is out of range")
    }
    h.frequencies = try LZFSEFrequencies.decodeV2(source, from: start + 32, to: start + h.size)
    return h
  }

  /// `bvx1`/`bvx2`: literals coded by four interleaved FSE streams, then (L, M, D) triples by three.
  func decodeLZFSE(v2: Bool) throws(LZFSEError) -> Int {
    let h = v2 ? try headerV2() : try headerV1()
    guard h.literalCount <= 40_000, h.matchCount <= 10_000 else {
      throw error("block claims \(h.literalCount) literals and \(h.matchCount) matches (limits 40000, 10000)")
    }
    guard h.literalStates.allSatisfy({ $0 < 1024 }), h.lState < 64, h.mState < 64, h.dState < 256 else {
      throw error("initial entropy-coder state out of range")
    }
    guard (-7...0).contains(h.literalBits), (-7...0).contains(h.lmdBits) else {
      throw error("bit count adjustment out of range")
    }
    let literalStart = start + h.size
    let lmdStart = literalStart + h.literalPayload
    let blockEnd = lmdStart + h.lmdPayload
    guard blockEnd <= source.count else { throw error("LZFSE block payload is truncated") }
    let f = h.frequencies
    let literals = try decodeLiterals(h, from: literalStart, to: lmdStart)
    let lTable = try FSETables.values(
      states: 64, frequencies: f[0..<20], extraBits: FSETables.lExtraBits, offset: start)
    let mTable = try FSETables.values(
      states: 64, frequencies: f[20..<40], extraBits: FSETables.mExtraBits, offset: start)
    let dTable = try FSETables.values(
      states: 256, frequencies: f[40..<104], extraBits: FSETables.dExtraBits, offset: start)
    var stream = try BackwardBitStream(data: source, start: lmdStart, end: blockEnd, finalBits: h.lmdBits)
    var (lState, mState, dState) = (h.lState, h.mState, h.dState)
    var distance = -1
    var literal = 0
    var out = base
    try lTable.withUnsafeBufferPointer { (lt) throws(LZFSEError) in
      try mTable.withUnsafeBufferPointer { (mt) throws(LZFSEError) in
        try dTable.withUnsafeBufferPointer { (dt) throws(LZFSEError) in
          try literals.withUnsafeBufferPointer { (lits) throws(LZFSEError) in
            for _ in 0..<h.matchCount {
              try stream.refill()
              let l = stream.decode(&lState, lt)
              let m = stream.decode(&mState, mt)
              let d = stream.decode(&dState, dt)
              if d != 0 { distance = d }
              guard literal + l <= lits.count, out + l + m <= end else {
                throw error("LZFSE data runs past the block's \(end - base) bytes")
              }
              target.baseAddress!.advanced(by: out).update(from: lits.baseAddress! + literal, count: l)
              literal += l
              out += l
              if m > 0 {
                try copyMatch(at: out, distance: distance, count: m)
                out += m
              }
            }
          }
        }
      }
    }
    try stream.checkNotOverrun()
    guard out == end else {
      throw error("LZFSE block decodes to \(out - base) bytes, its header says \(end - base)")
    }
    return blockEnd
  }

  private func decodeLiterals(_ h: Header, from first: Int, to last: Int) throws(LZFSEError) -> [UInt8] {
    let table = try FSETables.symbols(states: 1024, frequencies: h.frequencies[104...], offset: start)
    var literals = [UInt8](repeating: 0, count: (h.literalCount + 3) & ~3)
    guard !literals.isEmpty else { return literals }
    var stream = try BackwardBitStream(data: source, start: first, end: last, finalBits: h.literalBits)
    var s = h.literalStates
    try table.withUnsafeBufferPointer { (t) throws(LZFSEError) in
      for i in stride(from: 0, to: literals.count, by: 4) {
        try stream.refill()
        literals[i] = stream.decode(&s[0], t)
        literals[i + 1] = stream.decode(&s[1], t)
        literals[i + 2] = stream.decode(&s[2], t)
        literals[i + 3] = stream.decode(&s[3], t)
      }
    }
    try stream.checkNotOverrun()
    return literals
  }
}
