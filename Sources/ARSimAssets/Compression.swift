import ARSimMath
/// The two decompressors USD's crate files use, written from their public format descriptions:
/// the LZ4 block format, chunked as `TfFastCompression` writes it, and USD's integer coding
/// (`Usd_IntegerCompression`: deltas in 2-bit-tagged variable widths, then LZ4).
enum Compression {
  /// Decompresses a `TfFastCompression` buffer to exactly `size` bytes.
  static func decompressChunks(_ input: ArraySlice<UInt8>, size: Int) throws -> [UInt8] {
    let output = try decompress(input, limit: size)
    guard output.count == size else {
      throw FormatError("compressed block holds \(output.count) bytes, expected \(size)")
    }
    return output
  }

  /// Decompresses a `TfFastCompression` buffer of at most `limit` bytes: a chunk count byte, then
  /// either one LZ4 block (count 0) or `count` chunks of an `Int32` length and an LZ4 block.
  static func decompress(_ input: ArraySlice<UInt8>, limit: Int) throws -> [UInt8] {
    guard let chunks = input.first else { throw FormatError("empty compressed block") }
    var output = [UInt8]()
    output.reserveCapacity(Swift.min(limit, input.count * 16 + 64))
    var at = input.startIndex + 1
    if chunks == 0 {
      try lz4Block(input[at...], into: &output, limit: limit)
      return output
    }
    for chunk in 0..<Int(chunks) {
      guard input.endIndex - at >= 4 else { throw FormatError("compressed chunk \(chunk) is truncated") }
      let length = Int(
        Int32(
          bitPattern: UInt32(input[at]) | UInt32(input[at + 1]) << 8 | UInt32(input[at + 2]) << 16 | UInt32(
            input[at + 3]) << 24))
      at += 4
      guard length >= 0, length <= input.endIndex - at else {
        throw FormatError("compressed chunk \(chunk) claims \(length) bytes, past the block's end")
      }
      try lz4Block(input[at..<at + length], into: &output, limit: limit)
      at += length
    }
    return output
  }

  /// Appends the decompression of one LZ4 block to `output`, which may not grow past `limit` bytes.
  static func lz4Block(_ block: ArraySlice<UInt8>, into output: inout [UInt8], limit: Int) throws {
    let end = block.endIndex
    var at = block.startIndex
    while at < end {
      let token = block[at]
      at += 1
      let literals = try length(Int(token >> 4), block, &at, "literal")
      guard literals <= end - at, literals <= limit - output.count else {
        throw FormatError("LZ4 literals run past the block or the expected size")
      }
      output.append(contentsOf: block[at..<at + literals])
      at += literals
      if at == end { return }  // the last sequence has literals only
      guard end - at >= 2 else { throw FormatError("LZ4 match offset is truncated") }
      let distance = Int(block[at]) | Int(block[at + 1]) << 8
      at += 2
      let match = try length(Int(token & 15), block, &at, "match") + 4
      guard distance > 0, distance <= output.count else {
        throw FormatError("LZ4 match offset \(distance) points before the start of the output")
      }
      guard match <= limit - output.count else { throw FormatError("LZ4 match runs past the expected size") }
      var from = output.count - distance
      if distance >= match {
        output.append(contentsOf: output[from..<from + match])
      } else {
        for _ in 0..<match {  // overlapping copy: repeats the last `distance` bytes
          output.append(output[from])
          from += 1
        }
      }
    }
  }

  /// An LZ4 length: the 4 bits of the token, continued while they are all ones by bytes added up to
  /// the first that is not 255.
  private static func length(_ nibble: Int, _ block: ArraySlice<UInt8>, _ at: inout Int, _ what: String)
    throws
    -> Int
  {
    var length = nibble
    guard nibble == 15 else { return length }
    while true {
      guard at < block.endIndex else { throw FormatError("LZ4 \(what) length is truncated") }
      let byte = block[at]
      at += 1
      length += Int(byte)
      if byte != 255 { return length }
    }
  }

  /// Decodes `count` integers compressed by USD's integer coding: `T` is `Int32` (codes for 8, 16 and
  /// 32 bits) or `Int64` (16, 32 and 64 bits). The buffer is the compressed size (`UInt64`) and the
  /// LZ4-chunked bytes, read from `reader`.
  static func readIntegers<T: FixedWidthInteger & SignedInteger>(
    _ reader: inout ByteReader, count: Int, as _: T.Type
  ) throws -> [T] {
    let compressedSize = try reader.readCount(elementSize: 1, "compressed integers")
    let compressed = try reader.readBytes(compressedSize)
    let width = MemoryLayout<T>.size
    let encodedSize = width + (count * 2 + 7) / 8 + count * width
    let encoded = try decompress(compressed, limit: encodedSize)
    return try decodeIntegers(encoded, count: count, as: T.self)
  }

  /// The integer coding itself: the most common delta, then 2-bit codes (four per byte, low bits
  /// first), then the deltas that are not the common one, each in the width its code names.
  static func decodeIntegers<T: FixedWidthInteger & SignedInteger>(
    _ encoded: [UInt8], count: Int, as _: T.Type
  ) throws -> [T] {
    let width = MemoryLayout<T>.size
    let codesSize = (count * 2 + 7) / 8
    guard encoded.count >= width + codesSize else {
      throw FormatError("compressed integers: \(encoded.count) bytes cannot hold \(count) codes")
    }
    return try encoded.withUnsafeBytes { raw -> [T] in
      let common = T(truncatingIfNeeded: loadSigned(raw, at: 0, width: width))
      var values = width + codesSize
      var result = [T]()
      result.reserveCapacity(count)
      var previous: T = 0
      for index in 0..<count {
        let code = (raw[width + index / 4] >> (UInt8(index % 4) * 2)) & 3
        let delta: T
        if code == 0 {
          delta = common
        } else {
          let size = width == 4 ? (1 << (code - 1)) : (2 << (code - 1))
          guard values + size <= raw.count else {
            throw FormatError("compressed integers: value \(index) runs past the end")
          }
          delta = T(truncatingIfNeeded: loadSigned(raw, at: values, width: size))
          values += size
        }
        previous = previous &+ delta
        result.append(previous)
      }
      return result
    }
  }

  private static func loadSigned(_ raw: UnsafeRawBufferPointer, at: Int, width: Int) -> Int64 {
    switch width {
    case 1: Int64(Int8(bitPattern: raw[at]))
    case 2: Int64(Int16(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: Int16.self)))
    case 4: Int64(Int32(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: Int32.self)))
    default: Int64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: Int64.self))
    }
  }
}
