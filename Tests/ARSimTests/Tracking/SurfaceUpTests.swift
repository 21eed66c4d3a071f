import ARSimMath
import Foundation
import Testing

@testable import ARSim

/// Up from a depth map's level surfaces (``SurfaceUp``), on depth maps rendered from rooms with a
/// known up.
@Suite struct SurfaceUpTests {
  /// A plane of the room: points `x` with `normal · x = offset` (world, y up), seen where `contains`.
  struct Surface {
    var normal: SIMD3<Double>
    var offset: Double
    var contains: (SIMD3<Double>) -> Bool = { _ in true }
  }

  static let intrinsics = CameraIntrinsics(fx: 212, fy: 212, cx: 127.5, cy: 95.5, width: 256, height: 192)

  /// The depth map (256x192) a camera at `worldFromOptical` sees of `surfaces` (the nearest hit of
  /// each pixel's ray), with Gaussian noise of `noise` metres per metre of depth squared (phone depth
  /// grows noisier with range).
  static func render(
    _ surfaces: [Surface], worldFromOptical: RigidTransform, noise: Double, seed: UInt64
  ) -> DepthImage {
    var random = SplitMix64(seed: seed)
    let k = intrinsics
    var metres = [Float](repeating: .nan, count: k.width * k.height)
    for v in 0..<k.height {
      for u in 0..<k.width {
        let ray = k.ray(SIMD2(Double(u), Double(v)))
        let direction = worldFromOptical.rotate(ray)
        var nearest = Double.infinity
        for surface in surfaces {
          let along = simd_dot(surface.normal, direction)
          guard abs(along) > 1e-9 else { continue }
          let z = (surface.offset - simd_dot(surface.normal, worldFromOptical.translation)) / along
          guard z > 0, z < nearest, surface.contains(worldFromOptical.translation + z * direction) else {
            continue
          }
          nearest = z
        }
        guard nearest.isFinite else { continue }
        metres[v * k.width + u] = Float(nearest + noise * nearest * nearest * random.gaussian())
      }
    }
    return DepthImage(width: k.width, height: k.height, metres: metres)
  }

  /// A camera 1.4 m above the floor looking 35 degrees down, rolled by `roll` and turned by `yaw`
  /// degrees, in the optical frame's world pose.
  static func camera(roll: Double, yaw: Double) -> RigidTransform {
    let radians = Double.pi / 180
    // Optical frame: x right, y down, z forward; looking along world -z, level.
    let level = simd_quatd(angle: .pi, axis: SIMD3(1, 0, 0))
    let down = simd_quatd(angle: -35 * radians, axis: SIMD3(1, 0, 0))
    let rotation =
      simd_quatd(angle: yaw * radians, axis: SIMD3(0, 1, 0)) * down
      * simd_quatd(angle: roll * radians, axis: SIMD3(0, 0, -1)) * level
    return RigidTransform(rotation: rotation, translation: SIMD3(0, 1.4, 0))
  }

  static func degrees(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double {
    atan2(simd_length(simd_cross(a, b)), simd_dot(a, b)) * 180 / .pi
  }

  /// A floor, a table top at 0.75 m over part of it and a wall: up is the normal the floor and the
  /// table agree on, to a small fraction of a degree, from an expected up a few degrees off; the wall
  /// is no level surface.
  @Test func floorAndTableGiveUp() throws {
    let floor = Surface(normal: SIMD3(0, 1, 0), offset: 0)
    let table = Surface(normal: SIMD3(0, 1, 0), offset: 0.75) { abs($0.x) < 0.5 && $0.z > -2 && $0.z < -1.2 }
    let wall = Surface(normal: SIMD3(0, 0, 1), offset: -3.5)
    for (seed, pose) in [(1, Self.camera(roll: 4, yaw: 0)), (2, Self.camera(roll: -7, yaw: 30))] {
      let depth = Self.render(
        [floor, table, wall], worldFromOptical: pose, noise: 0.0015, seed: UInt64(seed))
      let truth = pose.inverse.rotate(SIMD3(0, 1, 0))
      // The expected up is off by a few degrees, as a drifted level would be.
      let expected = simd_normalize(truth + SIMD3(0.05, 0, 0.03))
      let observation = try #require(
        SurfaceUp.observe(depth, intrinsics: Self.intrinsics, expectedUp: expected, options: .init()))
      #expect(Self.degrees(observation.up, truth) < 0.1, "\(Self.degrees(observation.up, truth)) degrees")
      #expect(observation.surfaces == 2)
    }
  }

  /// A surface sloped beyond the gate (a ramp, a lid) and a wall give no observation: nothing level
  /// is seen.
  @Test func slopesAndWallsGiveNothing() {
    let slope = 12 * Double.pi / 180
    let ramp = Surface(normal: SIMD3(0, cos(slope), sin(slope)), offset: 0)
    let wall = Surface(normal: SIMD3(1, 0, 0), offset: -1.5)
    let pose = Self.camera(roll: 0, yaw: 20)
    let depth = Self.render([ramp, wall], worldFromOptical: pose, noise: 0.0015, seed: 3)
    let up = pose.inverse.rotate(SIMD3(0, 1, 0))
    #expect(SurfaceUp.observe(depth, intrinsics: Self.intrinsics, expectedUp: up, options: .init()) == nil)
  }

  /// The held level moves towards an observation by its interval over the time constant, and
  /// less when it rests on fewer pixels than the full weight; an observation beyond the residual bound
  /// is dropped.
  @Test func theLevelFollowsObservationsByTheirWeight() {
    let options = TrackerOptions.SurfaceLevel()
    let held = SIMD3<Double>(0, 1, 0)
    let one = Double.pi / 180
    let observed = SIMD3(sin(one), cos(one), 0)
    let full = SurfaceUp.step(
      from: held, towards: observed, pixels: options.fullWeightPixels, interval: 0.1, options: options)
    let half = SurfaceUp.step(
      from: held, towards: observed, pixels: options.fullWeightPixels / 2, interval: 0.1, options: options)
    let gain = 0.1 / options.timeConstant
    #expect(abs(Self.degrees(held, full) - gain) < 1e-3)
    #expect(abs(Self.degrees(held, half) - gain / 2) < 1e-3)
    let far = options.maxResidualDegrees + 1
    let outlier = SIMD3(sin(far * one), cos(far * one), 0)
    #expect(
      SurfaceUp.step(from: held, towards: outlier, pixels: 10_000, interval: 0.1, options: options) == held)
  }
}
