import ARSim
internal import CFreeType
import Foundation

/// A filled region of a glyph: an outer boundary counter-clockwise and its holes clockwise (font
/// units, y up).
struct FilledPolygon {
  var outer: [SIMD2<Float>]
  var holes: [[SIMD2<Float>]]
}

/// A font file opened with FreeType for outlines and metrics in font units. Owns its library and face.
final class GlyphFace {
  private var library: FT_Library?
  private var face: FT_Face?
  let unitsPerEm: Float
  let ascender: Float
  let descender: Float
  let lineHeight: Float
  private var outlines: [Character: [FilledPolygon]] = [:]

  init?(url: URL) {
    guard FT_Init_FreeType(&library) == 0 else { return nil }
    guard FT_New_Face(library, url.path, 0, &face) == 0, let face, face.pointee.units_per_EM > 0 else {
      FT_Done_FreeType(library)
      return nil
    }
    unitsPerEm = Float(face.pointee.units_per_EM)
    ascender = Float(face.pointee.ascender)
    descender = Float(face.pointee.descender)
    lineHeight = Swift.max(Float(face.pointee.height), ascender - descender)
  }

  deinit {
    if let face { FT_Done_Face(face) }
    FT_Done_FreeType(library)
  }

  /// Loads the glyph of `character` unscaled; false when the font has no outline for it.
  private func load(_ character: Character) -> Bool {
    guard let face, let scalar = character.unicodeScalars.first else { return false }
    let index = FT_Get_Char_Index(face, FT_ULong(scalar.value))
    return FT_Load_Glyph(face, index, FT_Int32(FT_LOAD_NO_SCALE)) == 0
  }

  /// The horizontal advance of `character`, font units (0 when the font lacks it).
  func advance(of character: Character) -> Float {
    guard load(character), let glyph = face?.pointee.glyph else { return 0 }
    return Float(glyph.pointee.advance.x)
  }

  /// The filled regions of `character`'s outline, font units with the origin on the baseline.
  func polygons(of character: Character) -> [FilledPolygon] {
    if let known = outlines[character] { return known }
    var contours: [[SIMD2<Float>]] = []
    if load(character), let glyph = face?.pointee.glyph, glyph.pointee.format == FT_GLYPH_FORMAT_OUTLINE {
      let collector = ContourCollector()
      var funcs = FT_Outline_Funcs(
        move_to: { to, user in
          ContourCollector.from(user).move(to!.pointee)
          return 0
        },
        line_to: { to, user in
          ContourCollector.from(user).line(to!.pointee)
          return 0
        },
        conic_to: { control, to, user in
          ContourCollector.from(user).conic(control!.pointee, to!.pointee)
          return 0
        },
        cubic_to: { c1, c2, to, user in
          ContourCollector.from(user).cubic(c1!.pointee, c2!.pointee, to!.pointee)
          return 0
        }, shift: 0, delta: 0)
      var outline = glyph.pointee.outline
      _ = withExtendedLifetime(collector) {
        FT_Outline_Decompose(&outline, &funcs, Unmanaged.passUnretained(collector).toOpaque())
      }
      contours = collector.finish()
    }
    let filled = Triangulation.regions(of: contours)
    outlines[character] = filled
    return filled
  }
}

/// Collects an outline's contours as polylines, curves flattened.
private final class ContourCollector {
  private var contours: [[SIMD2<Float>]] = []
  private var current: [SIMD2<Float>] = []
  /// Segments per curve.
  private let segments = 8

  static func from(_ user: UnsafeMutableRawPointer?) -> ContourCollector {
    Unmanaged<ContourCollector>.fromOpaque(user!).takeUnretainedValue()
  }

  private func point(_ v: FT_Vector) -> SIMD2<Float> { SIMD2(Float(v.x), Float(v.y)) }

  func move(_ to: FT_Vector) {
    close()
    current = [point(to)]
  }

  func line(_ to: FT_Vector) { current.append(point(to)) }

  func conic(_ control: FT_Vector, _ to: FT_Vector) {
    guard let start = current.last else { return }
    let (c, end) = (point(control), point(to))
    for i in 1...segments {
      let t = Float(i) / Float(segments)
      let u = 1 - t
      current.append(u * u * start + 2 * u * t * c + t * t * end)
    }
  }

  func cubic(_ c1: FT_Vector, _ c2: FT_Vector, _ to: FT_Vector) {
    guard let start = current.last else { return }
    let (a, b, end) = (point(c1), point(c2), point(to))
    for i in 1...segments {
      let t = Float(i) / Float(segments)
      let u = 1 - t
      current.append(u * u * u * start + 3 * u * u * t * a + 3 * u * t * t * b + t * t * t * end)
    }
  }

  private func close() {
    var contour = current
    if let first = contour.first, let last = contour.last, first == last { contour.removeLast() }
    // Drop repeated points.
    contour = contour.enumerated().filter { $0.offset == 0 || $0.element != contour[$0.offset - 1] }.map(
      \.element)
    if contour.count >= 3 { contours.append(contour) }
    current = []
  }

  func finish() -> [[SIMD2<Float>]] {
    close()
    return contours
  }
}

/// Polygon filling by ear clipping, holes joined to their outer boundary by bridges.
enum Triangulation {
  static func signedArea(_ p: [SIMD2<Float>]) -> Float {
    var sum: Float = 0
    for i in p.indices {
      let (a, b) = (p[i], p[(i + 1) % p.count])
      sum += a.x * b.y - b.x * a.y
    }
    return sum / 2
  }

  static func contains(_ point: SIMD2<Float>, _ polygon: [SIMD2<Float>]) -> Bool {
    var inside = false
    var j = polygon.count - 1
    for i in polygon.indices {
      let (a, b) = (polygon[i], polygon[j])
      if (a.y > point.y) != (b.y > point.y), point.x < (b.x - a.x) * (point.y - a.y) / (b.y - a.y) + a.x {
        inside.toggle()
      }
      j = i
    }
    return inside
  }

  /// The filled regions of contours by nesting: a contour inside an even number of others is an outer
  /// boundary, inside an odd number a hole of the smallest outer boundary containing it.
  static func regions(of contours: [[SIMD2<Float>]]) -> [FilledPolygon] {
    let areas = contours.map { abs(signedArea($0)) }
    let depth = contours.indices.map { i in
      contours.indices.filter { $0 != i && areas[$0] > areas[i] && contains(contours[i][0], contours[$0]) }
        .count
    }
    var regions: [Int: FilledPolygon] = [:]
    for i in contours.indices where depth[i] % 2 == 0 {
      var outer = contours[i]
      if signedArea(outer) < 0 { outer.reverse() }
      regions[i] = FilledPolygon(outer: outer, holes: [])
    }
    for i in contours.indices where depth[i] % 2 == 1 {
      let parents = regions.keys.filter { contains(contours[i][0], contours[$0]) }
      guard let parent = parents.min(by: { areas[$0] < areas[$1] }) else { continue }
      var hole = contours[i]
      if signedArea(hole) > 0 { hole.reverse() }
      regions[parent]?.holes.append(hole)
    }
    return regions.keys.sorted().compactMap { regions[$0] }
  }

  /// One polygon: the outer boundary with its holes bridged in.
  static func bridged(_ region: FilledPolygon) -> [SIMD2<Float>] {
    var outer = region.outer
    let holes = region.holes.sorted { ($0.map(\.x).max() ?? 0) > ($1.map(\.x).max() ?? 0) }
    for hole in holes {
      guard let m = hole.indices.max(by: { hole[$0].x < hole[$1].x }) else { continue }
      let point = hole[m]
      // The outer vertex the bridge goes to: visible from the hole's rightmost point (no edge crosses
      // the segment), nearest among those to its right, else nearest of all.
      func crosses(_ a: SIMD2<Float>, _ b: SIMD2<Float>) -> Bool {
        for k in outer.indices {
          let (c, d) = (outer[k], outer[(k + 1) % outer.count])
          if c == b || d == b { continue }
          if segmentsCross(a, b, c, d) { return true }
        }
        for other in holes where other != hole {
          for k in other.indices where segmentsCross(a, b, other[k], other[(k + 1) % other.count]) {
            return true
          }
        }
        return false
      }
      let order = outer.indices.sorted {
        let (da, db) = (outer[$0] - point, outer[$1] - point)
        let (ra, rb) = (da.x >= 0, db.x >= 0)
        if ra != rb { return ra }
        return simd_length_squared(da) < simd_length_squared(db)
      }
      let target = order.first { !crosses(point, outer[$0]) } ?? order[0]
      let loop = Array(hole[m...] + hole[..<m]) + [point]
      outer.insert(contentsOf: loop + [outer[target]], at: target + 1)
    }
    return outer
  }

  static func segmentsCross(_ a: SIMD2<Float>, _ b: SIMD2<Float>, _ c: SIMD2<Float>, _ d: SIMD2<Float>)
    -> Bool
  {
    func orient(_ p: SIMD2<Float>, _ q: SIMD2<Float>, _ r: SIMD2<Float>) -> Float {
      (q.x - p.x) * (r.y - p.y) - (q.y - p.y) * (r.x - p.x)
    }
    if a == c || a == d || b == c || b == d { return false }
    let (o1, o2, o3, o4) = (orient(a, b, c), orient(a, b, d), orient(c, d, a), orient(c, d, b))
    return (o1 > 0) != (o2 > 0) && (o3 > 0) != (o4 > 0) && o1 != 0 && o2 != 0 && o3 != 0 && o4 != 0
  }

  /// Triangles (index triples into `polygon`, counter-clockwise) filling a counter-clockwise simple
  /// polygon (bridges allowed: repeated points are skipped in the inside tests).
  static func earClip(_ polygon: [SIMD2<Float>]) -> [Int] {
    var remaining = Array(polygon.indices)
    var triangles: [Int] = []
    func cross(_ a: SIMD2<Float>, _ b: SIMD2<Float>, _ c: SIMD2<Float>) -> Float {
      (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x)
    }
    func inside(_ p: SIMD2<Float>, _ a: SIMD2<Float>, _ b: SIMD2<Float>, _ c: SIMD2<Float>) -> Bool {
      cross(a, b, p) >= 0 && cross(b, c, p) >= 0 && cross(c, a, p) >= 0
    }
    var guardCount = 0
    while remaining.count > 3 && guardCount < polygon.count * polygon.count {
      guardCount += 1
      var clipped = false
      for k in remaining.indices {
        let (ia, ib, ic) = (
          remaining[(k + remaining.count - 1) % remaining.count], remaining[k],
          remaining[(k + 1) % remaining.count]
        )
        let (a, b, c) = (polygon[ia], polygon[ib], polygon[ic])
        guard cross(a, b, c) > 0 else { continue }
        let blocked = remaining.contains { index in
          let p = polygon[index]
          return p != a && p != b && p != c && inside(p, a, b, c)
        }
        if blocked { continue }
        triangles += [ia, ib, ic]
        remaining.remove(at: k)
        clipped = true
        break
      }
      if !clipped {
        // Degenerate rest (collinear or self-touching): drop the flattest vertex.
        guard
          let k = remaining.indices.min(by: {
            let r = remaining
            return abs(
              cross(polygon[r[($0 + r.count - 1) % r.count]], polygon[r[$0]], polygon[r[($0 + 1) % r.count]]))
              < abs(
                cross(
                  polygon[r[($1 + r.count - 1) % r.count]], polygon[r[$1]], polygon[r[($1 + 1) % r.count]]))
          })
        else { break }
        remaining.remove(at: k)
      }
    }
    if remaining.count == 3, cross(polygon[remaining[0]], polygon[remaining[1]], polygon[remaining[2]]) > 0 {
      triangles += remaining
    }
    return triangles
  }
}

/// Builds an extruded mesh from filled regions: front, back and side walls.
struct ExtrudedMesh {
  let halfDepth: Float
  let scale: Float
  private var positions: [SIMD3<Float>] = []
  private var normals: [SIMD3<Float>] = []
  private var indices: [UInt32] = []

  init(halfDepth: Float, scale: Float) {
    self.halfDepth = halfDepth
    self.scale = scale
  }

  mutating func add(_ region: FilledPolygon, offset: SIMD2<Float>) {
    let polygon = Triangulation.bridged(region).map { ($0 + offset) * scale }
    let fill = Triangulation.earClip(polygon)
    guard !fill.isEmpty else { return }
    // Front (+z) and back (−z) faces.
    for (z, normal) in [(halfDepth, Float(1)), (-halfDepth, -1)] {
      let base = UInt32(positions.count)
      positions += polygon.map { SIMD3($0.x, $0.y, z) }
      normals += Array(repeating: SIMD3(0, 0, normal), count: polygon.count)
      for t in stride(from: 0, to: fill.count, by: 3) {
        let (a, b, c) = (UInt32(fill[t]), UInt32(fill[t + 1]), UInt32(fill[t + 2]))
        indices += normal > 0 ? [base + a, base + b, base + c] : [base + a, base + c, base + b]
      }
    }
    // Side walls along every boundary edge (outer counter-clockwise, holes clockwise: the outward
    // normal is the edge turned clockwise).
    guard halfDepth > 0 else { return }
    for contour in [region.outer] + region.holes {
      let points = contour.map { ($0 + offset) * scale }
      for i in points.indices {
        let (a, b) = (points[i], points[(i + 1) % points.count])
        let edge = b - a
        guard simd_length_squared(edge) > 0 else { continue }
        let n = simd_normalize(SIMD2(edge.y, -edge.x))
        let base = UInt32(positions.count)
        positions += [
          SIMD3(a.x, a.y, -halfDepth), SIMD3(b.x, b.y, -halfDepth), SIMD3(b.x, b.y, halfDepth),
          SIMD3(a.x, a.y, halfDepth),
        ]
        normals += Array(repeating: SIMD3(n.x, n.y, 0), count: 4)
        indices += [base, base + 1, base + 2, base, base + 2, base + 3]
      }
    }
  }

  func resource() -> MeshResource {
    MeshResource(positions: positions, normals: normals, triangleIndices: indices)
  }
}
