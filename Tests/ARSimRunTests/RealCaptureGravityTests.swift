import ARSim
import ARSimEval
import ARSimTestSupport
import Foundation
import Testing

@testable import ARSimRun

/// The up axis of every real capture in `../shared/datasets`: the reference's gravity must agree
/// with the floor its depth sees, and ARSim's world with the reference's. Reported as skipped when
/// `../shared` is absent.
@Suite struct RealCaptureGravityTests {
  static let captures = [
    "record3d-dance/dance.r3d", "stray-early", "stray-demo2", "scanner3d-corridor", "arkitscenes-40777063",
  ]

  /// The reference's up (minus its gravity) is the normal of the surface the depth sees below the
  /// cameras (the floor, or the table a camera looked down at) within a degree.
  @Test(.enabled(if: Datasets.sharedExists(""), "../shared/datasets is absent"), arguments: captures)
  func theReferenceUpIsTheFloorsNormal(_ path: String) throws {
    let folder = Datasets.shared + "/" + path
    try #require(FileManager.default.fileExists(atPath: folder), "\(folder) is absent")
    var options = FrameSourceOptions()
    options.loadDepth = true
    var source = try Recording.open(folder: folder, options: options)
    let gravity = try #require(source.info.groundTruthGravity, "\(path) states no reference gravity")
    let floor = try #require(try FloorCheck.measure(&source, up: -gravity), "\(path): no floor found")
    #expect(floor.angleDegrees < 1, "\(path): the surface's normal is \(floor.angleDegrees) degrees from up")
    #expect(
      (0.2...2.2).contains(floor.medianCameraHeight), "\(path): cameras \(floor.medianCameraHeight) m up")
    #expect(floor.points >= 500, "\(path): \(floor.points) points on the surface")
  }

  /// ARKitScenes' z-up world: ARSim's up within a degree of ARKit's true up over the whole run (the
  /// recording has no IMU: the level comes from the reference over the first second, then the depth's
  /// level surfaces hold it as the tracked orientation drifts),
  /// and the floor a horizontal anchor at the floor's height (default options: RGB-D, planes on).
  @Test(
    .enabled(
      if: Datasets.sharedExists("arkitscenes-40777063"), "../shared/datasets/arkitscenes-40777063 is absent"))
  func arkitScenesIsReadRightSideUp() throws {
    let folder = Datasets.shared + "/arkitscenes-40777063"
    var source = try Recording.open(folder: folder)
    let reference = try #require(source.info.groundTruthGravity)
    let floor = try #require(try FloorCheck.measure(&source, up: -reference))
    let run = try ReplayRun(folder: folder, options: ReplayOptions())
    try run.run()
    let frames = run.frames.map {
      EvaluatedFrame(
        timestamp: $0.timestamp, state: "\($0.state)", isTracked: $0.isTracked, hasPose: $0.hasPose,
        estimate: $0.deliveredWorldFromOptical, groundTruth: $0.groundTruth)
    }
    // The level at the start is the reference's; over the room the tracker (no IMU here) drifts from
    // it, and the depth's level surfaces hold the level: issue 44 asks <= 1 degree over the whole run.
    let start = frames.filter { $0.timestamp < frames[0].timestamp + 5 }
    let level = try #require(gravityErrors(start, gravity: reference))
    #expect(level.median < 1, "gravity error over the first 5 s: median \(level.median) degrees")
    let gravity = try #require(gravityErrors(frames, gravity: reference))
    #expect(gravity.median < 0.9, "gravity error median \(gravity.median) degrees")
    #expect(gravity.max < 3.5, "gravity error max \(gravity.max) degrees")
    #expect(run.session.gravitySource == .surfaces)
    // The surfaces' re-levels correct the newest pose, not what was mapped: no pose delivered after
    // the reference's first second moves afterwards (delivered poses are Float, so to 1e-6), but by
    // a loop closure's deformation of the poses before it.
    let lastLoop = run.frames.last(where: \.closedLoop)?.index ?? -1
    let held = run.frames.filter {
      $0.hasPose && $0.timestamp > frames[0].timestamp + 1.5 && $0.index > lastLoop
    }
    let moved = held.filter {
      let step = $0.deliveredWorldFromOptical.inverse * $0.worldFromOptical
      return simd_length(step.translation) > 1e-6 || simd_length(step.rotation.imag) > 1e-6
    }
    #expect(held.count > 100 && moved.isEmpty, "\(moved.count) of \(held.count) poses moved after delivery")
    // Issue 44: the start is tracked as ARKit tracked it. The first depth map reads the room nearer
    // than the next; no excessiveMotion, and no step between consecutive frames of the first 2 s
    // more than 3x ARKit's (its steps floored at 1 cm and 1 degree).
    let opening = run.frames.filter { $0.hasPose && $0.timestamp < frames[0].timestamp + 2 }
    #expect(opening.count > 10 && !opening.contains { $0.state == .limited(.excessiveMotion) })
    func degrees(_ step: RigidTransform) -> Double {
      simd_length(RigidTransform.logRotation(step.rotation)) * 180 / .pi
    }
    for (a, b) in zip(opening, opening.dropFirst()) {
      guard let truthA = a.groundTruth, let truthB = b.groundTruth else { continue }
      let ours = a.deliveredWorldFromOptical.inverse * b.deliveredWorldFromOptical
      let arkit = truthA.inverse * truthB
      #expect(
        simd_length(ours.translation) <= 3 * max(simd_length(arkit.translation), 0.01)
          && degrees(ours) <= 3 * max(degrees(arkit), 1),
        "frame \(b.index): step \(simd_length(ours.translation)) m, \(degrees(ours))° against ARKit's \(simd_length(arkit.translation)) m, \(degrees(arkit))°"
      )
    }
    // The floor's height in the session's world: each camera's session height less its height above
    // the floor by the reference (the median over the frames with both).
    let floorHeights = run.frames.compactMap { frame -> Double? in
      guard frame.hasPose, let truth = frame.groundTruth else { return nil }
      let above = simd_dot(-reference, truth.translation) - floor.surfaceHeight
      return frame.worldFromOptical.translation.y - above
    }.sorted()
    let floorY = try #require(floorHeights.isEmpty ? nil : floorHeights[floorHeights.count / 2])
    let planes = run.session.anchors.compactMap { $0 as? ARPlaneAnchor }.filter {
      $0.alignment == .horizontal
    }
    let floors = planes.filter {
      abs(Double($0.transform.columns.3.y) - floorY) < 0.1
        && Double($0.planeExtent.width * $0.planeExtent.height) > 1
    }
    #expect(
      !floors.isEmpty, "no horizontal anchor of 1 m² or more within 10 cm of the floor at y = \(floorY) m")
  }
}
