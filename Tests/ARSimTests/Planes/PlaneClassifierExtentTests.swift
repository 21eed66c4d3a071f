import ARSimTestSupport
import Foundation
import Testing

@testable import ARSim

/// The extent a vertical plane is classified by (door, window) is robust: percentiles of its
/// support's area along gravity-aligned axes, not the box of its hull, which a few outlying points
/// widen.
@Suite("Plane classifier: robust vertical extent")
struct PlaneClassifierExtentTests {
  @Test("The robust span of a uniform support is its edges, whatever a few outlying cells do")
  func robustSpanOfAUniformSupport() throws {
    let cell = PlaneTrack.extentCellSize
    // A door 0.9 m wide at 2 cm: 45 columns of 100 cells each, from x = −0.3 m.
    var counts: [Int64: Int] = [:]
    for column in Int64(-15)..<30 { counts[column] = 100 }
    let exact = try #require(PlaneTrack.robustSpan(Self.line(counts), cellSize: cell))
    #expect((exact.low - -0.3).magnitude < 1e-9)
    #expect((exact.high - 0.6).magnitude < 1e-9)
    // Twelve stray cells up to 0.3 m to its left (0.27% of the area) move the edges by at most 1 cm;
    // the box of the support would be 1.2 m wide.
    for column in Int64(-30)..<(-18) { counts[column] = 1 }
    let robust = try #require(PlaneTrack.robustSpan(Self.line(counts), cellSize: cell))
    #expect((robust.low - -0.3).magnitude < 0.01)
    #expect((robust.high - 0.6).magnitude < 0.01)
    // A real part of the support beyond the edge (a tenth of the area) does widen it.
    for column in Int64(-20)..<(-15) { counts[column] = 100 }
    let wider = try #require(PlaneTrack.robustSpan(Self.line(counts), cellSize: cell))
    #expect(wider.low < -0.37)
    #expect(PlaneTrack.robustSpan(PlaneCountLine(), cellSize: cell) == nil)
  }

  /// The counts per column as the count line a track keeps.
  private static func line(_ counts: [Int64: Int]) -> PlaneCountLine {
    var line = PlaneCountLine()
    for (column, count) in counts { line.add(count, at: column) }
    return line
  }

  @Test("A door with a strip of flush outliers beside it is a door though its hull is too wide")
  func doorWithOutlyingSupportIsADoor() throws {
    let wallZ = -2.0
    let floor = TestRectangle.horizontal(y: 0, x: -2.5...2.5, z: -2...0.5)
    let door = TestRectangle.facing(z: wallZ + 0.03, x: -0.2...0.7, y: 0...2.05)
    // Flush with the door, joined to its lower left: a strip 0.35 m long, 12 cm high (2.2% of the
    // area), more than a grid cell high, so that the support grows into it.
    let strip = TestRectangle.facing(z: wallZ + 0.03, x: -0.55...(-0.2), y: 0.15...0.27)
    var scene = TestScene(rectangles: [floor, door, strip])
    scene.spacing = 0.05
    let detector = PlaneDetector(options: PlaneDetectionOptions(), seed: 13)
    runFrames(detector, scene: scene, frames: 14, camera: PlaneMergeTests.camera)
    let anchor = try #require(
      detector.anchors.first {
        $0.alignment == .vertical && WorldPlaneFacts($0).intersectionOverUnion(with: door) > 0.7
      })
    // The strip is part of its support: the outline reaches into it (1.15 m wide; the door is 0.9 m).
    // The hull reaches its end, beyond the door width's 1.2 m limit; the outline is cut to the support's
    // span without its outer 0.5% (`PlaneTrack.reportedOutline`), which takes off the strip's last 9 cm.
    let xs = WorldPlaneFacts(anchor).boundary.map(\.x)
    let outlineWidth = try #require(xs.max()) - (try #require(xs.min()))
    #expect(outlineWidth > 1.1, "\(outlineWidth) m")
    #expect(anchor.classification == .door)
  }
}
