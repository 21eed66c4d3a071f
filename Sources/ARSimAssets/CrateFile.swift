import ARSimMath
/// USD's binary layer format (`.usdc`, "crate"), read from its public description (OpenUSD's
/// `crateFile.cpp`): an 88-byte bootstrap (`PXR-USDC`, version, table-of-contents offset), the table
/// of contents, and the TOKENS, STRINGS, FIELDS, FIELDSETS, PATHS and SPECS sections, all of them
/// compressed as crate versions 0.4.0 and later write them. Versions 0.4.0 to 0.13.x are read.
struct CrateFile {
  /// A spec: a path, its fields (through a field set) and its kind (`SdfSpecType`).
  struct Spec {
    var path: Int
    var fieldSet: Int
    var type: Int32
  }

  /// A path element: the parent path's index (-1 for the root), a name and whether it names a property.
  struct PathElement {
    var parent: Int
    var name: String
    var isProperty: Bool
  }

  let reader: ByteReader
  let version: (major: UInt8, minor: UInt8, patch: UInt8)
  var tokens: [String] = []
  var strings: [Int] = []
  var fields: [(token: Int, rep: UInt64)] = []
  var fieldSets: [Int] = []
  var paths: [PathElement] = []
  var specs: [Spec] = []

  /// Reads the structure of a crate file (values are decoded on demand by `CrateValues`).
  init(bytes: [UInt8]) throws {
    reader = ByteReader(bytes)
    guard bytes.count >= 88, bytes[0..<8].elementsEqual("PXR-USDC".utf8) else {
      throw FormatError("not a USD crate file: no PXR-USDC bootstrap")
    }
    version = (bytes[8], bytes[9], bytes[10])
    guard version.major == 0, (4...13).contains(version.minor) else {
      throw FormatError(
        "unsupported crate version \(version.major).\(version.minor).\(version.patch) (0.4.0 to 0.13.x are read)"
      )
    }
    var toc = reader
    toc.offset = Int(truncatingIfNeeded: try reader.load(Int64.self, at: 16))
    guard toc.offset >= 88, toc.offset < bytes.count else {
      throw FormatError("table of contents offset \(toc.offset) lies outside the file (\(bytes.count) bytes)")
    }
    let count = try toc.readCount(elementSize: 32, "section")
    var sections: [String: (start: Int, size: Int)] = [:]
    for _ in 0..<count {
      let name = try toc.readBytes(16).prefix { $0 != 0 }
      let start = Int(truncatingIfNeeded: try toc.read(Int64.self))
      let size = Int(truncatingIfNeeded: try toc.read(Int64.self))
      let label = String(decoding: name, as: UTF8.self)
      guard start >= 0, size >= 0, start <= bytes.count, size <= bytes.count - start else {
        throw FormatError("section \(label) (\(size) bytes at byte \(start)) lies past the end of the file")
      }
      sections[label] = (start, size)
    }
    func section(_ name: String) throws -> ByteReader {
      guard let found = sections[name] else { throw FormatError("the crate has no \(name) section") }
      return ByteReader(reader.bytes, offset: found.start)
    }
    try readTokens(section("TOKENS"))
    try readStrings(section("STRINGS"))
    try readFields(section("FIELDS"))
    try readFieldSets(section("FIELDSETS"))
    try readPaths(section("PATHS"))
    try readSpecs(section("SPECS"))
  }

  private mutating func readTokens(_ section: ByteReader) throws {
    var r = section
    let count = try r.readCount(elementSize: 0, "token")
    let size = try r.readCount(elementSize: 0, "token bytes")
    let compressed = try r.readCount(elementSize: 1, "compressed token bytes")
    guard count <= size else { throw FormatError("TOKENS: \(count) tokens cannot fit in \(size) bytes") }
    let text = try Compression.decompressChunks(try r.readBytes(compressed), size: size)
    tokens.reserveCapacity(count)
    var start = 0
    for (index, byte) in text.enumerated() where byte == 0 {
      tokens.append(String(decoding: text[start..<index], as: UTF8.self))
      start = index + 1
      if tokens.count == count { break }
    }
    guard tokens.count == count else {
      throw FormatError("TOKENS: \(tokens.count) tokens found, \(count) declared")
    }
  }

  private mutating func readStrings(_ section: ByteReader) throws {
    var r = section
    let count = try r.readCount(elementSize: 4, "string")
    strings = try r.readArray(of: UInt32.self, count: count).map { Int($0) }
    if let bad = strings.first(where: { $0 >= tokens.count }) {
      throw FormatError("STRINGS: token index \(bad) is out of range (\(tokens.count) tokens)")
    }
  }

  private mutating func readFields(_ section: ByteReader) throws {
    var r = section
    let count = try r.readCount(elementSize: 0, "field")
    let names = try Compression.readIntegers(&r, count: count, as: Int32.self)
    let repsSize = try r.readCount(elementSize: 1, "compressed field values")
    let reps = ByteReader(try Compression.decompressChunks(try r.readBytes(repsSize), size: count * 8))
    fields.reserveCapacity(count)
    for index in 0..<count {
      let token = Int(UInt32(bitPattern: names[index]))
      guard token < tokens.count else { throw FormatError("FIELDS: field \(index) names token \(token)") }
      fields.append((token, try reps.load(UInt64.self, at: index * 8)))
    }
  }

  private mutating func readFieldSets(_ section: ByteReader) throws {
    var r = section
    let count = try r.readCount(elementSize: 0, "field set entry")
    fieldSets = try Compression.readIntegers(&r, count: count, as: Int32.self).map {
      Int(UInt32(bitPattern: $0))
    }
    if let bad = fieldSets.first(where: { $0 != Int(UInt32.max) && $0 >= fields.count }) {
      throw FormatError("FIELDSETS: field index \(bad) is out of range (\(fields.count) fields)")
    }
  }

  private mutating func readPaths(_ section: ByteReader) throws {
    var r = section
    let total = try r.readCount(elementSize: 0, "path")
    let encoded = try r.readCount(elementSize: 0, "encoded path")
    guard encoded <= total, total <= r.bytes.count else {
      throw FormatError("PATHS: \(encoded) encoded paths for \(total) paths")
    }
    let indices = try Compression.readIntegers(&r, count: encoded, as: Int32.self)
    let elements = try Compression.readIntegers(&r, count: encoded, as: Int32.self)
    let jumps = try Compression.readIntegers(&r, count: encoded, as: Int32.self)
    paths = Array(repeating: PathElement(parent: -1, name: "", isProperty: false), count: total)
    var assigned = [Bool](repeating: false, count: total)
    // Depth-first order: a jump of -2 ends a branch, -1 means a child only, 0 a sibling only, and a
    // positive jump both (the sibling that far ahead, the child next). Siblings wait on a stack.
    var pending: [(index: Int, parent: Int)] = encoded > 0 ? [(0, -1)] : []
    while let (start, startParent) = pending.popLast() {
      var index = start
      var parent = startParent
      while true {
        guard index < encoded else { throw FormatError("PATHS: a jump leads past the last path") }
        let target = Int(indices[index])
        guard target >= 0, target < total, !assigned[target] else {
          throw FormatError("PATHS: path index \(target) is out of range or repeated")
        }
        assigned[target] = true
        if parent < 0 {
          paths[target] = PathElement(parent: -1, name: "", isProperty: false)
        } else {
          let element = Int(elements[index])
          guard element.magnitude < tokens.count else {
            throw FormatError("PATHS: element token \(element) is out of range")
          }
          paths[target] = PathElement(
            parent: parent, name: tokens[Int(element.magnitude)], isProperty: element < 0)
        }
        let jump = Int(jumps[index])
        let hasChild = jump > 0 || jump == -1
        let hasSibling = jump >= 0
        if hasChild && hasSibling {
          guard jump < encoded - index else { throw FormatError("PATHS: a sibling jump leads past the end") }
          pending.append((index + jump, parent))
        }
        if hasChild { parent = target } else if !hasSibling { break }
        index += 1
      }
    }
  }

  private mutating func readSpecs(_ section: ByteReader) throws {
    var r = section
    let count = try r.readCount(elementSize: 0, "spec")
    let pathIndices = try Compression.readIntegers(&r, count: count, as: Int32.self)
    let fieldSetIndices = try Compression.readIntegers(&r, count: count, as: Int32.self)
    let types = try Compression.readIntegers(&r, count: count, as: Int32.self)
    specs.reserveCapacity(count)
    for index in 0..<count {
      let path = Int(pathIndices[index])
      let fieldSet = Int(fieldSetIndices[index])
      guard path >= 0, path < paths.count, fieldSet >= 0, fieldSet < fieldSets.count else {
        throw FormatError("SPECS: spec \(index) has path \(path) or field set \(fieldSet) out of range")
      }
      specs.append(Spec(path: path, fieldSet: fieldSet, type: types[index]))
    }
  }

  /// The fields of a field set: (name, value representation) pairs up to the terminator.
  func fields(ofSet start: Int) -> [(name: String, rep: UInt64)] {
    var result: [(String, UInt64)] = []
    var index = start
    while index < fieldSets.count, fieldSets[index] != Int(UInt32.max) {
      let field = fields[fieldSets[index]]
      result.append((tokens[field.token], field.rep))
      index += 1
    }
    return result
  }

  /// A path's string (`/A/B` or `/A/B.attr`).
  func pathString(_ index: Int) -> String {
    var names: [String] = []
    var at = index
    var property = ""
    while at >= 0, paths[at].parent >= 0 {
      if paths[at].isProperty { property = "." + paths[at].name } else { names.append(paths[at].name) }
      at = paths[at].parent
    }
    return "/" + names.reversed().joined(separator: "/") + property
  }
}
