import Foundation
import Testing

@testable import ARSim

/// The outline a vertical anchor reports: its hull cut to the robust horizontal span of its support.
@Suite("Plane outlines")
struct PlaneOutlineTests {
  /// A track made of the points of a door-sized rectangle in the plane z = −2 (x −0.2…0.7, y 0…2.05, one
  /// point every 2 cm, as voxel means are), facing +z.
  static func door(alignment: ARPlaneAnchor.Alignment = .vertical) -> PlaneTrack {
    var positions: [SIMD3<Double>] = []
    for i in 0...45 {
      for j in 0...102 {
        let (a, b) = (-0.2 + 0.02 * Double(i), 0.02 * Double(j))
        positions.append(alignment == .vertical ? SIMD3(a, b, -2) : SIMD3(a, 0, -b))
      }
    }
    var moments = PlaneMoments()
    for p in positions { moments.add(p) }
    let plane =
      alignment == .vertical
      ? Plane(normal: SIMD3(0, 0, 1), offset: 2) : Plane(normal: SIMD3(0, 1, 0), offset: 0)
    return PlaneTrack(
      identifier: UUID(),
      candidate: PlaneCandidate(
        alignment: alignment, plane: plane, slots: positions.indices.map { Int32($0) }, positions: positions,
        moments: moments),
      plane: plane, cameraHeight: 1.5, viewpoint: nil, frame: 1, cellSize: 0.1)
  }

  /// The horizontal span of an outline (anchor 2-D x).
  static func span(_ outline: [SIMD2<Double>]) -> ClosedRange<Double> {
    outline.map(\.x).min()!...outline.map(\.x).max()!
  }

  @Test(
    "Two voxels 15 cm beyond a door's edge, where the wall meets the floor, widen its hull, not its outline")
  func outlierVoxelsDoNotWidenTheOutline() throws {
    var track = Self.door()
    let width = Self.span(track.reportedOutline)
    #expect(abs(width.upperBound - width.lowerBound - 0.9) < 0.03, "\(width)")
    #expect(track.reportedOutline.count == track.hull.count)
    track.add(
      points: [SIMD3(0.85, 0.01, -2), SIMD3(0.8, 0.03, -2)], cameraHeight: 1.5, viewpoint: nil)
    let hull = Self.span(track.hull)
    let outline = Self.span(track.reportedOutline)
    #expect(hull.upperBound - width.upperBound > 0.14, "the hull takes them: \(hull)")
    #expect(abs(outline.upperBound - width.upperBound) < 0.02, "\(outline) against \(width)")
    #expect(abs(outline.lowerBound - width.lowerBound) < 0.02, "\(outline) against \(width)")
    // The height is the hull's: a wall's top, seen less, is not cut.
    let heights = track.reportedOutline.map(\.y)
    #expect(abs(heights.max()! - heights.min()! - 2.04) < 0.03, "\(heights.min()!)...\(heights.max()!)")
    // The reported anchor's extent follows the outline.
    let anchor = track.makeAnchor(maximumBoundaryVertices: 64, sessionIdentifier: nil)
    #expect(abs(Double(anchor.planeExtent.width) - 0.92) < 0.03, "\(anchor.planeExtent.width)")
  }

  @Test("A horizontal plane's outline is its hull")
  func horizontalOutlineIsTheHull() {
    var track = Self.door(alignment: .horizontal)
    track.add(points: [SIMD3(0.85, 0, -0.01)], cameraHeight: 1.5, viewpoint: nil)
    #expect(track.reportedOutline == track.hull)
  }
}
