/// The split of a plane's inliers into connected regions, for ``PlaneSegmenter``.
extension PlaneSegmenter {
  /// The connected regions of `inliers` (indices into `positions`) on the grid of `regionCellSize`
  /// cells, each listed in ascending index order; regions in the order of their first cell.
  ///
  /// Two 8-neighbouring occupied cells connect unless their mean signed distances from `plane` differ
  /// by a step: more than three standard errors of the difference, from the noise within cells (the
  /// pooled spread of the points about their own cell's mean), and more than half
  /// ``PlaneDetectionOptions/minimumInlierDistance``. A band of ±inlierDistance around a plane
  /// tilted between two parallel surfaces (a door a few centimetres proud of its wall, the wall beside
  /// it) holds points of both; their cells differ by the step, which is many standard errors where the
  /// depth separates the two, so each surface is a region of its own, refitted on its own points.
  func regions(
    of inliers: [Int], plane: Plane, alignment: ARPlaneAnchor.Alignment, positions: [SIMD3<Double>]
  ) -> [[Int]] {
    let (e1, e2) = GravityAlignedPlane.axes(normal: plane.normal, alignment: alignment)
    let inverseCell = 1 / options.regionCellSize
    var cellOfKey: [Int64: Int] = [:]
    var cellCoordinates: [(Int64, Int64)] = []
    var members: [[Int]] = []
    var distanceSums: [Double] = []
    var squareSums: [Double] = []
    for i in inliers {
      let p = positions[i]
      let d = plane.signedDistance(to: p)
      let cx = Int64((simd_dot(e1, p) * inverseCell).rounded(.down))
      let cy = Int64((simd_dot(e2, p) * inverseCell).rounded(.down))
      let key = PlaneCells.key(cx, cy)
      if let cell = cellOfKey[key] {
        members[cell].append(i)
        distanceSums[cell] += d
        squareSums[cell] += d * d
      } else {
        cellOfKey[key] = members.count
        cellCoordinates.append((cx, cy))
        members.append([i])
        distanceSums.append(d)
        squareSums.append(d * d)
      }
    }
    let counts = members.map { Double($0.count) }
    let means = zip(distanceSums, counts).map { $0 / $1 }
    // The pooled variance of the points about their cell means (cells of one point add nothing).
    var within = 0.0
    var freedom = 0.0
    for c in members.indices where counts[c] > 1 {
      within += max(squareSums[c] - distanceSums[c] * means[c], 0)
      freedom += counts[c] - 1
    }
    let variance = freedom > 0 ? within / freedom : .infinity
    // Steps up to half the narrowest inlier band always connect (noise-free points, and the slope of a
    // surface a little tilted against the plane over one cell).
    let floor = options.minimumInlierDistance / 2
    func connected(_ a: Int, _ b: Int) -> Bool {
      let step = means[a] - means[b]
      return step * step <= max(9 * variance * (1 / counts[a] + 1 / counts[b]), floor * floor)
    }
    var label = [Int](repeating: -1, count: members.count)
    var result: [[Int]] = []
    var stack: [Int] = []
    for start in members.indices where label[start] < 0 {
      let region = result.count
      label[start] = region
      stack.append(start)
      var points: [Int] = []
      while let cell = stack.popLast() {
        points.append(contentsOf: members[cell])
        let (cx, cy) = cellCoordinates[cell]
        for dy in -1...1 {
          for dx in -1...1 where dx != 0 || dy != 0 {
            if let neighbour = cellOfKey[PlaneCells.key(cx + Int64(dx), cy + Int64(dy))],
              label[neighbour] < 0, connected(cell, neighbour)
            {
              label[neighbour] = region
              stack.append(neighbour)
            }
          }
        }
      }
      points.sort()
      result.append(points)
    }
    return result
  }
}
