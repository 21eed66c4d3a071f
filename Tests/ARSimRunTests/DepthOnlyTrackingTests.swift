import ARSim
import ARSimEval
import ARSimTestSupport
import Testing

@testable import ARSimRun

/// Depth-only tracking (`--mode depth`) with the inertial fusion: the gyroscope holds the rotation,
/// the gravity-compensated accelerometer the translation where the geometry leaves it free.
@Suite struct DepthOnlyTrackingTests {
  static func tracking(_ folder: String) throws -> TrackingEvaluation {
    var options = ReplayOptions()
    options.mode = .depth
    options.planeDetection = []
    return try RecordingEvaluator.evaluate(
      folder, options: options, target: .existingPlaneGeometry, alignment: .any
    )
    .tracking
  }

  /// The synthetic room (Datasets/room, 320x240 depth and an IMU): the depth alone slides along its
  /// walls (ATE 0.90 m without the accelerometer); with it the trajectory holds.
  @Test(.enabled(if: Datasets.exists("room")))
  func theAccelerometerHoldsWhatTheRoomsWallsLeaveFree() throws {
    let tracking = try Self.tracking(Datasets.path("room"))
    let ate = try #require(tracking.ate)
    #expect(ate.rmse < 0.03, "ATE \(ate.rmse) m")
    #expect(try #require(tracking.gravityError).median < 0.3)
  }

  /// stray-demo2 (a real iPhone session, ../shared): depth-only ATE against ARKit's trajectory
  /// (7.4 cm with the odometry's own gravity estimator and the compensation's 1-degree gate; 7.9 cm
  /// with the session's, given the alignment's positions, and 10.3 cm given the filtered ones, which
  /// the accelerometer drove with the estimate they then confirmed; 8.5 cm without the accelerometer;
  /// 8.9 cm before the position filter) and gravity. Issue 12's 2 cm is not asserted: it is beyond a
  /// tracker that follows this depth (`Tools/stray_depth_reference.py`: the depth's own translation
  /// with ARKit's exact rotation is 6.3-9.1 cm from ARKit's, 3% longer on the straight walks and
  /// 12-20 cm off over the fast turn, where the accelerometer agrees with ARKit to 2.3 cm). The
  /// world's levelling moves it too, by its re-levels: 7.4 cm with the level's velocities fitted over
  /// 0.1 s on each side, 8.0 cm over 0.2 s (as now), 8.6 cm over 0.13 s.
  @Test(.enabled(if: Datasets.sharedExists("stray-demo2"), "../shared/datasets/stray-demo2 is absent"))
  func realPhoneDepthOnlyAgainstARKit() throws {
    let tracking = try Self.tracking(Datasets.shared + "/stray-demo2")
    let ate = try #require(tracking.ate)
    #expect(ate.rmse < 0.082, "ATE \(ate.rmse) m")
    #expect(try #require(tracking.gravityError).median < 0.5)
    #expect(try #require(tracking.trackedFraction) > 0.95)
  }
}
