#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// One connected region of the inliers of a plane found by RANSAC: a candidate for a new anchor or for
/// growing an existing one.
struct PlaneCandidate {
  /// Horizontal or vertical.
  var alignment: ARPlaneAnchor.Alignment
  /// The gravity-aligned least-squares plane of the region (world). Horizontal planes have normal +y;
  /// a vertical plane's normal has an arbitrary sign (the caller orients it).
  var plane: Plane
  /// The voxel slots of the region's points.
  var slots: [Int32]
  /// The region's points (voxel means), world, metres.
  var positions: [SIMD3<Double>]
  /// The moments of `positions`.
  var moments: PlaneMoments
}

/// Sequential RANSAC with a gravity prior over the points that no anchor explains, then the split of
/// each plane's inliers into connected regions (a 2-D grid on the plane, flood-filled over 8-connected
/// occupied cells that do not differ by a step in depth; see `regions(of:plane:alignment:positions:)`).
///
/// Hypotheses: a horizontal plane through one sampled point (normal exactly +y); a vertical plane
/// through two sampled points at least 5 cm apart horizontally (normal horizontal). Each search stops
/// adaptively as Open3D's `SegmentPlane` does, after `log(1 − p) / log(1 − wˢ)` draws for the best inlier
/// ratio `w` so far and sample size `s`, and at most `ransacMaximumIterations`. The best hypothesis is
/// refitted twice by gravity-aligned least squares on its inliers, then on the densest layer of half the
/// inlier distance among them (so that a band holding two parallel surfaces settles on one) and on the
/// inliers of that, and a vertical plane turned between two parallel surfaces side by side (a door and
/// the wall beside it) on the larger side (`hingedSide(of:inliers:positions:)`); the region takes the
/// inliers within the band of the surface's noise (see ``PlaneDetectionOptions/inlierNoiseMultiple``);
/// inliers that lie on a surface crossing the plane are dropped; each region is refitted on its own and
/// kept when it has enough points, area and width, enough of them seen in depth (in a session with
/// depth), and its free least-squares normal is within the tolerance. The search ends after
/// `maximumPlanesPerFrame` planes, when the best plane has fewer than `minimumInliers` inliers, or after
/// two planes in a row that gave no region.
struct PlaneSegmenter {
  let options: PlaneDetectionOptions

  /// Candidates among `positions` (world, with their voxel `slots`), in the order found.
  /// `seenInDepth` (in a session with depth; nil without) tells, per position, whether depth points
  /// reached its voxel: a region needs ``PlaneDetectionOptions/minimumDepthShare`` of them.
  /// `crossesSurface(point, normal)` tells whether a point lies on another surface that crosses the
  /// plane (see `PlaneDetector`); such inliers are left out of the regions.
  func segment(
    slots: [Int32], positions: [SIMD3<Double>], seenInDepth: [Bool]? = nil, random: inout SplitMix64,
    crossesSurface: (SIMD3<Double>, SIMD3<Double>) -> Bool
  ) -> [PlaneCandidate] {
    var remaining = Array(positions.indices)
    var candidates: [PlaneCandidate] = []
    let wantHorizontal = options.alignments.contains(.horizontal)
    let wantVertical = options.alignments.contains(.vertical)
    let minimumInliers = max(options.minimumInliers, 3)
    var fruitless = 0
    for _ in 0..<max(options.maximumPlanesPerFrame, 0) {
      // Two planes in a row without an acceptable region: what is left is clutter, not worth more draws.
      guard fruitless < 2 else { break }
      guard remaining.count >= minimumInliers else { break }
      // Score hypotheses on a deterministic subsample.
      let sample = subsample(remaining)
      let xs = sample.map { positions[$0].x }
      let ys = sample.map { positions[$0].y }
      let zs = sample.map { positions[$0].z }
      var best: (plane: Plane, alignment: ARPlaneAnchor.Alignment, count: Int)?
      if wantHorizontal, let h = searchHorizontal(ys: ys, random: &random) {
        best = (Plane(normal: GravityAlignedPlane.up, offset: -h.height), .horizontal, h.count)
      }
      if wantVertical, let v = searchVertical(xs: xs, zs: zs, random: &random),
        v.count > (best?.count ?? 0)
      {
        best = (v.plane, .vertical, v.count)
      }
      guard let hypothesis = best else { break }
      var plane = hypothesis.plane
      // Hypotheses are scored, and refitted, on the narrowest band: a band of ±inlierDistance can hold
      // two parallel surfaces a few centimetres apart (a door proud of its wall) under one plane tilted
      // between them, which the narrow band cannot.
      let narrow = options.minimumInlierDistance
      for _ in 0..<2 {
        let core = collectInliers(of: plane, among: remaining, positions: positions, within: narrow)
        guard let refit = fitted(plane, on: core, alignment: hypothesis.alignment, positions: positions)
        else { break }
        plane = refit
      }
      var inliers = collectInliers(of: plane, among: remaining, positions: positions)
      // Moves the plane onto one surface among the inliers: refitted on its `members` from `start`, then
      // on the narrow band's core, with the inliers of that.
      func settle(from start: Plane, on members: [Int]) {
        guard let settled = fitted(start, on: members, alignment: hypothesis.alignment, positions: positions)
        else { return }
        plane = settled
        let core = collectInliers(of: plane, among: remaining, positions: positions, within: narrow)
        if let again = fitted(plane, on: core, alignment: hypothesis.alignment, positions: positions) {
          plane = again
        }
        inliers = collectInliers(of: plane, among: remaining, positions: positions)
      }
      // A band that still holds two parallel surfaces settles on the densest layer of it alone.
      if let layer = densestLayer(of: plane, inliers: inliers, positions: positions) {
        settle(from: layer.plane, on: layer.members)
      }
      // A vertical plane turned between two parallel surfaces side by side settles on the larger side.
      if hypothesis.alignment == .vertical,
        let side = hingedSide(of: plane, inliers: inliers, positions: positions)
      {
        settle(from: plane, on: side)
      }
      guard inliers.count >= minimumInliers else { break }
      // The region takes the band the surface's own noise gives (a door's points, a few noise widths in
      // front of its wall, stay out); the rest of the ±inlierDistance band is left out of later searches.
      let band = options.inlierBand(noise: robustSpread(of: plane, inliers: inliers, positions: positions))
      // Regions are split on the noise band; the band's tails then join the region whose cells hold them.
      var (core, tails): ([Int], [Int]) = ([], [])
      for i in inliers where !crossesSurface(positions[i], plane.normal) {
        if plane.signedDistance(to: positions[i]).magnitude <= band {
          core.append(i)
        } else {
          tails.append(i)
        }
      }
      let found = candidates.count
      let split = regions(of: core, plane: plane, alignment: hypothesis.alignment, positions: positions)
      for region in attach(
        tails, to: split, plane: plane, alignment: hypothesis.alignment, positions: positions)
      {
        if let candidate = validate(
          region, alignment: hypothesis.alignment, reference: plane.normal, slots: slots,
          positions: positions, seenInDepth: seenInDepth)
        {
          candidates.append(candidate)
        }
      }
      fruitless = candidates.count > found ? 0 : fruitless + 1
      remaining = subtract(inliers, from: remaining)
    }
    return candidates
  }

  // MARK: RANSAC

  private func subsample(_ indices: [Int]) -> [Int] {
    let limit = max(options.ransacMaximumPoints, 16)
    guard indices.count > limit else { return indices }
    var result: [Int] = []
    result.reserveCapacity(limit)
    for k in 0..<limit { result.append(indices[k * indices.count / limit]) }
    return result
  }

  /// Open3D's adaptive bound on the number of draws for inlier ratio `ratio` and sample size `size`.
  private func iterationBound(ratio: Double, size: Int) -> Int {
    let maximum = max(options.ransacMaximumIterations, 1)
    let good = pow(ratio, Double(size))
    guard good > 0 else { return maximum }
    guard good < 1 else { return 1 }
    let confidence = min(max(options.ransacConfidence, 0), 0.999_999_999)
    let bound = (log(1 - confidence) / log(1 - good)).rounded(.up)
    return bound.isFinite ? min(max(Int(bound), 1), maximum) : maximum
  }

  private func searchHorizontal(
    ys: [Double], random: inout SplitMix64
  ) -> (height: Double, count: Int)? {
    let n = ys.count
    guard n > 0 else { return nil }
    let tau = options.minimumInlierDistance
    var bestCount = 0
    var bestHeight = 0.0
    var bound = max(options.ransacMaximumIterations, 1)
    var iteration = 0
    ys.withUnsafeBufferPointer { y in
      while iteration < bound {
        iteration += 1
        let h = y[random.index(below: n)]
        let count = Self.count(n) {
          (y[$0] - h).magnitude <= tau
        } lanes: { k in
          let d = UnsafeRawPointer(y.baseAddress! + k).loadUnaligned(as: SIMD4<Double>.self) - h
          return d .<= tau .& d .>= -tau
        }
        if count > bestCount {
          bestCount = count
          bestHeight = h
          bound = iterationBound(ratio: Double(count) / Double(n), size: 1)
        }
      }
    }
    return bestCount > 0 ? (bestHeight, bestCount) : nil
  }

  private func searchVertical(
    xs: [Double], zs: [Double], random: inout SplitMix64
  ) -> (plane: Plane, count: Int)? {
    let n = xs.count
    guard n >= 2 else { return nil }
    let tau = options.minimumInlierDistance
    let minimumSeparation = 0.05
    var best: (nx: Double, nz: Double, offset: Double, count: Int)?
    var bound = max(options.ransacMaximumIterations, 1)
    var iteration = 0
    xs.withUnsafeBufferPointer { x in
      zs.withUnsafeBufferPointer { z in
        while iteration < bound {
          iteration += 1
          let i = random.index(below: n)
          let j = random.index(below: n)
          let dx = x[j] - x[i]
          let dz = z[j] - z[i]
          let length = (dx * dx + dz * dz).squareRoot()
          guard length >= minimumSeparation else { continue }
          let nx = dz / length
          let nz = -dx / length
          let offset = -(nx * x[i] + nz * z[i])
          let count = Self.count(n) { k in
            (nx * x[k] + nz * z[k] + offset).magnitude <= tau
          } lanes: { k in
            let xs = UnsafeRawPointer(x.baseAddress! + k).loadUnaligned(as: SIMD4<Double>.self)
            let zs = UnsafeRawPointer(z.baseAddress! + k).loadUnaligned(as: SIMD4<Double>.self)
            let d = nx * xs + nz * zs + offset
            return d .<= tau .& d .>= -tau
          }
          if count > (best?.count ?? 0) {
            best = (nx, nz, offset, count)
            bound = iterationBound(ratio: Double(count) / Double(n), size: 2)
          }
        }
      }
    }
    guard let best else { return nil }
    return (Plane(normal: SIMD3(best.nx, 0, best.nz), offset: best.offset), best.count)
  }

  /// How many of `0..<n` pass a test: `lanes(k)` tests `k..<k + 4` at once, `one(k)` tests `k` alone
  /// (the last few). The hypotheses' inlier counts are most of RANSAC's work, and four lanes at a time
  /// do it in a fraction of the instructions. Each lane runs the same operations as `one`, so the
  /// counts are the same (`|d| ≤ τ` is `d ≤ τ ∧ d ≥ −τ`, and false for NaN either way).
  @inline(__always)
  private static func count(
    _ n: Int, one: (Int) -> Bool, lanes: (Int) -> SIMDMask<SIMD4<Int64>>
  ) -> Int {
    var counts = SIMD4<Int64>.zero
    var k = 0
    while k + 4 <= n {
      counts &+= SIMD4<Int64>.zero.replacing(with: 1, where: lanes(k))
      k += 4
    }
    var count = Int(counts.wrappedSum())
    while k < n {
      if one(k) { count += 1 }
      k += 1
    }
    return count
  }

  /// The gravity-aligned least-squares plane of `inliers`, oriented like `plane`.
  private func fitted(
    _ plane: Plane, on inliers: [Int], alignment: ARPlaneAnchor.Alignment, positions: [SIMD3<Double>]
  ) -> Plane? {
    GravityAlignedPlane.fit(
      PlaneMoments(inliers, of: positions), alignment: alignment, reference: plane.normal)
  }

  /// The layer of `inliers` of half the inlier distance's thickness that holds the most of them (by
  /// their signed distances from `plane`), as `plane` moved to the layer's mean distance and the layer's
  /// members (ascending); nil when every inlier is in it already (one surface), or with too few members.
  private func densestLayer(
    of plane: Plane, inliers: [Int], positions: [SIMD3<Double>]
  ) -> (plane: Plane, members: [Int])? {
    let thickness = options.inlierDistance / 2
    let distances = inliers.map { plane.signedDistance(to: positions[$0]) }
    let sorted = distances.sorted()
    guard sorted.count >= 3, let lowest = sorted.first, let highest = sorted.last,
      highest - lowest > thickness
    else { return nil }
    var best = (start: 0, count: 0)
    var end = 0
    for start in sorted.indices {
      while end < sorted.count && sorted[end] - sorted[start] <= thickness { end += 1 }
      if end - start > best.count { best = (start, end - start) }
    }
    let (low, high) = (sorted[best.start], sorted[best.start + best.count - 1])
    let members = zip(inliers, distances).filter { low <= $1 && $1 <= high }.map(\.0)
    guard members.count >= max(options.minimumInliers, 3), members.count < inliers.count else { return nil }
    let shift = sorted[best.start..<(best.start + best.count)].reduce(0, +) / Double(best.count)
    return (Plane(normal: plane.normal, offset: plane.offset - shift), members)
  }

  /// The robust standard deviation of the distances of `inliers` from `plane`: 1.4826 times their
  /// median absolute value (the points of a second surface in the band, a minority, barely move it);
  /// +∞ without inliers.
  private func robustSpread(of plane: Plane, inliers: [Int], positions: [SIMD3<Double>]) -> Double {
    guard !inliers.isEmpty else { return .infinity }
    var distances = inliers.map { plane.signedDistance(to: positions[$0]).magnitude }
    distances.sort()
    return 1.4826 * distances[distances.count / 2]
  }

  /// The members of `indices` within `distance` (default ``PlaneDetectionOptions/inlierDistance``) of
  /// `plane`, ascending.
  private func collectInliers(
    of plane: Plane, among indices: [Int], positions: [SIMD3<Double>], within distance: Double? = nil
  ) -> [Int] {
    let tau = distance ?? options.inlierDistance
    let (n, d) = (plane.normal, plane.offset)
    var result: [Int] = []
    positions.withUnsafeBufferPointer { p in
      for i in indices {
        let q = p[i]
        if (n.x * q.x + n.y * q.y + n.z * q.z + d).magnitude <= tau { result.append(i) }
      }
    }
    return result
  }

  /// `indices` without the members of `removed` (both ascending).
  private func subtract(_ removed: [Int], from indices: [Int]) -> [Int] {
    var result: [Int] = []
    result.reserveCapacity(indices.count - removed.count)
    var k = 0
    for i in indices {
      while k < removed.count && removed[k] < i { k += 1 }
      if k < removed.count && removed[k] == i { continue }
      result.append(i)
    }
    return result
  }

  // MARK: Regions

  private func validate(
    _ region: [Int], alignment: ARPlaneAnchor.Alignment, reference: SIMD3<Double>, slots: [Int32],
    positions: [SIMD3<Double>], seenInDepth: [Bool]?
  ) -> PlaneCandidate? {
    guard region.count >= max(options.minimumInliers, 3) else { return nil }
    if let seenInDepth {
      let depthVoxels = region.reduce(0) { $0 + (seenInDepth[$1] ? 1 : 0) }
      guard Double(depthVoxels) >= options.minimumDepthShare * Double(region.count) else { return nil }
    }
    let points = region.map { positions[$0] }
    let moments = PlaneMoments(region, of: positions)
    guard GravityAlignedPlane.isWithinTolerance(moments, alignment: alignment, options: options),
      let plane = GravityAlignedPlane.fit(moments, alignment: alignment, reference: reference)
    else { return nil }
    let (e1, e2) = GravityAlignedPlane.axes(normal: plane.normal, alignment: alignment)
    let hull = Polygon2D.convexHull(points.map { SIMD2(simd_dot(e1, $0), simd_dot(e2, $0)) })
    guard Polygon2D.area(hull) >= options.minimumArea,
      let rectangle = Polygon2D.minimumAreaRectangle(hull),
      min(rectangle.width, rectangle.height) >= options.minimumSide
    else { return nil }
    return PlaneCandidate(
      alignment: alignment, plane: plane, slots: region.map { slots[$0] }, positions: points, moments: moments
    )
  }
}

extension PlaneMoments {
  /// The moments of `positions[i]` for each `i` of `indices`, added in that order: the same sums as
  /// `PlaneMoments(points:)` of those points, without its generic iteration (not specialised across the
  /// module boundary, it cost a few hundred instructions a point).
  init(_ indices: [Int], of positions: [SIMD3<Double>]) {
    self.init()
    positions.withUnsafeBufferPointer { p in
      for i in indices { add(p[i]) }
    }
  }
}
