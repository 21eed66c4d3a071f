import ARSimScene
import Foundation
import Testing

/// Whether the system font's file is installed (Debian's `fonts-dejavu-core`).
private let hasSystemFont = MeshResource.Font(name: "DejaVuSans", size: 1) != nil

/// The area of the triangles of `mesh` facing +z, square metres.
private func frontArea(_ mesh: MeshResource) -> Float {
  var area: Float = 0
  for t in 0..<mesh.triangleCount {
    let (a, b, c) = (
      mesh.positions[Int(mesh.triangleIndices[3 * t])], mesh.positions[Int(mesh.triangleIndices[3 * t + 1])],
      mesh.positions[Int(mesh.triangleIndices[3 * t + 2])]
    )
    let n = simd_cross(b - a, c - a)
    if n.z > 0 && abs(n.x) < 1e-9 && abs(n.y) < 1e-9 { area += n.z / 2 }
  }
  return area
}

/// Whether every edge of `mesh` (by position) is shared by exactly two triangles, in opposite
/// directions: a closed, consistently oriented surface.
private func isClosed(_ mesh: MeshResource) -> Bool {
  func key(_ p: SIMD3<Float>) -> SIMD3<Int32> { SIMD3<Int32>((p * 1e5).rounded(.toNearestOrEven)) }
  var edges: [[SIMD3<Int32>]: Int] = [:]
  for t in 0..<mesh.triangleCount {
    let corners = (0..<3).map { key(mesh.positions[Int(mesh.triangleIndices[3 * t + $0])]) }
    for i in 0..<3 { edges[[corners[i], corners[(i + 1) % 3]], default: 0] += 1 }
  }
  return edges.allSatisfy { edge, count in count == 1 && edges[[edge[1], edge[0]]] == 1 }
}

@Suite(.enabled(if: hasSystemFont)) struct TextMeshTests {
  @Test func glyphsHaveTheFontsShapeAndAreExtruded() throws {
    let font = MeshResource.Font.systemFont(ofSize: 1)
    let i = MeshResource.generateText("I", extrusionDepth: 0.2, font: font)
    // DejaVu Sans: cap height 0.729 em; the I is a plain bar, so its face is its bounding rectangle.
    #expect(abs(i.bounds.extents.y - 0.729) < 0.005, "cap height \(i.bounds.extents.y)")
    #expect(abs(i.bounds.min.z + 0.1) < 1e-6 && abs(i.bounds.max.z - 0.1) < 1e-6)
    #expect(abs(frontArea(i) - i.bounds.extents.x * i.bounds.extents.y) < 1e-4)
    #expect(isClosed(i))
    // An O keeps its hole: its face is well under the ellipse filling its bounds.
    let o = MeshResource.generateText("O", extrusionDepth: 0.2, font: font)
    let ellipse = Float.pi / 4 * o.bounds.extents.x * o.bounds.extents.y
    #expect(frontArea(o) > 0.25 * ellipse && frontArea(o) < 0.6 * ellipse, "\(frontArea(o)) of \(ellipse)")
    #expect(isClosed(o), "outer and inner walls close the ring")
    let b = MeshResource.generateText("B&8", extrusionDepth: 0.1, font: font)
    #expect(isClosed(b), "letters with two holes")
  }

  @Test func linesLayOutByTheFontsMetricsAndTheContainer() throws {
    let font = MeshResource.Font.systemFont(ofSize: 0.1)
    let one = MeshResource.generateText("HH", font: font)
    let two = MeshResource.generateText("HH\nHH", font: font)
    // DejaVu Sans' line height is 1.164 em: the second line's caps start 0.1164 m lower.
    #expect(abs(two.bounds.extents.y - (one.bounds.extents.y + 0.1164)) < 0.001)
    #expect(abs(two.bounds.extents.x - one.bounds.extents.x) < 1e-5)
    #expect(one.bounds.min.y > 0, "the layout rectangle starts at the origin")
    let frame = CGRect(x: -0.5, y: 0, width: 1, height: 0.5)
    let centred = MeshResource.generateText("HH", font: font, containerFrame: frame, alignment: .center)
    #expect(abs(centred.bounds.center.x) < 0.005, "centred in the container: \(centred.bounds.center.x)")
    let right = MeshResource.generateText("HH", font: font, containerFrame: frame, alignment: .right)
    #expect(right.bounds.max.x <= 0.5 && right.bounds.max.x > 0.48)
    let wrapped = MeshResource.generateText(
      "one two three four", font: font, containerFrame: CGRect(x: 0, y: 0, width: 0.3, height: 1),
      lineBreakMode: .byWordWrapping)
    #expect(wrapped.bounds.extents.x <= 0.3 && wrapped.bounds.extents.y > 0.2, "wrapped onto lines")
    let clipped = MeshResource.generateText(
      "one two three four", font: font, containerFrame: CGRect(x: 0, y: 0, width: 0.3, height: 1),
      lineBreakMode: .byClipping)
    #expect(clipped.bounds.max.x <= 0.3 && clipped.bounds.extents.y < 0.1, "one line, cut at the edge")
    #expect(MeshResource.Font(name: "No Such Font", size: 1) == nil)
    #expect(MeshResource.Font(name: "DejaVu Sans Bold", size: 2)?.fontName == "DejaVuSans-Bold")
  }

  /// UIFont's `init(descriptor:size:)`: the named font, or the system font for a name not installed;
  /// the descriptor's size when the size is 0.
  @Test func fontsFromDescriptorsFallBackToTheSystemFont() {
    let bold = MeshResource.Font(descriptor: UIFontDescriptor(name: "DejaVu Sans Bold", size: 1), size: 0.05)
    #expect(bold.fontName == "DejaVuSans-Bold" && bold.pointSize == 0.05)
    let missing = MeshResource.Font(descriptor: .init(name: "No Such Font", size: 0.2), size: 0)
    #expect(missing.fileURL == MeshResource.Font.systemFont(ofSize: 1).fileURL && missing.pointSize == 0.2)
    #expect(bold.fontDescriptor == .init(name: "DejaVuSans-Bold", size: 0.05))
  }
}
