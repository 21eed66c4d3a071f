import ARSim
import ARSimTestSupport
import Foundation
import Testing

@Suite("World corrections in the tracker")
struct WorldLevellerTests {
  @Test(
    "A correction applied to the tracker moves every later pose by it and rides on the next frame",
    .enabled(if: Datasets.exists("door")))
  func externalCorrection() throws {
    var plain = try Recording.open(folder: Datasets.path("door"))
    var corrected = try Recording.open(folder: Datasets.path("door"))
    var options = TrackerOptions()
    options.relevelsOnceSettled = true
    let a = CameraTracker(SessionContext(info: plain.info, tracking: options))
    let b = CameraTracker(SessionContext(info: corrected.info, tracking: options))
    let correction = RigidTransform(
      rotation: simd_quatd(angle: 0.2, axis: SIMD3(0, 1, 0)), translation: SIMD3(0.1, 0, -0.3))
    var relevels = 0
    for k in 0..<80 {
      let (frameA, frameB) = (try #require(try plain.nextFrame()), try #require(try corrected.nextFrame()))
      if k == 40 { b.applyWorldCorrection(correction) }
      let (x, y) = (a.track(frameA), b.track(frameB))
      if k < 40 {
        #expect(x.worldFromCamera == y.worldFromCamera)
        continue
      }
      if x.worldCorrection != nil { relevels += 1 }
      // b's world is a's moved by the correction: poses, and the frame's own correction conjugated.
      let expected = correction * x.worldFromCamera
      #expect(simd_length(y.worldFromCamera.translation - expected.translation) < 1e-9)
      #expect(angle(y.worldFromCamera.inverse * expected) < 1e-9)
      let own = x.worldCorrection ?? .identity
      let carried = try #require(k == 40 ? y.worldCorrection : (y.worldCorrection ?? .identity))
      let expectedCarried = k == 40 ? correction * own : correction * own * correction.inverse
      #expect(simd_length(carried.translation - expectedCarried.translation) < 1e-9)
      #expect(angle(carried.inverse * expectedCarried) < 1e-9)
    }
    #expect(relevels > 0, "gravity refined after frame 40 re-levels the world")
  }

  private func angle(_ transform: RigidTransform) -> Double {
    simd_length(RigidTransform.logRotation(transform.rotation))
  }
}
