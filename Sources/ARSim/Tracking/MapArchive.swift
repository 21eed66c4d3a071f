import ARSimMath
import Foundation

/// ARSim's world map file format, version 1 (``ARWorldMap/data()`` writes it, ``ARWorldMap/init(data:name:)``
/// reads it). All numbers little-endian; floats IEEE 754.
///
/// ```
/// magic     8 bytes  "ARSIMMAP"
/// version   u32      1
/// keyframes u32, then per keyframe:
///   pose    7 × f64  worldFromOptical: quaternion x y z w (unit), translation x y z (metres)
///   count   u32, then per feature: descriptor 32 bytes (ORB, 256 bits), point 3 × f64 (world, metres)
/// anchors   u32, then per anchor:
///   kind    u8       0 anchor, 1 plane anchor
///   id      16 bytes UUID
///   name    u8 flag (0 none, 1 present), then u32 byte count and UTF-8 bytes when present
///   pose    16 × f32 anchor to world, column-major (rigid)
///   plane only: alignment u8 (0 horizontal, 1 vertical), classification u8 (0-2 none(status),
///               3 wall, 4 floor, 5 ceiling, 6 table, 7 seat, 8 window, 9 door), center 3 × f32,
///               extent width, height, rotationOnYAxis 3 × f32, boundary u32 count then 3 × f32 each
/// ```
///
/// The reader is strict: every count is checked against the bytes left, every number must be finite,
/// poses rigid, enumerations known, and nothing may follow the last anchor. Errors are
/// ``ARError/Code/invalidWorldMap`` with a message naming the file (or `world map` for data) and the
/// byte offset.
enum MapArchive {
  static let magic = Array("ARSIMMAP".utf8)
  static let version: UInt32 = 1

  /// The contents of a map, as the format holds them.
  struct Contents {
    var keyframes: [Keyframe]
    var anchors: [ARAnchor]
  }

  static func encode(_ contents: Contents) -> Data {
    var out = Writer()
    out.bytes += magic
    out.u32(version)
    out.u32(UInt32(contents.keyframes.count))
    for keyframe in contents.keyframes {
      let q = keyframe.oFromOptical.rotation.vector
      let t = keyframe.oFromOptical.translation
      for v in [q.x, q.y, q.z, q.w, t.x, t.y, t.z] { out.f64(v) }
      out.u32(UInt32(keyframe.descriptors.count))
      for (descriptor, point) in zip(keyframe.descriptors, keyframe.points) {
        for i in 0..<4 { out.u64(descriptor.words[i]) }
        for i in 0..<3 { out.f64(point[i]) }
      }
    }
    out.u32(UInt32(contents.anchors.count))
    for anchor in contents.anchors {
      let plane = anchor as? ARPlaneAnchor
      out.bytes.append(plane == nil ? 0 : 1)
      withUnsafeBytes(of: anchor.identifier.uuid) { out.bytes += $0 }
      if let name = anchor.name {
        out.bytes.append(1)
        out.u32(UInt32(name.utf8.count))
        out.bytes += Array(name.utf8)
      } else {
        out.bytes.append(0)
      }
      for c in 0..<4 { for r in 0..<4 { out.f32(anchor.transform[c][r]) } }
      guard let plane else { continue }
      out.bytes.append(UInt8(plane.alignment.rawValue))
      out.bytes.append(classificationCode(plane.classification))
      for v in [plane.center.x, plane.center.y, plane.center.z] { out.f32(v) }
      for v in [plane.planeExtent.width, plane.planeExtent.height, plane.planeExtent.rotationOnYAxis] {
        out.f32(v)
      }
      out.u32(UInt32(plane.geometry.boundaryVertices.count))
      for v in plane.geometry.boundaryVertices { for i in 0..<3 { out.f32(v[i]) } }
    }
    return Data(out.bytes)
  }

  /// Reads a map; `name` (a path, or `world map`) begins every error message.
  static func decode(_ data: Data, name: String) throws(ARError) -> Contents {
    var reader = Reader(bytes: [UInt8](data), name: name)
    guard data.count >= magic.count, Array(data.prefix(magic.count)) == magic else {
      throw ARError(.invalidWorldMap, message: "\(name): not an ARSim world map (no ARSIMMAP header)")
    }
    reader.offset = magic.count
    let version = try reader.u32("version")
    guard version == Self.version else {
      throw reader.error(
        "version \(version) is not supported (this ARSim reads version \(Self.version))", at: 8)
    }
    var keyframes: [Keyframe] = []
    for _ in 0..<(try reader.count(minimumSize: 60, "keyframe")) {
      let start = reader.offset
      let q = simd_quatd(
        ix: try reader.f64("quaternion"), iy: try reader.f64("quaternion"), iz: try reader.f64("quaternion"),
        r: try reader.f64("quaternion"))
      guard abs(q.length - 1) < 1e-6 else {
        throw reader.error("keyframe rotation is not a unit quaternion", at: start)
      }
      let t = SIMD3(try reader.f64("position"), try reader.f64("position"), try reader.f64("position"))
      let count = try reader.count(minimumSize: 56, "feature")
      var descriptors: [ORBDescriptor] = []
      var points: [SIMD3<Double>] = []
      descriptors.reserveCapacity(count)
      points.reserveCapacity(count)
      for _ in 0..<count {
        descriptors.append(
          ORBDescriptor(
            words: SIMD4(
              try reader.u64("descriptor"), try reader.u64("descriptor"), try reader.u64("descriptor"),
              try reader.u64("descriptor"))))
        points.append(SIMD3(try reader.f64("point"), try reader.f64("point"), try reader.f64("point")))
      }
      var pose = RigidTransform(rotation: q, translation: t)
      pose.rotation = q  // as written (unit to 1e-6), so that a map reads back bit for bit
      keyframes.append(Keyframe(oFromOptical: pose, descriptors: descriptors, points: points))
    }
    var anchors: [ARAnchor] = []
    for _ in 0..<(try reader.count(minimumSize: 82, "anchor")) { anchors.append(try readAnchor(&reader)) }
    guard reader.offset == reader.bytes.count else {
      throw reader.error(
        "\(reader.bytes.count - reader.offset) bytes after the last anchor", at: reader.offset)
    }
    return Contents(keyframes: keyframes, anchors: anchors)
  }

  private static func readAnchor(_ reader: inout Reader) throws(ARError) -> ARAnchor {
    let start = reader.offset
    let kind = try reader.u8("anchor kind")
    guard kind <= 1 else { throw reader.error("anchor kind \(kind) is unknown", at: start) }
    var uuid = [UInt8]()
    for _ in 0..<16 { uuid.append(try reader.u8("identifier")) }
    let identifier = uuid.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
    var name: String?
    let flag = try reader.u8("name flag")
    guard flag <= 1 else { throw reader.error("name flag \(flag) is neither 0 nor 1", at: reader.offset - 1) }
    if flag == 1 {
      let length = try reader.count(minimumSize: 1, "name byte")
      let at = reader.offset
      var utf8: [UInt8] = []
      for _ in 0..<length { utf8.append(try reader.u8("name")) }
      guard let text = String(validating: utf8, as: UTF8.self) else {
        throw reader.error("name is not UTF-8", at: at)
      }
      name = text
    }
    let poseAt = reader.offset
    var columns: [SIMD4<Float>] = []
    for _ in 0..<4 {
      columns.append(
        SIMD4(
          try reader.f32("transform"), try reader.f32("transform"), try reader.f32("transform"),
          try reader.f32("transform")))
    }
    let transform = simd_float4x4(columns: (columns[0], columns[1], columns[2], columns[3]))
    guard isRigid(transform) else { throw reader.error("anchor transform is not rigid", at: poseAt) }
    guard kind == 1 else {
      return ARAnchor(identifier: identifier, name: name, transform: transform, sessionIdentifier: nil)
    }
    let alignmentAt = reader.offset
    guard let alignment = ARPlaneAnchor.Alignment(rawValue: Int(try reader.u8("alignment"))) else {
      throw reader.error("plane alignment is neither 0 nor 1", at: alignmentAt)
    }
    let classificationAt = reader.offset
    guard let classification = classification(try reader.u8("classification")) else {
      throw reader.error("plane classification is unknown", at: classificationAt)
    }
    let center = simd_float3(try reader.f32("center"), try reader.f32("center"), try reader.f32("center"))
    let extent = ARPlaneExtent(
      width: try reader.f32("extent"), height: try reader.f32("extent"),
      rotationOnYAxis: try reader.f32("extent"))
    guard extent.width >= 0, extent.height >= 0 else {
      throw reader.error("plane extent is negative", at: reader.offset - 12)
    }
    var boundary: [simd_float3] = []
    let count = try reader.count(minimumSize: 12, "boundary vertex")
    guard count <= Int(Int16.max) else {
      throw reader.error("\(count) boundary vertices (at most 32767)", at: reader.offset - 4)
    }
    for _ in 0..<count {
      boundary.append(
        simd_float3(try reader.f32("boundary"), try reader.f32("boundary"), try reader.f32("boundary")))
    }
    return ARPlaneAnchor(
      identifier: identifier, transform: transform, alignment: alignment, center: center, planeExtent: extent,
      geometry: ARPlaneGeometry(boundary: boundary), classification: classification, sessionIdentifier: nil)
  }

  /// Whether the upper 3x3 is a rotation (to 1e-3) and the last row is (0, 0, 0, 1).
  private static func isRigid(_ m: simd_float4x4) -> Bool {
    let xyz = { (c: SIMD4<Float>) in SIMD3(c.x, c.y, c.z) }
    let r = simd_float3x3(columns: (xyz(m[0]), xyz(m[1]), xyz(m[2])))
    let product = r.transpose * r
    for c in 0..<3 {
      for k in 0..<3 where abs(product[c][k] - (c == k ? 1 : 0)) > 1e-3 { return false }
    }
    return m[0].w == 0 && m[1].w == 0 && m[2].w == 0 && m[3].w == 1 && simd_determinant(r) > 0
  }

  private static func classificationCode(_ c: ARPlaneAnchor.Classification) -> UInt8 {
    switch c {
    case .none(let status): UInt8(status.rawValue)
    case .wall: 3
    case .floor: 4
    case .ceiling: 5
    case .table: 6
    case .seat: 7
    case .window: 8
    case .door: 9
    }
  }

  private static func classification(_ code: UInt8) -> ARPlaneAnchor.Classification? {
    switch code {
    case 0...2: ARPlaneAnchor.Classification.Status(rawValue: Int(code)).map { .none($0) }
    case 3: .wall
    case 4: .floor
    case 5: .ceiling
    case 6: .table
    case 7: .seat
    case 8: .window
    case 9: .door
    default: nil
    }
  }

  private struct Writer {
    var bytes: [UInt8] = []
    mutating func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { bytes += $0 } }
    mutating func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { bytes += $0 } }
    mutating func f32(_ v: Float) { u32(v.bitPattern) }
    mutating func f64(_ v: Double) { u64(v.bitPattern) }
  }

  /// Checked little-endian reads over the shared ``ByteReader``; every failure is an ``ARError`` naming
  /// the file and the offset.
  private struct Reader {
    var base: ByteReader
    let name: String

    init(bytes: [UInt8], name: String) {
      base = ByteReader(bytes)
      self.name = name
    }

    var bytes: [UInt8] { base.bytes }
    var offset: Int {
      get { base.offset }
      set { base.offset = newValue }
    }

    func error(_ problem: String, at offset: Int) -> ARError {
      ARError(.invalidWorldMap, message: "\(name): byte \(offset): \(problem)")
    }

    mutating func integer<T: FixedWidthInteger>(_: T.Type, _ what: String) throws(ARError) -> T {
      do {
        return try base.read(T.self)
      } catch {
        throw self.error("the file ends inside a \(what) (\(bytes.count) bytes)", at: offset)
      }
    }

    mutating func u8(_ what: String) throws(ARError) -> UInt8 { try integer(UInt8.self, what) }
    mutating func u32(_ what: String) throws(ARError) -> UInt32 { try integer(UInt32.self, what) }
    mutating func u64(_ what: String) throws(ARError) -> UInt64 { try integer(UInt64.self, what) }

    mutating func f64(_ what: String) throws(ARError) -> Double {
      let value = Double(bitPattern: try u64(what))
      guard value.isFinite else { throw error("\(what) is not a finite number", at: offset - 8) }
      return value
    }

    mutating func f32(_ what: String) throws(ARError) -> Float {
      let value = Float(bitPattern: try u32(what))
      guard value.isFinite else { throw error("\(what) is not a finite number", at: offset - 4) }
      return value
    }

    /// A u32 count, checked against the bytes left (each element at least `minimumSize` bytes), so a
    /// corrupt count cannot ask for an absurd allocation.
    mutating func count(minimumSize: Int, _ what: String) throws(ARError) -> Int {
      let raw = Int(try u32("\(what) count"))
      guard raw <= base.remaining / minimumSize else {
        throw error("\(raw) \(what)s do not fit in the \(base.remaining) bytes left", at: offset - 4)
      }
      return raw
    }
  }
}
