import ARSimMath

/// Up observed in one depth map from its level surfaces (floors, table and counter tops, ceilings),
/// as an accelerometer observes it: a room's large horizontal surfaces are level, so where the depth
/// shows them their common normal is the up direction under the camera.
///
/// The map is cut into square cells; a cell whose points lie on a plane (within the depth's noise)
/// with a normal within ``TrackerOptions/SurfaceLevel/gateDegrees`` of the expected up is a candidate.
/// Candidates are grouped by height along the expected up (a floor and a table top are two surfaces
/// with one normal); a group with at least ``TrackerOptions/SurfaceLevel/minSurfaceCells`` cells
/// that is thin along its own normal (a flat surface, not steps or a slope) and whose own normal is
/// within the gate is a level surface. Up is the normal that all level surfaces, each about its own
/// centroid, fit best (the smallest eigenvector of their summed scatter): a surface's extent weighs
/// in, not only its cells' local slants. Sloped surfaces (a ramp, a tilted lid) fail the gate or
/// disagree with the others and are dropped. Deterministic.
enum SurfaceUp {
  /// One observation of up from a depth map.
  struct Observation: Equatable {
    /// Up in the depth map's optical frame (x right, y down, z forward), unit.
    var up: SIMD3<Double>
    /// Depth pixels on the level surfaces behind it.
    var pixels: Int
    /// Level surfaces behind it.
    var surfaces: Int
  }

  /// A planar cell: its moments, its normal (signed towards the expected up) and its height along
  /// the expected up.
  private struct Cell {
    var moments: PlaneMoments
    var normal: SIMD3<Double>
    var height: Double
  }

  /// Up in `depth`'s optical frame from its level surfaces, near `expectedUp` (unit, optical frame),
  /// or nil when too little level surface is seen. `intrinsics` are the depth map's own.
  static func observe(
    _ depth: DepthImage, intrinsics: CameraIntrinsics, expectedUp: SIMD3<Double>,
    options: TrackerOptions.SurfaceLevel
  ) -> Observation? {
    let gate = cos(options.gateDegrees * .pi / 180)
    let cells = planarCells(depth, intrinsics: intrinsics, expectedUp: expectedUp, options: options)
      .filter { abs(simd_dot($0.normal, expectedUp)) >= gate }
      .sorted { $0.height < $1.height }
    // Groups of cells at one height (a gap wider than the tolerance starts a new one).
    var groups: [[Cell]] = []
    for cell in cells {
      if let last = groups.last?.last, cell.height - last.height <= options.heightTolerance {
        groups[groups.count - 1].append(cell)
      } else {
        groups.append([cell])
      }
    }
    // Each surface's scatter about its own centroid (its covariance times its points), summed.
    var scatter = simd_double3x3()
    var pixels = 0
    var surfaces = 0
    for group in groups where group.count >= options.minSurfaceCells {
      let moments = group.dropFirst().reduce(group[0].moments) { $0 + $1.moments }
      guard let covariance = moments.covariance else { continue }
      let (values, vector) = smallestSymmetricEigenpair(covariance)
      guard let normal = vector, abs(simd_dot(normal, expectedUp)) >= gate,
        max(0, values.x).squareRoot() <= options.maxSurfaceThickness
      else { continue }
      scatter += covariance * Double(moments.count)
      pixels += moments.count
      surfaces += 1
    }
    guard surfaces > 0, pixels >= options.minPixels,
      var up = smallestSymmetricEigenpair(scatter).eigenvector
    else { return nil }
    if simd_dot(up, expectedUp) < 0 { up = -up }
    return Observation(up: simd_normalize(up), pixels: pixels, surfaces: surfaces)
  }

  /// The level held after one more observation: `held` (unit) turned towards `observed` (unit, the
  /// same frame) by the observation's gain, its `interval` (seconds since the frame before) over
  /// ``TrackerOptions/SurfaceLevel/timeConstant`` times its share of
  /// ``TrackerOptions/SurfaceLevel/fullWeightPixels``; `held` unchanged when `observed` is further
  /// than ``TrackerOptions/SurfaceLevel/maxResidualDegrees`` from it.
  static func step(
    from held: SIMD3<Double>, towards observed: SIMD3<Double>, pixels: Int, interval: Double,
    options: TrackerOptions.SurfaceLevel
  ) -> SIMD3<Double> {
    guard simd_dot(held, observed) >= cos(options.maxResidualDegrees * .pi / 180) else { return held }
    let weight = min(1, Double(pixels) / Double(max(1, options.fullWeightPixels)))
    let gain = min(1, max(0, interval) / max(options.timeConstant, 1e-9) * weight)
    return simd_normalize(held + gain * (observed - held))
  }

  /// The cells of ``TrackerOptions/SurfaceLevel/cellPixels`` square whose valid points (within
  /// ``TrackerOptions/SurfaceLevel/maxRange``, at least three quarters of the cell) lie on a plane
  /// within `cellThicknessBase + cellThicknessQuadratic · z²` metres (root mean square).
  private static func planarCells(
    _ depth: DepthImage, intrinsics k: CameraIntrinsics, expectedUp: SIMD3<Double>,
    options: TrackerOptions.SurfaceLevel
  ) -> [Cell] {
    let side = max(2, options.cellPixels)
    let width = depth.width
    let needed = Double(side * side) * 0.75
    var cells: [Cell] = []
    depth.metres.withUnsafeBufferPointer { metres in
      for top in stride(from: 0, through: depth.height - side, by: side) {
        for left in stride(from: 0, through: width - side, by: side) {
          // PlaneMoments.add's arithmetic, in this loop (a call across modules per point is slower).
          var (count, sum, outer) = (0, SIMD3<Double>.zero, simd_double3x3())
          for y in top..<(top + side) {
            let ry = (Double(y) - k.cy) / k.fy
            for x in left..<(left + side) {
              let d = Double(metres[y * width + x])
              guard d.isFinite, d > 0, d <= options.maxRange else { continue }
              let point = SIMD3((Double(x) - k.cx) / k.fx * d, ry * d, d)
              count += 1
              sum += point
              outer.columns.0 += point * point.x
              outer.columns.1 += point * point.y
              outer.columns.2 += point * point.z
            }
          }
          guard Double(count) >= needed else { continue }
          let moments = PlaneMoments(count: count, sum: sum, sumOfOuterProducts: outer)
          guard let mean = moments.mean, let covariance = moments.covariance else { continue }
          let (values, vector) = smallestSymmetricEigenpair(covariance)
          let rms = max(0, values.x).squareRoot()
          // A patch, not a line of points (whose normal is undefined): the middle spread well above
          // the spread off the plane.
          guard var normal = vector, values.y > 9 * max(0, values.x),
            rms <= options.cellThicknessBase + options.cellThicknessQuadratic * mean.z * mean.z
          else { continue }
          if simd_dot(normal, expectedUp) < 0 { normal = -normal }
          cells.append(Cell(moments: moments, normal: normal, height: simd_dot(mean, expectedUp)))
        }
      }
    }
    return cells
  }
}
