import Foundation

/// A stretch of frames in one tracking state.
public struct TrackingStateSpan: Sendable, Hashable, Codable {
  /// The state's name as the events file writes it (`normal`, `limited:initializing`, ...).
  public var state: String
  /// Timestamp of the first frame in the state, seconds.
  public var start: Double
  /// Timestamp of the first frame of the next state (or of the last frame, for the last span), seconds.
  public var end: Double

  /// A span from its state name and times (seconds).
  public init(state: String, start: Double, end: Double) {
    self.state = state
    self.start = start
    self.end = end
  }

  /// `end − start`, seconds.
  public var duration: Double { end - start }
}

/// The tracking-state time line: consecutive frames in the same state form one span, which ends where
/// the next begins (the last ends at the last frame). `timestamps` (seconds) and `states` correspond.
///
/// - Precondition: `timestamps.count == states.count`.
public func trackingStateSpans(timestamps: [Double], states: [String]) -> [TrackingStateSpan] {
  precondition(timestamps.count == states.count, "one state per timestamp")
  var spans: [TrackingStateSpan] = []
  for (time, state) in zip(timestamps, states) {
    if spans.last?.state == state {
      spans[spans.count - 1].end = time
    } else {
      if !spans.isEmpty { spans[spans.count - 1].end = time }
      spans.append(TrackingStateSpan(state: state, start: time, end: time))
    }
  }
  return spans
}

/// One frame as tracking evaluation needs it.
public struct EvaluatedFrame: Sendable, Hashable {
  /// Timestamp, seconds.
  public var timestamp: Double
  /// The tracking state's name (`normal`, `limited:initializing`, ...).
  public var state: String
  /// Whether the frame has a tracked pose.
  public var isTracked: Bool
  /// Whether the frame has a pose at all: tracked, or one measured while initialising (a monocular
  /// camera that has not moved measurably: rotation only, position held). At least `isTracked`.
  public var hasPose: Bool
  /// The estimated `worldFromOptical` pose, session world.
  public var estimate: RigidTransform
  /// The ground-truth `worldFromOptical` pose, ground-truth world, when known.
  public var groundTruth: RigidTransform?

  /// A frame from its values (see the properties for units and frames); `hasPose` is true whenever
  /// `isTracked` is.
  public init(
    timestamp: Double, state: String, isTracked: Bool, hasPose: Bool = false, estimate: RigidTransform,
    groundTruth: RigidTransform?
  ) {
    self.timestamp = timestamp
    self.state = state
    self.isTracked = isTracked
    self.hasPose = isTracked || hasPose
    self.estimate = estimate
    self.groundTruth = groundTruth
  }
}

/// Tracking scored against ground truth.
public struct TrackingEvaluation: Sendable, Hashable, Codable {
  /// The number of frames.
  public var frameCount: Int
  /// The number of tracked frames.
  public var trackedCount: Int
  /// `trackedCount / frameCount`; nil without frames.
  public var trackedFraction: Double?
  /// The state time line.
  public var states: [TrackingStateSpan]
  /// How the estimate was aligned (`se3`, or `sim3` for monocular tracking); nil without ground truth.
  public var alignmentKind: TrajectoryAlignment?
  /// The alignment from the session world into the ground-truth world (Umeyama over the tracked frames'
  /// optical positions); nil with fewer than three tracked frames with ground truth.
  public var alignment: Similarity?
  /// ATE: position errors after alignment, metres.
  public var ate: ErrorStatistics?
  /// RPE: translation errors between consecutive tracked frames, metres.
  public var rpe: ErrorStatistics?
  /// Length of the ground-truth path over the tracked frames, metres.
  public var pathLength: Double?
  /// Gravity error in degrees over the frames with a pose after the first second (``gravityErrors(_:gravity:after:)``);
  /// nil when the recording states no gravity or has no ground truth. Set by the caller.
  public var gravityError: ErrorStatistics?
  /// The number of frames with a pose (``EvaluatedFrame/hasPose``): the tracked ones and those measured
  /// while initialising.
  public var poseCount = 0
  /// The largest distance of the estimated camera (optical centre) from its first pose, over the frames
  /// with a pose, in the session world without alignment: metres, or the unit of the initial baseline
  /// for unscaled monocular tracking. It reads drift and jitter where the camera barely moves, which the
  /// ATE cannot (an alignment to a still trajectory is degenerate). Nil without frames with a pose.
  public var maxDistanceFromStart: Double?
  /// The same for the ground truth: the largest distance of the true camera from its pose at the first
  /// frame with a pose and ground truth, over the frames with both, metres. Nil without such frames.
  public var groundTruthMaxDistanceFromStart: Double?
}

/// The largest distance of `positions` from the first one; nil when empty.
func maxDistanceFromFirst(_ positions: [SIMD3<Double>]) -> Double? {
  guard let first = positions.first else { return nil }
  return positions.map { simd_length($0 - first) }.max()
}

/// Scores tracking: tracked fraction, state time line, the largest distance from the first pose (estimate
/// and ground truth, over the frames with a pose), and, with at least three tracked frames with
/// ground truth, ATE (after SE(3) alignment, or Sim(3) when `withScale`) and RPE over one frame (after
/// the same alignment, so that a monocular estimate's scale is corrected), as evo defines them. The alignment is kept: it maps the session world into the ground-truth world, for
/// scoring planes and raycasts.
///
/// - Throws: `EvaluationError` when the alignment is degenerate.
public func evaluateTracking(_ frames: [EvaluatedFrame], withScale: Bool) throws -> TrackingEvaluation {
  let tracked = frames.filter(\.isTracked)
  var result = TrackingEvaluation(
    frameCount: frames.count, trackedCount: tracked.count,
    trackedFraction: frames.isEmpty ? nil : Double(tracked.count) / Double(frames.count),
    states: trackingStateSpans(timestamps: frames.map(\.timestamp), states: frames.map(\.state)))
  let posed = frames.filter(\.hasPose)
  result.poseCount = posed.count
  result.maxDistanceFromStart = maxDistanceFromFirst(posed.map(\.estimate.translation))
  result.groundTruthMaxDistanceFromStart = maxDistanceFromFirst(posed.compactMap(\.groundTruth?.translation))
  let pairs = tracked.filter { $0.groundTruth != nil }
  guard pairs.count >= 3 else { return result }
  let reference = Trajectory(timestamps: pairs.map(\.timestamp), poses: pairs.map { $0.groundTruth! })
  let estimate = Trajectory(timestamps: pairs.map(\.timestamp), poses: pairs.map(\.estimate))
  let kind: TrajectoryAlignment = withScale ? .sim3 : .se3
  let ate = try absoluteTrajectoryError(
    reference: reference, estimate: estimate, options: AbsoluteErrorOptions(alignment: kind))
  var rpeOptions = RelativeErrorOptions()
  rpeOptions.alignment = kind
  let rpe = try relativePoseError(reference: reference, estimate: estimate, options: rpeOptions)
  result.alignmentKind = kind
  result.alignment = ate.alignment
  result.ate = ate.statistics
  result.rpe = rpe.statistics
  result.pathLength = reference.pathLength
  return result
}
