import ARSim
import ARSimTestSupport
import Foundation
import Testing

@Suite("Plane anchors")
struct PlaneAnchorTests {
  /// Twice the signed area of triangle abc in the anchor's (x, −z) coordinates (positive when
  /// counter-clockwise seen from +y).
  private func twiceArea(_ a: simd_float3, _ b: simd_float3, _ c: simd_float3) -> Double {
    let (ax, ay) = (Double(a.x), -Double(a.z))
    let (bx, by) = (Double(b.x), -Double(b.z))
    let (cx, cy) = (Double(c.x), -Double(c.z))
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
  }

  private func checkTriangulation(_ geometry: ARPlaneGeometry) {
    let n = geometry.vertices.count
    #expect(geometry.triangleIndices.count == 3 * geometry.triangleCount)
    #expect(geometry.triangleCount == max(n - 2, 0))
    #expect(geometry.textureCoordinates.count == n)
    #expect(geometry.triangleIndices.allSatisfy { $0 >= 0 && Int($0) < n })
    let polygon = geometry.boundaryVertices.map { SIMD2(Double($0.x), -Double($0.z)) }
    #expect(Polygon2D.signedArea(polygon) > 0)  // counter-clockwise seen from +y
    var total = 0.0
    for t in 0..<geometry.triangleCount {
      let i = geometry.triangleIndices[3 * t..<3 * t + 3].map { geometry.vertices[Int($0)] }
      let doubled = twiceArea(i[0], i[1], i[2])
      #expect(doubled >= 0)
      total += doubled / 2
    }
    #expect((total - Polygon2D.area(polygon)).magnitude < 1e-6 * max(1, total))
    #expect(geometry.textureCoordinates.allSatisfy { $0.x >= 0 && $0.x <= 1 && $0.y >= 0 && $0.y <= 1 })
  }

  @Test("Geometry of a known convex polygon: fan triangulation covering its area")
  func knownGeometry() {
    // A regular hexagon of radius 0.5 m, counter-clockwise seen from +y: (x, −z) = (cos, sin).
    let hexagon = (0..<6).map { k -> simd_float3 in
      let a = Float(k) * Float.pi / 3
      return simd_float3(0.5 * cos(a), 0, -0.5 * sin(a))
    }
    let geometry = ARPlaneGeometry(boundary: hexagon)
    #expect(geometry.triangleCount == 4)
    #expect(geometry.vertexCount == 6 && geometry.boundaryVertexCount == 6)
    checkTriangulation(geometry)
    let area = 3 * 3.0.squareRoot() / 2 * 0.25
    let polygon = hexagon.map { SIMD2(Double($0.x), -Double($0.z)) }
    #expect((Polygon2D.area(polygon) - area).magnitude < 1e-6)
    #expect(ARPlaneGeometry(boundary: []).triangleCount == 0)
    #expect(ARPlaneGeometry(boundary: Array(hexagon.prefix(2))).triangleIndices.isEmpty)
  }

  @Test("Detected anchors carry a valid triangulation of their boundary")
  func detectedGeometry() throws {
    let detector = PlaneDetector(options: PlaneDetectionOptions(), seed: 21)
    let wall = TestRectangle.wall(x: 2, y: 0...2.4, z: -2...0.5)
    var scene = PlaneDetectorTests.floorAndTable
    scene.rectangles.append(wall)
    runFrames(detector, scene: scene, frames: 8, camera: PlaneDetectorTests.camera)
    try #require(detector.anchors.count == 3)
    for anchor in detector.anchors {
      #expect(anchor.geometry.boundaryVertices.count >= 4)
      #expect(anchor.geometry.boundaryVertices.count <= PlaneDetectionOptions().maximumBoundaryVertices)
      checkTriangulation(anchor.geometry)
      // The extent rectangle contains the boundary (up to rounding).
      let e = anchor.planeExtent
      let c = cos(e.rotationOnYAxis)
      let s = sin(e.rotationOnYAxis)
      for v in anchor.geometry.boundaryVertices {
        let dx = v.x - anchor.center.x
        let dy = -(v.z - anchor.center.z)
        let along = dx * c + dy * s
        let across = -dx * s + dy * c
        #expect(along.magnitude <= e.width / 2 + 1e-3)
        #expect(across.magnitude <= e.height / 2 + 1e-3)
      }
    }
  }

  @Test("Anchors copy by identifier, and plane anchors report the deprecated extent")
  func anchorBasics() {
    var matrix = simd_float4x4.identity
    matrix.columns.3 = SIMD4(1, 2, 3, 1)
    let anchor = ARAnchor(name: "cup", transform: matrix)
    let copy = ARAnchor(anchor: anchor)
    #expect(copy.identifier == anchor.identifier && copy.name == "cup" && copy.transform == matrix)
    #expect(copy !== anchor)
    #expect(ARAnchor(transform: matrix).identifier != anchor.identifier)
    #expect(ARAnchor(transform: matrix).name == nil)

    let plane = ARPlaneAnchor(
      identifier: UUID(), transform: matrix, alignment: .vertical, center: SIMD3(0.1, 0, 0.2),
      planeExtent: ARPlaneExtent(width: 2, height: 3, rotationOnYAxis: 0.1),
      geometry: ARPlaneGeometry(boundary: []), classification: .wall, sessionIdentifier: nil)
    #expect(plane.extent == SIMD3(2, 0, 3))
    let planeCopy = ARPlaneAnchor(anchor: plane)
    #expect(planeCopy.identifier == plane.identifier && planeCopy.alignment == .vertical)
    #expect(planeCopy.classification == .wall && planeCopy.center == plane.center)
    let fromPlain = ARPlaneAnchor(anchor: anchor)
    #expect(fromPlain.identifier == anchor.identifier && fromPlain.extent == .zero)
    #expect(ARPlaneAnchor.isClassificationSupported)
    let names: [ARPlaneAnchor.Classification] = [
      .none(.unknown), .none(.undetermined), .none(.notAvailable), .wall, .floor, .ceiling, .table, .seat,
      .window, .door,
    ]
    #expect(
      names.map(\.description) == [
        "none", "none", "none", "wall", "floor", "ceiling", "table", "seat", "window", "door",
      ])
    #expect(ARPlaneAnchor.Alignment.horizontal.description == "horizontal")
    #expect(ARPlaneAnchor.Alignment.vertical.description == "vertical")
  }

  @Test("Session identifiers are stamped on detected anchors")
  func sessionIdentifier() throws {
    let session = UUID(uuidString: "00000000-0000-4000-8000-000000000001")!
    let detector = PlaneDetector(options: PlaneDetectionOptions(), seed: 1, sessionIdentifier: session)
    runFrames(detector, scene: PlaneDetectorTests.floorAndTable, frames: 4, camera: PlaneDetectorTests.camera)
    try #require(!detector.anchors.isEmpty)
    #expect(detector.anchors.allSatisfy { $0.sessionIdentifier == session })
  }

  @Test("Seeded identifiers are unique, version 8 and reproducible")
  func identifiers() {
    var a = AnchorIdentifierGenerator(seed: 5)
    var b = AnchorIdentifierGenerator(seed: 5)
    var c = AnchorIdentifierGenerator(seed: 6)
    let first = (0..<1000).map { _ in a.next() }
    let second = (0..<1000).map { _ in b.next() }
    let other = (0..<1000).map { _ in c.next() }
    #expect(first == second)
    #expect(Set(first).count == 1000)
    #expect(Set(first).isDisjoint(with: other))
    for id in first.prefix(10) {
      let bytes = id.uuid
      #expect(bytes.6 >> 4 == 8)
      #expect(bytes.8 >> 6 == 0b10)
    }
  }

  @Test("Options decode with defaults for missing keys and round-trip")
  func optionsCoding() throws {
    let defaults = PlaneDetectionOptions()
    let empty = try JSONDecoder().decode(PlaneDetectionOptions.self, from: Data("{}".utf8))
    #expect(empty == defaults)
    let partial = try JSONDecoder().decode(
      PlaneDetectionOptions.self, from: Data(#"{"voxelSize": 0.03, "alignments": 1}"#.utf8))
    #expect(partial.voxelSize == 0.03)
    #expect(partial.alignments == .horizontal)
    #expect(partial.inlierDistance == defaults.inlierDistance)
    var changed = defaults
    changed.mergeDistance = 0.05
    changed.alignments = .vertical
    let decoded = try JSONDecoder().decode(
      PlaneDetectionOptions.self, from: JSONEncoder().encode(changed))
    #expect(decoded == changed)
  }
}
