import ARSim
import Foundation

/// A triangle mesh, as RealityKit's `MeshResource`: vertex positions (metres, in the space of the
/// entity that shows it), optional normals and texture coordinates, and triangles. ARSim draws
/// nothing; meshes give entities their ``bounds`` (``Entity/visualBounds(recursive:relativeTo:excludeInactive:)``)
/// and their collision shapes (``Entity/generateCollisionShapes(recursive:)``). Immutable.
public final class MeshResource: Sendable {
  /// The vertex positions, metres.
  public let positions: [SIMD3<Float>]
  /// One unit normal per vertex, or empty when the mesh was made without normals.
  public let normals: [SIMD3<Float>]
  /// One texture coordinate per vertex, or empty.
  public let textureCoordinates: [SIMD2<Float>]
  /// Three vertex indices per triangle, counter-clockwise seen from the front.
  public let triangleIndices: [UInt32]
  /// The material index of each triangle (an index into a model's `materials`), from the descriptors'
  /// ``MeshDescriptor/materials``; all zero for generated shapes (ARSim's addition).
  public let triangleMaterials: [UInt32]
  /// The box holding every vertex (``BoundingBox/empty`` for a mesh without vertices).
  public let bounds: BoundingBox

  /// The number of vertices.
  public var vertexCount: Int { positions.count }
  /// The number of triangles.
  public var triangleCount: Int { triangleIndices.count / 3 }

  /// A mesh of these parts; `normals` and `textureCoordinates` are empty or one per position, and the
  /// indices are valid (``generate(from:)`` checks; the generators below are valid by construction).
  init(
    positions: [SIMD3<Float>], normals: [SIMD3<Float>] = [], textureCoordinates: [SIMD2<Float>] = [],
    triangleIndices: [UInt32], triangleMaterials: [UInt32]? = nil
  ) {
    self.positions = positions
    self.normals = normals
    self.textureCoordinates = textureCoordinates
    self.triangleIndices = triangleIndices
    self.triangleMaterials = triangleMaterials ?? Array(repeating: 0, count: triangleIndices.count / 3)
    bounds = positions.reduce(BoundingBox.empty) { $0.union(BoundingBox(min: $1, max: $1)) }
  }

  /// A size as given, with negative and non-finite values taken as zero.
  private static func length(_ value: Float) -> Float { value.isFinite ? Swift.max(0, value) : 0 }

  // MARK: Generators

  /// A cube of side `size` centred on the origin (24 vertices, 4 per face so that each face has its
  /// own normals; 12 triangles). `cornerRadius` is accepted; the corners stay sharp (the bounds are
  /// those of the rounded box either way).
  public static func generateBox(size: Float, cornerRadius: Float = 0) -> MeshResource {
    generateBox(width: size, height: size, depth: size, cornerRadius: cornerRadius)
  }

  /// A box of `size` (x width, y height, z depth, metres) centred on the origin.
  public static func generateBox(size: SIMD3<Float>, cornerRadius: Float = 0) -> MeshResource {
    generateBox(width: size.x, height: size.y, depth: size.z, cornerRadius: cornerRadius)
  }

  /// A box `width` × `height` × `depth` (x, y, z; metres) centred on the origin. `splitFaces` (one
  /// material per face in RealityKit) does not change the geometry.
  public static func generateBox(
    width: Float, height: Float, depth: Float, cornerRadius: Float = 0, splitFaces: Bool = false
  ) -> MeshResource {
    box(
      min: -SIMD3(length(width), length(height), length(depth)) / 2,
      max: SIMD3(length(width), length(height), length(depth)) / 2)
  }

  /// An axis-aligned box between two corners (24 vertices, 12 triangles).
  static func box(min low: SIMD3<Float>, max high: SIMD3<Float>) -> MeshResource {
    var positions: [SIMD3<Float>] = []
    var normals: [SIMD3<Float>] = []
    var uvs: [SIMD2<Float>] = []
    var indices: [UInt32] = []
    // Each face: its normal axis and sign, then two in-face axes forming a right-handed frame.
    for axis in 0..<3 {
      for sign: Float in [1, -1] {
        var normal = SIMD3<Float>.zero
        normal[axis] = sign
        let u = SIMD3<Float>(axis == 0 ? 0 : 1, axis == 0 ? 1 : 0, 0)
        var tangent = simd_cross(u, normal)
        if simd_length_squared(tangent) == 0 { tangent = simd_cross(SIMD3(0, 0, 1), normal) }
        let bitangent = simd_cross(normal, tangent)
        let base = UInt32(positions.count)
        for (a, b) in [(Float(-1), Float(-1)), (1, -1), (1, 1), (-1, 1)] {
          let direction = normal + a * tangent + b * bitangent
          positions.append(
            SIMD3(
              direction.x < 0 ? low.x : high.x, direction.y < 0 ? low.y : high.y,
              direction.z < 0 ? low.z : high.z))
          normals.append(normal)
          uvs.append(SIMD2((a + 1) / 2, (1 - b) / 2))
        }
        indices += [base, base + 1, base + 2, base, base + 2, base + 3]
      }
    }
    return MeshResource(
      positions: positions, normals: normals, textureCoordinates: uvs, triangleIndices: indices)
  }

  /// A horizontal rectangle `width` (x) × `depth` (z) in the entity's xz plane, centred on the origin,
  /// facing +y (4 vertices, 2 triangles), as for content lying on a detected floor or table.
  public static func generatePlane(width: Float, depth: Float, cornerRadius: Float = 0) -> MeshResource {
    let (w, d) = (length(width) / 2, length(depth) / 2)
    return MeshResource(
      positions: [SIMD3(-w, 0, d), SIMD3(w, 0, d), SIMD3(w, 0, -d), SIMD3(-w, 0, -d)],
      normals: Array(repeating: SIMD3(0, 1, 0), count: 4),
      textureCoordinates: [SIMD2(0, 1), SIMD2(1, 1), SIMD2(1, 0), SIMD2(0, 0)],
      triangleIndices: [0, 1, 2, 0, 2, 3])
  }

  /// A vertical rectangle `width` (x) × `height` (y) in the entity's xy plane, centred on the origin,
  /// facing +z (4 vertices, 2 triangles).
  public static func generatePlane(width: Float, height: Float, cornerRadius: Float = 0) -> MeshResource {
    let (w, h) = (length(width) / 2, length(height) / 2)
    return MeshResource(
      positions: [SIMD3(-w, -h, 0), SIMD3(w, -h, 0), SIMD3(w, h, 0), SIMD3(-w, h, 0)],
      normals: Array(repeating: SIMD3(0, 0, 1), count: 4),
      textureCoordinates: [SIMD2(0, 1), SIMD2(1, 1), SIMD2(1, 0), SIMD2(0, 0)],
      triangleIndices: [0, 1, 2, 0, 2, 3])
  }

  /// The number of segments around a generated sphere (its rings are half as many).
  public static let sphereSegments = 36

  /// A sphere of `radius` centred on the origin: a latitude–longitude grid of ``sphereSegments``
  /// segments and half as many rings ((18 + 1) × (36 + 1) = 703 vertices, the seam duplicated for
  /// texture coordinates; 1224 triangles). Its poles and equator lie on the sphere, so its bounds are
  /// ±radius on each axis.
  public static func generateSphere(radius: Float) -> MeshResource {
    let r = length(radius)
    let segments = sphereSegments
    let rings = segments / 2
    var positions: [SIMD3<Float>] = []
    var normals: [SIMD3<Float>] = []
    var uvs: [SIMD2<Float>] = []
    for ring in 0...rings {
      let polar = Float.pi * Float(ring) / Float(rings)
      for segment in 0...segments {
        let azimuth = 2 * Float.pi * Float(segment) / Float(segments)
        let normal = SIMD3(sin(polar) * cos(azimuth), cos(polar), -sin(polar) * sin(azimuth))
        positions.append(r * normal)
        normals.append(normal)
        uvs.append(SIMD2(Float(segment) / Float(segments), Float(ring) / Float(rings)))
      }
    }
    var indices: [UInt32] = []
    let row = UInt32(segments + 1)
    for ring in 0..<UInt32(rings) {
      for segment in 0..<UInt32(segments) {
        let a = ring * row + segment
        let b = a + row
        if ring > 0 { indices += [a, b, a + 1] }
        if ring < UInt32(rings) - 1 { indices += [a + 1, b, b + 1] }
      }
    }
    return MeshResource(
      positions: positions, normals: normals, textureCoordinates: uvs, triangleIndices: indices)
  }

  /// The mesh of `descriptors`, generated on the main queue after the call returns, as RealityKit's
  /// `generateAsync(from:)`: the request publishes the mesh and finishes, or fails with the
  /// ``GenerationError`` that ``generate(from:)`` throws.
  public static func generateAsync(from descriptors: [MeshDescriptor]) -> LoadRequest<MeshResource> {
    LoadRequest { try generate(from: descriptors) }
  }

  /// A mesh made of the descriptors' vertices and primitives (polygons are fanned into triangles), as
  /// RealityKit's `generate(from:)`.
  /// - Throws: ``GenerationError`` naming the descriptor and the problem: no primitives, an index out
  ///   of range, a triangle list not a multiple of three, polygon counts that do not match the
  ///   indices, normals or texture coordinates not one per position, or per-face materials not one
  ///   per face.
  public static func generate(from descriptors: [MeshDescriptor]) throws(GenerationError) -> MeshResource {
    var positions: [SIMD3<Float>] = []
    var normals: [SIMD3<Float>] = []
    var uvs: [SIMD2<Float>] = []
    var indices: [UInt32] = []
    var materials: [UInt32] = []
    let keepNormals = descriptors.allSatisfy { $0.normals != nil }
    let keepUVs = descriptors.allSatisfy { $0.textureCoordinates != nil }
    for (number, descriptor) in descriptors.enumerated() {
      let label = descriptor.name.isEmpty ? "descriptor \(number)" : "descriptor '\(descriptor.name)'"
      func fail(_ problem: String) -> GenerationError { GenerationError(message: "\(label): \(problem)") }
      let count = descriptor.positions.count
      if let n = descriptor.normals, n.count != count {
        throw fail("\(n.count) normals for \(count) positions")
      }
      if let t = descriptor.textureCoordinates, t.count != count {
        throw fail("\(t.count) texture coordinates for \(count) positions")
      }
      let triangles: [UInt32]
      /// The face each triangle comes from.
      var faceOfTriangle: [Int] = []
      let faceCount: Int
      switch descriptor.primitives {
      case nil:
        throw fail("no primitives")
      case .triangles(let list):
        guard list.count % 3 == 0 else { throw fail("\(list.count) triangle indices, not a multiple of 3") }
        triangles = list
        faceCount = list.count / 3
        faceOfTriangle = Array(0..<faceCount)
      case .polygons(let counts, let list):
        guard counts.reduce(0, { $0 + Int($1) }) == list.count, counts.allSatisfy({ $0 >= 3 }) else {
          throw fail("polygon vertex counts do not add up to the \(list.count) indices (or one is below 3)")
        }
        var fanned: [UInt32] = []
        var start = 0
        for (face, polygon) in counts.enumerated() {
          for k in 1..<(Int(polygon) - 1) {
            fanned += [list[start], list[start + k], list[start + k + 1]]
            faceOfTriangle.append(face)
          }
          start += Int(polygon)
        }
        triangles = fanned
        faceCount = counts.count
      }
      switch descriptor.materials {
      case .allFaces(let index):
        materials += Array(repeating: index, count: faceOfTriangle.count)
      case .perFace(let perFace):
        guard perFace.count == faceCount else {
          throw fail("\(perFace.count) per-face material indices for \(faceCount) faces")
        }
        materials += faceOfTriangle.map { perFace[$0] }
      }
      if let bad = triangles.first(where: { Int($0) >= count }) {
        throw fail("index \(bad) out of range for \(count) positions")
      }
      let base = UInt32(positions.count)
      positions += descriptor.positions
      if keepNormals, let n = descriptor.normals { normals += n }
      if keepUVs, let t = descriptor.textureCoordinates { uvs += t }
      indices += triangles.map { $0 + base }
    }
    return MeshResource(
      positions: positions, normals: normals, textureCoordinates: uvs, triangleIndices: indices,
      triangleMaterials: materials)
  }

  /// Why ``generate(from:)`` refused its descriptors.
  public struct GenerationError: Error, LocalizedError, CustomStringConvertible, Sendable {
    /// The descriptor and the problem.
    public var message: String
    /// The message.
    public var errorDescription: String? { message }
    /// The message.
    public var description: String { message }
  }
}

/// The vertices and primitives of one part of a mesh, as RealityKit's `MeshDescriptor`.
public struct MeshDescriptor: Sendable {
  /// How the indices form faces.
  public enum Primitives: Sendable {
    /// Three indices per triangle.
    case triangles([UInt32])
    /// Polygons: the vertex count of each, then all their indices in order.
    case polygons([UInt8], [UInt32])
  }

  /// The part's name, for errors and debugging.
  public var name: String
  /// The vertex positions, metres.
  public var positions: MeshBuffers.Positions = []
  /// One normal per position, or nil.
  public var normals: MeshBuffers.Normals?
  /// One texture coordinate per position, or nil.
  public var textureCoordinates: MeshBuffers.TextureCoordinates?
  /// The faces; required.
  public var primitives: Primitives?
  /// Which of a model's materials each face uses. Default `.allFaces(0)`.
  public var materials: Materials = .allFaces(0)

  /// Which materials the faces use (RealityKit's `MeshDescriptor.Materials`).
  public enum Materials: Sendable, Hashable {
    /// Every face uses the material at this index.
    case allFaces(UInt32)
    /// One material index per face (per triangle, or per polygon), in order.
    case perFace([UInt32])
  }

  /// An empty descriptor.
  public init(name: String = "") {
    self.name = name
  }
}

/// A buffer of per-vertex values, as RealityKit's `MeshBuffer`.
public struct MeshBuffer<Element: Sendable>: RandomAccessCollection, ExpressibleByArrayLiteral, Sendable {
  /// The values.
  public var elements: [Element]
  /// A buffer of `elements`.
  public init(_ elements: [Element]) { self.elements = elements }
  /// A buffer of the listed values.
  public init(arrayLiteral elements: Element...) { self.elements = elements }
  /// Zero.
  public var startIndex: Int { 0 }
  /// The number of values.
  public var endIndex: Int { elements.count }
  /// The value at `position`.
  public subscript(position: Int) -> Element { elements[position] }
}

/// The buffer types of a ``MeshDescriptor`` (RealityKit's `MeshBuffers`).
public enum MeshBuffers {
  /// Vertex positions, metres.
  public typealias Positions = MeshBuffer<SIMD3<Float>>
  /// Vertex normals.
  public typealias Normals = MeshBuffer<SIMD3<Float>>
  /// Texture coordinates.
  public typealias TextureCoordinates = MeshBuffer<SIMD2<Float>>
}
