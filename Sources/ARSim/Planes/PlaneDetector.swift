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

  var map: PlaneVoxelMap
  var tracks: [PlaneTrack] = []
  /// Per track, the track that absorbed it (`-1` while it is alive). A voxel keeps the index of the
  /// track it joined, which ``owner(_:absorbers:)`` follows to the live track that holds it now
  /// (relabelling the map at each merge walked every voxel).
  var absorbers: [Int32] = []
  private var random: SplitMix64
  /// The random numbers of `checkSupports` (its own, so that the checks leave detection's draws as
  /// they were).
  var supportRandom: SplitMix64
  private var identifiers: AnchorIdentifierGenerator
  private let segmenter: PlaneSegmenter
  /// The segmenter of vertical anchors' supports (vertical planes only; see `checkSupports`).
  let supportSegmenter: PlaneSegmenter
  /// Per track, when its support was last checked (`checkSupports`) and last segmented, seconds; the
  /// wait from that segmentation to the next, seconds; and the number of points it had then.
  var surfaceChecks: [(time: Double, segmented: Double, wait: Double, points: Int)] = []
  private let classifier: PlaneClassifier
  var frame: Int32 = 0
  /// Each detector frame's timestamp, seconds (frame `f` at `f - 1`), for loop-closure deformations.
  var frameTimes: [Double] = []
  /// The sum of the cameras' positions (world) and their number, for the mean camera height.
  private var cameraPositionSum = SIMD3<Double>.zero
  private var cameraPositionCount = 0
  var pendingNewPoints = 0
  /// Whether any frame so far had depth points (a session with depth: new planes need depth support,
  /// ``PlaneDetectionOptions/minimumDepthShare``).
  private var hasDepth = false
  /// The timestamp of the frame in which RANSAC last ran once a plane existed, seconds (−∞: never).
  private var lastDetection = -Double.infinity
  var touched: [Int32] = []
  /// Counts describing the last frame's work.
  package internal(set) var statistics = PlaneDetectorStatistics()

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
  static func owner(_ track: Int32, absorbers: [Int32]) -> Int32 {
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
