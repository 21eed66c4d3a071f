/// Settings of the tracker's modules, each a sub-struct of ``TrackerOptions`` with documented defaults
/// in one place (the value written on each property is what `init()` gives).
extension TrackerOptions {
  /// The RGB-D odometry's depth model and fall-backs.
  public struct RGBD: Codable, Sendable, Equatable {
    /// Depth noise at 0 m, metres: the standard deviation at depth `d` is
    /// `depthNoiseBase + depthNoiseQuadratic · d²` (structured-light sensors grow with d²). Default 0.001.
    public var depthNoiseBase = 0.001
    /// Growth of the depth noise with the squared depth, 1/m. Default 0.0015.
    public var depthNoiseQuadratic = 0.0015
    /// A pixel is on a depth edge (no 3D point) when its 3x3 neighbourhood spans more than
    /// `depthEdgeBase + depthEdgeSlope · d` metres. Default 0.01.
    public var depthEdgeBase = 0.01
    /// See ``depthEdgeBase``. Default 0.02.
    public var depthEdgeSlope = 0.02
    /// A feature's depth is the inverse-depth plane fitted to the (2·radius + 1)² depth pixels around
    /// its ray (falling back to 3x3 near edges and holes), which averages the sensor's per-pixel noise;
    /// 0 reads the four pixels around the ray bilinearly. Default 2 (5x5 pixels): phone depth is noisy
    /// per pixel, and a landmark's depth prior carries that noise into the map
    /// (`PhoneRGBDTrackingTests.tracksTheDoorToTwoMillimetres`; over seeds, Tools/seed-figures.sh).
    public var depthFitRadius = 2
    /// The fitted block (radius above 1) is on one surface when it spans less than this many times the
    /// edge threshold (``depthEdgeBase``): a wider block spans more of a slanted surface. Default 1.5.
    public var depthFitSpanFactor = 1.5
    /// How much noisier a medium-confidence depth pixel (ARKit's level 1) is taken to be than a high
    /// one: its standard deviation is multiplied by this in the bundle adjustment's depth priors.
    /// Default 2.
    public var mediumConfidenceNoiseFactor = 2.0
    /// A tracked frame becomes a keyframe of the RGB-D bundle window (which is then adjusted) when
    /// fewer than this fraction of the last keyframe's landmarks are still tracked (ORB-SLAM's
    /// tracked-point test). Default 0.8.
    public var keyframeTrackedFraction = 0.8
    /// ... or when the camera moved this far from the last keyframe, as a fraction of the median
    /// depth of the tracked landmarks (the parallax that makes a new view). Default 0.02: a wider
    /// baseline makes keyframes, and so window adjustments, less often, and the map is refined less
    /// (compare with `arsim eval` on the full versions of Tools/generate-datasets.sh).
    public var keyframeBaseline = 0.02
    /// ... or turned this far from it, degrees. Default 5.
    public var keyframeRotationDegrees = 5.0
    /// ... or after this many frames without one. Default 10.
    public var keyframeMaxFrames = 10
    /// Seconds after a keyframe during which the tests before this one (tracked fraction, baseline,
    /// rotation) make no new one unless fewer than ``keyframeLostFraction`` of its landmarks are still
    /// tracked: a camera at 30 or 60 fps, or a scene whose tracks churn (a person moving through the
    /// view), would otherwise make most frames keyframes, and the bundle window would span a fraction
    /// of a second.
    /// Default 0.09 (a 10 Hz recording may make one on every frame).
    public var keyframeMinInterval = 0.09
    /// Within ``keyframeMinInterval`` of a keyframe, a frame still becomes one when fewer than this
    /// fraction of the keyframe's landmarks are tracked: the view has changed too much to wait.
    /// Default 0.5.
    public var keyframeLostFraction = 0.5
    /// Keyframes refined in the RGB-D bundle window. Default 6.
    public var bundleWindow = 6
    /// Most older keyframes held fixed in the RGB-D bundle window (which see its landmarks; the first
    /// keyframe alone while there are none): they tie the window to the map behind it. Default 8. With
    /// tracks that drift (KLT alone) more of them do not help; with tracks aligned to their reference
    /// patches (``TrackerOptions/alignsFeatures``) the older views are exact enough to hold the window.
    /// A trade-off, not a free gain: most sessions track closer with more of them, a large room's less
    /// close, and holding all (as ORB-SLAM's local bundle adjustment does) is not better there;
    /// compare over seeds with Tools/seed-figures.sh.
    public var bundleFixedKeyframes = 8
    /// Levenberg-Marquardt iterations per RGB-D window adjustment (warm: the window starts from the
    /// last adjustment). Default 3: warm-started, further iterations change the trajectory little and
    /// cost time on every keyframe.
    public var bundleIterations = 3
    /// With a gyroscope and a positive value, its angle random walk in degrees per √s (a phone's:
    /// 0.0017 rad/s white noise at 100 Hz is 0.0097): the gyroscope's turn between two consecutive
    /// keyframes of the window, corrected by a bias fitted to their adjusted turns, is a prior on
    /// their relative rotation (``KeyframeTurns``), with this noise, the bias fit's and
    /// ``gyroscopeAllowanceDegrees`` (in quadrature) as its standard deviation. 0: no prior.
    /// Default 0.01. The features alone leave a window facing a flat, distant wall free to trade its
    /// rotation against its translation, and the map it makes there carries the error on. Held by the
    /// chain's noise alone the prior shapes the very turns its bias is fitted to, and gravity suffers;
    /// with the allowance it does not (`PhoneRGBDTrackingTests.gyroscopeHoldsTheWindow`; over seeds,
    /// Tools/seed-figures.sh).
    public var bundleGyroscopeNoiseDegrees = 0.01
    /// With a gyroscope and a positive value, its angle random walk in degrees per √s, for a prior on
    /// each tracked frame's rotation: the last keyframe's (as the window adjusted it) turned by the
    /// gyroscope since (``KeyframeTurns``: the rates integrated, less the bias fitted to the keyframes'
    /// adjusted turns), with this noise, the bias fit's, and ``gyroscopeAllowanceDegrees`` as its
    /// standard deviation. The features alone leave a frame's rotation and its translation across the
    /// view trading off against each other where the view is a flat, distant surface (a wall a few
    /// metres away), and the frame-to-frame error rises there; the gyroscope measures that turn to a
    /// few thousandths of a degree. 0: no prior. Default 0.01
    /// (`PhoneRGBDTrackingTests.gyroscopeHoldsEachFramesRotation`; over seeds, Tools/seed-figures.sh).
    public var frameGyroscopeNoiseDegrees = 0.01
    /// Degrees added in quadrature to the standard deviation of every gyroscope prior (a frame's,
    /// ``frameGyroscopeNoiseDegrees``, and the window's, ``bundleGyroscopeNoiseDegrees``): what the
    /// chain's noise leaves out. A frame's prior holds it to the last keyframe, which is known only
    /// to a few hundredths of a degree against the map; the window's holds keyframes to turns whose bias
    /// is fitted to the window's own adjusted turns. Default 0.05, well below a frame's own feature-only
    /// rotation error, so the gyroscope still holds it. Without it the frame prior holds each frame too
    /// tightly to an uncertain keyframe (a lower frame-to-frame error but a higher ATE), and the window's
    /// prior costs gravity (``bundleGyroscopeNoiseDegrees``); a smaller allowance misses gravity on more
    /// seeds (Tools/seed-figures.sh).
    public var gyroscopeAllowanceDegrees = 0.05
    /// Smallest fraction of depth inliers for a dense-alignment pose. Default 0.15.
    public var minAlignmentInlierFraction = 0.15
    /// Smallest eigenvalue (relative) below which a dense alignment is degenerate. Default 0.001.
    public var alignmentDegeneracy = 1e-3
    /// Frames without a measured pose after which the tracker stops extrapolating and relocalises
    /// (it tries relocalising from half of it). Default 10.
    public var maxPredictedFrames = 10
    /// Frames whose pose came without features (depth or prediction) after which drift is suspected
    /// and the pose is recovered against older keyframes once features are back. Default 15.
    public var driftFrames = 15
    /// Rotation per frame, degrees, beyond which motion is fast (`excessiveMotion`). Default 4.
    public var fastRotationDegrees = 4.0
    /// Translation per frame, metres, beyond which motion is fast. Default 0.08.
    public var fastTranslation = 0.08

    /// The defaults.
    public init() {}
  }

  /// Keyframes and relocalisation against them (RGB-D): ORB features with depth.
  public struct Relocalization: Codable, Sendable, Equatable {
    /// Keyframes kept (besides those adopted from a world map, which stay). Default 40.
    public var maxKeyframes = 40
    /// Translation from the last keyframe, metres, that makes a new one. Default 0.15.
    public var keyframeTranslation = 0.15
    /// Rotation from the last keyframe, degrees, that makes a new one. Default 15.
    public var keyframeRotationDegrees = 15.0
    /// ORB features detected in a keyframe. Default 500.
    public var keyframeFeatures = 500
    /// ORB features detected in a frame to relocalise. Default 800.
    public var queryFeatures = 800
    /// ORB's FAST threshold. Default 20.
    public var orbThreshold = 20
    /// Fewest features with depth for a keyframe, and fewest features in a frame to try. Default 30.
    public var minFeatures = 30
    /// Keyframes scored by place recognition, most recent first. Default 40.
    public var recognizedKeyframes = 40
    /// Of those, the keyframes sharing the most words with the frame (``PlaceWords``) are matched in
    /// full and ranked by their matches; the rest are not matched (as many as
    /// ``recognizedKeyframes``: every one is). Default 6.
    public var shortlistedKeyframes = 6
    /// Best-scored keyframes tried by PnP RANSAC, most matches first. Default 12.
    public var searchedKeyframes = 12
    /// Largest Hamming distance of a descriptor match. Default 60.
    public var maxDescriptorDistance = 60
    /// Fewest matches, and fewest PnP inliers, for a relocalised pose. Default 20.
    public var minMatches = 20
    /// PnP RANSAC inlier threshold, pixels. Default 3.
    public var reprojectionThreshold = 3.0
    /// Relative depth difference (of the depth) within which a relocalised point agrees with the
    /// frame's depth. Default 0.05.
    public var depthTolerance = 0.05
    /// Fraction of the relocalised inliers with depth whose depth must agree. Default 0.8.
    public var minDepthAgreement = 0.8
    /// PnP RANSAC iterations at most (fewer where a keyframe's matches are few:
    /// ``Relocalizer/ransacIterations(matches:)``). Default 2000.
    public var ransacIterations = 2000
    /// Width, pixels, beyond which a keyframe's depth thumbnail (``DepthThumbnail``) is not made: the
    /// depth map is averaged over square blocks of the smallest factor that fits. Default 80.
    public var thumbnailWidth = 80
    /// A thumbnail pixel's block is one surface when its depths span less than this fraction of their
    /// mean (else the pixel is unknown). Default 0.1.
    public var thumbnailSpan = 0.1
    /// A relocalised frame's depth agrees with the keyframe's within this many metres... Default 0.03.
    public var viewToleranceBase = 0.03
    /// ... plus this fraction of the depth. Default 0.05.
    public var viewToleranceSlope = 0.05
    /// Largest fraction of a relocalised frame's depths moved into its keyframe's view, and of the
    /// keyframe's moved into the frame's, that may lie in front of what the other saw (in space it saw
    /// empty). A false pose (on a tiled floor's or wall's repeated texture after a gap without IMU, or
    /// the camera mirrored through the floor after a pause) puts a large share there, a true one almost
    /// none; the bound lies well between (`GapRelocalizationTests.noFalsePoseAfterGapWithoutIMU`,
    /// `DepthThumbnailTests.viewCheckRejectsAPoseOneFloorTileAway`). Default 0.2 (1 turns the check off).
    public var maxViewInFront = 0.2
    /// A depth moved into the other view where that view had no return (``DepthThumbnail``) fails
    /// when nearer than this fraction of the farthest depth that view measured (the sensor would have
    /// seen it). Default 0.9.
    public var viewEmptyRange = 0.9
    /// Fewest depths compared between a relocalised frame and its keyframe for the view check to
    /// judge. Default 200.
    public var minViewCompared = 200
    /// Consecutive frames located in an initial world map whose map alignments (map world from O)
    /// must agree before the session takes the map's world (one located frame alone may be a wrong
    /// match); the world is their mean. Default 3.
    public var mapAgreementFrames = 3
    /// How far those alignments may be from the first of them, metres... Default 0.02.
    public var mapAgreementTranslation = 0.02
    /// ... and this many degrees. Default 1.
    public var mapAgreementDegrees = 1.0
    /// After a gap in the frames, a relocalised pose must agree with the IMU's prediction across it
    /// (``GapPrediction``) within this many standard deviations. Default 3.
    public var gapSigmas = 3.0
    /// The predicted position's standard deviation at the gap's start (the last pose's error),
    /// metres. Default 0.02.
    public var gapPositionSigma = 0.02
    /// The error of the velocity the prediction starts from (from the last two poses), m/s.
    /// Default 0.05.
    public var gapVelocitySigma = 0.05
    /// The integrated acceleration's error besides gravity's direction (bias and noise), m/s².
    /// Default 0.05.
    public var gapAccelerationSigma = 0.05
    /// The gyroscope-integrated rotation's standard deviation per second of gap, degrees. Default 1.
    public var gapRotationSigmaDegrees = 1.0
    /// A pose relocalised because the motion since the last frame was too large to track (not after
    /// a loss, a gap or drift) continues the tracked motion, and so the gravity estimator's chain, when
    /// it is within this distance of the IMU's prediction from the last frame, metres (where the
    /// position is predicted; else the rotation must agree). The estimator's velocities need positions
    /// good to millimetres: a relocalised pose further from the prediction (during fast motion) breaks
    /// the chain instead of giving the estimator a velocity centimetres off
    /// (`WideMotionTests.tabletopAtTwoFramesPerSecond`). Default 0.01.
    public var continuityTolerance = 0.01
    /// Longest interval between IMU samples, seconds, over which the prediction holds the last one;
    /// beyond it (the samples stopped) nothing is predicted. Default 0.1.
    public var maxSampleGap = 0.1

    /// The defaults.
    public init() {}
  }

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
