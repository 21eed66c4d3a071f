import Foundation

/// What a session's plane detection stage is: each tracked frame in, the lifecycle of ARKit's plane
/// anchors out, following the world when tracking corrects it. ``PlaneDetector`` serves sessions
/// without depth (feature points), ``SurfacePlaneDetector`` those with depth.
package protocol PlaneDetecting: AnyObject {
  /// The current plane anchors, in the order they were detected.
  var anchors: [ARPlaneAnchor] { get }
  /// Processes one tracked frame (`depth` its confident depth, `intrinsics` the depth camera's).
  func process(
    _ recorded: RecordedFrame, depth: DepthImage?, tracked: TrackedFrame, intrinsics: CameraIntrinsics
  )
    -> PlaneAnchorChanges
  /// Moves the anchors with a rigid correction of the world; returns those that changed.
  func applyWorldCorrection(_ correction: RigidTransform) -> PlaneAnchorChanges
  /// Moves the anchors with a loop closure's deformation; returns those that changed.
  func applyWorldDeformation(_ deformation: WorldDeformation) -> PlaneAnchorChanges
}

extension PlaneDetector: PlaneDetecting {}

/// Plane detection from depth: each frame's planar surfaces (``FrameSurfaceExtractor``) extend the
/// anchors of the surfaces they continue, or start new ones. One anchor per surface: a frame's surface
/// that continues several anchors (one plane, touching cells) merges them, the oldest absorbing the
/// rest (`didRemove` of the absorbed). An anchor's outline holds only cells seen in several frames, and
/// a frame whose depth lies well beyond a cell (seen through it: a person who moved, a wrong fit) takes
/// a sighting away, so a moving person leaves no anchor. An anchor is reported once it was seen in
/// ``PlaneDetectionOptions/DepthSurfaces/confirmationFrames`` frames with
/// ``PlaneDetectionOptions/DepthSurfaces/minimumArea``. Work per frame is bounded by the depth map and the
/// anchors in view, not by the length of the session. Deterministic: no unordered iteration reaches the
/// output. Not thread-safe (one session's plane stage at a time).
package final class SurfacePlaneDetector: PlaneDetecting {
  package let options: PlaneDetectionOptions
  package let sessionIdentifier: UUID?
  private let surfaceOptions: PlaneDetectionOptions.DepthSurfaces
  private let extractor: FrameSurfaceExtractor
  /// ARKit's classification rules, shared with the point detector.
  private let classifier: PlaneClassifier
  private var identifiers: AnchorIdentifierGenerator
  private var tracks: [SurfaceTrack] = []
  private var frame: Int32 = 0
  /// Each detector frame's timestamp, seconds (frame `f` at `f − 1`), for loop-closure deformations.
  private var frameTimes: [Double] = []
  /// The sum of the cameras' positions (world) and their number, for the mean camera height.
  private var cameraPositionSum = SIMD3<Double>.zero
  private var cameraCount = 0
  private var minimumHits: Int32 { Int32(clamping: surfaceOptions.minimumCellHits) }
  /// Unconfirmed tracks not seen for this many frames are forgotten.
  private static let pendingLifetime: Int32 = 30

  /// A detector with the given options; `seed` drives the anchors' identifiers.
  package init(options: PlaneDetectionOptions, seed: UInt64, sessionIdentifier: UUID? = nil) {
    self.options = options
    self.sessionIdentifier = sessionIdentifier
    surfaceOptions = options.depthSurfaces.sanitised
    extractor = FrameSurfaceExtractor(options: surfaceOptions, alignments: options.alignments)
    classifier = PlaneClassifier(options: options)
    identifiers = AnchorIdentifierGenerator(seed: seed)
  }

  /// A session's detector, seeded as ``PlaneDetector/init(options:generation:sessionIdentifier:)``.
  package convenience init(options: PlaneDetectionOptions, generation: UInt64, sessionIdentifier: UUID?) {
    self.init(options: options, seed: options.seed &+ generation, sessionIdentifier: sessionIdentifier)
  }

  package var anchors: [ARPlaneAnchor] { tracks.compactMap { $0.alive ? $0.reported : nil } }

  package func process(
    _ recorded: RecordedFrame, depth: DepthImage?, tracked: TrackedFrame, intrinsics: CameraIntrinsics
  ) -> PlaneAnchorChanges {
    process(
      timestamp: recorded.timestamp, depth: depth, worldFromCamera: tracked.worldFromCamera,
      intrinsics: intrinsics)
  }

  /// Processes one frame: its confident depth (metres, NaN where unknown), the depth camera's
  /// intrinsics and the camera's pose (ARKit's camera frame to world).
  package func process(
    timestamp: Double, depth: DepthImage?, worldFromCamera pose: RigidTransform, intrinsics: CameraIntrinsics
  ) -> PlaneAnchorChanges {
    frame += 1
    frameTimes.append(timestamp)
    var changes = PlaneAnchorChanges()
    guard let depth, pose.translation.x.isFinite, pose.translation.y.isFinite, pose.translation.z.isFinite
    else { return changes }
    cameraPositionSum += pose.translation
    cameraCount += 1
    let surfaces = extractor.surfaces(depth: depth, intrinsics: intrinsics, worldFromCamera: pose)
    seeThrough(depth: depth, intrinsics: intrinsics, pose: pose)
    var absorbed: [(Int, Int)] = []
    for surface in surfaces { associate(surface, timestamp: timestamp, absorbed: &absorbed) }
    mergeTouching(absorbed: &absorbed)
    for (gone, into) in absorbed {
      if let anchor = tracks[gone].reported {
        changes.removed.append(RemovedPlaneAnchor(anchor: anchor, absorbedBy: tracks[into].identifier))
      }
    }
    settle(changes: &changes)
    classify()
    for t in tracks.indices where tracks[t].alive && tracks[t].confirmed && tracks[t].dirty {
      report(t, into: &changes)
    }
    tracks.removeAll { !$0.alive || (!$0.confirmed && frame - $0.lastSeen > Self.pendingLifetime) }
    return changes
  }

  /// Adds a frame's surface to the anchor of the surface it continues, merging every other anchor it
  /// continues into that one, or starts a new anchor.
  private func associate(_ surface: FrameSurface, timestamp: Double, absorbed: inout [(Int, Int)]) {
    let cosAngle = cos(surfaceOptions.associationAngleDegrees * .pi / 180)
    let reach = surfaceOptions.associationDistance + surfaceOptions.associationNoiseMultiple * surface.noise
    guard let mean = surface.moments.mean else { return }
    var continued: [Int] = []
    var cellsByTrack: [Int: [Int64]] = [:]
    for t in tracks.indices where tracks[t].alive {
      guard tracks[t].alignment == surface.alignment, tracks[t].facesUp == surface.facesUp,
        simd_dot(tracks[t].plane.normal, surface.plane.normal) >= cosAngle,
        tracks[t].plane.signedDistance(to: mean).magnitude <= reach
      else { continue }
      let cells = tracks[t].cells(of: surface)
      let gap = surfaceOptions.associationGapCells
      if cells.contains(where: { tracks[t].grid.hasNeighbour(of: $0, gap: gap) }) {
        continued.append(t)
        cellsByTrack[t] = cells
      }
    }
    // The nearest plane's anchor takes the surface; the others merge into the oldest only when they
    // are one plane with it (a door proud of its wall stays apart).
    if let nearest = continued.min(by: {
      (tracks[$0].plane.signedDistance(to: mean).magnitude, $0) < (
        tracks[$1].plane.signedDistance(to: mean).magnitude, $1
      )
    }) {
      let plane = tracks[nearest].plane
      continued.removeAll { t in
        t != nearest
          && (tracks[t].moments.mean.map { plane.signedDistance(to: $0).magnitude } ?? .infinity)
            > surfaceOptions.associationDistance
      }
    }
    guard let first = continued.first else {
      var track = SurfaceTrack(
        identifier: identifiers.next(), surface: surface, frame: frame, cellSize: surfaceOptions.gridCellSize,
        minimumHits: minimumHits)
      track.add(
        surface, cells: track.cells(of: surface), frame: frame, time: timestamp,
        interval: surfaceOptions.sightingInterval)
      tracks.append(track)
      return
    }
    for other in continued.dropFirst() { merge(other, into: first, absorbed: &absorbed) }
    // The cells worked out for the test above: absorbing others leaves the anchor's frame as it was.
    tracks[first].add(
      surface, cells: cellsByTrack[first] ?? tracks[first].cells(of: surface), frame: frame, time: timestamp,
      interval: surfaceOptions.sightingInterval)
  }

  /// Track `younger` joins `older` (the same surface): `older` takes its moments, cells and
  /// confirmation, `younger` leaves, recorded in `absorbed` for its `didRemove`.
  private func merge(_ younger: Int, into older: Int, absorbed: inout [(Int, Int)]) {
    tracks[older].absorb(tracks[younger])
    tracks[older].confirmed = tracks[older].confirmed || tracks[younger].confirmed
    tracks[younger].alive = false
    absorbed.append((younger, older))
  }

  /// Merges each anchor seen in this frame with any other that is the same surface (parallel, each
  /// one's centre on the other's plane, cells within the association gap; vertical ones within
  /// ``PlaneDetectionOptions/DepthSurfaces/verticalMergeGap``), which no single frame's surface
  /// bridged: two pieces of one floor seen at different times, a wall on both sides of a door. The
  /// older absorbs the younger.
  private func mergeTouching(absorbed: inout [(Int, Int)]) {
    let cosAngle = cos(surfaceOptions.associationAngleDegrees * .pi / 180)
    for t in tracks.indices where tracks[t].alive && tracks[t].lastSeen == frame {
      for o in tracks.indices where o != t && tracks[o].alive && tracks[t].alive {
        guard tracks[t].alignment == tracks[o].alignment, tracks[t].facesUp == tracks[o].facesUp,
          simd_dot(tracks[t].plane.normal, tracks[o].plane.normal) >= cosAngle,
          let meanA = tracks[t].moments.mean, let meanB = tracks[o].moments.mean,
          tracks[t].plane.signedDistance(to: meanB).magnitude <= surfaceOptions.associationDistance,
          tracks[o].plane.signedDistance(to: meanA).magnitude <= surfaceOptions.associationDistance,
          Self.touch(tracks[t], tracks[o], gap: surfaceOptions.associationGapCells)
            || (tracks[t].alignment == .vertical
              && Self.boxesWithin(tracks[t], tracks[o], gap: surfaceOptions.verticalMergeGap))
        else { continue }
        let (older, younger) = o < t ? (o, t) : (t, o)
        merge(younger, into: older, absorbed: &absorbed)
      }
    }
  }

  /// Whether the boxes of two tracks' cells (in the first one's anchor frame) lie within `gap` metres
  /// of each other along both axes.
  private static func boxesWithin(_ a: SurfaceTrack, _ b: SurfaceTrack, gap: Double) -> Bool {
    func box(_ points: [SIMD2<Double>]) -> (SIMD2<Double>, SIMD2<Double>)? {
      guard var low = points.first else { return nil }
      var high = low
      for p in points {
        low = simd_min(low, p)
        high = simd_max(high, p)
      }
      return (low, high)
    }
    let own = zip(a.grid.keys, a.grid.hits).filter { $0.1 > 0 }.map { a.grid.centre($0.0) }
    let other = zip(b.grid.keys, b.grid.hits).filter { $0.1 > 0 }.map {
      a.anchor2D(b.world(anchor2D: b.grid.centre($0.0)))
    }
    guard let (lowA, highA) = box(own), let (lowB, highB) = box(other) else { return false }
    let apart = simd_max(simd_max(lowA - highB, lowB - highA), .zero)
    return apart.x <= gap && apart.y <= gap
  }

  /// Whether a cell of the smaller of two tracks lies within `gap` cells of one of the larger's.
  private static func touch(_ a: SurfaceTrack, _ b: SurfaceTrack, gap: Int) -> Bool {
    let (small, large) = a.grid.count <= b.grid.count ? (a, b) : (b, a)
    for (key, h) in zip(small.grid.keys, small.grid.hits) where h > 0 {
      let moved = large.grid.key(large.anchor2D(small.world(anchor2D: small.grid.centre(key))))
      if large.grid.hasNeighbour(of: moved, gap: gap) { return true }
    }
    return false
  }

  /// Takes a sighting from each cell of an anchor in view that this frame's depth sees through (depth
  /// beyond it by ``PlaneDetectionOptions/DepthSurfaces/seeThroughMargin`` plus 3σ).
  private func seeThrough(depth: DepthImage, intrinsics: CameraIntrinsics, pose: RigidTransform) {
    let k = intrinsics.scaled(toWidth: depth.width, height: depth.height)
    guard k.fx > 0, k.fy > 0 else { return }
    let cameraFromWorld = pose.inverse
    let rotation = simd_double3x3(cameraFromWorld.rotation)
    let translation = cameraFromWorld.translation
    let maximumDepth = surfaceOptions.maximumDepth
    depth.metres.withUnsafeBufferPointer { metres in
      let (width, height) = (Double(depth.width), Double(depth.height))
      for t in tracks.indices where tracks[t].alive {
        guard
          Self.mayBeInView(
            tracks[t], rotation: rotation, translation: translation, k: k, width: depth.width,
            height: depth.height, maximumDepth: maximumDepth)
        else { continue }
        tracks[t].seeThrough(frame: frame) { world in
          let camera = rotation * world + translation
          let z = -camera.z
          guard z > 0.1, z < maximumDepth else { return false }
          let u = k.fx * camera.x / z + k.cx
          let v = -k.fy * camera.y / z + k.cy
          guard u >= 0, v >= 0, u < width, v < height else { return false }
          let observed = metres[Int(v) * depth.width + Int(u)]
          return observed.isFinite
            && Double(observed) > z + surfaceOptions.seeThroughMargin + 3 * surfaceOptions.noise(atDepth: z)
        }
      }
    }
  }

  /// False when no cell centre of `track` can pass ``seeThrough(depth:intrinsics:pose:)``'s view test:
  /// the box of its cells lies wholly behind the near limit (0.1 m), beyond `maximumDepth`, or beside
  /// one edge of the image. Each test is linear in the camera frame (`u ≥ 0` is `fx·x + cx·z ≥ 0` for
  /// `z > 0`), so the box's four corners failing one of them means every point inside fails it.
  private static func mayBeInView(
    _ track: SurfaceTrack, rotation: simd_double3x3, translation: SIMD3<Double>, k: CameraIntrinsics,
    width: Int, height: Int, maximumDepth: Double
  ) -> Bool {
    let grid = track.grid
    guard grid.low.x <= grid.high.x else { return false }
    let low = SIMD2<Double>(Double(grid.low.x), Double(grid.low.y)) * grid.cellSize
    let high = SIMD2<Double>(Double(grid.high.x + 1), Double(grid.high.y + 1)) * grid.cellSize
    // Bit m set: some corner passes test m (by a micrometre, so rounding cannot cull a cell). Called
    // for every anchor on every frame with depth, so nothing here allocates.
    var passed: UInt8 = 0
    let (w, h) = (Double(width), Double(height))
    let slack = 1e-6
    for i in 0..<4 {
      // The corners low, (high.x, low.y), high, (low.x, high.y).
      let corner = SIMD2(i == 1 || i == 2 ? high.x : low.x, i >= 2 ? high.y : low.y)
      let c = rotation * track.world(anchor2D: corner) + translation
      let z = -c.z
      let x = k.fx * c.x
      let y = -k.fy * c.y
      if z - 0.1 > -slack { passed |= 1 << 0 }
      if maximumDepth - z > -slack { passed |= 1 << 1 }
      if x + k.cx * z > -slack { passed |= 1 << 2 }
      if (w - k.cx) * z - x > -slack { passed |= 1 << 3 }
      if y + k.cy * z > -slack { passed |= 1 << 4 }
      if (h - k.cy) * z - y > -slack { passed |= 1 << 5 }
    }
    return passed == 0b11_1111
  }

  /// Confirms the tracks seen often and large enough; removes confirmed ones left with less than half
  /// the area a new anchor needs (seen through: something that moved away).
  private func settle(changes: inout PlaneAnchorChanges) {
    for t in tracks.indices where tracks[t].alive {
      let area = tracks[t].area
      if !tracks[t].confirmed {
        if tracks[t].framesSeen >= surfaceOptions.confirmationFrames && area >= surfaceOptions.minimumArea {
          tracks[t].confirmed = true
        }
      } else if area < surfaceOptions.minimumArea / 2 {
        tracks[t].alive = false
        if let anchor = tracks[t].reported {
          changes.removed.append(RemovedPlaneAnchor(anchor: anchor, absorbedBy: nil))
        }
      }
    }
  }

  /// ARKit's classification from orientation, height over the floor and size (rules in
  /// ``PlaneDetectionOptions``): the floor is the lowest large upward plane well below the mean camera
  /// height.
  private func classify() {
    let cameraHeight = cameraCount > 0 ? cameraPositionSum.y / Double(cameraCount) : 0
    var floor: Double?
    for track in tracks
    where track.alive && track.confirmed && track.alignment == .horizontal
      && classifier.isFloorCandidate(
        height: -track.plane.offset, seenFromAbove: track.facesUp, area: track.area,
        cameraHeight: cameraHeight)
    {
      floor = min(floor ?? -track.plane.offset, -track.plane.offset)
    }
    for t in tracks.indices where tracks[t].alive && tracks[t].confirmed {
      let c = classification(of: t, floor: floor, cameraHeight: cameraHeight)
      if c != tracks[t].classification {
        tracks[t].classification = c
        tracks[t].dirty = true
      }
    }
  }

  private func classification(of t: Int, floor: Double?, cameraHeight: Double) -> ARPlaneAnchor.Classification
  {
    switch tracks[t].alignment {
    case .horizontal:
      // A horizontal plane's height: the plane through y = h with normal ±y has offset ∓h.
      let h = tracks[t].facesUp ? -tracks[t].plane.offset : tracks[t].plane.offset
      return classifier.horizontalClassification(
        height: h, seenFromAbove: tracks[t].facesUp, floor: floor, cameraHeight: cameraHeight)
    case .vertical:
      if let floor, let box = tracks[t].verticalExtent(),
        classifier.isDoor(bottom: box.bottom, top: box.top, width: box.width, floor: floor)
      {
        return .door
      }
      return tracks[t].area >= options.wallMinimumArea ? .wall : .none(.unknown)
    }
  }

  /// Reports track `t`: added when new, updated when it differs from its last report.
  private func report(_ t: Int, into changes: inout PlaneAnchorChanges) {
    let anchor = tracks[t].makeAnchor(
      maximumBoundaryVertices: options.maximumBoundaryVertices, sessionIdentifier: sessionIdentifier)
    changes.report(anchor, previous: tracks[t].reported)
    tracks[t].reported = anchor
    tracks[t].dirty = false
  }

  package func applyWorldCorrection(_ correction: RigidTransform) -> PlaneAnchorChanges {
    cameraPositionSum =
      correction.rotation.act(cameraPositionSum) + Double(cameraCount) * correction.translation
    var changes = PlaneAnchorChanges()
    for t in tracks.indices where tracks[t].alive {
      tracks[t].applyWorldCorrection(correction)
      if tracks[t].confirmed { report(t, into: &changes) }
    }
    return changes
  }

  package func applyWorldDeformation(_ deformation: WorldDeformation) -> PlaneAnchorChanges {
    var changes = PlaneAnchorChanges()
    for t in tracks.indices where tracks[t].alive {
      let f = Int(tracks[t].lastSeen)
      guard f >= 1, f <= frameTimes.count, let correction = deformation.correction(at: frameTimes[f - 1])
      else {
        continue
      }
      tracks[t].applyWorldCorrection(correction)
      if tracks[t].confirmed { report(t, into: &changes) }
    }
    return changes
  }
}
