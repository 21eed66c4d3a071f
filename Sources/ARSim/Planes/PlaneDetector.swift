import Foundation

/// What the last frame cost, in counts (for diagnostics and benchmarks).
package struct PlaneDetectorStatistics: Sendable, Equatable {
  /// Voxels that received points this frame.
  package var touchedVoxels = 0
  /// Touched, stable voxels that no anchor explained before the growth step.
  package var growthCandidates = 0
  /// Of those, voxels that joined an anchor.
  package var grownVoxels = 0
  /// Unexplained voxels RANSAC searched (0 when it did not run).
  package var ransacPoints = 0
  /// Regions RANSAC found (new anchors or growth of existing ones).
  package var ransacRegions = 0
  /// Voxels in the map after the frame.
  package var mapVoxels = 0
}

/// ARSim's plane detection: turns each frame's world points into the lifecycle of ARKit's plane anchors
/// (added, updated as they grow, removed when another anchor absorbs them). One instance per session;
/// not thread-safe (call it from one thread or actor at a time). Deterministic: the same options, seed
/// and inputs give the same anchors, bit for bit, and the same identifiers.
///
/// Per frame (`process`):
/// 1. *Map*: points (feature points and depth points, world) go into a bounded voxel map (running mean
///    per voxel of ``PlaneDetectionOptions/voxelSize``); non-finite points are ignored. A voxel takes
///    part once it has ``PlaneDetectionOptions/minimumObservations`` points.
/// 2. *Growth*: each voxel touched this frame that no anchor explains joins the anchor whose plane is
///    within ``PlaneDetectionOptions/inlierDistance`` and whose support occupies its cell or two of the
///    eight cells around it (the nearest such plane), unless the voxel lies on another surface crossing
///    the plane (the map has points a few centimetres off the plane on either side of it), on the line
///    where an anchor of the other alignment meets it (within that anchor's inlier band, next to its
///    support), or between two parallel anchors before it has settled
///    (``PlaneDetectionOptions/settledObservations``). The anchor's moments, cells and hull grow and its
///    plane is refitted.
/// 3. *Detection*: once enough new unexplained voxels have accumulated (and at most once per
///    ``PlaneDetectionOptions/detectionInterval`` seconds), sequential RANSAC with a gravity prior runs on
///    all unexplained voxels but those between two parallel anchors not yet settled (growth left the
///    noisiest of them: segmented alone they fit a plane between the two surfaces) (see
///    ``PlaneSegmenter``); each connected region found (in a session with
///    depth, one that depth points support, not feature points alone) either joins an existing anchor of the same
///    surface that it touches or becomes a new anchor. Before it, one vertical anchor's support is
///    checked again (once per ``PlaneDetectionOptions/surfaceCheckInterval``): a second surface in it
///    (a door taken in with its wall) or voxels nearer another anchor are given up.
/// 4. *Merging*: two anchors that are one surface (see `PlaneTrack.match(_:options:)`: normals within the
///    merge angle, supports touching or hulls overlapping, and the planes coinciding or the points of
///    both lying on one plane; or two floors at one height) merge; the older absorbs the younger, which
///    is removed.
/// 5. *Classification* from orientation, height, size and shape (rules in ``PlaneDetectionOptions``),
///    also before merging.
/// 6. *Eviction* of transient and, beyond the capacity, least recently seen voxels.
package final class PlaneDetector {
  /// The options in use (sanitised: sizes and distances positive).
  package let options: PlaneDetectionOptions
  /// The session identifier stamped on the anchors.
  package let sessionIdentifier: UUID?

  private var map: PlaneVoxelMap
  private var tracks: [PlaneTrack] = []
  /// Per track, the track that absorbed it (`-1` while it is alive). A voxel keeps the index of the
  /// track it joined, which ``owner(_:absorbers:)`` follows to the live track that holds it now
  /// (relabelling the map at each merge walked every voxel).
  private var absorbers: [Int32] = []
  private var random: SplitMix64
  /// The random numbers of `checkSupports` (its own, so that the checks leave detection's draws as
  /// they were).
  private var supportRandom: SplitMix64
  private var identifiers: AnchorIdentifierGenerator
  private let segmenter: PlaneSegmenter
  /// The segmenter of vertical anchors' supports (vertical planes only; see `checkSupports`).
  private let supportSegmenter: PlaneSegmenter
  /// Per track, when its support was last checked (`checkSupports`) and last segmented, seconds; the
  /// wait from that segmentation to the next, seconds; and the number of points it had then.
  private var surfaceChecks: [(time: Double, segmented: Double, wait: Double, points: Int)] = []
  private let classifier: PlaneClassifier
  private var frame: Int32 = 0
  /// Each detector frame's timestamp, seconds (frame `f` at `f - 1`), for loop-closure deformations.
  private var frameTimes: [Double] = []
  /// The sum of the cameras' positions (world) and their number, for the mean camera height.
  private var cameraPositionSum = SIMD3<Double>.zero
  private var cameraPositionCount = 0
  private var pendingNewPoints = 0
  /// Whether any frame so far had depth points (a session with depth: new planes need depth support,
  /// ``PlaneDetectionOptions/minimumDepthShare``).
  private var hasDepth = false
  /// The timestamp of the frame in which RANSAC last ran once a plane existed, seconds (−∞: never).
  private var lastDetection = -Double.infinity
  private var touched: [Int32] = []
  /// Counts describing the last frame's work.
  package private(set) var statistics = PlaneDetectorStatistics()

  /// A detector with the given options; `seed` drives RANSAC's sampling and the anchors' identifiers.
  /// `sessionIdentifier` is stamped on every anchor it reports.
  package init(options: PlaneDetectionOptions, seed: UInt64, sessionIdentifier: UUID? = nil) {
    var sane = options
    let defaults = PlaneDetectionOptions()
    if !(sane.voxelSize > 0 && sane.voxelSize.isFinite) { sane.voxelSize = defaults.voxelSize }
    if !(sane.regionCellSize > 0 && sane.regionCellSize.isFinite) {
      sane.regionCellSize = defaults.regionCellSize
    }
    if !(sane.inlierDistance > 0 && sane.inlierDistance.isFinite) {
      sane.inlierDistance = defaults.inlierDistance
    }
    if !(sane.inlierNoiseMultiple > 0) { sane.inlierNoiseMultiple = defaults.inlierNoiseMultiple }
    if !(sane.minimumInlierDistance > 0) { sane.minimumInlierDistance = defaults.minimumInlierDistance }
    sane.minimumInlierDistance = min(sane.minimumInlierDistance, sane.inlierDistance)
    sane.minimumObservations = max(sane.minimumObservations, 1)
    sane.settledObservations = max(sane.settledObservations, sane.minimumObservations)
    sane.maximumVoxelCount = max(sane.maximumVoxelCount, 1)
    self.options = sane
    self.sessionIdentifier = sessionIdentifier
    map = PlaneVoxelMap(voxelSize: sane.voxelSize)
    random = SplitMix64(seed: seed)
    supportRandom = SplitMix64(seed: seed ^ 0x5EED_5EED_5EED_5EED)
    identifiers = AnchorIdentifierGenerator(seed: seed)
    segmenter = PlaneSegmenter(options: sane)
    var vertical = sane
    vertical.alignments = .vertical
    supportSegmenter = PlaneSegmenter(options: vertical)
    classifier = PlaneClassifier(options: sane)
  }

  /// A session's detector: seeded with `options.seed` plus `generation` (the session's run count), so a
  /// detector made when the session runs again issues new anchor identifiers.
  package convenience init(options: PlaneDetectionOptions, generation: UInt64, sessionIdentifier: UUID?) {
    self.init(options: options, seed: options.seed &+ generation, sessionIdentifier: sessionIdentifier)
  }

  /// The current plane anchors, in the order they were detected.
  package var anchors: [ARPlaneAnchor] {
    tracks.compactMap { $0.alive ? $0.reported : nil }
  }

  /// The number of voxels in the point map (for diagnostics and benchmarks).
  package var voxelCount: Int { map.count }

  /// Processes one frame and returns the anchors it added, updated and removed.
  package func process(_ input: PlaneDetectionInput) -> PlaneAnchorChanges {
    frame += 1
    frameTimes.append(input.timestamp)
    let camera = input.worldFromCamera.translation
    let viewpoint = finite(camera)
    if let viewpoint {
      cameraPositionSum += viewpoint
      cameraPositionCount += 1
    }
    var changes = PlaneAnchorChanges()
    statistics = PlaneDetectorStatistics()
    defer { statistics.mapVoxels = map.count }
    guard !options.alignments.intersection([.horizontal, .vertical]).isEmpty else { return changes }
    let cameraHeight = cameraPositionCount > 0 ? cameraPositionSum.y / Double(cameraPositionCount) : 0

    ingest(input)
    statistics.touchedVoxels = touched.count
    grow(cameraHeight: camera.y.isFinite ? camera.y : cameraHeight, viewpoint: viewpoint)
    if pendingNewPoints >= max(options.minimumNewPointsForDetection, 1)
      && !(input.timestamp - lastDetection < options.detectionInterval - 1e-6)
    {
      pendingNewPoints = 0
      detect(camera: camera, timestamp: input.timestamp)
      // The interval starts with the first plane: until then RANSAC may run on every frame.
      if !tracks.isEmpty { lastDetection = input.timestamp }
    }
    // Classified before merging too: two pieces of floor merge once both are floors.
    classifier.classify(&tracks, meanCameraHeight: cameraHeight)
    let removed = merge()
    classifier.classify(&tracks, meanCameraHeight: cameraHeight)

    for (absorbed, absorber) in removed {
      if let anchor = tracks[absorbed].reported {
        changes.removed.append(RemovedPlaneAnchor(anchor: anchor, absorbedBy: tracks[absorber].identifier))
      }
    }
    for t in tracks.indices where tracks[t].alive && tracks[t].dirty {
      tracks[t].updatedFrame = frame
      report(t, into: &changes)
    }

    if frame % 8 == 0 || map.count > options.maximumVoxelCount {
      map.evict(
        frame: frame, minimumObservations: Int32(clamping: options.minimumObservations),
        lifetime: Int32(clamping: max(options.transientVoxelLifetime, 1)),
        capacity: options.maximumVoxelCount)
    }
    return changes
  }

  /// Moves everything the detector holds in world coordinates by a rigid correction of the world
  /// (`newWorldFromOld`; see `ARSession`'s world correction stage): the voxel map (re-keyed), every
  /// live anchor's support, plane and frame (``PlaneTrack/applyWorldCorrection(_:)``), the mean camera
  /// position. Returns the anchors as they are now in the corrected world, those that changed, as
  /// updates (in the order they were detected). Linear in the voxels and the anchors' cells.
  package func applyWorldCorrection(_ correction: RigidTransform) -> PlaneAnchorChanges {
    map.applyWorldCorrection(correction)
    cameraPositionSum =
      correction.rotation.act(cameraPositionSum) + Double(cameraPositionCount) * correction.translation
    var changes = PlaneAnchorChanges()
    for t in tracks.indices where tracks[t].alive {
      tracks[t].applyWorldCorrection(correction)
      report(t, into: &changes)
    }
    return changes
  }

  /// Moves what the detector holds by a loop closure's ``WorldDeformation``: each live anchor and its
  /// voxels by the correction of the frame it last changed in, other voxels by that of the frame they
  /// were last seen in. Returns the anchors it moved, as updates. Linear in the voxels and cells.
  package func applyWorldDeformation(_ deformation: WorldDeformation) -> PlaneAnchorChanges {
    let at = { [frameTimes] (frame: Int32) -> RigidTransform? in
      frame >= 1 && Int(frame) <= frameTimes.count
        ? deformation.correction(at: frameTimes[Int(frame) - 1]) : nil
    }
    let corrections = tracks.map { $0.alive ? at($0.updatedFrame) : nil }
    let prepared = corrections.map { $0.map(PreparedCorrection.init) }
    map.applyWorldCorrection(each: { [tracks, absorbers] voxel in
      let t = Self.owner(voxel.track, absorbers: absorbers)
      return t >= 0 && tracks[Int(t)].alive
        ? prepared[Int(t)] : at(voxel.lastSeen).map(PreparedCorrection.init)
    })
    var changes = PlaneAnchorChanges()
    for t in tracks.indices where tracks[t].alive {
      guard let correction = corrections[t] else { continue }
      tracks[t].applyWorldCorrection(correction)
      report(t, into: &changes)
    }
    return changes
  }

  /// Reports track `t` (live): added when it is new, updated when it differs from its last report.
  private func report(_ t: Int, into changes: inout PlaneAnchorChanges) {
    let anchor = tracks[t].makeAnchor(
      maximumBoundaryVertices: options.maximumBoundaryVertices, sessionIdentifier: sessionIdentifier)
    changes.report(anchor, previous: tracks[t].reported)
    tracks[t].reported = anchor
    tracks[t].dirty = false
  }

  // MARK: Steps

  private func ingest(_ input: PlaneDetectionInput) {
    touched.removeAll(keepingCapacity: true)
    if !input.depthPoints.isEmpty { hasDepth = true }
    map.observe(features: input.featurePoints, frame: frame, touched: &touched)
    map.observe(input.depthPoints, frame: frame, touched: &touched)
  }

  /// Step 2: touched, stable, unexplained voxels join the nearest adjacent anchor plane.
  private func grow(cameraHeight: Double, viewpoint: SIMD3<Double>?) {
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
  private func liesBetween(_ point: SIMD3<Double>, planes: inout GrowthPlanes) -> Bool {
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
  fileprivate static func isNearer(
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
  private static func crossesSurface(
    _ point: SIMD3<Double>, normal: SIMD3<Double>, map: borrowing PlaneVoxelMap,
    options: PlaneDetectionOptions
  ) -> Bool {
    let step = normal * max(2.5 * options.voxelSize, options.inlierDistance + options.voxelSize)
    return map.isStable(at: point + step, minimumObservations: 1)
      || map.isStable(at: point - step, minimumObservations: 1)
  }

  /// Step 3: sequential RANSAC on the unexplained voxels; regions grow anchors or become new ones.
  private func detect(camera: SIMD3<Double>, timestamp: Double) {
    let minimumObservations = Int32(clamping: options.minimumObservations)
    let cameraHeight = camera.y.isFinite ? camera.y : 0
    checkSupports(timestamp: timestamp, cameraHeight: cameraHeight)
    let oldest = frame - Int32(clamping: max(options.detectionPointLifetime, 0))
    var slots: [Int32] = []
    var positions: [SIMD3<Double>] = []
    var seenInDepth: [Bool] = []
    let settled = Int32(clamping: options.settledObservations)
    var planes = GrowthPlanes(tracks, maximumAngle: options.mergeAngleDegrees * .pi / 180)
    for (i, voxel) in map.voxels.enumerated()
    where voxel.track == -1 && voxel.observations >= minimumObservations && voxel.lastSeen >= oldest {
      if voxel.observations < settled, liesBetween(voxel.position, planes: &planes) { continue }
      slots.append(Int32(i))
      positions.append(voxel.position)
      seenInDepth.append(voxel.seenInDepth)
    }
    guard slots.count >= options.minimumInliers else { return }
    statistics.ransacPoints = slots.count
    // Segmentation reads the map through a copy that shares its storage (each access of the property
    // is checked for exclusivity), gone before the map changes (else that change would copy it).
    let found = { [map, options, segmenter, hasDepth] (random: inout SplitMix64) in
      segmenter.segment(
        slots: slots, positions: positions, seenInDepth: hasDepth ? seenInDepth : nil, random: &random
      ) { point, normal in
        Self.crossesSurface(point, normal: normal, map: map, options: options)
      }
    }(&random)
    statistics.ransacRegions = found.count
    for candidate in found {
      var plane = candidate.plane
      if candidate.alignment == .vertical && plane.signedDistance(to: camera) < 0 { plane = plane.flipped }
      if let t = existingTrack(for: candidate, plane: plane) {
        for slot in candidate.slots { map.assign(slot: slot, track: Int32(t)) }
        tracks[t].add(points: candidate.positions, cameraHeight: cameraHeight, viewpoint: nil)
      } else {
        let t = tracks.count
        tracks.append(
          PlaneTrack(
            identifier: identifiers.next(), candidate: candidate, plane: plane, cameraHeight: cameraHeight,
            viewpoint: nil, frame: frame, cellSize: options.regionCellSize))
        absorbers.append(-1)
        surfaceChecks.append(
          (timestamp, timestamp, options.surfaceCheckInterval, candidate.positions.count))
        for slot in candidate.slots { map.assign(slot: slot, track: Int32(t)) }
      }
    }
  }

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
  private func checkSupports(timestamp: Double, cameraHeight: Double) {
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
  fileprivate static func areParallel(_ a: Plane, _ b: Plane, maximumAngle: Double) -> Bool {
    let angle = a.angle(to: b)
    return min(angle, .pi - angle) <= maximumAngle
  }

  /// The area of the convex hull of `points` projected on a vertical `plane`, square metres.
  private static func area(of points: [SIMD3<Double>], on plane: Plane) -> Double {
    let (e1, e2) = GravityAlignedPlane.axes(normal: plane.normal, alignment: .vertical)
    return Polygon2D.area(Polygon2D.convexHull(points.map { SIMD2(simd_dot(e1, $0), simd_dot(e2, $0)) }))
  }

  /// The oldest live anchor that `candidate` (with its oriented plane) continues: same alignment,
  /// normals within the merge angle, the candidate's centroid within the merge distance of the anchor's
  /// plane, and a candidate point next to the anchor's support.
  private func existingTrack(for candidate: PlaneCandidate, plane: Plane) -> Int? {
    guard let centroid = candidate.moments.mean else { return nil }
    let maxAngle = options.mergeAngleDegrees * .pi / 180
    for t in tracks.indices where tracks[t].alive && tracks[t].alignment == candidate.alignment {
      guard tracks[t].plane.angle(to: plane) <= maxAngle,
        tracks[t].plane.signedDistance(to: centroid).magnitude <= options.mergeDistance
      else { continue }
      if candidate.positions.contains(where: { tracks[t].touches(point: $0) }) { return t }
    }
    return nil
  }

  /// Step 4: merges anchors that are one surface; returns `(absorbed, absorber)` track indices in the
  /// order of the merges.
  private func merge() -> [(Int, Int)] {
    var merges: [(Int, Int)] = []
    var merged = true
    while merged {
      merged = false
      search: for b in tracks.indices where tracks[b].alive {
        for a in 0..<b
        where tracks[a].alive && tracks[a].alignment == tracks[b].alignment
          && (tracks[a].dirty || tracks[b].dirty)
        {
          switch tracks[a].match(tracks[b], options: options) {
          case .same: break
          case .different: continue
          case .ifContinuing:
            let spreads = (tracks[a].spread(), tracks[b].spread())
            guard tracks[a].continues(tracks[b], spreads: spreads, options: options),
              tracks[a].touchesOrOverlaps(tracks[b])
            else { continue }
          }
          tracks[a].absorb(tracks[b])
          tracks[b].alive = false
          absorbers[b] = Int32(a)
          merges.append((b, a))
          merged = true
          break search
        }
      }
    }
    // An anchor absorbed by one that was later absorbed itself names the final absorber.
    return merges.map { absorbed, absorber in
      var final = absorber
      while let next = merges.first(where: { $0.0 == final }) { final = next.1 }
      return (absorbed, final)
    }
  }

  /// The live track that holds a voxel labelled `track` (the label itself when it is no track, `-1`):
  /// the track it joined, or the one that absorbed that (`absorbers`), and so on.
  private static func owner(_ track: Int32, absorbers: [Int32]) -> Int32 {
    var t = track
    while t >= 0 && absorbers[Int(t)] >= 0 { t = absorbers[Int(t)] }
    return t
  }

  /// `point` when all its coordinates are finite.
  private func finite(_ point: SIMD3<Double>) -> SIMD3<Double>? {
    point.x.isFinite && point.y.isFinite && point.z.isFinite ? point : nil
  }

  /// Whether two reports of one anchor show the same plane (so no update is due).
  static func isSame(_ a: ARPlaneAnchor, _ b: ARPlaneAnchor) -> Bool {
    a.transform == b.transform && a.center == b.center && a.classification == b.classification
      && a.planeExtent.width == b.planeExtent.width && a.planeExtent.height == b.planeExtent.height
      && a.planeExtent.rotationOnYAxis == b.planeExtent.rotationOnYAxis
      && a.geometry.boundaryVertices == b.geometry.boundaryVertices
  }
}

/// The tracks' planes while growth runs (it marks cells only, so they hold still), and whether two of
/// them are parallel, worked out for a pair when first asked.
private struct GrowthPlanes {
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
