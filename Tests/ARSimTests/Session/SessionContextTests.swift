import ARSim
import ARSimTestSupport
import Testing

@Suite("SessionContext: the tracking mode is resolved once, when tracking starts")
struct SessionContextTests {
  @Test("the mode follows the recording when the options leave it open")
  func followsTheRecording() throws {
    var both = try Recording.open(folder: RecordingFixtures.writeARSim(frames: 2)).info
    both.hasDepth = true
    both.hasImages = true
    var depthOnly = both
    depthOnly.hasImages = false
    var colourOnly = both
    colourOnly.hasDepth = false
    #expect(SessionContext(info: both, tracking: TrackerOptions()).mode == .rgbd)
    #expect(SessionContext(info: depthOnly, tracking: TrackerOptions()).mode == .depth)
    #expect(!SessionContext(info: depthOnly, tracking: TrackerOptions()).readsImages)
    #expect(SessionContext(info: colourOnly, tracking: TrackerOptions()).mode == .mono)
    var asked = TrackerOptions()
    asked.mode = .mono
    let context = SessionContext(info: both, tracking: asked)
    #expect(context.mode == .mono && !context.modeChosen && context.tracking.mode == .mono)
    #expect(SessionContext(info: both, tracking: TrackerOptions()).modeChosen)
  }

  @Test(
    "a run that keeps tracking keeps its mode; a reset resolves the new one",
    .enabled(if: Datasets.exists("tabletop")))
  func keptWithTracking() throws {
    let t = try TabletopSession()
    let info = t.replay.info
    #expect(ARSession().context(for: info) == nil, "no context before the first run")
    #expect(t.session.context(for: info)?.mode == .rgbd)
    try #require(try t.replay.step(frames: 3))
    let mono = ARWorldTrackingConfiguration()
    mono.planeDetection = t.configuration.planeDetection
    mono.tracking.mode = .mono
    t.session.run(mono)
    #expect(t.session.context(for: info)?.mode == .rgbd, "tracking goes on as it started")
    let outcome = try #require(try t.replay.step())
    #expect(outcome.hasPose, "tracked on in RGB-D")
    t.session.run(mono, options: .resetTracking)
    #expect(t.session.context(for: info)?.mode == .mono)
  }
}
