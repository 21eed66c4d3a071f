import ARSimTestSupport
import Foundation
import Testing

@Suite("arsim replay --mesh")
struct MeshCLITests {
  @Test(
    "writes the union of the mesh anchors as PLY: world vertices with normals, faces with a classification",
    .enabled(if: Datasets.exists("tabletop")))
  func writesTheMesh() throws {
    let path = RecordingFixtures.temporaryFolder() + "/mesh.ply"
    let result = try CLI.run(["replay", Datasets.path("tabletop"), "--mesh", path])
    #expect(result.status == 0, "\(result.stderr)")
    let summary = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("mesh: ") })
    let text = try String(contentsOfFile: path, encoding: .utf8)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    let end = try #require(lines.firstIndex(of: "end_header"))
    let header = lines[..<end]
    let vertexCount = try #require(
      header.first { $0.hasPrefix("element vertex ") }.flatMap { Int($0.split(separator: " ")[2]) })
    let faceCount = try #require(
      header.first { $0.hasPrefix("element face ") }.flatMap { Int($0.split(separator: " ")[2]) })
    #expect(summary.contains("\(vertexCount) vertices, \(faceCount) faces"))
    #expect(vertexCount > 1000 && faceCount > 1000)
    #expect(header.contains("property uchar classification"))
    let vertices = lines[(end + 1)...].prefix(vertexCount).map {
      $0.split(separator: " ").compactMap { Double($0) }
    }
    #expect(
      vertices.allSatisfy { $0.count == 6 && abs(($0[3] * $0[3] + $0[4] * $0[4] + $0[5] * $0[5]) - 1) < 0.01 }
    )
    let faces = lines[(end + 1 + vertexCount)...].prefix(faceCount).map {
      $0.split(separator: " ").compactMap { Int($0) }
    }
    #expect(faces.count == faceCount)
    #expect(
      faces.allSatisfy { $0.count == 5 && $0[0] == 3 && $0[1..<4].allSatisfy { $0 >= 0 && $0 < vertexCount } }
    )
    #expect(faces.allSatisfy { (0...7).contains($0[4]) })
    // The tabletop's floor is classified: floor faces (2) exist, at one height.
    let floorHeights = faces.filter { $0[4] == 2 }.map { vertices[$0[1]][1] }
    #expect(floorHeights.count > 100)
    #expect((floorHeights.max() ?? 0) - (floorHeights.min() ?? 0) < 0.15)
  }

  @Test(
    "on a recording without depth: one line saying the mesh needs depth",
    .enabled(if: Datasets.exists("tabletop-mono")))
  func needsDepth() throws {
    let path = RecordingFixtures.temporaryFolder() + "/mesh.ply"
    let result = try CLI.run(["replay", Datasets.path("tabletop-mono"), "--mesh", path])
    #expect(result.status != 0)
    let lines = result.stderr.split(separator: "\n")
    #expect(lines.count == 1 && lines[0].contains("scene reconstruction needs depth"), "\(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: path))
  }
}
