/// Step 3a, the check of a vertical anchor's support: a second surface in it, or voxels nearer a
/// neighbouring anchor, are given up (see ``PlaneDetector``).
extension PlaneDetector {
  /// Step 3a: checks the support of a vertical anchor again, now that its voxels have settled (their
  /// means move as observations accumulate), and rebuilds the anchor on what belongs to it, keeping its
  /// identifier; the voxels it gives up are left unexplained, for this detection's RANSAC (or growth)
  /// to give to their own surface. Each anchor is checked once per
  /// ``PlaneDetectionOptions/surfaceCheckInterval``, one anchor per detection (the one checked
  /// longest ago). Two things are looked for:
  /// - *A second surface* (see ``PlaneDetectionOptions/separateSurfaceMinimumArea``): the anchor's
  ///   voxels are segmented as unexplained ones are; a region parallel to the largest (within the merge
  ///   angle), farther than the inlier distance from its plane, is a second surface when the voxels of
  ///   each seen within the last interval cover that area. Seen together, the two are not the one
  ///   surface seen before and after the tracker drifted (a wall seen again after drift comes back
  ///   off its first plane). The anchor keeps the largest region and those coplanar with it (within
  ///   the merge distance). The segmentation is most of a check's cost, linear in the anchor's voxels;
  ///   it is done again after a wait that doubles, up to 8 intervals, each time it finds nothing, and
  ///   after one interval once the support has grown by half.
  /// - *A neighbour's voxels*: those nearer another parallel anchor's plane than its own, where the two
  ///   planes are farther apart than the narrowest band: growth's rule (`liesNearer`), applied to the
  ///   voxels' present means. Wall voxels beside a door, near the door's plane while seen twice,
  ///   would join it and widen its hull over the wall. They alone rebuild the anchor when its support's
  ///   hull shrinks without them by more than 3% (fewer only churn the anchor).
  /// Linear in the map in a detection in which an anchor is due, then in its support.
  func checkSupports(timestamp: Double, cameraHeight: Double) {
    let interval = options.surfaceCheckInterval
    guard interval > 0,
      let t = tracks.indices.filter({ t in
        tracks[t].alive && tracks[t].alignment == .vertical
          && timestamp - surfaceChecks[t].time >= interval - 1e-6
      }).min(by: { surfaceChecks[$0].time < surfaceChecks[$1].time })
    else { return }
    // The support is segmented again (the costly part) once the wait has passed, which each
    // segmentation that finds no second surface doubles up to 8 intervals, or once it grew by half.
    let last = surfaceChecks[t]
    let segments =
      timestamp - last.segmented >= last.wait - 1e-6
      || tracks[t].moments.count >= last.points + last.points / 2
    surfaceChecks[t].time = timestamp
    if segments {
      surfaceChecks[t] = (timestamp, timestamp, min(2 * last.wait, 8 * interval), tracks[t].moments.count)
    }
    let minimumObservations = Int32(clamping: options.minimumObservations)
    var slots: [Int32] = []
    var positions: [SIMD3<Double>] = []
    for (i, voxel) in map.voxels.enumerated()
    where voxel.track >= 0 && voxel.observations >= minimumObservations
      && Self.owner(voxel.track, absorbers: absorbers) == t
    {
      slots.append(Int32(i))
      positions.append(voxel.position)
    }
    guard positions.count >= 2 * max(options.minimumInliers, 3) else { return }
    var (kept, separate) = (
      PlaneCandidate(
        alignment: .vertical, plane: tracks[t].plane, slots: slots, positions: positions,
        moments: PlaneMoments()),
      false
    )
    if segments {
      // The first detector frame within the last interval.
      var recent = frame
      while recent > 1 && timestamp - frameTimes[Int(recent) - 2] < interval { recent -= 1 }
      guard let found = mainSurface(of: slots, positions: positions, seenSince: recent) else { return }
      (kept, separate) = found
    }
    var support = PlaneCandidate(
      alignment: .vertical, plane: kept.plane, slots: [], positions: [], moments: PlaneMoments())
    let neighbours = tracks.indices.filter { u in
      u != t && tracks[u].alive && tracks[u].alignment == .vertical
        && Self.areParallel(
          tracks[u].plane, kept.plane, maximumAngle: options.mergeAngleDegrees * .pi / 180)
    }
    for (slot, p) in separate ? zip(kept.slots, kept.positions) : zip(slots, positions) {
      let distance = kept.plane.signedDistance(to: p).magnitude
      let onPlane = kept.plane.project(p)
      if neighbours.contains(where: {
        Self.isNearer(p, onPlane: onPlane, distance: distance, to: tracks[$0].plane, options: options)
      }) {
        continue
      }
      support.slots.append(slot)
      support.positions.append(p)
      support.moments.add(p)
    }
    guard
      separate
        || (support.slots.count < slots.count
          && Self.area(of: positions, on: kept.plane) > 1.03
            * Self.area(of: support.positions, on: kept.plane)),
      let plane = GravityAlignedPlane.fit(
        support.moments, alignment: .vertical, reference: tracks[t].plane.normal)
    else { return }
    support.plane = plane
    for slot in slots { map.assign(slot: slot, track: -1) }
    for slot in support.slots { map.assign(slot: slot, track: Int32(t)) }
    tracks[t] = tracks[t].rebuilt(on: support, plane: plane, cameraHeight: cameraHeight, frame: frame)
    surfaceChecks[t] = (timestamp, timestamp, interval, tracks[t].moments.count)
  }

  /// The main surface of a vertical anchor's voxels (`slots`, at `positions`), by segmentation: the
  /// largest region and those coplanar with it, as one candidate, and whether a second surface lies
  /// among the voxels (see `checkSupports`); voxels seen in detector frame `recent` or later count as
  /// seen together. Nil when the segmentation finds no region.
  private func mainSurface(
    of slots: [Int32], positions: [SIMD3<Double>], seenSince recent: Int32
  ) -> (PlaneCandidate, separate: Bool)? {
    let regions = supportSegmenter.segment(
      slots: slots, positions: positions, random: &supportRandom, crossesSurface: { _, _ in false })
    guard let main = regions.indices.max(by: { regions[$0].slots.count < regions[$1].slots.count }) else {
      return nil
    }
    let plane = regions[main].plane
    let voxelArea = options.voxelSize * options.voxelSize
    let recentArea = { [map] (region: PlaneCandidate) in
      Double(region.slots.reduce(0) { $0 + (map[$1].lastSeen >= recent ? 1 : 0) }) * voxelArea
    }
    let mainRecentArea = recentArea(regions[main])
    var kept = regions[main]
    var separate = false
    for (r, region) in regions.enumerated() where r != main {
      guard Self.areParallel(plane, region.plane, maximumAngle: options.mergeAngleDegrees * .pi / 180),
        let centroid = region.moments.mean
      else { continue }
      let step = plane.signedDistance(to: centroid).magnitude
      if step <= options.mergeDistance {
        kept.slots += region.slots
        kept.positions += region.positions
        kept.moments += region.moments
      } else if step > options.inlierDistance
        && min(mainRecentArea, recentArea(region)) >= options.separateSurfaceMinimumArea
      {
        separate = true
      }
    }
    return (kept, separate)
  }

  /// Whether two planes are within `maximumAngle` (radians) of parallel, either way round.
  static func areParallel(_ a: Plane, _ b: Plane, maximumAngle: Double) -> Bool {
    let angle = a.angle(to: b)
    return min(angle, .pi - angle) <= maximumAngle
  }

  /// The area of the convex hull of `points` projected on a vertical `plane`, square metres.
  private static func area(of points: [SIMD3<Double>], on plane: Plane) -> Double {
    let (e1, e2) = GravityAlignedPlane.axes(normal: plane.normal, alignment: .vertical)
    return Polygon2D.area(Polygon2D.convexHull(points.map { SIMD2(simd_dot(e1, $0), simd_dot(e2, $0)) }))
  }
}
