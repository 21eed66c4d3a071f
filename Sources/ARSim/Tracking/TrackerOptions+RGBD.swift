/// Settings of the tracker's RGB-D odometry and relocalisation, sub-structs of ``TrackerOptions`` with
/// documented defaults in one place (the value written on each property is what `init()` gives).
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
}

extension TrackerOptions.RGBD {
  /// Options from JSON: a missing key keeps its documented default; an unknown key is an error.
  public init(from decoder: any Decoder) throws {
    self.init()
    let c = try decoder.optionsContainer(keyedBy: CodingKeys.self)
    try c.decode(.depthNoiseBase, into: &depthNoiseBase)
    try c.decode(.depthNoiseQuadratic, into: &depthNoiseQuadratic)
    try c.decode(.depthEdgeBase, into: &depthEdgeBase)
    try c.decode(.depthEdgeSlope, into: &depthEdgeSlope)
    try c.decode(.depthFitRadius, into: &depthFitRadius)
    try c.decode(.depthFitSpanFactor, into: &depthFitSpanFactor)
    try c.decode(.mediumConfidenceNoiseFactor, into: &mediumConfidenceNoiseFactor)
    try c.decode(.keyframeTrackedFraction, into: &keyframeTrackedFraction)
    try c.decode(.keyframeBaseline, into: &keyframeBaseline)
    try c.decode(.keyframeRotationDegrees, into: &keyframeRotationDegrees)
    try c.decode(.keyframeMaxFrames, into: &keyframeMaxFrames)
    try c.decode(.keyframeMinInterval, into: &keyframeMinInterval)
    try c.decode(.keyframeLostFraction, into: &keyframeLostFraction)
    try c.decode(.bundleWindow, into: &bundleWindow)
    try c.decode(.bundleFixedKeyframes, into: &bundleFixedKeyframes)
    try c.decode(.bundleIterations, into: &bundleIterations)
    try c.decode(.bundleGyroscopeNoiseDegrees, into: &bundleGyroscopeNoiseDegrees)
    try c.decode(.frameGyroscopeNoiseDegrees, into: &frameGyroscopeNoiseDegrees)
    try c.decode(.gyroscopeAllowanceDegrees, into: &gyroscopeAllowanceDegrees)
    try c.decode(.minAlignmentInlierFraction, into: &minAlignmentInlierFraction)
    try c.decode(.alignmentDegeneracy, into: &alignmentDegeneracy)
    try c.decode(.maxPredictedFrames, into: &maxPredictedFrames)
    try c.decode(.driftFrames, into: &driftFrames)
    try c.decode(.fastRotationDegrees, into: &fastRotationDegrees)
    try c.decode(.fastTranslation, into: &fastTranslation)
  }
}

extension TrackerOptions.Relocalization {
  /// Options from JSON: a missing key keeps its documented default; an unknown key is an error.
  public init(from decoder: any Decoder) throws {
    self.init()
    let c = try decoder.optionsContainer(keyedBy: CodingKeys.self)
    try c.decode(.maxKeyframes, into: &maxKeyframes)
    try c.decode(.keyframeTranslation, into: &keyframeTranslation)
    try c.decode(.keyframeRotationDegrees, into: &keyframeRotationDegrees)
    try c.decode(.keyframeFeatures, into: &keyframeFeatures)
    try c.decode(.queryFeatures, into: &queryFeatures)
    try c.decode(.orbThreshold, into: &orbThreshold)
    try c.decode(.minFeatures, into: &minFeatures)
    try c.decode(.recognizedKeyframes, into: &recognizedKeyframes)
    try c.decode(.shortlistedKeyframes, into: &shortlistedKeyframes)
    try c.decode(.searchedKeyframes, into: &searchedKeyframes)
    try c.decode(.maxDescriptorDistance, into: &maxDescriptorDistance)
    try c.decode(.minMatches, into: &minMatches)
    try c.decode(.reprojectionThreshold, into: &reprojectionThreshold)
    try c.decode(.depthTolerance, into: &depthTolerance)
    try c.decode(.minDepthAgreement, into: &minDepthAgreement)
    try c.decode(.ransacIterations, into: &ransacIterations)
    try c.decode(.thumbnailWidth, into: &thumbnailWidth)
    try c.decode(.thumbnailSpan, into: &thumbnailSpan)
    try c.decode(.viewToleranceBase, into: &viewToleranceBase)
    try c.decode(.viewToleranceSlope, into: &viewToleranceSlope)
    try c.decode(.maxViewInFront, into: &maxViewInFront)
    try c.decode(.viewEmptyRange, into: &viewEmptyRange)
    try c.decode(.minViewCompared, into: &minViewCompared)
    try c.decode(.mapAgreementFrames, into: &mapAgreementFrames)
    try c.decode(.mapAgreementTranslation, into: &mapAgreementTranslation)
    try c.decode(.mapAgreementDegrees, into: &mapAgreementDegrees)
    try c.decode(.gapSigmas, into: &gapSigmas)
    try c.decode(.gapPositionSigma, into: &gapPositionSigma)
    try c.decode(.gapVelocitySigma, into: &gapVelocitySigma)
    try c.decode(.gapAccelerationSigma, into: &gapAccelerationSigma)
    try c.decode(.gapRotationSigmaDegrees, into: &gapRotationSigmaDegrees)
    try c.decode(.continuityTolerance, into: &continuityTolerance)
    try c.decode(.maxSampleGap, into: &maxSampleGap)
  }
}
