/// The split of a plane's inliers into connected regions, for ``PlaneSegmenter``.
extension PlaneSegmenter {
  /// The connected regions of `inliers` (indices into `positions`) on the grid of `regionCellSize`
  /// cells, each listed in ascending index order; regions in the order of their first cell.
  ///
  /// Two 8-neighbouring occupied cells connect unless their mean signed distances from `plane` differ
  /// by a step: more than three standard errors of the difference, from the noise within cells (the
  /// pooled spread of the points about their own cell's mean), plus what a surface tilted against the
  /// plane by the alignment's tolerance (``PlaneDetectionOptions/verticalToleranceDegrees``, 5°: 9 mm
  /// between cells 10 cm apart) changes between the cells' centres. A band of ±inlierDistance around a plane
  /// tilted between two parallel surfaces (a door a few centimetres proud of its wall, the wall beside
  /// it) holds points of both; their cells differ by the step, which is many standard errors where the
  /// depth separates the two, so each surface is a region of its own, refitted on its own points.
  func regions(
    of inliers: [Int], plane: Plane, alignment: ARPlaneAnchor.Alignment, positions: [SIMD3<Double>]
  ) -> [[Int]] {
    let (e1, e2) = GravityAlignedPlane.axes(normal: plane.normal, alignment: alignment)
    let inverseCell = 1 / options.regionCellSize
    var cellOfKey = PlaneCellIndex(minimumCapacity: inliers.count / 4)
    var cellCoordinates: [(Int64, Int64)] = []
    // Each inlier's cell, and per cell its number of inliers; the members are listed cell by cell
    // afterwards (one array, not one per cell).
    var cellOfInlier: [Int32] = []
    cellOfInlier.reserveCapacity(inliers.count)
    var memberCounts: [Int] = []
    var distanceSums: [Double] = []
    var squareSums: [Double] = []
    for i in inliers {
      let p = positions[i]
      let d = plane.signedDistance(to: p)
      let cx = PlaneCells.floor(simd_dot(e1, p) * inverseCell)
      let cy = PlaneCells.floor(simd_dot(e2, p) * inverseCell)
      let key = PlaneCells.key(cx, cy)
      if let cell = cellOfKey[key] {
        cellOfInlier.append(Int32(cell))
        memberCounts[cell] += 1
        distanceSums[cell] += d
        squareSums[cell] += d * d
      } else {
        cellOfKey.set(key, memberCounts.count)
        cellOfInlier.append(Int32(memberCounts.count))
        cellCoordinates.append((cx, cy))
        memberCounts.append(1)
        distanceSums.append(d)
        squareSums.append(d * d)
      }
    }
    // Cell c's members are members[starts[c]..<starts[c + 1]].
    var starts = [Int](repeating: 0, count: memberCounts.count + 1)
    for c in memberCounts.indices { starts[c + 1] = starts[c] + memberCounts[c] }
    var members = [Int](repeating: 0, count: inliers.count)
    var filled = Array(starts.dropLast())
    for (i, cell) in zip(inliers, cellOfInlier) {
      members[filled[Int(cell)]] = i
      filled[Int(cell)] += 1
    }
    let counts = memberCounts.map { Double($0) }
    let means = zip(distanceSums, counts).map { $0 / $1 }
    // The pooled variance of the points about their cell means (cells of one point add nothing).
    var within = 0.0
    var freedom = 0.0
    for c in memberCounts.indices where counts[c] > 1 {
      within += max(squareSums[c] - distanceSums[c] * means[c], 0)
      freedom += counts[c] - 1
    }
    let variance = freedom > 0 ? within / freedom : .infinity
    // A surface tilted against the gravity-aligned plane by up to the alignment's tolerance changes its
    // distance by up to that slope between cell centres; that much always connects.
    let tolerance =
      alignment == .horizontal ? options.horizontalToleranceDegrees : options.verticalToleranceDegrees
    let slope = tan(min(max(tolerance, 0), 45) * .pi / 180) * options.regionCellSize
    func connected(_ a: Int, _ b: Int, diagonal: Bool) -> Bool {
      let step = (means[a] - means[b]).magnitude
      let noise = 3 * (variance * (1 / counts[a] + 1 / counts[b])).squareRoot()
      return step <= noise + (diagonal ? 2.0.squareRoot() : 1) * slope
    }
    var label = [Int](repeating: -1, count: memberCounts.count)
    var result: [[Int]] = []
    var stack: [Int] = []
    for start in memberCounts.indices where label[start] < 0 {
      let region = result.count
      label[start] = region
      stack.append(start)
      var points: [Int] = []
      while let cell = stack.popLast() {
        points.append(contentsOf: members[starts[cell]..<starts[cell + 1]])
        let (cx, cy) = cellCoordinates[cell]
        for dy in -1...1 {
          for dx in -1...1 where dx != 0 || dy != 0 {
            if let neighbour = cellOfKey[PlaneCells.key(cx + Int64(dx), cy + Int64(dy))],
              label[neighbour] < 0, connected(cell, neighbour, diagonal: dx != 0 && dy != 0)
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

  /// `regions` with each of `tails` (points of the plane's ±inlierDistance band beyond its noise band)
  /// added to the region that occupies its cell, if any, each region in ascending index order: a tail in
  /// a cell of the surface is its noise, one elsewhere (a second surface's) is left out.
  func attach(
    _ tails: [Int], to regions: [[Int]], plane: Plane, alignment: ARPlaneAnchor.Alignment,
    positions: [SIMD3<Double>]
  ) -> [[Int]] {
    guard !tails.isEmpty else { return regions }
    let (e1, e2) = GravityAlignedPlane.axes(normal: plane.normal, alignment: alignment)
    let inverseCell = 1 / options.regionCellSize
    func key(_ p: SIMD3<Double>) -> Int64 {
      PlaneCells.key(
        PlaneCells.floor(simd_dot(e1, p) * inverseCell),
        PlaneCells.floor(simd_dot(e2, p) * inverseCell))
    }
    var regionOfCell = PlaneCellIndex()
    for (r, region) in regions.enumerated() {
      for i in region { regionOfCell.set(key(positions[i]), r) }
    }
    var result = regions
    for i in tails {
      if let r = regionOfCell[key(positions[i])] { result[r].append(i) }
    }
    return result.map { $0.sorted() }
  }
}
