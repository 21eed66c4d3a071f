import Foundation

extension PlaneDetectionOptions {
  /// How a session whose recording has depth finds planes: from the planar surfaces of each frame's
  /// depth map (``SurfacePlaneDetector``), rather than from a voxel map of sampled points. Every value is
  /// here, with its unit; a missing JSON key keeps its default.
  public struct DepthSurfaces: Codable, Sendable, Hashable {
    /// Whether a session with depth uses the surface detector (false: the point detector, as a session
    /// without depth does).
    public var enabled = true
    /// Cells across a depth map's width: each cell (square, in pixels) gets one plane fit.
    public var cellsPerRow = 32
    /// Samples across a cell at most (larger cells are sampled with a stride).
    public var samplesPerCellSide = 8
    /// Depth beyond this is not used, metres (LiDAR's range; its error grows with the square of it).
    public var maximumDepth = 4.5
    /// The share of a cell's samples that must have depth.
    public var minimumValidShare = 0.75
    /// The depth noise model, σ(z) = `noiseBase` + `noiseQuadratic`·z², metres.
    public var noiseBase = 0.003
    public var noiseQuadratic = 0.003
    /// A cell is planar when its points' RMS distance from their plane is at most this multiple of σ.
    public var planarityMultiple = 2.0
    /// A cell seen more obliquely than this (its normal to its viewing ray), degrees, is not used:
    /// grazing depth smears across edges.
    public var maximumViewAngleDegrees = 78.0
    /// A cell's normal within this of up or down (horizontal) or of the horizontal (vertical), degrees.
    public var cellAlignmentToleranceDegrees = 15.0
    /// A frame's surface: its free least-squares normal within this of its alignment, degrees.
    public var surfaceAlignmentToleranceDegrees = 8.0
    /// Growing a frame's surface: a neighbouring cell joins when its normal is within this of the
    /// surface's, degrees, and its centre within `growDistanceMultiple`·σ (at least
    /// `minimumGrowDistance`, metres) of the surface's plane. A cell's centre is the mean of up to 64
    /// depths, far steadier than one depth: a multiple below 1 still takes every cell of a surface,
    /// and keeps apart a door a few centimetres proud of its wall.
    public var growAngleDegrees = 12.0
    public var growDistanceMultiple = 0.75
    public var minimumGrowDistance = 0.012
    /// A frame's surface needs this many cells.
    public var minimumSurfaceCells = 4
    /// The side of an anchor's occupancy cells, metres.
    public var gridCellSize = 0.05
    /// A frame's surface continues an anchor when their normals are within this, degrees, its centre
    /// lies within `associationDistance` plus `associationNoiseMultiple`·σ of the anchor's plane,
    /// metres, and its cells lie within `associationGapCells` occupancy cells of the anchor's.
    public var associationAngleDegrees = 8.0
    public var associationDistance = 0.02
    public var associationNoiseMultiple = 0.25
    public var associationGapCells = 2
    /// Vertical anchors on one plane whose supports lie within this of each other merge, metres: a
    /// wall interrupted by a door, a cupboard or a doorway is one wall.
    public var verticalMergeGap = 1.0
    /// An anchor's cell is occupied once seen in this many frames (net of the frames that saw through
    /// it).
    public var minimumCellHits = 2
    /// Sightings of a cell or a surface closer in time than this count once, seconds.
    public var sightingInterval = 0.1
    /// A surface becomes an anchor once seen in this many frames with at least `minimumArea` square
    /// metres of occupied cells.
    public var confirmationFrames = 3
    public var minimumArea = 0.12
    /// A cell is seen through (free space, a person who walked away) when a frame's depth along its ray
    /// lies this far beyond it (plus 3σ), metres.
    public var seeThroughMargin = 0.1

    /// The defaults.
    public init() {}

    /// Options from JSON: a missing key keeps its documented default; an unknown key is an error.
    public init(from decoder: any Decoder) throws {
      self.init()
      let c = try decoder.optionsContainer(keyedBy: CodingKeys.self)
      try c.decode(.enabled, into: &enabled)
      try c.decode(.cellsPerRow, into: &cellsPerRow)
      try c.decode(.samplesPerCellSide, into: &samplesPerCellSide)
      try c.decode(.maximumDepth, into: &maximumDepth)
      try c.decode(.minimumValidShare, into: &minimumValidShare)
      try c.decode(.noiseBase, into: &noiseBase)
      try c.decode(.noiseQuadratic, into: &noiseQuadratic)
      try c.decode(.planarityMultiple, into: &planarityMultiple)
      try c.decode(.maximumViewAngleDegrees, into: &maximumViewAngleDegrees)
      try c.decode(.cellAlignmentToleranceDegrees, into: &cellAlignmentToleranceDegrees)
      try c.decode(.surfaceAlignmentToleranceDegrees, into: &surfaceAlignmentToleranceDegrees)
      try c.decode(.growAngleDegrees, into: &growAngleDegrees)
      try c.decode(.growDistanceMultiple, into: &growDistanceMultiple)
      try c.decode(.minimumGrowDistance, into: &minimumGrowDistance)
      try c.decode(.minimumSurfaceCells, into: &minimumSurfaceCells)
      try c.decode(.gridCellSize, into: &gridCellSize)
      try c.decode(.associationAngleDegrees, into: &associationAngleDegrees)
      try c.decode(.associationDistance, into: &associationDistance)
      try c.decode(.associationNoiseMultiple, into: &associationNoiseMultiple)
      try c.decode(.associationGapCells, into: &associationGapCells)
      try c.decode(.verticalMergeGap, into: &verticalMergeGap)
      try c.decode(.minimumCellHits, into: &minimumCellHits)
      try c.decode(.sightingInterval, into: &sightingInterval)
      try c.decode(.confirmationFrames, into: &confirmationFrames)
      try c.decode(.minimumArea, into: &minimumArea)
      try c.decode(.seeThroughMargin, into: &seeThroughMargin)
    }

    /// The depth noise at `depth` metres, σ, metres.
    func noise(atDepth depth: Double) -> Double { noiseBase + noiseQuadratic * depth * depth }

    /// The options with sizes and counts made usable (non-positive or non-finite values take the
    /// default).
    var sanitised: DepthSurfaces {
      let d = DepthSurfaces()
      var s = self
      func fix(_ v: inout Double, _ fallback: Double) { if !(v > 0 && v.isFinite) { v = fallback } }
      fix(&s.maximumDepth, d.maximumDepth)
      fix(&s.gridCellSize, d.gridCellSize)
      fix(&s.noiseBase, d.noiseBase)
      fix(&s.planarityMultiple, d.planarityMultiple)
      fix(&s.growDistanceMultiple, d.growDistanceMultiple)
      fix(&s.associationDistance, d.associationDistance)
      if !(s.verticalMergeGap >= 0 && s.verticalMergeGap.isFinite) { s.verticalMergeGap = d.verticalMergeGap }
      s.cellsPerRow = max(s.cellsPerRow, 1)
      s.samplesPerCellSide = max(s.samplesPerCellSide, 2)
      s.minimumSurfaceCells = max(s.minimumSurfaceCells, 1)
      s.minimumCellHits = max(s.minimumCellHits, 1)
      if !(s.sightingInterval >= 0 && s.sightingInterval.isFinite) { s.sightingInterval = d.sightingInterval }
      s.confirmationFrames = max(s.confirmationFrames, 1)
      s.associationGapCells = max(s.associationGapCells, 0)
      if !(s.noiseQuadratic >= 0 && s.noiseQuadratic.isFinite) { s.noiseQuadratic = d.noiseQuadratic }
      return s
    }
  }
}
