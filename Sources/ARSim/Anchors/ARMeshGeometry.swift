import Foundation

/// How the values in a geometry source's buffer are laid out (the cases of Metal's `MTLVertexFormat`
/// that mesh anchors use, with Metal's raw values).
public enum MTLVertexFormat: UInt, Sendable, Hashable {
  /// No format.
  case invalid = 0
  /// One 32-bit float.
  case float = 28
  /// Two 32-bit floats.
  case float2 = 29
  /// Three 32-bit floats, 12 bytes (ARKit's vertices and normals).
  case float3 = 30
  /// Four 32-bit floats.
  case float4 = 31
  /// One 32-bit unsigned integer.
  case uint = 36
  /// One unsigned byte (ARKit's per-face classification).
  case uchar = 45
}

/// Bytes of mesh data (what Metal's `MTLBuffer` is to ARKit's geometry sources; Linux has no Metal):
/// immutable once made, read through ``contents()`` as an app reads an `MTLBuffer`.
public final class ARGeometryBuffer: @unchecked Sendable {
  /// The buffer's size in bytes.
  public let length: Int
  private let storage: UnsafeMutableRawPointer

  /// A buffer holding a copy of `bytes`.
  package init(copying bytes: UnsafeRawBufferPointer) {
    length = bytes.count
    storage = UnsafeMutableRawPointer.allocate(byteCount: max(bytes.count, 1), alignment: 16)
    if let base = bytes.baseAddress, bytes.count > 0 {
      storage.copyMemory(from: base, byteCount: bytes.count)
    }
  }

  /// A buffer holding the bytes of `values`.
  package convenience init<T>(values: [T]) {
    self.init(copying: values.withUnsafeBytes { UnsafeRawBufferPointer($0) })
  }

  deinit { storage.deallocate() }

  /// The first byte, as Metal's `MTLBuffer.contents()`: valid while the buffer lives, `length` bytes.
  /// The buffer is shared by every copy of the geometry that holds it: read it, do not write it.
  public func contents() -> UnsafeMutableRawPointer { storage }
}

/// Mesh data in a buffer (ARKit's `ARGeometrySource`): ``count`` vectors of ``componentsPerVector``
/// values in ``format``, the first ``offset`` bytes into ``buffer``, one every ``stride`` bytes. Vector
/// `i` starts at `buffer.contents() + offset + stride * i`.
public final class ARGeometrySource: @unchecked Sendable {
  /// The bytes.
  public let buffer: ARGeometryBuffer
  /// The number of vectors.
  public let count: Int
  /// The type of each vector.
  public let format: MTLVertexFormat
  /// The number of scalar components in each vector (3 for vertices and normals, 1 for classification).
  public let componentsPerVector: Int
  /// Bytes from the start of ``buffer`` to the first vector.
  public let offset: Int
  /// Bytes from the start of one vector to the start of the next.
  public let stride: Int

  /// A source of `count` vectors in `buffer`.
  package init(
    buffer: ARGeometryBuffer, count: Int, format: MTLVertexFormat, componentsPerVector: Int, offset: Int = 0,
    stride: Int
  ) {
    self.buffer = buffer
    self.count = count
    self.format = format
    self.componentsPerVector = componentsPerVector
    self.offset = offset
    self.stride = stride
  }

  /// Three floats per vector, tightly packed (`.float3`, stride 12), as ARKit's vertices and normals.
  package convenience init(float3 values: [Float]) {
    self.init(
      buffer: ARGeometryBuffer(values: values), count: values.count / 3, format: .float3,
      componentsPerVector: 3,
      stride: 12)
  }

  /// One byte per vector (`.uchar`, stride 1), as ARKit's classification.
  package convenience init(bytes values: [UInt8]) {
    self.init(
      buffer: ARGeometryBuffer(values: values), count: values.count, format: .uchar, componentsPerVector: 1,
      stride: 1)
  }

  /// Vector `index` of a `.float3` source (ARSim's addition): what an app reads through
  /// `buffer.contents()`. Traps when the format is not `.float3` or `index` is out of `0..<count`.
  public func float3(at index: Int) -> SIMD3<Float> {
    precondition(format == .float3, "float3(at:) reads .float3 sources (this one is \(format))")
    precondition(index >= 0 && index < count, "vector \(index) is out of 0..<\(count)")
    let base = buffer.contents().advanced(by: offset + stride * index)
    return SIMD3(
      base.loadUnaligned(as: Float.self), base.loadUnaligned(fromByteOffset: 4, as: Float.self),
      base.loadUnaligned(fromByteOffset: 8, as: Float.self))
  }

  /// Byte `index` of a `.uchar` source (ARSim's addition). Traps when the format is not `.uchar` or
  /// `index` is out of `0..<count`.
  public func uchar(at index: Int) -> UInt8 {
    precondition(format == .uchar, "uchar(at:) reads .uchar sources (this one is \(format))")
    precondition(index >= 0 && index < count, "vector \(index) is out of 0..<\(count)")
    return buffer.contents().load(fromByteOffset: offset + stride * index, as: UInt8.self)
  }
}

/// How the indices of a geometry element group into primitives (ARKit's `ARGeometryPrimitiveType`).
public enum ARGeometryPrimitiveType: Int, Sendable, Hashable {
  /// Two indices per line.
  case line = 0
  /// Three indices per triangle.
  case triangle = 1
}

/// Primitives as indices into a geometry's sources (ARKit's `ARGeometryElement`): ``count`` primitives
/// of ``indexCountPerPrimitive`` indices, each ``bytesPerIndex`` bytes, tightly packed in ``buffer``.
public final class ARGeometryElement: @unchecked Sendable {
  /// The indices.
  public let buffer: ARGeometryBuffer
  /// The number of primitives (triangles).
  public let count: Int
  /// Bytes per index: 4 (32-bit unsigned).
  public let bytesPerIndex: Int
  /// Indices per primitive: 3.
  public let indexCountPerPrimitive: Int
  /// The kind of primitive: `.triangle`.
  public let primitiveType: ARGeometryPrimitiveType

  /// Triangles from `indices` (three per triangle, 32-bit).
  package init(triangles indices: [UInt32]) {
    buffer = ARGeometryBuffer(values: indices)
    count = indices.count / 3
    bytesPerIndex = 4
    indexCountPerPrimitive = 3
    primitiveType = .triangle
  }

  /// The vertex indices of primitive `index` (ARSim's addition). Traps when `index` is out of
  /// `0..<count`.
  public func indices(of index: Int) -> [UInt32] {
    precondition(index >= 0 && index < count, "primitive \(index) is out of 0..<\(count)")
    let base = buffer.contents().advanced(by: index * indexCountPerPrimitive * bytesPerIndex)
    return (0..<indexCountPerPrimitive).map {
      base.loadUnaligned(fromByteOffset: $0 * bytesPerIndex, as: UInt32.self)
    }
  }
}

/// What kind of real-world surface a mesh face lies on (ARKit's `ARMeshClassification`, same raw
/// values).
public enum ARMeshClassification: Int, Sendable, Hashable, CaseIterable {
  /// Not classified.
  case none = 0
  /// A wall (vertical).
  case wall = 1
  /// The floor.
  case floor = 2
  /// A ceiling.
  case ceiling = 3
  /// A table top.
  case table = 4
  /// A seat.
  case seat = 5
  /// A window. ARSim classifies from geometry and never gives it.
  case window = 6
  /// A door. ARSim classifies from geometry and never gives it.
  case door = 7
}

/// The surface of one mesh anchor (ARKit's `ARMeshGeometry`): vertices and normals in the anchor's
/// space (metres), triangles counter-clockwise seen from the side their normals point to (free
/// space), and, with `.meshWithClassification`, one ``ARMeshClassification`` raw value per face.
public final class ARMeshGeometry: @unchecked Sendable {
  /// Vertex positions: `.float3`, anchor space, metres.
  public let vertices: ARGeometrySource
  /// Unit normals, one per vertex: `.float3`, anchor space, pointing away from the surface's solid side.
  public let normals: ARGeometrySource
  /// Triangles: 32-bit indices into ``vertices``.
  public let faces: ARGeometryElement
  /// One `.uchar` per face (an ``ARMeshClassification`` raw value), or nil without classification.
  public let classification: ARGeometrySource?
  /// The smallest box (anchor space, metres) holding every vertex, nil without vertices: what raycasts
  /// and collisions test before the triangles.
  package let bounds: (low: SIMD3<Float>, high: SIMD3<Float>)?

  /// A geometry from its parts (counts are not checked against each other).
  package init(
    vertices: ARGeometrySource, normals: ARGeometrySource, faces: ARGeometryElement,
    classification: ARGeometrySource?
  ) {
    self.vertices = vertices
    self.normals = normals
    self.faces = faces
    self.classification = classification
    if vertices.format == .float3, vertices.count > 0 {
      var low = vertices.float3(at: 0)
      var high = low
      for i in 1..<vertices.count {
        let p = vertices.float3(at: i)
        low = simd_min(low, p)
        high = simd_max(high, p)
      }
      bounds = (low, high)
    } else {
      bounds = nil
    }
  }

  /// An empty geometry.
  package convenience init() {
    self.init(
      vertices: ARGeometrySource(float3: []), normals: ARGeometrySource(float3: []),
      faces: ARGeometryElement(triangles: []), classification: nil)
  }
}
