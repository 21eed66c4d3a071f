/// A binary file's problem found while reading it, without the file's name (the caller that knows
/// the file names it): one line, starting lower case, with the byte offset where one is known.
public struct ByteFormatError: Error, Sendable, Equatable, CustomStringConvertible {
  /// What is wrong.
  public var problem: String

  /// An error for `problem`.
  public init(_ problem: String) { self.problem = problem }

  /// The problem.
  public var description: String { problem }
}

/// Little-endian reads from a byte buffer with every offset checked: reading past the end throws
/// (``ByteFormatError``) instead of trapping, so malformed files give errors, never crashes. The one
/// byte reader of the binary formats (USD's crates and zip archives, ARSim's world maps).
public struct ByteReader: Sendable {
  /// The whole buffer (file or decompressed section).
  public let bytes: [UInt8]
  /// The next offset to read.
  public var offset: Int

  /// A reader of `bytes` from `offset`.
  public init(_ bytes: [UInt8], offset: Int = 0) {
    self.bytes = bytes
    self.offset = offset
  }

  /// Bytes left after ``offset`` (zero when past the end).
  public var remaining: Int { Swift.max(0, bytes.count - offset) }

  /// Throws unless `count` bytes from `offset` lie inside the buffer.
  public func check(_ at: Int, _ count: Int, _ what: @autoclosure () -> String) throws(ByteFormatError) {
    guard at >= 0, count >= 0, at <= bytes.count, count <= bytes.count - at else {
      throw ByteFormatError(
        "\(what()) at byte \(at) (\(count) bytes) runs past the end (\(bytes.count) bytes)")
    }
  }

  /// A fixed-width integer or float at `at`, little-endian.
  public func load<T: FixedWidthInteger>(_: T.Type, at: Int) throws(ByteFormatError) -> T {
    try check(at, MemoryLayout<T>.size, "a \(MemoryLayout<T>.size)-byte value")
    return bytes.withUnsafeBytes { T(littleEndian: $0.loadUnaligned(fromByteOffset: at, as: T.self)) }
  }

  /// The next fixed-width integer, little-endian.
  public mutating func read<T: FixedWidthInteger>(_: T.Type) throws(ByteFormatError) -> T {
    let value = try load(T.self, at: offset)
    offset += MemoryLayout<T>.size
    return value
  }

  /// The next 64-bit float.
  public mutating func readDouble() throws(ByteFormatError) -> Double {
    Double(bitPattern: try read(UInt64.self))
  }

  /// The next 32-bit float.
  public mutating func readFloat() throws(ByteFormatError) -> Float {
    Float(bitPattern: try read(UInt32.self))
  }

  /// The next `count` bytes.
  public mutating func readBytes(_ count: Int) throws(ByteFormatError) -> ArraySlice<UInt8> {
    try check(offset, count, "a block")
    defer { offset += count }
    return bytes[offset..<offset + count]
  }

  /// A count read as a 64-bit integer, checked against the bytes left (`elementSize` each; 0 for
  /// compressed elements, of which at most 256 fit a byte) so that a corrupt count cannot ask for an
  /// absurd allocation.
  public mutating func readCount(elementSize: Int, _ what: String) throws(ByteFormatError) -> Int {
    let raw = try read(UInt64.self)
    let limit = elementSize == 0 ? remaining * 256 : remaining / elementSize
    guard raw <= UInt64(limit) else {
      throw ByteFormatError("\(what) count \(raw) at byte \(offset - 8) exceeds the \(remaining) bytes left")
    }
    return Int(raw)
  }

  /// `count` scalars (integers or floats, whose stride is their size) copied from the next bytes; the
  /// host is little-endian (every platform Swift runs ARSim on).
  public mutating func readArray<T: Numeric>(of _: T.Type, count: Int) throws(ByteFormatError) -> [T] {
    let size = MemoryLayout<T>.stride * count
    try check(offset, size, "an array of \(count)")
    let start = offset
    offset += size
    return [T](unsafeUninitializedCapacity: count) { buffer, initialized in
      bytes.withUnsafeBytes { source in
        UnsafeMutableRawBufferPointer(buffer).copyMemory(
          from: UnsafeRawBufferPointer(rebasing: source[start..<start + size]))
      }
      initialized = count
    }
  }
}
