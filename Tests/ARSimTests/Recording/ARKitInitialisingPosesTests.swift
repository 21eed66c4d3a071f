import ARSimTestSupport
import Testing

@testable import ARSim

/// Poses an app wrote while ARKit was initialising (position exactly 0 at the start) are withheld
/// from the reference; everything else passes unchanged.
@Suite struct ARKitInitialisingPosesTests {
  /// Frames whose reference positions are `positions` (nil: no pose), turning about y as they go.
  struct PosesSource: FrameSource {
    var positions: [SIMD3<Double>?]
    var next = 0
    let info = RecordingInfo(
      path: "poses", format: .arsim, intrinsics: RecordingFixtures.intrinsics, intrinsicsSource: "test",
      hasDepth: false, hasAccelerometer: false, hasGyroscope: false, hasGroundTruth: true, frameRate: 10,
      frameCount: 0, groundTruthGravity: SIMD3(0, -1, 0))
    mutating func nextFrame() throws(RecordingError) -> RecordedFrame? {
      guard next < positions.count else { return nil }
      defer { next += 1 }
      let pose = positions[next].map {
        RigidTransform(
          rotation: simd_quatd(angle: 0.01 * Double(next), axis: SIMD3(0, 1, 0)), translation: $0)
      }
      return RecordedFrame(
        index: next, timestamp: Double(next) / 10, image: nil, depth: nil, imu: [], groundTruth: pose)
    }
  }

  /// Every frame of `positions` through the filter: which keep their pose, which were withheld.
  static func filtered(_ positions: [SIMD3<Double>?]) throws -> (kept: [Bool], withheld: [Bool]) {
    var source = ARKitInitialisingPoses(PosesSource(positions: positions))
    var kept: [Bool] = []
    var withheld: [Bool] = []
    var index = 0
    while let frame = try source.nextFrame() {
      #expect(frame.index == index, "frames come in order, none lost")
      index += 1
      kept.append(frame.groundTruth != nil)
      withheld.append(frame.referenceInitialising)
    }
    #expect(index == positions.count)
    return (kept, withheld)
  }

  @Test func aLeadingRunOfZeroPositionsIsWithheld() throws {
    let zero = SIMD3<Double>.zero
    let moving = SIMD3<Double>(1.9e-9, 0, 0)
    let result = try Self.filtered([zero, zero, zero, moving, SIMD3(0.001, 0, 0), zero])
    #expect(result.kept == [false, false, false, true, true, true])
    #expect(result.withheld == [true, true, true, false, false, false])
  }

  @Test func oneZeroPositionAtTheStartIsKept() throws {
    // Record3D's poses are relative to the first camera: the first is the identity by construction.
    let result = try Self.filtered([.zero, SIMD3(0.01, 0, 0), .zero, .zero])
    #expect(result.kept == [true, true, true, true])
    #expect(result.withheld == [false, false, false, false])
  }

  @Test func framesWithoutPosesAndShortRecordingsPassUnchanged() throws {
    #expect(try Self.filtered([.zero]).kept == [true])
    #expect(try Self.filtered([nil, .zero, .zero, SIMD3(1, 0, 0)]).kept == [false, false, false, true])
    #expect(try Self.filtered([nil, .zero, .zero, SIMD3(1, 0, 0)]).withheld == [false, true, true, false])
    #expect(try Self.filtered([]).kept == [])
  }
}
