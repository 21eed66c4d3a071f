/// The entropy-coding layer of LZFSE blocks: finite-state-entropy (tANS) decoding tables, the
/// backward bit stream they read, and the variable-length code of v2 frequency tables.
/// Written from Apple's published description of the format (the reference `lzfse` sources).

/// A problem in LZFSE data: where (byte offset in the compressed data) and what.
public struct LZFSEError: Error, Equatable, Sendable, CustomStringConvertible {
  /// Byte offset in the compressed data of the block or field at fault.
  public var offset: Int
  /// What is wrong, in plain words.
  public var message: String

  /// Creates an error.
  public init(offset: Int, _ message: String) {
    self.offset = offset
    self.message = message
  }

  public var description: String { "corrupt LZFSE data at byte \(offset): \(message)" }
}

/// One state of a symbol decoding table: read `bits` bits, add them to `delta` for the next state.
struct FSESymbolEntry {
  var bits: UInt8 = 0
  var symbol: UInt8 = 0
  var delta: Int16 = 0
}

/// One state of a value decoding table (L, M, D): read `totalBits` bits; the low `valueBits` are
/// added to `base` for the value, the rest to `delta` for the next state.
struct FSEValueEntry {
  var totalBits: UInt8 = 0
  var valueBits: UInt8 = 0
  var delta: Int16 = 0
  var base: Int32 = 0
}

enum FSETables {
  /// For each symbol with frequency f among `states` states, f consecutive table entries; the
  /// first `j0` of them read k bits, the rest k - 1 (k chosen so that states <= f << k < 2 states).
  /// - Throws: when the frequencies sum to more than `states`.
  static func forEachEntry(
    states: Int, frequencies: ArraySlice<UInt16>, offset: Int,
    _ body: (_ index: Int, _ symbol: Int, _ bits: Int, _ delta: Int) -> Void
  ) throws(LZFSEError) {
    let stateZeros = UInt32(states).leadingZeroBitCount
    var index = 0
    for (symbol, frequency) in frequencies.enumerated() where frequency > 0 {
      let f = Int(frequency)
      guard index + f <= states else {
        throw LZFSEError(offset: offset, "frequency table sums to more than \(states) states")
      }
      let k = UInt32(f).leadingZeroBitCount - stateZeros
      let j0 = ((2 * states) >> k) - f
      for j in 0..<f {
        if j < j0 {
          body(index, symbol, k, ((f + j) << k) - states)
        } else {
          body(index, symbol, k - 1, (j - j0) << (k - 1))
        }
        index += 1
      }
    }
  }

  static func symbols(states: Int, frequencies: ArraySlice<UInt16>, offset: Int) throws(LZFSEError)
    -> [FSESymbolEntry]
  {
    var table = [FSESymbolEntry](repeating: FSESymbolEntry(), count: states)
    try forEachEntry(states: states, frequencies: frequencies, offset: offset) { index, symbol, bits, delta in
      table[index] = FSESymbolEntry(bits: UInt8(bits), symbol: UInt8(symbol), delta: Int16(delta))
    }
    return table
  }

  static func values(
    states: Int, frequencies: ArraySlice<UInt16>, extraBits: [UInt8], offset: Int
  ) throws(LZFSEError) -> [FSEValueEntry] {
    let bases = baseValues(extraBits)
    var table = [FSEValueEntry](repeating: FSEValueEntry(), count: states)
    try forEachEntry(states: states, frequencies: frequencies, offset: offset) { index, symbol, bits, delta in
      let extra = extraBits[symbol]
      table[index] = FSEValueEntry(
        totalBits: UInt8(bits) + extra, valueBits: extra, delta: Int16(delta), base: bases[symbol])
    }
    return table
  }

  /// The first value of each symbol's range: each symbol covers 2^extra consecutive values.
  static func baseValues(_ extraBits: [UInt8]) -> [Int32] {
    var bases: [Int32] = []
    var next: Int32 = 0
    for extra in extraBits {
      bases.append(next)
      next += 1 << Int32(extra)
    }
    return bases
  }

  /// Extra bits of the literal-length (L), match-length (M) and distance (D) symbols.
  static let lExtraBits: [UInt8] = Array(repeating: 0, count: 16) + [2, 3, 5, 8]
  static let mExtraBits: [UInt8] = Array(repeating: 0, count: 16) + [3, 5, 8, 11]
  static let dExtraBits: [UInt8] = (0..<64).map { UInt8($0 >> 2) }
}

/// An FSE bit stream, read backwards from the end of a payload towards its start, with a 64-bit
/// accumulator refilled a whole number of bytes at a time.
struct BackwardBitStream {
  private let data: UnsafeBufferPointer<UInt8>
  private let start: Int
  private var position: Int
  private var accumulator: UInt64
  private var count: Int

  /// The first read takes the payload's last 7 bytes (`finalBits` 0) or 8. A payload may be shorter
  /// than that, down to no bytes at all (a table of one symbol codes it in zero bits, as Apple's
  /// encoder writes for an all-equal confidence map): the reference decoder then reads the bytes
  /// before the payload, whose bits a valid stream never uses; here they read as zero, and
  /// ``checkNotOverrun()`` tells whether any were consumed.
  /// - Parameter finalBits: the encoder's final bit count adjustment, -7...0, from the block header.
  init(data: UnsafeBufferPointer<UInt8>, start: Int, end: Int, finalBits: Int) throws(LZFSEError) {
    self.data = data
    self.start = start
    let bytes = finalBits == 0 ? 7 : 8
    guard finalBits >= -7, finalBits <= 0, end >= start else {
      throw LZFSEError(
        offset: start, "entropy-coded payload (bit count adjustment \(finalBits)) is malformed")
    }
    position = end - bytes
    if position >= start {
      accumulator = Self.load(data, at: position, bytes: bytes)
    } else if end > start {
      accumulator = Self.load(data, at: start, bytes: end - start) << UInt64(8 * (start - position))
    } else {
      accumulator = 0
    }
    count = finalBits + (finalBits == 0 ? 56 : 64)
    guard accumulator >> UInt64(count) == 0 else {
      throw LZFSEError(offset: end, "entropy-coded payload has stray bits at its end")
    }
  }

  private static func load(_ data: UnsafeBufferPointer<UInt8>, at position: Int, bytes: Int) -> UInt64 {
    if position + 8 <= data.count {
      let word = UInt64(
        littleEndian: UnsafeRawPointer(data.baseAddress! + position).loadUnaligned(as: UInt64.self))
      return bytes == 8 ? word : word & ((1 << UInt64(8 * bytes)) - 1)
    }
    var value: UInt64 = 0
    for i in 0..<bytes { value |= UInt64(data[position + i]) << UInt64(8 * i) }
    return value
  }

  /// Tops the accumulator up to at least 56 bits. Near the payload's start a refill may reach
  /// before it (the reference decoder reads the preceding bytes there and never uses their bits);
  /// those bits read as zero here, and ``checkNotOverrun()`` tells whether any were consumed.
  @inline(__always)
  mutating func refill() throws(LZFSEError) {
    let bits = (63 - count) & ~7
    guard bits > 0 else { return }
    let newPosition = position - (bits >> 3)
    guard newPosition >= start - 8 else {
      throw LZFSEError(offset: start, "entropy-coded payload ends before all symbols are decoded")
    }
    let incoming: UInt64
    if newPosition >= start {
      incoming = Self.load(data, at: newPosition, bytes: bits >> 3)
    } else if position > start {
      incoming = Self.load(data, at: start, bytes: position - start) << UInt64(8 * (start - newPosition))
    } else {
      incoming = 0
    }
    position = newPosition
    accumulator = accumulator << UInt64(bits) | incoming
    count += bits
  }

  /// Throws when the symbols decoded used more bits than the payload holds.
  func checkNotOverrun() throws(LZFSEError) {
    guard (position - start) * 8 + count >= 0 else {
      throw LZFSEError(offset: start, "entropy-coded payload ends before all symbols are decoded")
    }
  }

  /// Takes the next `n` bits (n <= the bits held; the callers' budgets guarantee it after a refill).
  @inline(__always)
  mutating func pull(_ n: Int) -> UInt64 {
    count -= n
    let result = accumulator >> UInt64(count)
    accumulator &= (1 << UInt64(count)) &- 1
    return result
  }

  @inline(__always)
  mutating func decode(_ state: inout Int, _ table: UnsafeBufferPointer<FSESymbolEntry>) -> UInt8 {
    let entry = table[state]
    state = Int(entry.delta) + Int(pull(Int(entry.bits)))
    return entry.symbol
  }

  @inline(__always)
  mutating func decode(_ state: inout Int, _ table: UnsafeBufferPointer<FSEValueEntry>) -> Int {
    let entry = table[state]
    let bits = pull(Int(entry.totalBits))
    state = Int(entry.delta) + Int(bits >> UInt64(entry.valueBits))
    return Int(entry.base) + Int(bits & ((1 << UInt64(entry.valueBits)) - 1))
  }
}

enum LZFSEFrequencies {
  /// Number of frequencies in a block header: L (20), M (20), D (64) and literal (256) symbols.
  static let count = 20 + 20 + 64 + 256

  /// Decodes the v2 header's frequency tables: a prefix code read least-significant bit first,
  /// 2 to 14 bits per value. An empty table (header of 32 bytes) means all zero.
  static func decodeV2(_ data: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) throws(LZFSEError)
    -> [UInt16]
  {
    var frequencies = [UInt16](repeating: 0, count: count)
    guard end > start else { return frequencies }
    var position = start
    var accumulator: UInt32 = 0
    var held = 0
    for i in 0..<count {
      while position < end, held + 8 <= 32 {
        accumulator |= UInt32(data[position]) << UInt32(held)
        held += 8
        position += 1
      }
      let (value, bits) = value(accumulator)
      guard bits <= held else {
        throw LZFSEError(offset: start, "frequency table ends after \(i) of \(count) values")
      }
      frequencies[i] = value
      accumulator >>= UInt32(bits)
      held -= bits
    }
    guard held < 8, position == end else {
      throw LZFSEError(offset: start, "frequency table does not end where the header says")
    }
    return frequencies
  }

  private static let bitsTable: [Int] = [
    2, 3, 2, 5, 2, 3, 2, 8, 2, 3, 2, 5, 2, 3, 2, 14, 2, 3, 2, 5, 2, 3, 2, 8, 2, 3, 2, 5, 2, 3, 2, 14,
  ]
  private static let valueTable: [UInt16] = [
    0, 2, 1, 4, 0, 3, 1, 0, 0, 2, 1, 5, 0, 3, 1, 0, 0, 2, 1, 6, 0, 3, 1, 0, 0, 2, 1, 7, 0, 3, 1, 0,
  ]

  @inline(__always)
  private static func value(_ bits: UInt32) -> (UInt16, Int) {
    let low = Int(bits & 31)
    let n = bitsTable[low]
    if n == 8 { return (8 + UInt16((bits >> 4) & 0xf), n) }
    if n == 14 { return (24 + UInt16((bits >> 4) & 0x3ff), n) }
    return (valueTable[low], n)
  }
}
