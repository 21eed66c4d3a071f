import Foundation

/// The facts behind one frame's pose, as an odometry reports them: what it could do with the frame,
/// what supports the pose and how the camera moved. The tracking state is decided from them in one
/// place (``TrackingStatePolicy``); no odometry decides a state.
package struct TrackingEvidence: Sendable, Equatable {
  /// Where the odometry's own life stands.
  package enum Phase: Sendable, Equatable {
    /// No map exists yet (monocular, before the two-view initialisation): the pose is provisional.
    case mapless
    /// The frame was tracked from the map (or starts it).
    case tracking
    /// Tracking was lost (the camera was off, or no pose was measured for too long) and no location in
    /// the keyframes has been found, or one was found and awaits confirmation.
    case lost
  }

  /// How the camera moved over the frame.
  package enum Motion: Sendable, Equatable {
    /// Within the fast-motion thresholds, or not judged.
    case steady
    /// Beyond ``TrackerOptions/RGBD/fastRotationDegrees`` or ``TrackerOptions/RGBD/fastTranslation``
    /// (a predicted, bridged or depth-aligned pose).
    case fast
    /// The measured pose jumped from the prediction (``TrackerOptions/isJump(from:predicted:measured:)``).
    case jumped
  }

  /// What supports the pose.
  package enum Support: Sendable, Equatable {
    /// PnP inliers on tracked features, or of a relocalisation against the keyframes.
    case features(inliers: Int)
    /// Too few tracked features agreed on a pose: the pose is predicted.
    case tooFewFeatures
    /// The first frame: the features detected in it, which the map starts from.
    case detected(features: Int)
    /// The frame that makes the map (the monocular two-view initialisation, depth-only's first
    /// depth map): its pose is the map's by definition.
    case newMap
    /// The depth-only alignment against its keyframe, with the fraction of depth pixels that agreed.
    case depthOverlap(Double)
    /// The depth-only alignment failed: on a continuous depth stream, the view moved too far between
    /// frames.
    case lostAlignment
    /// No feature measured the pose: a dense depth alignment, the IMU's bridge or the prediction.
    case noFeatures
  }

  package var phase: Phase
  package var support: Support
  package var motion: Motion = .steady

  package init(phase: Phase, support: Support, motion: Motion = .steady) {
    self.phase = phase
    self.support = support
    self.motion = motion
  }

  /// A frame tracked from the map.
  package static func tracked(_ support: Support, motion: Motion = .steady) -> Self {
    Self(phase: .tracking, support: support, motion: motion)
  }

  /// A frame without a map yet (monocular, before initialisation).
  package static let mapless = Self(phase: .mapless, support: .noFeatures)

  /// A frame while tracking is lost, with what supports its (held, predicted or unconfirmed) pose.
  package static func lost(_ support: Support = .noFeatures) -> Self {
    Self(phase: .lost, support: support)
  }
}

/// How well a frame was tracked, before it becomes ARKit's `ARCamera.TrackingState`.
package enum TrackingQuality: String, Sendable, Equatable {
  case initializing
  case normal
  case insufficientFeatures
  case excessiveMotion
  case relocalizing
}

/// Every tracking-state transition, in one place (as stella_vslam's `tracking_module`): the
/// odometries report facts (``TrackingEvidence``), this type turns them into the odometry's
/// ``TrackingQuality`` and the session's into ARKit's `ARCamera.TrackingState`: `normal`; limited by
/// features or motion; `limited(.initializing)` until gravity fixes the world; `limited(.relocalizing)`
/// while lost, while an initial world map waits for a location, and after the camera was off until a
/// pose is measured normally again.
package struct TrackingStatePolicy: Sendable {
  /// PnP inliers from which a pose is `normal` (``TrackerOptions/normalInliers``).
  private let normalInliers: Int
  /// Features the first frame needs to be `normal` (``TrackerOptions/minInliers``).
  private let minInliers: Int
  /// Depth-only: the agreeing fraction from which an alignment is `normal`
  /// (``TrackerOptions/DepthOnly/normalInlierFraction``).
  private let normalInlierFraction: Double
  /// Whether the camera was off (a pause or a gap in the recording) and no pose has been measured
  /// normally since: frames are then `limited(.relocalizing)`.
  private var relocalizingSinceCameraOff = false

  package init(options: TrackerOptions) {
    normalInliers = options.normalInliers
    minInliers = options.minInliers
    normalInlierFraction = options.depthOnly.normalInlierFraction
  }

  /// The odometry's quality for a frame's facts (what it also gates its own map upkeep on).
  package func quality(_ evidence: TrackingEvidence) -> TrackingQuality {
    switch evidence.phase {
    case .mapless: return .initializing
    case .lost: return .relocalizing
    case .tracking: break
    }
    if evidence.motion == .jumped { return .excessiveMotion }
    switch evidence.support {
    case .features(let inliers): return inliers >= normalInliers ? .normal : .insufficientFeatures
    case .detected(let features): return features >= minInliers ? .normal : .insufficientFeatures
    case .depthOverlap(let fraction): return fraction > normalInlierFraction ? .normal : .insufficientFeatures
    case .newMap: return .normal
    case .lostAlignment: return .excessiveMotion
    case .tooFewFeatures: return .insufficientFeatures
    case .noFeatures: return evidence.motion == .fast ? .excessiveMotion : .insufficientFeatures
    }
  }

  /// The camera was off: the frames that follow are `limited(.relocalizing)` until a pose is measured
  /// normally again.
  package mutating func cameraWasOff() {
    relocalizingSinceCameraOff = true
  }

  /// One frame's state in the session.
  package struct Decision: Sendable, Equatable {
    /// ARKit's state to report.
    package var state: ARCamera.TrackingState
    /// Whether the frame's landmarks are feature points of the session (not while initialising, nor
    /// while an initial world map waits for a location).
    package var publishesFeatures: Bool
  }

  /// The session's state for a frame: the odometry's quality from `evidence`, `initializing` until the
  /// world is settled (`isWorldSettled`: gravity fixed it, or it is a world map's), `relocalizing`
  /// while a world map waits (`awaitingMap`) and after the camera was off until a pose measured
  /// normally (`source` not a prediction).
  package mutating func decide(
    _ evidence: TrackingEvidence, source: PoseSource, isWorldSettled: Bool, awaitingMap: Bool
  ) -> Decision {
    var quality = isWorldSettled ? quality(evidence) : .initializing
    if awaitingMap { quality = .relocalizing }
    var state = Self.trackingState(quality)
    if relocalizingSinceCameraOff {
      if quality == .normal && source != .prediction {
        relocalizingSinceCameraOff = false
      } else {
        state = .limited(.relocalizing)
      }
    }
    return Decision(state: state, publishesFeatures: quality != .initializing && !awaitingMap)
  }

  /// ARKit's state for an odometry quality.
  static func trackingState(_ quality: TrackingQuality) -> ARCamera.TrackingState {
    switch quality {
    case .initializing: .limited(.initializing)
    case .normal: .normal
    case .insufficientFeatures: .limited(.insufficientFeatures)
    case .excessiveMotion: .limited(.excessiveMotion)
    case .relocalizing: .limited(.relocalizing)
    }
  }
}
