import Testing

@testable import ARSim

/// The tracking-state transitions, from facts with known answers (ARKit's semantics as
/// ARCHITECTURE.md states them).
@Suite struct TrackingStatePolicyTests {
  let options = TrackerOptions()

  @Test func qualityFollowsTheFacts() {
    let policy = TrackingStatePolicy(options: options)
    let normal = options.normalInliers
    #expect(policy.quality(.tracked(.features(inliers: normal))) == .normal)
    #expect(policy.quality(.tracked(.features(inliers: normal - 1))) == .insufficientFeatures)
    // A jump is excessive motion however many inliers carried it.
    #expect(policy.quality(.tracked(.features(inliers: 10 * normal), motion: .jumped)) == .excessiveMotion)
    // The first frame needs the smaller count of features.
    #expect(policy.quality(.tracked(.detected(features: options.minInliers))) == .normal)
    #expect(policy.quality(.tracked(.detected(features: options.minInliers - 1))) == .insufficientFeatures)
    // Without features, motion decides between the two limited reasons.
    #expect(policy.quality(.tracked(.noFeatures, motion: .fast)) == .excessiveMotion)
    #expect(policy.quality(.tracked(.noFeatures)) == .insufficientFeatures)
    #expect(policy.quality(.tracked(.tooFewFeatures)) == .insufficientFeatures)
    let fraction = options.depthOnly.normalInlierFraction
    #expect(policy.quality(.tracked(.depthOverlap(fraction + 0.01))) == .normal)
    #expect(policy.quality(.tracked(.depthOverlap(fraction))) == .insufficientFeatures)
    #expect(policy.quality(.tracked(.lostAlignment)) == .excessiveMotion)
    #expect(policy.quality(.tracked(.newMap)) == .normal)
    #expect(policy.quality(.mapless) == .initializing)
    #expect(policy.quality(.lost(.features(inliers: 10 * normal))) == .relocalizing)
  }

  @Test func initializingUntilTheWorldSettlesAndNoFeaturePointsMeanwhile() {
    var policy = TrackingStatePolicy(options: options)
    let tracked = TrackingEvidence.tracked(.features(inliers: options.normalInliers))
    let early = policy.decide(tracked, source: .features, isWorldSettled: false, awaitingMap: false)
    #expect(early.state == .limited(.initializing))
    #expect(!early.publishesFeatures)
    let settled = policy.decide(tracked, source: .features, isWorldSettled: true, awaitingMap: false)
    #expect(settled.state == .normal)
    #expect(settled.publishesFeatures)
    let waiting = policy.decide(tracked, source: .features, isWorldSettled: true, awaitingMap: true)
    #expect(waiting.state == .limited(.relocalizing))
    #expect(!waiting.publishesFeatures)
  }

  @Test func relocalizingAfterTheCameraWasOffUntilAPoseIsMeasuredNormally() {
    var policy = TrackingStatePolicy(options: options)
    policy.cameraWasOff()
    let normal = TrackingEvidence.tracked(.features(inliers: options.normalInliers))
    // A prediction is no measurement, and a weak relocalisation is not normal: both stay relocalising.
    #expect(
      policy.decide(normal, source: .prediction, isWorldSettled: true, awaitingMap: false).state
        == .limited(.relocalizing))
    let weak = TrackingEvidence.tracked(.features(inliers: options.normalInliers - 1))
    let stillOff = policy.decide(weak, source: .relocalization, isWorldSettled: true, awaitingMap: false)
    #expect(stillOff.state == .limited(.relocalizing))
    // Relocalising still reports the frame's feature points (the map is there).
    #expect(stillOff.publishesFeatures)
    #expect(
      policy.decide(normal, source: .relocalization, isWorldSettled: true, awaitingMap: false).state
        == .normal)
    // Once back, the ordinary reasons apply again.
    #expect(
      policy.decide(weak, source: .features, isWorldSettled: true, awaitingMap: false).state
        == .limited(.insufficientFeatures))
  }
}
