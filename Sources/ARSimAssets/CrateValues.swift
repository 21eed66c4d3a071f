import ARSimMath
/// Decoding of crate value representations (`ValueRep`: 64 bits of array, inlined and compressed
/// flags, a type and a 48-bit payload that is either the value itself or a file offset).
extension CrateFile {
  /// The scalar kinds crate values are built from.
  private enum Scalar { case bool, u8, i32, u32, i64, u64, f16, f32, f64 }

  /// A numeric crate type: its scalar kind, its component count and whether it is a quaternion.
  private static func numeric(_ type: Int) -> (scalar: Scalar, count: Int, quaternion: Bool)? {
    switch type {
    case 1: (.bool, 1, false)
    case 2: (.u8, 1, false)
    case 3: (.i32, 1, false)
    case 4: (.u32, 1, false)
    case 5: (.i64, 1, false)
    case 6: (.u64, 1, false)
    case 7: (.f16, 1, false)
    case 8: (.f32, 1, false)
    case 9, 56: (.f64, 1, false)
    case 13: (.f64, 4, false)
    case 14: (.f64, 9, false)
    case 15: (.f64, 16, false)
    case 16: (.f64, 4, true)
    case 17: (.f32, 4, true)
    case 18: (.f16, 4, true)
    case 19...30:
      ([Scalar.f64, .f32, .f16, .i32][(type - 19) % 4], 2 + (type - 19) / 4, false)
    default: nil
    }
  }

  private static func size(_ scalar: Scalar) -> Int {
    switch scalar {
    case .bool, .u8: 1
    case .f16: 2
    case .i32, .u32, .f32: 4
    case .i64, .u64, .f64: 8
    }
  }

  /// Decodes the value a field holds. Types ARSim does not use decode to `.other`.
  func value(_ rep: UInt64) throws -> USDValue {
    let isArray = rep >> 63 & 1 == 1
    let inlined = rep >> 62 & 1 == 1
    let compressed = rep >> 61 & 1 == 1
    let type = Int(rep >> 48 & 0xFF)
    let payload = rep & 0xFFFF_FFFF_FFFF
    if isArray {
      guard payload != 0 else { return emptyArray(type) }
      var r = try at(payload, "array")
      let count =
        version.minor < 7
        ? Int(try r.read(UInt32.self)) : try r.readCount(elementSize: compressed ? 0 : 1, "array element")
      return try array(type, count: count, compressed: compressed, reader: &r)
    }
    switch type {
    case 10:
      return .token(try string(Int(payload & 0xFFFF_FFFF)))
    case 11, 12:
      let token = try self.token(Int(payload & 0xFFFF_FFFF))
      return type == 11 ? .token(token) : .asset(token)
    case 42: return .token(["def", "over", "class"][Int(min(payload, 2))])
    case 43, 44: return .int(Int(payload & 0xFFFF_FFFF))
    case 41, 50:
      var r = try at(payload, "token vector")
      let count = try r.readCount(elementSize: 4, "token vector")
      let indices = try r.readArray(of: UInt32.self, count: count)
      return .tokens(try indices.map { type == 41 ? try token(Int($0)) : try string(Int($0)) })
    case 48:
      var r = try at(payload, "double vector")
      let count = try r.readCount(elementSize: 8, "double vector")
      return .numbers(try r.readArray(of: Double.self, count: count))
    default: break
    }
    guard let (scalar, count, quaternion) = Self.numeric(type) else { return .other("crate type \(type)") }
    var values: [Double]
    if inlined {
      if count == 1 {
        values = [Self.inlineScalar(scalar, UInt32(truncatingIfNeeded: payload))]
      } else {
        // Small integral vectors are inlined as signed bytes; matrices as their diagonal.
        let dimension = [4: 2, 9: 3, 16: 4][count].flatMap { quaternion ? nil : $0 }
        let bytes = (0..<(dimension ?? count)).map {
          Double(Int8(truncatingIfNeeded: payload >> (8 * UInt64($0))))
        }
        if let dimension {
          values = [Double](repeating: 0, count: count)
          for i in 0..<dimension { values[i * dimension + i] = bytes[i] }
        } else {
          values = bytes
        }
      }
    } else {
      var r = try at(payload, "value")
      values = try Self.scalars(scalar, count: count, reader: &r)
    }
    if quaternion { values = [values[3], values[0], values[1], values[2]] }
    if count == 1 {
      switch scalar {
      case .bool: return .bool(values[0] != 0)
      case .f16, .f32, .f64: return .double(values[0])
      default: return Int(exactly: values[0].rounded()).map(USDValue.int) ?? .double(values[0])
      }
    }
    return .tuple(values)
  }

  /// Reads the references of a `references` field (a `SdfReferenceListOp`): the explicit items if the
  /// list op is explicit, else the prepended, added and appended items in that order.
  func references(_ rep: UInt64) throws -> [LayerReference] {
    guard rep >> 48 & 0xFF == 35, rep >> 62 & 1 == 0 else { return [] }
    var r = try at(rep & 0xFFFF_FFFF_FFFF, "references")
    let header = try r.read(UInt8.self)
    // Items in file order: explicit, added, prepended, appended, deleted, ordered.
    var lists: [[LayerReference]] = []
    for bit in [1, 2, 5, 6, 3, 4] as [UInt8] where header & (1 << bit) != 0 {
      let count = try r.readCount(elementSize: 28, "reference")
      var items: [LayerReference] = []
      for _ in 0..<count {
        let asset = try string(Int(try r.read(UInt32.self)))
        let path = Int(try r.read(UInt32.self))
        r.offset += 16  // layer offset and scale
        // Custom data (unused): each entry a key, then a jump over the value's data to its
        // representation, which the next entry follows.
        for _ in 0..<(try r.readCount(elementSize: 12, "custom data")) {
          r.offset += 4
          let location = r.offset
          let jump = Int(truncatingIfNeeded: try r.read(Int64.self))
          guard jump > 0, jump <= r.bytes.count - location - 8 else {
            throw FormatError("reference custom data at byte \(location) jumps out of the file")
          }
          r.offset = location + jump + 8
        }
        guard path < paths.count else { throw FormatError("reference to path index \(path), out of range") }
        let primPath = pathString(path)
        items.append(LayerReference(assetPath: asset, primPath: primPath == "/" ? nil : primPath))
      }
      lists.append(items)
    }
    let present = [1, 2, 5, 6].filter { header & (1 << $0) != 0 }
    func items(_ bit: Int) -> [LayerReference] { present.firstIndex(of: bit).map { lists[$0] } ?? [] }
    if header & 1 != 0 { return items(1) }
    return items(5) + items(2) + items(6)
  }

  /// Reads a `timeSamples` field: (time, value) pairs in time order.
  func timeSamples(_ rep: UInt64) throws -> [(time: Double, value: USDValue)] {
    guard rep >> 48 & 0xFF == 46 else { return [] }
    var r = try at(rep & 0xFFFF_FFFF_FFFF, "time samples")
    let start = r.offset
    r.offset = start &+ Int(truncatingIfNeeded: try r.read(Int64.self))
    guard case .numbers(let times) = try value(try r.read(UInt64.self)) else {
      throw FormatError("time samples at byte \(start) have no times")
    }
    let valuesJump = r.offset
    r.offset = valuesJump &+ Int(truncatingIfNeeded: try r.read(Int64.self))
    let count = try r.readCount(elementSize: 8, "time sample")
    guard count == times.count else {
      throw FormatError("time samples at byte \(start): \(times.count) times for \(count) values")
    }
    var samples: [(Double, USDValue)] = []
    for time in times { samples.append((time, try value(try r.read(UInt64.self)))) }
    return samples
  }

  // MARK: Helpers

  private func at(_ payload: UInt64, _ what: String) throws -> ByteReader {
    guard payload < UInt64(reader.bytes.count) else {
      throw FormatError(
        "\(what) offset \(payload) lies past the end of the file (\(reader.bytes.count) bytes)")
    }
    return ByteReader(reader.bytes, offset: Int(payload))
  }

  func token(_ index: Int) throws -> String {
    guard index >= 0, index < tokens.count else { throw FormatError("token index \(index) is out of range") }
    return tokens[index]
  }

  private func string(_ index: Int) throws -> String {
    guard index >= 0, index < strings.count else {
      throw FormatError("string index \(index) is out of range")
    }
    return tokens[strings[index]]
  }

  private func emptyArray(_ type: Int) -> USDValue {
    if [10, 11, 12].contains(type) { return .tokens([]) }
    guard let (_, count, _) = Self.numeric(type) else { return .other("crate type \(type)") }
    return count == 1 ? .numbers([]) : .tuples(width: count, [])
  }

  private func array(_ type: Int, count: Int, compressed: Bool, reader r: inout ByteReader) throws -> USDValue
  {
    if [10, 11, 12].contains(type) {
      let indices = try r.readArray(of: UInt32.self, count: count)
      return .tokens(try indices.map { type == 10 ? try string(Int($0)) : try token(Int($0)) })
    }
    guard let (scalar, width, quaternion) = Self.numeric(type) else {
      return .other("crate array type \(type)")
    }
    if compressed && width == 1 && count >= 16 {
      return .numbers(try Self.compressedScalars(scalar, count: count, reader: &r))
    }
    guard count <= r.remaining / (Self.size(scalar) * width) else {
      throw FormatError("array of \(count) at byte \(r.offset) runs past the end of the file")
    }
    var values = try Self.scalars(scalar, count: count * width, reader: &r)
    if quaternion {
      for q in stride(from: 0, to: values.count, by: 4) {
        (values[q], values[q + 1], values[q + 2], values[q + 3]) = (
          values[q + 3], values[q], values[q + 1], values[q + 2]
        )
      }
    }
    return width == 1 ? .numbers(values) : .tuples(width: width, values)
  }

  private static func compressedScalars(_ scalar: Scalar, count: Int, reader r: inout ByteReader) throws
    -> [Double]
  {
    switch scalar {
    case .i32, .u32:
      let ints = try Compression.readIntegers(&r, count: count, as: Int32.self)
      return ints.map { scalar == .u32 ? Double(UInt32(bitPattern: $0)) : Double($0) }
    case .i64, .u64:
      return try Compression.readIntegers(&r, count: count, as: Int64.self).map { Double($0) }
    case .f16, .f32, .f64:
      let code = try r.read(UInt8.self)
      if code == UInt8(ascii: "i") {
        return try Compression.readIntegers(&r, count: count, as: Int32.self).map { Double($0) }
      }
      guard code == UInt8(ascii: "t") else {
        throw FormatError("compressed float array has bad code \(code)")
      }
      let lutSize = Int(try r.read(UInt32.self))
      let table = try scalars(scalar, count: lutSize, reader: &r)
      let indices = try Compression.readIntegers(&r, count: count, as: Int32.self)
      return try indices.map {
        guard $0 >= 0, Int($0) < table.count else {
          throw FormatError("compressed float index \($0) out of range")
        }
        return table[Int($0)]
      }
    case .bool, .u8:
      throw FormatError("compressed arrays of bytes do not exist in crate files")
    }
  }

  private static func scalars(_ scalar: Scalar, count: Int, reader r: inout ByteReader) throws -> [Double] {
    switch scalar {
    case .f64: return try r.readArray(of: Double.self, count: count)
    case .f32: return try r.readArray(of: Float.self, count: count).map { Double($0) }
    case .f16: return try r.readArray(of: UInt16.self, count: count).map { Double(halfToFloat($0)) }
    case .i32: return try r.readArray(of: Int32.self, count: count).map { Double($0) }
    case .u32: return try r.readArray(of: UInt32.self, count: count).map { Double($0) }
    case .i64: return try r.readArray(of: Int64.self, count: count).map { Double($0) }
    case .u64: return try r.readArray(of: UInt64.self, count: count).map { Double($0) }
    case .bool, .u8: return try r.readArray(of: UInt8.self, count: count).map { Double($0) }
    }
  }

  private static func inlineScalar(_ scalar: Scalar, _ bits: UInt32) -> Double {
    switch scalar {
    case .f32, .f64: Double(Float(bitPattern: bits))  // an inlined double is stored as an exact float
    case .f16: Double(halfToFloat(UInt16(truncatingIfNeeded: bits)))
    case .i32, .i64: Double(Int32(bitPattern: bits))
    case .u32, .u64: Double(bits)
    case .bool, .u8: Double(bits & 0xFF)
    }
  }

  /// An IEEE 754 half-precision value widened to a float.
  static func halfToFloat(_ half: UInt16) -> Float {
    let sign: Float = half & 0x8000 != 0 ? -1 : 1
    let exponent = Int(half >> 10 & 0x1F)
    let mantissa = Float(half & 0x3FF)
    switch exponent {
    case 0: return sign * mantissa * 0x1p-24
    case 31: return mantissa == 0 ? sign * .infinity : .nan
    default: return sign * (1 + mantissa / 1024) * Float(sign: .plus, exponent: exponent - 15, significand: 1)
    }
  }
}
