import ARSimMath
/// A USDZ package: a zip archive as the USDZ specification restricts it — every entry stored
/// (uncompressed, unencrypted), each entry's data starting at a multiple of 64 bytes from the start of
/// the archive, the first entry being the root layer. No Zip64, no multi-disk archives.
///
/// Entries are read from the central directory and checked against their local headers; a compressed,
/// encrypted or misaligned entry, a truncated archive or a bad central directory is an error. CRCs are
/// not verified (USD does not verify them either).
struct USDZArchive: Sendable {
  /// An entry: its path inside the archive and where its bytes lie.
  public struct Entry: Sendable, Equatable {
    /// The path inside the archive, `/`-separated, as stored.
    public var path: String
    /// Offset of the entry's data from the start of the archive, bytes (a multiple of 64).
    public var offset: Int
    /// Size of the entry's data, bytes.
    public var size: Int
  }

  /// The archive's bytes.
  public let bytes: [UInt8]
  /// The entries in central-directory order; the first is the root layer.
  public let entries: [Entry]

  /// Reads the archive's directory from `bytes`; `file` names the archive in errors.
  public init(bytes: [UInt8], file: String) throws(AssetError) {
    self.bytes = bytes
    do {
      entries = try Self.readEntries(ByteReader(bytes))
    } catch let error as FormatError {
      throw error.in(file)
    } catch {
      throw AssetError(file: file, problem: "\(error)")
    }
    guard !entries.isEmpty else { throw AssetError(file: file, problem: "the archive has no entries") }
  }

  /// The entry at `path` (exact match, or after removing a leading `./`), if any.
  public func entry(_ path: String) -> Entry? {
    let wanted = path.hasPrefix("./") ? String(path.dropFirst(2)) : path
    return entries.first { $0.path == wanted }
  }

  /// The bytes of `entry`.
  public func data(of entry: Entry) -> [UInt8] { Array(bytes[entry.offset..<entry.offset + entry.size]) }

  private static let endSignature: UInt32 = 0x0605_4b50
  private static let centralSignature: UInt32 = 0x0201_4b50
  private static let localSignature: UInt32 = 0x0403_4b50

  private static func readEntries(_ zip: ByteReader) throws -> [Entry] {
    // The end-of-central-directory record: 22 bytes plus a comment of up to 65535 bytes.
    guard zip.bytes.count >= 22 else {
      throw FormatError("truncated archive: \(zip.bytes.count) bytes is shorter than a zip directory")
    }
    var end = -1
    var at = zip.bytes.count - 22
    let lowest = Swift.max(0, zip.bytes.count - 22 - 65535)
    while at >= lowest {
      if try zip.load(UInt32.self, at: at) == endSignature,
        Int(try zip.load(UInt16.self, at: at + 20)) == zip.bytes.count - at - 22
      {
        end = at
        break
      }
      at -= 1
    }
    guard end >= 0 else {
      throw FormatError("truncated archive or not a zip file: no end-of-central-directory record")
    }
    let disk = try zip.load(UInt16.self, at: end + 4)
    let cdDisk = try zip.load(UInt16.self, at: end + 6)
    let count = Int(try zip.load(UInt16.self, at: end + 10))
    let cdSize = Int(try zip.load(UInt32.self, at: end + 12))
    let cdOffset = Int(try zip.load(UInt32.self, at: end + 16))
    guard disk == 0, cdDisk == 0 else { throw FormatError("multi-disk archives are not USDZ") }
    guard count != 0xFFFF, cdOffset != 0xFFFF_FFFF else {
      throw FormatError("Zip64 archives are not supported")
    }
    guard cdOffset <= end, cdSize <= end - cdOffset else {
      throw FormatError(
        "bad central directory: \(cdSize) bytes at byte \(cdOffset) overlap the end record at byte \(end)")
    }
    var reader = ByteReader(zip.bytes, offset: cdOffset)
    var entries: [Entry] = []
    entries.reserveCapacity(count)
    for index in 0..<count {
      let header = reader.offset
      guard header + 46 <= cdOffset + cdSize, try reader.read(UInt32.self) == centralSignature else {
        throw FormatError("bad central directory: entry \(index) at byte \(header) has no valid header")
      }
      reader.offset = header + 10
      let method = try reader.read(UInt16.self)
      reader.offset = header + 20
      let compressedSize = Int(try reader.read(UInt32.self))
      let size = Int(try reader.read(UInt32.self))
      let nameLength = Int(try reader.read(UInt16.self))
      let extraLength = Int(try reader.read(UInt16.self))
      let commentLength = Int(try reader.read(UInt16.self))
      reader.offset = header + 8
      let flags = try reader.read(UInt16.self)
      reader.offset = header + 42
      let local = Int(try reader.read(UInt32.self))
      let name = String(decoding: try reader.readBytes(nameLength), as: UTF8.self)
      reader.offset += extraLength + commentLength
      guard reader.offset <= cdOffset + cdSize else {
        throw FormatError("bad central directory: entry \(index) runs past the directory's end")
      }
      guard method == 0 else {
        throw FormatError("entry '\(name)' is compressed (method \(method)); USDZ entries must be stored")
      }
      guard flags & 1 == 0 else { throw FormatError("entry '\(name)' is encrypted") }
      guard compressedSize == size else {
        throw FormatError("entry '\(name)' is stored with \(compressedSize) bytes for \(size) bytes of data")
      }
      let data = try localData(zip, at: local, name: name)
      guard data % 64 == 0 else {
        throw FormatError("entry '\(name)' data at byte \(data) is not 64-byte aligned, as USDZ requires")
      }
      guard data <= zip.bytes.count, size <= zip.bytes.count - data else {
        throw FormatError("truncated archive: entry '\(name)' needs \(size) bytes at byte \(data)")
      }
      entries.append(Entry(path: name, offset: data, size: size))
    }
    return entries
  }

  /// The offset of an entry's data, from its local header at `at` (checked against the central one).
  private static func localData(_ zip: ByteReader, at: Int, name: String) throws -> Int {
    guard at + 30 <= zip.bytes.count, try zip.load(UInt32.self, at: at) == localSignature else {
      throw FormatError("bad central directory: entry '\(name)' points at byte \(at), not a local header")
    }
    guard try zip.load(UInt16.self, at: at + 8) == 0 else {
      throw FormatError("entry '\(name)' is compressed in its local header; USDZ entries must be stored")
    }
    let nameLength = Int(try zip.load(UInt16.self, at: at + 26))
    let extraLength = Int(try zip.load(UInt16.self, at: at + 28))
    try zip.check(at + 30, nameLength, "the name of entry '\(name)'")
    let localName = String(decoding: zip.bytes[at + 30..<at + 30 + nameLength], as: UTF8.self)
    guard localName == name else {
      throw FormatError("entry '\(name)': its local header at byte \(at) names '\(localName)'")
    }
    return at + 30 + nameLength + extraLength
  }
}
