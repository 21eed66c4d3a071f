/// Which plane orientations to detect, ARKit's `ARPlaneDetection` (in Swift
/// `ARWorldTrackingConfiguration.PlaneDetection`).
public struct ARPlaneDetection: OptionSet, Sendable, Hashable, Codable {
  /// The bits of the set.
  public let rawValue: UInt

  /// The set with the given bits.
  public init(rawValue: UInt) { self.rawValue = rawValue }

  /// Planes perpendicular to gravity (floors, tables, ceilings).
  public static let horizontal = ARPlaneDetection(rawValue: 1 << 0)
  /// Planes parallel to gravity (walls).
  public static let vertical = ARPlaneDetection(rawValue: 1 << 1)
}

/// Settings of plane detection, with documented defaults in one place: the default value written on
/// each property is what `init()` and decoding a JSON object without that key give.
///
/// Lengths are metres, areas square metres, angles degrees, durations frames. World +y is up (against
/// gravity), as in ARSim's world frame.
///
/// Classification rules (first match wins), applied every frame to every plane:
/// - *floor height*: the lowest horizontal plane seen from above with an area of at least
///   ``floorMinimumArea`` whose height is at least ``floorMinimumDepthBelowCamera`` below the mean
///   camera height of the session. While there is none, the floor height is unknown.
/// - horizontal, seen from below (the cameras were mostly under it), at least
///   ``ceilingMinimumHeightAboveCamera`` above the mean camera height: `.ceiling`;
/// - horizontal, seen from above, within ``floorHeightTolerance`` of the floor height: `.floor`;
/// - horizontal, seen from above, height above the floor in `[seatMinimumHeight, tableMinimumHeight)`:
///   `.seat`; in `[tableMinimumHeight, tableMaximumHeight]`: `.table`;
/// - horizontal, seen from above, while the floor height is unknown: `.none(.undetermined)`;
/// - vertical, its lower edge within ``doorFloorTolerance`` of the floor height, its width (horizontal
///   extent) in ``doorWidth`` and its height (vertical extent) in ``doorHeight``: `.door`;
/// - vertical, its lower edge at least ``windowMinimumSill`` above the floor height and its upper edge
///   at most ``windowMaximumTop`` above it, width in ``windowWidth``, height in ``windowHeight``:
///   `.window` when a wall frames it (``windowMaximumRecess``). Doors and windows are told apart from walls by shape and size alone (ARKit also looks
///   at the image): a door or window is found only where it is a plane of its own (set into the wall
///   or standing out of it by more than the merge thresholds), and a wall seen only in a door-sized
///   part is a door until more of it is seen;
/// - vertical with an area of at least ``wallMinimumArea``: `.wall`;
/// - anything else: `.none(.unknown)`.
public struct PlaneDetectionOptions: Codable, Sendable, Hashable {
  /// Which orientations to detect.
  public var alignments: ARPlaneDetection = [.horizontal, .vertical]
  /// Seed of RANSAC's sampling and of the anchors' identifiers (a session adds its run count, so a
  /// detector restarted by `run` issues new identifiers). Default 1.
  public var seed: UInt64 = 1

  // MARK: Point map

  /// How many depth pixels a row of the depth map gives the detector: every `max(4, width / this)`-th
  /// pixel in each direction is taken (see `DepthSampler`), so about this many per row at any
  /// resolution. Fewer points cost less (the map's lookups are most of the detector's time); the map
  /// accumulates them over frames.
  public var depthSamplesPerRow: Int = 64

  /// The edge of the cubic voxels that points are accumulated in (each voxel keeps the running mean of
  /// its points), metres.
  public var voxelSize: Double = 0.02
  /// The most voxels kept; beyond it the least recently observed are evicted.
  public var maximumVoxelCount: Int = 60_000
  /// Observations a voxel needs before it takes part in detection (a one-off outlier never does).
  public var minimumObservations: Int = 2
  /// Observations a voxel needs before it joins an anchor while it lies within ``inlierDistance`` of
  /// two parallel anchors' planes of one alignment that are farther apart there than
  /// ``minimumInlierDistance`` (a door and the wall 3 cm behind it): a fresh voxel's mean does not yet
  /// tell which of the two it is on. Until then it joins neither, by growth or by detection. A voxel
  /// observed twice scatters about as far from its surface as such a step; the mean of several
  /// observations lies well within it. Fresh wall voxels nearer the door's plane than the wall's would
  /// grow the door's anchor over the wall beside it, where taps would hit the door's plane
  /// (`PlaneSeparationTests.freshVoxelsBetweenDoorAndWallWait`). Default 6.
  public var settledObservations: Int = 6
  /// Frames after which a voxel that never reached ``minimumObservations`` is dropped.
  public var transientVoxelLifetime: Int = 30

  // MARK: RANSAC

  /// The largest distance from a plane of a point that supports it, metres. A plane RANSAC finds takes
  /// a narrower band where its points are measured to be less noisy (see ``inlierNoiseMultiple``).
  /// Default 0.02.
  public var inlierDistance: Double = 0.02
  /// How many times its measured noise the band of a plane RANSAC finds reaches (the robust spread of
  /// its points, 1.4826 × their median absolute distance), at least ``minimumInlierDistance`` and at
  /// most ``inlierDistance``: the noise so measured is the depth noise at the surface's range (averaged
  /// over a voxel's observations) and the pose noise, and a second surface a few noise widths in front
  /// (a door proud of its wall) stays out of the band. Default 3.
  public var inlierNoiseMultiple: Double = 3
  /// The narrowest inlier band, metres: RANSAC scores and refits its hypotheses on this band (a plane
  /// tilted between two parallel surfaces a few centimetres apart scores less than either surface's own
  /// on it), and a growing anchor leaves a point to a parallel plane more than this far from its own
  /// that is nearer the point. Default 0.01.
  public var minimumInlierDistance: Double = 0.01
  /// The largest angle between a horizontal plane's least-squares normal and gravity, degrees. Planes
  /// are reported exactly perpendicular to gravity, as ARKit reports them.
  public var horizontalToleranceDegrees: Double = 5
  /// The largest angle between a vertical plane's least-squares normal and the horizontal, degrees.
  /// Planes are reported exactly parallel to gravity.
  public var verticalToleranceDegrees: Double = 5
  /// The probability that the adaptive stopping rule aims for of drawing at least one all-inlier sample
  /// (Open3D's `probability`).
  public var ransacConfidence: Double = 0.999
  /// The most hypotheses drawn per RANSAC search.
  public var ransacMaximumIterations: Int = 200
  /// The most points a hypothesis is scored on (a deterministic subsample of the candidates beyond it).
  public var ransacMaximumPoints: Int = 2000
  /// The most planes a frame's sequential RANSAC extracts.
  public var maximumPlanesPerFrame: Int = 4
  /// New unexplained points (voxels) needed before RANSAC runs again.
  public var minimumNewPointsForDetection: Int = 10
  /// The shortest time from one RANSAC run to the next, seconds of the frames' timestamps (0: any
  /// frame); until the first plane is found it may run on any frame. On cluttered scenes, where new
  /// unexplained points arrive every frame, this bounds RANSAC's share of the time (at 30 fps it runs on
  /// at most every third frame); a surface that comes into view is found at most this much later.
  public var detectionInterval: Double = 0.1
  /// Frames after which an unexplained voxel that was not observed again is left out of RANSAC (it
  /// stays in the map and can still join a growing anchor).
  public var detectionPointLifetime: Int = 60

  // MARK: Regions and anchors

  /// The cell size of the grid on a plane that splits its inliers into connected regions (8-connected
  /// cells) and lets an anchor grow into neighbouring cells, metres. Surfaces more than two cells apart
  /// stay separate planes.
  public var regionCellSize: Double = 0.1
  /// The fewest points (voxels) a region needs to become a plane anchor.
  public var minimumInliers: Int = 20
  /// The smallest area (convex hull of the region) of a new plane anchor, square metres.
  public var minimumArea: Double = 0.05
  /// The shortest side of a new plane's extent rectangle, metres.
  public var minimumSide: Double = 0.12
  /// In a session with depth, the smallest share of the voxels of a region RANSAC finds (a new plane,
  /// or growth of one) that depth points reached (the rest only feature points). A feature's depth
  /// read across a silhouette (a table's edge with the floor far behind it) puts it in the free space
  /// between the two surfaces, where the depth map sees through it: such points, seen from a moving
  /// camera, can line up into a sliver of a vertical plane that no depth point supports (a narrow
  /// "wall" behind a table, none of its voxels reached by depth). A real surface in view of depth has
  /// depth points in most of its voxels once seen for a while, but at first sight fewer: tracked
  /// features, observed at one place every frame, reach ``minimumObservations`` before the depth
  /// samples do, so a larger share would find real surfaces later. Default 0.2.
  public var minimumDepthShare: Double = 0.2
  /// The largest angle between two planes' normals for them to be one surface, degrees.
  public var mergeAngleDegrees: Double = 5
  /// The largest distance between two planes (each one's centroid from the other) for them to be one
  /// surface, metres: less than the step of a door proud of its wall (a few centimetres), more than the
  /// noise of a fragment's centroid. Default 0.015.
  public var mergeDistance: Double = 0.015
  /// How much rougher than the rougher of two touching planes their union may be (the root-mean-square
  /// distance of all their points from one free least-squares plane) for them to be one surface even
  /// when their centroids are farther apart than ``mergeDistance``, metres. This joins the parallel bands
  /// into which a surface tilted against the estimated gravity splits; a door set into a wall is rougher.
  /// Default 0.005.
  public var mergeRoughening: Double = 0.005
  /// Two vertical planes found in one detection, within this many degrees of parallel, whose step (the
  /// nearer of each one's centroid from the other's plane) is more than ``distinctStepMultiple`` times
  /// the rougher one's own root-mean-square spread are two surfaces, however flat their union: a door
  /// proud of its wall, seen on one side of it at first, lies with the wall under one plane turned a
  /// degree between them (``mergeRoughening`` would join them), where the bands of a wall under a
  /// gravity error lie under one plane tilted against gravity. Planes found at different times may be
  /// a step apart by the tracker's drift alone, so the rule holds within one detection only: across
  /// seconds it would split one real wall into several anchors. Default 0.5.
  public var distinctStepDegrees: Double = 0.5
  /// See ``distinctStepDegrees``. Default 4: a door proud of its wall stands clearly more spreads
  /// from it at first sight, and fragments of one wall, even a distant one, clearly fewer apart
  /// (`PlaneSeparationTests`; the phone-profile door and room over seeds: Tools/seed-figures.sh).
  public var distinctStepMultiple: Double = 4
  /// The least step, metres, at which the points of one vertical plane found by RANSAC are two parallel
  /// surfaces side by side, a plane turned between them: ordered along the plane, they break where two
  /// parallel lines fit them best, apart there by more than this (and four standard errors), so the
  /// plane settles on the larger side. A door 3 cm proud of its wall, with the wall beside it, lies
  /// within a centimetre of a plane turned a degree; cells at the door's edge hold both and bridge the
  /// step in the regions' test. Infinite: never. Default 0.01 (``minimumInlierDistance``'s).
  public var hingeStep: Double = 0.01
  /// How close in height two floors (both classified `.floor`) must be to be one floor however far
  /// apart their supports are (furniture hides the floor between them), metres.
  public var floorMergeDistance: Double = 0.01
  /// How close two walls (both classified `.wall`) must be to one plane (each one's centroid from the
  /// other's plane) to be one wall however far apart their supports are (a door or furniture in front
  /// hides the wall between them), metres. Default 0.01.
  public var wallMergeDistance: Double = 0.01
  /// How often a vertical anchor's support is segmented again, seconds of session time, to find a
  /// second surface in it (see ``separateSurfaceMinimumArea``); 0 or less: never.
  /// An anchor found in the first frames, from voxels observed twice, can hold a door and the wall it
  /// stands 3 cm proud of: RANSAC's narrowest band fits a plane turned a degree between the two better
  /// than either alone, and cells of two or three voxels are too sparse to show the step between them.
  /// Seconds later the voxels are observed often enough to tell the two apart. Default 1.
  public var surfaceCheckInterval: Double = 1
  /// The least area of a second surface found in a vertical anchor's support, parallel to the main
  /// one and farther than ``inlierDistance`` from it, for the anchor to be split: the anchor keeps the
  /// main surface, and its other voxels are left for detection to find as anchors of their own,
  /// square metres. Default 0.25.
  public var separateSurfaceMinimumArea: Double = 0.25
  /// The most vertices of a boundary polygon; a larger convex hull is simplified (inwards).
  public var maximumBoundaryVertices: Int = 64

  // MARK: Classification

  /// How far below the mean camera height the floor must be, metres.
  public var floorMinimumDepthBelowCamera: Double = 0.9
  /// The smallest area of the plane that defines the floor height, square metres.
  public var floorMinimumArea: Double = 0.5
  /// How close to the floor height another horizontal plane must be to be floor too, metres.
  public var floorHeightTolerance: Double = 0.1
  /// The lowest seat above the floor, metres.
  public var seatMinimumHeight: Double = 0.25
  /// The lowest table above the floor (and the upper end of seats), metres.
  public var tableMinimumHeight: Double = 0.5
  /// The highest table above the floor, metres.
  public var tableMaximumHeight: Double = 1.25
  /// How far above the mean camera height a plane seen from below must be to be a ceiling, metres.
  public var ceilingMinimumHeightAboveCamera: Double = 0.3
  /// The smallest area of a vertical plane classified as a wall, square metres.
  public var wallMinimumArea: Double = 0.5
  /// The range of widths (horizontal extent) of a door, metres.
  public var doorWidth: ClosedRange<Double> = 0.7...1.2
  /// The range of heights (vertical extent) of a door, metres.
  public var doorHeight: ClosedRange<Double> = 1.9...2.3
  /// How far above or below the floor height a door's lower edge may be, metres.
  public var doorFloorTolerance: Double = 0.1
  /// The lowest a window's lower edge may be above the floor, metres.
  public var windowMinimumSill: Double = 0.3
  /// The range of widths of a window, metres.
  public var windowWidth: ClosedRange<Double> = 0.3...2.5
  /// The range of heights of a window, metres.
  public var windowHeight: ClosedRange<Double> = 0.3...2.0
  /// The highest a window's upper edge may be above the floor, metres (a wall seen above furniture
  /// reaches higher, up to the ceiling).
  public var windowMaximumTop: Double = 2.4
  /// How far in front of or behind the wall around it a window may be, metres: a window is a vertical
  /// plane framed by a wall (its support extends beyond the window's on every side) within this
  /// distance.
  public var windowMaximumRecess: Double = 0.3
  /// How a session with depth finds its planes (``DepthSurfaces``).
  public var depthSurfaces = DepthSurfaces()

  /// The defaults.
  public init() {}

  /// Options from JSON: a missing key keeps its documented default; an unknown key is an error.
  public init(from decoder: any Decoder) throws {
    self.init()
    let c = try decoder.optionsContainer(keyedBy: CodingKeys.self)
    try c.decode(.alignments, into: &alignments)
    try c.decode(.seed, into: &seed)
    try c.decode(.depthSamplesPerRow, into: &depthSamplesPerRow)
    try c.decode(.voxelSize, into: &voxelSize)
    try c.decode(.maximumVoxelCount, into: &maximumVoxelCount)
    try c.decode(.minimumObservations, into: &minimumObservations)
    try c.decode(.settledObservations, into: &settledObservations)
    try c.decode(.transientVoxelLifetime, into: &transientVoxelLifetime)
    try c.decode(.inlierDistance, into: &inlierDistance)
    try c.decode(.inlierNoiseMultiple, into: &inlierNoiseMultiple)
    try c.decode(.minimumInlierDistance, into: &minimumInlierDistance)
    try c.decode(.horizontalToleranceDegrees, into: &horizontalToleranceDegrees)
    try c.decode(.verticalToleranceDegrees, into: &verticalToleranceDegrees)
    try c.decode(.ransacConfidence, into: &ransacConfidence)
    try c.decode(.ransacMaximumIterations, into: &ransacMaximumIterations)
    try c.decode(.ransacMaximumPoints, into: &ransacMaximumPoints)
    try c.decode(.maximumPlanesPerFrame, into: &maximumPlanesPerFrame)
    try c.decode(.minimumNewPointsForDetection, into: &minimumNewPointsForDetection)
    try c.decode(.detectionInterval, into: &detectionInterval)
    try c.decode(.detectionPointLifetime, into: &detectionPointLifetime)
    try c.decode(.regionCellSize, into: &regionCellSize)
    try c.decode(.minimumInliers, into: &minimumInliers)
    try c.decode(.minimumArea, into: &minimumArea)
    try c.decode(.minimumSide, into: &minimumSide)
    try c.decode(.minimumDepthShare, into: &minimumDepthShare)
    try c.decode(.mergeAngleDegrees, into: &mergeAngleDegrees)
    try c.decode(.mergeDistance, into: &mergeDistance)
    try c.decode(.mergeRoughening, into: &mergeRoughening)
    try c.decode(.floorMergeDistance, into: &floorMergeDistance)
    try c.decode(.wallMergeDistance, into: &wallMergeDistance)
    try c.decode(.distinctStepDegrees, into: &distinctStepDegrees)
    try c.decode(.distinctStepMultiple, into: &distinctStepMultiple)
    try c.decode(.hingeStep, into: &hingeStep)
    try c.decode(.surfaceCheckInterval, into: &surfaceCheckInterval)
    try c.decode(.separateSurfaceMinimumArea, into: &separateSurfaceMinimumArea)
    try c.decode(.maximumBoundaryVertices, into: &maximumBoundaryVertices)
    try c.decode(.floorMinimumDepthBelowCamera, into: &floorMinimumDepthBelowCamera)
    try c.decode(.floorMinimumArea, into: &floorMinimumArea)
    try c.decode(.floorHeightTolerance, into: &floorHeightTolerance)
    try c.decode(.seatMinimumHeight, into: &seatMinimumHeight)
    try c.decode(.tableMinimumHeight, into: &tableMinimumHeight)
    try c.decode(.tableMaximumHeight, into: &tableMaximumHeight)
    try c.decode(.ceilingMinimumHeightAboveCamera, into: &ceilingMinimumHeightAboveCamera)
    try c.decode(.wallMinimumArea, into: &wallMinimumArea)
    try c.decode(.doorWidth, into: &doorWidth)
    try c.decode(.doorHeight, into: &doorHeight)
    try c.decode(.doorFloorTolerance, into: &doorFloorTolerance)
    try c.decode(.windowMinimumSill, into: &windowMinimumSill)
    try c.decode(.windowWidth, into: &windowWidth)
    try c.decode(.windowHeight, into: &windowHeight)
    try c.decode(.windowMaximumTop, into: &windowMaximumTop)
    try c.decode(.windowMaximumRecess, into: &windowMaximumRecess)
    try c.decode(.depthSurfaces, into: &depthSurfaces)
  }
}

extension PlaneDetectionOptions {
  /// The inlier band, metres, of a surface whose points lie `noise` metres (a standard deviation) from
  /// its plane: ``inlierNoiseMultiple`` times that, at least ``minimumInlierDistance``, at most
  /// ``inlierDistance``; ``inlierDistance`` when the noise is unknown (not finite).
  func inlierBand(noise: Double) -> Double {
    guard noise.isFinite else { return inlierDistance }
    return min(inlierDistance, max(minimumInlierDistance, inlierNoiseMultiple * noise))
  }
}
