import ARSim
import ARSimRun
import Foundation

/// ASCII PLY files (the Stanford polygon format that MeshLab, Open3D and CloudCompare read), written
/// atomically.
enum PLYWriter {
  /// A flat polygon with one colour.
  struct Polygon {
    /// Vertices in order around the boundary, metres.
    var vertices: [SIMD3<Double>]
    /// The colour of its vertices and of its face.
    var color: RenderColor
  }

  /// A point with the identifier of the feature it belongs to.
  struct Point {
    /// Position, metres.
    var position: SIMD3<Double>
    /// The feature's identifier (`ARPointCloud.identifiers`).
    var identifier: UInt64
    /// Index of the last frame that saw it.
    var frame: Int
  }

  /// Writes `polygons` as a mesh: each polygon's vertices (with its colour: `x y z red green blue`),
  /// then one face per polygon (`vertex_indices` and the colour again, for readers that colour faces).
  /// Polygons with fewer than three vertices are left out. `comments` go into the header.
  static func writePolygons(_ polygons: [Polygon], comments: [String], to path: String) throws {
    let faces = polygons.filter { $0.vertices.count >= 3 }
    let vertexCount = faces.reduce(0) { $0 + $1.vertices.count }
    let countType = faces.allSatisfy { $0.vertices.count <= 255 } ? "uchar" : "int"
    let file = try OutputFile(path: path)
    try writeHeader(
      file, comments: comments,
      elements: [
        (
          "vertex", vertexCount,
          [
            "property float x", "property float y", "property float z", "property uchar red",
            "property uchar green", "property uchar blue",
          ]
        ),
        (
          "face", faces.count,
          [
            "property list \(countType) int vertex_indices", "property uchar red", "property uchar green",
            "property uchar blue",
          ]
        ),
      ])
    for face in faces {
      for v in face.vertices {
        try file.write("\(coordinates(v)) \(face.color.red) \(face.color.green) \(face.color.blue)")
      }
    }
    var next = 0
    for face in faces {
      let indices = (next..<(next + face.vertices.count)).map(String.init).joined(separator: " ")
      try file.write(
        "\(face.vertices.count) \(indices) \(face.color.red) \(face.color.green) \(face.color.blue)")
      next += face.vertices.count
    }
    try file.close()
  }

  /// Writes `points` as a point cloud: `x y z id frame`, with `id` an unsigned 32-bit integer when every
  /// identifier fits, otherwise split into `id_high` and `id_low` (PLY has no 64-bit integers).
  static func writePoints(_ points: [Point], comments: [String], to path: String) throws {
    let narrow = points.allSatisfy { $0.identifier <= UInt64(UInt32.max) }
    let file = try OutputFile(path: path)
    let idProperties = narrow ? ["property uint id"] : ["property uint id_high", "property uint id_low"]
    try writeHeader(
      file, comments: comments,
      elements: [
        (
          "vertex", points.count,
          ["property float x", "property float y", "property float z"] + idProperties + ["property int frame"]
        )
      ])
    for point in points {
      let id = narrow ? "\(point.identifier)" : "\(point.identifier >> 32) \(point.identifier & 0xFFFF_FFFF)"
      try file.write("\(coordinates(point.position)) \(id) \(point.frame)")
    }
    try file.close()
  }

  /// Writes the mesh anchors' surfaces as one mesh in the session world (metres): vertices
  /// (`x y z nx ny nz`, each anchor's moved to the world by its transform), then triangles
  /// (`vertex_indices` and `classification`, the face's ``ARMeshClassification`` raw value, 0 without
  /// classification). Returns the vertex and face counts.
  static func writeMesh(_ anchors: [ARMeshAnchor], comments: [String], to path: String) throws -> (Int, Int) {
    let vertexCount = anchors.reduce(0) { $0 + $1.geometry.vertices.count }
    let faceCount = anchors.reduce(0) { $0 + $1.geometry.faces.count }
    let file = try OutputFile(path: path)
    try writeHeader(
      file, comments: comments,
      elements: [
        (
          "vertex", vertexCount,
          [
            "property float x", "property float y", "property float z", "property float nx",
            "property float ny",
            "property float nz",
          ]
        ),
        ("face", faceCount, ["property list uchar int vertex_indices", "property uchar classification"]),
      ])
    for anchor in anchors {
      let worldFromAnchor = simd_double4x4(anchor.transform)
      let geometry = anchor.geometry
      for i in 0..<geometry.vertices.count {
        let p = SIMD3<Double>(geometry.vertices.float3(at: i))
        let n = SIMD3<Double>(geometry.normals.float3(at: i))
        let world = worldFromAnchor * SIMD4(p, 1)
        let normal = worldFromAnchor * SIMD4(n, 0)
        try file.write(
          line([(world.x, 6), (world.y, 6), (world.z, 6), (normal.x, 4), (normal.y, 4), (normal.z, 4)]))
      }
    }
    var first = 0
    for anchor in anchors {
      let geometry = anchor.geometry
      for f in 0..<geometry.faces.count {
        let i = geometry.faces.indices(of: f).map { first + Int($0) }
        try file.write("3 \(i[0]) \(i[1]) \(i[2]) \(geometry.classification?.uchar(at: f) ?? 0)")
      }
      first += geometry.vertices.count
    }
    try file.close()
    return (vertexCount, faceCount)
  }

  private static func coordinates(_ v: SIMD3<Double>) -> String { line([(v.x, 6), (v.y, 6), (v.z, 6)]) }

  /// Numbers with their fraction digits (printf's `%.Nf` text), separated by spaces.
  private static func line(_ values: [(Double, digits: Int)]) -> String {
    var text: [UInt8] = []
    text.reserveCapacity(16 * values.count)
    for (index, (value, digits)) in values.enumerated() {
      if index > 0 { text.append(UInt8(ascii: " ")) }
      FixedDecimal.append(value, digits: digits, to: &text)
    }
    return String(decoding: text, as: UTF8.self)
  }

  private static func writeHeader(
    _ file: OutputFile, comments: [String], elements: [(name: String, count: Int, properties: [String])]
  ) throws {
    try file.write("ply")
    try file.write("format ascii 1.0")
    for comment in comments {
      try file.write("comment " + comment.replacingOccurrences(of: "\n", with: " "))
    }
    for element in elements {
      try file.write("element \(element.name) \(element.count)")
      for property in element.properties { try file.write(property) }
    }
    try file.write("end_header")
  }
}
