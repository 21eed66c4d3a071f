/// Step 2, growth: touched, stable voxels that no anchor explains join the nearest anchor whose plane
/// and support they continue (see ``PlaneDetector``).
extension PlaneDetector {
  /// Step 2: touched, stable, unexplained voxels join the nearest adjacent anchor plane.
  func grow(cameraHeight: Double, viewpoint: SIMD3<Double>?) {
    let minimumObservations = Int32(clamping: options.minimumObservations)
    var candidates = map.voxels.withUnsafeBufferPointer { voxels in
      touched.filter { voxels[Int($0)].track == -1 && voxels[Int($0)].observations >= minimumObservations }
    }
    statistics.growthCandidates = candidates.count
    guard !candidates.isEmpty else { return }
    defer { statistics.grownVoxels = statistics.growthCandidates - candidates.count }
    var newPoints = [[SIMD3<Double>]](repeating: [], count: tracks.count)
    if !tracks.isEmpty {
      // The passes read the tracks through a local array (the property's every access is checked for
      // exclusivity, and a method call on its element copied the track); the property holds none
      // meanwhile, so the local array stays the storage's only owner and marking cells copies nothing.
      var growing: [PlaneTrack] = []
      swap(&growing, &tracks)
      // Growth marks cells only: the planes hold still through the passes.
      var planes = GrowthPlanes(growing, maximumAngle: options.mergeAngleDegrees * .pi / 180)
      growPasses(&candidates, tracks: &growing, planes: &planes, newPoints: &newPoints, map: &map)
      swap(&growing, &tracks)
      for t in tracks.indices where !newPoints[t].isEmpty {
        tracks[t].add(points: newPoints[t], cameraHeight: cameraHeight, viewpoint: viewpoint)
      }
    }
    for slot in candidates where map.announce(slot: slot) { pendingNewPoints += 1 }
  }

  /// Growth's passes over `candidates` (those left stay in it): each joins the nearest plane it may
  /// grow into. A few passes, so that a surface revealed in one frame is taken over cell by cell. The
  /// map is passed in, so that the passes hold one access to the detector's property rather than one
  /// per lookup (each access of a class's stored property is checked for exclusivity at run time).
  private func growPasses(
    _ candidates: inout [Int32], tracks growing: inout [PlaneTrack], planes: inout GrowthPlanes,
    newPoints: inout [[SIMD3<Double>]], map: inout PlaneVoxelMap
  ) {
    let settled = Int32(clamping: options.settledObservations)
    for _ in 0..<3 {
      var left: [Int32] = []
      for slot in candidates {
        let p = map[slot].position
        var best = -1
        var bestDistance = options.inlierDistance
        for t in planes.live {
          let d = planes.planes[t].signedDistance(to: p).magnitude
          if d <= bestDistance && growing[t].canGrow(into: p)
            && !Self.crossesSurface(p, normal: planes.planes[t].normal, map: map, options: options)
          {
            best = t
            bestDistance = d
          }
        }
        // Until settled, a voxel waits while any parallel neighbour's plane is within the inlier distance.
        let within = map[slot].observations >= settled ? bestDistance : options.inlierDistance
        if best >= 0 && !liesNearer(p, thanTrack: best, distance: within, planes: &planes)
          && !atJunction(p, track: best, tracks: growing, planes: planes)
        {
          map.assign(slot: slot, track: Int32(best))
          growing[best].occupy(point: p)
          newPoints[best].append(p)
        } else {
          left.append(slot)
        }
      }
      let progress = left.count < candidates.count
      candidates = left
      if !progress || candidates.isEmpty { break }
    }
  }

  /// Whether `point`, `distance` from track `t`'s plane, lies nearer to another live plane of the same
  /// alignment, parallel to it (within the merge angle) and farther from it there than the narrowest
  /// inlier band (``PlaneDetectionOptions/minimumInlierDistance``): the point lies between two surfaces
  /// the depth tells apart (a door and the wall a few centimetres behind it) and belongs to the nearer
  /// one, even where that one's support does not reach yet. Such a point joins neither for now; as more
  /// of the other surface is seen it joins that one.
  /// With the inlier distance as `distance`, this says whether the point lies between two such surfaces
  /// at all (``PlaneDetectionOptions/settledObservations``).
  private func liesNearer(
    _ point: SIMD3<Double>, thanTrack t: Int, distance: Double, planes: inout GrowthPlanes
  ) -> Bool {
    let plane = planes.planes[t]
    let onPlane = plane.project(point)
    for u in planes.live where u != t && planes.alignments[u] == planes.alignments[t] {
      guard Self.isNearer(point, onPlane: onPlane, distance: distance, to: planes.planes[u], options: options)
      else { continue }
      if planes.areParallel(u, t) { return true }
    }
    return false
  }

  /// Whether `point` lies within the inlier distance of two live parallel planes of one alignment,
  /// farther apart there than the narrowest inlier band (``liesNearer`` for any track's plane).
  func liesBetween(_ point: SIMD3<Double>, planes: inout GrowthPlanes) -> Bool {
    let band = options.inlierDistance
    for t in planes.live where planes.planes[t].signedDistance(to: point).magnitude < band {
      if liesNearer(point, thanTrack: t, distance: band, planes: &planes) { return true }
    }
    return false
  }

  /// Whether `point` lies where an anchor of the other alignment than track `t` meets `t`'s plane:
  /// within the inlier distance of that anchor's plane, next to its support. Such a voxel holds points
  /// of both surfaces (at a wall's foot, its mean sits in front of the wall, where a door standing
  /// proud of the wall is: the door's anchor would grow along the wall's foot), so it joins neither.
  private func atJunction(
    _ point: SIMD3<Double>, track t: Int, tracks: borrowing [PlaneTrack], planes: GrowthPlanes
  ) -> Bool {
    for u in planes.live where planes.alignments[u] != planes.alignments[t] {
      if planes.planes[u].signedDistance(to: point).magnitude < options.inlierDistance
        && tracks[u].touches(point: point)
      {
        return true
      }
    }
    return false
  }

  /// Whether `point`, `distance` from its own plane (where it projects to `onPlane`), lies nearer to
  /// `other`, which is farther than the narrowest inlier band from that plane there (``liesNearer``'s
  /// test of one plane, for a parallel one).
  static func isNearer(
    _ point: SIMD3<Double>, onPlane: SIMD3<Double>, distance: Double, to other: Plane,
    options: PlaneDetectionOptions
  ) -> Bool {
    other.signedDistance(to: point).magnitude < distance
      && other.signedDistance(to: onPlane).magnitude > options.minimumInlierDistance
  }

  /// Whether `point` lies on a surface that crosses the plane through it with unit normal `normal`
  /// rather than on that plane: the map holds a voxel 2.5 voxels (at least the inlier distance plus a
  /// voxel) away along the normal on either side. A wall meeting a table top, or an object standing on
  /// it, leaves such voxels; the flat surface itself (within the inlier distance) does not. Together with
  /// `PlaneTrack.canGrow(into:)` this keeps an anchor from growing along the line where another surface
  /// crosses its plane.
  @inline(__always)
  static func crossesSurface(
    _ point: SIMD3<Double>, normal: SIMD3<Double>, map: borrowing PlaneVoxelMap,
    options: PlaneDetectionOptions
  ) -> Bool {
    let step = normal * max(2.5 * options.voxelSize, options.inlierDistance + options.voxelSize)
    return map.isStable(at: point + step, minimumObservations: 1)
      || map.isStable(at: point - step, minimumObservations: 1)
  }
}

/// The tracks' planes while growth runs (it marks cells only, so they hold still), and whether two of
/// them are parallel, worked out for a pair when first asked.
struct GrowthPlanes {
  /// The indices of the live tracks, ascending.
  let live: [Int]
  /// Each track's plane and alignment, by track index.
  let planes: [Plane]
  let alignments: [ARPlaneAnchor.Alignment]
  private let maximumAngle: Double
  /// Per ordered pair `(u, t)` at `u·count + t`: 0 not yet known, 1 parallel, 2 not.
  private var parallel: [UInt8]

  init(_ tracks: [PlaneTrack], maximumAngle: Double) {
    live = tracks.indices.filter { tracks[$0].alive }
    planes = tracks.map(\.plane)
    alignments = tracks.map(\.alignment)
    self.maximumAngle = maximumAngle
    parallel = [UInt8](repeating: 0, count: tracks.count * tracks.count)
  }

  /// Whether the planes of tracks `u` and `t` are within the maximum angle of each other, either
  /// way round (`u`'s angle to `t`'s).
  mutating func areParallel(_ u: Int, _ t: Int) -> Bool {
    let k = u * planes.count + t
    if parallel[k] == 0 {
      parallel[k] = PlaneDetector.areParallel(planes[u], planes[t], maximumAngle: maximumAngle) ? 1 : 2
    }
    return parallel[k] == 1
  }
}
