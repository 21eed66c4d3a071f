/// Settings of the tracker's modules, each a sub-struct of ``TrackerOptions`` with documented defaults
/// in one place (the value written on each property is what `init()` gives).
extension TrackerOptions {
  /// Monocular initialisation: the rotation-only model before the map exists, and the two-view
  /// initialisation.
  public struct MonoInitialization: Codable, Sendable, Equatable {
    /// Fewest tracks for a rotation-only pose and for the two-view initialisation. Default 50.
    public var minTracks = 50
    /// Tracks farther than this from the first rotation-only fit, pixels, are left out of the refit.
    /// Default 3.
    public var rotationOutlierPixels = 3.0
    /// Smallest fraction of the tracks within ``rotationOutlierPixels`` of a rotation-only pose. A
    /// still camera loses only a few tracks to KLT errors; a translating one sees the near points'
    /// parallax exceed the outlier bound and keeps clearly fewer. Default 0.9.
    public var minRotationInlierFraction = 0.9
    /// Largest median residual of the inliers of a rotation-only pose, pixels. A still camera's KLT
    /// tracks agree with a rotation to a small fraction of a pixel; turning on the spot leaves up to
    /// about a pixel after tens of degrees; translation shows as parallax the rotation cannot absorb.
    /// Default 1.
    public var maxRotationResidual = 1.0
    /// Smallest parallax a rotation cannot explain (median residual of the rotation fit over all
    /// tracks, pixels) for the two-view initialisation: below it the baseline is too short to
    /// triangulate reliably, however far the features moved by turning. Default 3.
    public var minTranslationParallax = 3.0
    /// Median pixel displacement that triggers the two-view initialisation, as a fraction of the
    /// image width, and at least ``minParallaxPixels``. Default 0.03.
    public var parallaxFraction = 0.03
    /// See ``parallaxFraction``. Default 20.
    public var minParallaxPixels = 20.0
    /// Essential-matrix RANSAC threshold, pixels. Default 1.
    public var essentialThreshold = 1.0
    /// Fewest triangulated points for a map. Default 40.
    public var minTriangulated = 40

    /// The defaults.
    public init() {}
  }

  /// The monocular map: new landmarks and the local bundle adjustment window.
  public struct LocalBundle: Codable, Sendable, Equatable {
    /// Keyframes refined in the local window. Default 8.
    public var windowSize = 8
    /// Most older keyframes held fixed in the local bundle adjustment, bounding its cost (ORB-SLAM
    /// keeps all that observe the local map). Default 16.
    public var maxFixedKeyframes = 16
    /// Frames between keyframes. Each keyframe runs the local bundle adjustment, whose fixed older
    /// keyframes and retired landmarks make it about twice as costly as a window alone: every third
    /// frame keeps most frames free of it (and the median frame time within budget), the window then
    /// spanning 24 frames. Default 3.
    public var keyframeInterval = 3
    /// Levenberg-Marquardt iterations per adjustment. Default 5.
    public var iterations = 5
    /// Huber threshold of the reprojection error, pixels. Default 2.
    public var huberPixels = 2.0
    /// Smallest angle between the two rays of a new landmark, degrees. Default 1.
    public var minTriangulationDegrees = 1.0
    /// Frames without a measured pose after which the monocular tracker reports relocalising.
    /// Default 10.
    public var maxPredictedFrames = 10

    /// The defaults.
    public init() {}
  }

  /// Raycasts against `.estimatedPlane`: a plane fitted on the spot to the depth pixels, or else the
  /// feature points, near the ray.
  public struct EstimatedPlane: Codable, Sendable, Equatable {
    /// Fewest points for a plane. Default 6.
    public var minPoints = 6
    /// Largest root-mean-square distance of the points from the fitted plane, metres. Default 0.015.
    public var maxSpread = 0.015
    /// Depth is used when the ray starts within this distance of the camera, metres. Default 0.05.
    public var cameraOriginTolerance = 0.05
    /// The depth window around the ray's pixel reaches `max(4, width / depthWindowDivisor)` pixels
    /// each way (sampled every other pixel). Default 80.
    public var depthWindowDivisor = 80
    /// Without depth, feature points within this distance of the ray (ahead of its origin), metres.
    /// Default 0.05.
    public var featureRadius = 0.05

    /// The defaults.
    public init() {}
  }

  /// Depth-only odometry (`Mode.depth`): ICP against a keyframe's depth map.
  public struct DepthOnly: Codable, Sendable, Equatable {
    /// A new keyframe once the camera has moved this far from the current one, metres. Default 0.04.
    public var keyframeTranslation = 0.04
    /// A new keyframe once the camera has turned this far from the current one, degrees. Default 4.
    public var keyframeRotationDegrees = 4.0
    /// A new keyframe when the alignment's inlier fraction falls below this. Default 0.5.
    public var keyframeOverlap = 0.5
    /// Alignments with a smaller inlier fraction are no measurement. Default 0.15.
    public var minInlierFraction = 0.15
    /// Inlier fraction below which the state is `limited(.insufficientFeatures)`. Default 0.3.
    public var normalInlierFraction = 0.3
    /// With a gyroscope, the weight of the rotation integrated from it against the depth
    /// alignment's (the prior's weight per unit of inlier weight, m²/rad², see the alignment): the
    /// gyroscope's rotation over a frame is far more exact than one aligned from phone depth, so it
    /// outweighs the alignment's. 0 ignores the gyroscope. Default 100.
    public var gyroscopeWeight = 100.0
    /// With an accelerometer, once gravity in the odometry frame is known to within
    /// `maxGravityUncertaintyDegrees`, the weight of the translation predicted from it (a position
    /// filter driven by the gravity-compensated accelerometer) against the depth alignment's (per
    /// unit of inlier weight, see the alignment's translation prior): directions the geometry leaves
    /// free, sliding along a wall or a table, follow the accelerometer instead of standing still.
    /// 0.01 holds such directions while a surface facing the motion with a few percent of the
    /// points outweighs it. 0 ignores the accelerometer. Default 0.01.
    public var accelerometerWeight = 0.01
    /// The accelerometer predicts the translation only while the uncertainty of what it needs added
    /// in the odometry frame, gravity less the bias turned into the frame's orientation
    /// (`GravityEstimator`), is below the tilt of gravity of this many degrees: a one-degree error is
    /// an acceleration of 0.17 m/s², a centimetre in a third of a second. (Gravity's direction alone
    /// is not known until the camera turns, which tells it from the bias; the sum is known at once.)
    /// A fast turn brings bias components not yet seen into play and the uncertainty rises past the
    /// bound, so the accelerometer is left out there: with a looser bound it carries the turn's error
    /// into the position (`DepthOnlyTrackingTests.realPhoneDepthOnlyAgainstARKit`, on a real capture's
    /// fast turn). Default 1.
    public var maxGravityUncertaintyDegrees = 1.0

    /// The defaults.
    public init() {}
  }

  /// Keeping the world level from the depth's level surfaces (``SurfaceUp``) where the recording has
  /// no accelerometer: the floors, table tops and ceilings each depth map shows observe up as an
  /// accelerometer would. The odometry's orientation drifts, and with it the level the start gave (the
  /// reference's gravity, or the first camera assumed upright); the world follows the surfaces
  /// instead, and the session's gravity source becomes ``GravitySource/surfaces``. Real captures:
  /// `RealCaptureGravityTests`, Tools/real-figures.sh.
  public struct SurfaceLevel: Codable, Sendable, Equatable {
    /// Whether the level follows the depth's level surfaces. Default true.
    public var isEnabled = true
    /// Side of the square cells of the depth map fitted with a plane each, depth pixels. Default 8.
    public var cellPixels = 8
    /// Depth beyond this is not read, metres: phone depth grows noisier and more biased with range.
    /// Default 4.
    public var maxRange = 4.0
    /// A cell is planar when its points lie within `cellThicknessBase + cellThicknessQuadratic · z²`
    /// metres of its plane (root mean square; z its depth). Default 0.004.
    public var cellThicknessBase = 0.004
    /// See ``cellThicknessBase``, 1/m. Default 0.004.
    public var cellThicknessQuadratic = 0.004
    /// Cells and surfaces whose normal is further than this from the current up, degrees, are not
    /// level surfaces (walls, slopes); the level's own drift must stay well within it. Default 8.
    public var gateDegrees = 8.0
    /// Level cells within this height of each other along up (chained) are one surface, metres.
    /// Default 0.04.
    public var heightTolerance = 0.04
    /// A surface needs this many cells: small patches say little about up and are often not level.
    /// Default 12.
    public var minSurfaceCells = 12
    /// A surface is flat when its points lie within this of its plane, metres (root mean square):
    /// steps and gentle slopes chained into one height group are not. Default 0.015.
    public var maxSurfaceThickness = 0.015
    /// An observation needs this many depth pixels on level surfaces. Default 2000.
    public var minPixels = 2000
    /// An observation on this many depth pixels or more weighs fully; one on fewer weighs their share
    /// of it (its noise falls as the surfaces grow). Default 5000.
    public var fullWeightPixels = 5000
    /// An observation further than this from the level held so far, degrees, is an outlier (a surface
    /// that is not level), and is dropped. Default 3.
    public var maxResidualDegrees = 3.0
    /// The world is re-levelled when the surfaces' up has moved this far since the last level,
    /// degrees: a re-level turns the world's placement over the odometry about the camera and moves
    /// nothing mapped (the drift it corrects is in the newest poses), so it may be small. Default 0.05.
    public var relevelDegrees = 0.05
    /// Seconds over which the level follows the surfaces' up (the gain of each frame's observation
    /// is its interval over this): a longer time averages more frames' noise, a shorter one follows
    /// the odometry's drift more closely. Default 3.
    public var timeConstant = 3.0

    /// The defaults.
    public init() {}
  }

  /// The gravity estimate's filter (``GravityEstimator``) where the recording has an accelerometer:
  /// the settings in which the session's estimate differs from the estimator's own defaults.
  public struct GravityFilter: Codable, Sendable, Equatable {
    /// The estimator's segment, seconds (``GravityEstimator/segmentSeconds``): the level delivered
    /// with a frame stands about a segment and the velocity fit's look-ahead behind it, carried to the
    /// frame by the gyroscope's measured drift. Shorter than the estimator's 0.25: the level lags the
    /// frame less; much shorter, each segment's equation rests on fewer samples and is noisier. The
    /// gravity errors over seeds: Tools/seed-figures.sh. Default 0.2.
    public var segmentSeconds = 0.2
    /// The estimator's velocity fit half-window, seconds (``GravityEstimator/velocityHalfWindow``):
    /// frames this far on each side, at every frame rate. At 10 fps the estimator's two-frame minimum
    /// reaches that already; at higher rates the estimator's 0.1 s fits fewer positions and noisier
    /// velocities, and gravity suffers. Wider helps at high rates but costs at 10 fps (three frames a
    /// side). The gravity errors over seeds and frame rates: Tools/seed-figures.sh (its FPS argument);
    /// real captures: Tools/real-figures.sh. Default 0.2.
    public var velocityHalfWindow = 0.2
    /// Monocular only: prior standard deviation of the map's scale (metres per unit) about 1: its
    /// first baseline is one unit, or the first depth frame's or `--scale`'s metres, so it is left
    /// open. Default 10.
    public var monocularScalePriorSigma = 10.0
    /// Monocular only: relative random walk of the map's scale per √s: it drifts by a few percent over
    /// tens of seconds as landmarks are triangulated from tracked poses. Default 0.01.
    public var monocularScaleDrift = 0.01

    /// The defaults.
    public init() {}
  }
}

extension TrackerOptions.MonoInitialization {
  /// Options from JSON: a missing key keeps its documented default; an unknown key is an error.
  public init(from decoder: any Decoder) throws {
    self.init()
    let c = try decoder.optionsContainer(keyedBy: CodingKeys.self)
    try c.decode(.minTracks, into: &minTracks)
    try c.decode(.rotationOutlierPixels, into: &rotationOutlierPixels)
    try c.decode(.minRotationInlierFraction, into: &minRotationInlierFraction)
    try c.decode(.maxRotationResidual, into: &maxRotationResidual)
    try c.decode(.minTranslationParallax, into: &minTranslationParallax)
    try c.decode(.parallaxFraction, into: &parallaxFraction)
    try c.decode(.minParallaxPixels, into: &minParallaxPixels)
    try c.decode(.essentialThreshold, into: &essentialThreshold)
    try c.decode(.minTriangulated, into: &minTriangulated)
  }
}

extension TrackerOptions.LocalBundle {
  /// Options from JSON: a missing key keeps its documented default; an unknown key is an error.
  public init(from decoder: any Decoder) throws {
    self.init()
    let c = try decoder.optionsContainer(keyedBy: CodingKeys.self)
    try c.decode(.windowSize, into: &windowSize)
    try c.decode(.maxFixedKeyframes, into: &maxFixedKeyframes)
    try c.decode(.keyframeInterval, into: &keyframeInterval)
    try c.decode(.iterations, into: &iterations)
    try c.decode(.huberPixels, into: &huberPixels)
    try c.decode(.minTriangulationDegrees, into: &minTriangulationDegrees)
    try c.decode(.maxPredictedFrames, into: &maxPredictedFrames)
  }
}

extension TrackerOptions.EstimatedPlane {
  /// Options from JSON: a missing key keeps its documented default; an unknown key is an error.
  public init(from decoder: any Decoder) throws {
    self.init()
    let c = try decoder.optionsContainer(keyedBy: CodingKeys.self)
    try c.decode(.minPoints, into: &minPoints)
    try c.decode(.maxSpread, into: &maxSpread)
    try c.decode(.cameraOriginTolerance, into: &cameraOriginTolerance)
    try c.decode(.depthWindowDivisor, into: &depthWindowDivisor)
    try c.decode(.featureRadius, into: &featureRadius)
  }
}

extension TrackerOptions.DepthOnly {
  /// Options from JSON: a missing key keeps its documented default; an unknown key is an error.
  public init(from decoder: any Decoder) throws {
    self.init()
    let c = try decoder.optionsContainer(keyedBy: CodingKeys.self)
    try c.decode(.keyframeTranslation, into: &keyframeTranslation)
    try c.decode(.keyframeRotationDegrees, into: &keyframeRotationDegrees)
    try c.decode(.keyframeOverlap, into: &keyframeOverlap)
    try c.decode(.minInlierFraction, into: &minInlierFraction)
    try c.decode(.normalInlierFraction, into: &normalInlierFraction)
    try c.decode(.gyroscopeWeight, into: &gyroscopeWeight)
    try c.decode(.accelerometerWeight, into: &accelerometerWeight)
    try c.decode(.maxGravityUncertaintyDegrees, into: &maxGravityUncertaintyDegrees)
  }
}

extension TrackerOptions.SurfaceLevel {
  /// Options from JSON: a missing key keeps its documented default; an unknown key is an error.
  public init(from decoder: any Decoder) throws {
    self.init()
    let c = try decoder.optionsContainer(keyedBy: CodingKeys.self)
    try c.decode(.isEnabled, into: &isEnabled)
    try c.decode(.cellPixels, into: &cellPixels)
    try c.decode(.maxRange, into: &maxRange)
    try c.decode(.cellThicknessBase, into: &cellThicknessBase)
    try c.decode(.cellThicknessQuadratic, into: &cellThicknessQuadratic)
    try c.decode(.gateDegrees, into: &gateDegrees)
    try c.decode(.heightTolerance, into: &heightTolerance)
    try c.decode(.minSurfaceCells, into: &minSurfaceCells)
    try c.decode(.maxSurfaceThickness, into: &maxSurfaceThickness)
    try c.decode(.minPixels, into: &minPixels)
    try c.decode(.fullWeightPixels, into: &fullWeightPixels)
    try c.decode(.maxResidualDegrees, into: &maxResidualDegrees)
    try c.decode(.relevelDegrees, into: &relevelDegrees)
    try c.decode(.timeConstant, into: &timeConstant)
  }
}

extension TrackerOptions.GravityFilter {
  /// Options from JSON: a missing key keeps its documented default; an unknown key is an error.
  public init(from decoder: any Decoder) throws {
    self.init()
    let c = try decoder.optionsContainer(keyedBy: CodingKeys.self)
    try c.decode(.segmentSeconds, into: &segmentSeconds)
    try c.decode(.velocityHalfWindow, into: &velocityHalfWindow)
    try c.decode(.monocularScalePriorSigma, into: &monocularScalePriorSigma)
    try c.decode(.monocularScaleDrift, into: &monocularScaleDrift)
  }
}
