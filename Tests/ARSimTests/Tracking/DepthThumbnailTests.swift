import ARSimMath
import Testing

@testable import ARSim

/// Keyframes' depth thumbnails (``DepthThumbnail``) and the relocaliser's view check on them
/// (``Relocalizer/viewAgrees(_:_:keyframeFromFrame:)``).
@Suite struct DepthThumbnailTests {
  /// A synthetic room: a floor (y = 0, up +y, metres) and a table on it (a box 1 x 0.75 x 1 m at the
  /// origin), seen by a depth sensor of 5 m range.
  static let range = 5.0
  /// The view check at 0.2 (``TrackerOptions/Relocalization/maxViewInFront``'s default, set here so
  /// the tests hold if it moves).
  static let options = {
    var options = TrackerOptions.Relocalization()
    options.maxViewInFront = 0.2
    return options
  }()
  static let intrinsics = CameraIntrinsics(
    fx: 131.25, fy: 131.25, cx: 79.5, cy: 59.5, width: 160, height: 120)

  /// World from the optical frame (x right, y down, z forward) of a camera at `eye` looking at `target`.
  static func camera(at eye: SIMD3<Double>, lookingAt target: SIMD3<Double>) -> RigidTransform {
    let forward = simd_normalize(target - eye)
    let right = simd_normalize(simd_cross(forward, SIMD3(0, 1, 0)))
    let down = simd_cross(forward, right)
    return RigidTransform(rotation: simd_quatd(SIMDMatrix3x3(right, down, forward)), translation: eye)
  }

  /// The distance along `direction` from `origin` to the table's box, or nil when the ray misses it.
  static func hitTable(_ origin: SIMD3<Double>, _ direction: SIMD3<Double>) -> Double? {
    let low = SIMD3<Double>(-0.5, 0, -0.5)
    let high = SIMD3<Double>(0.5, 0.75, 0.5)
    var near = -Double.infinity
    var far = Double.infinity
    for axis in 0..<3 {
      guard direction[axis] != 0 else {
        if origin[axis] < low[axis] || origin[axis] > high[axis] { return nil }
        continue
      }
      let a = (low[axis] - origin[axis]) / direction[axis]
      let b = (high[axis] - origin[axis]) / direction[axis]
      near = max(near, min(a, b))
      far = min(far, max(a, b))
    }
    return near <= far && near > 0 ? near : nil
  }

  /// The z-depth image of the room from `worldFromOptical` (NaN beyond the range).
  static func render(_ worldFromOptical: RigidTransform) -> FrameDepth {
    var metres = [Float](repeating: .nan, count: intrinsics.width * intrinsics.height)
    for v in 0..<intrinsics.height {
      for u in 0..<intrinsics.width {
        // A ray of z 1 in the optical frame: the distance along it is the z-depth.
        let direction = worldFromOptical.rotation.act(intrinsics.ray(SIMD2(Double(u), Double(v))))
        let origin = worldFromOptical.translation
        var depth = direction.y < 0 ? -origin.y / direction.y : Double.infinity
        if let table = hitTable(origin, direction) { depth = min(depth, table) }
        if depth * simd_length(direction) <= range { metres[v * intrinsics.width + u] = Float(depth) }
      }
    }
    let map = DepthImage(width: intrinsics.width, height: intrinsics.height, metres: metres)
    return FrameDepth(map: map, confidence: nil, depthIntrinsics: nil, imageIntrinsics: intrinsics)
  }

  static func thumbnail(_ depth: FrameDepth) throws -> DepthThumbnail {
    let options = TrackerOptions.Relocalization()
    return try #require(
      DepthThumbnail(depth, maxWidth: options.thumbnailWidth, span: options.thumbnailSpan, range: 0.1...8))
  }

  @Test func blocksAveragedWithEdgesAndMissingDepthMarked() throws {
    // 8 x 4 pixels: 1 m on the left half, 2 m on the right; blocks of 2 x 2 for a width of 4.
    var metres = (0..<32).map { Float($0 % 8 < 4 ? 1 : 2) }
    for (x, y) in [(6, 0), (7, 0), (6, 1), (7, 1)] { metres[y * 8 + x] = .nan }  // block (3, 0): nothing
    metres[2 * 8 + 4] = 1  // block (2, 1): 1 m and 2 m, an edge
    for (x, y) in [(0, 2), (1, 2), (0, 3)] { metres[y * 8 + x] = .nan }  // block (0, 1): 1 of 4 valid
    let image = CameraIntrinsics(fx: 8, fy: 8, cx: 3.5, cy: 1.5, width: 8, height: 4)
    let depth = FrameDepth(
      map: DepthImage(width: 8, height: 4, metres: metres), confidence: nil, depthIntrinsics: nil,
      imageIntrinsics: image)
    let thumbnail = try #require(DepthThumbnail(depth, maxWidth: 4, span: 0.1, range: 0.1...8))
    #expect(thumbnail.intrinsics == CameraIntrinsics(fx: 4, fy: 4, cx: 1.5, cy: 0.5, width: 4, height: 2))
    #expect(
      thumbnail.millimetres == [
        1000, 1000, 2000, DepthThumbnail.noReturn, DepthThumbnail.unknown, 1000, DepthThumbnail.unknown, 2000,
      ])
    #expect(thumbnail.depth(1, 0) == 1)
    #expect(thumbnail.depth(0, 1) == nil)
    #expect(thumbnail.depth(3, 0) == nil)
    #expect(thumbnail.farthest == 2)
  }

  /// Two views of the table from opposite sides, 3.5 m apart (the tabletop's keyframe and the frame
  /// after its gap): at the true relative pose their depths agree; with the frame 2 m farther along
  /// the floor (a tiled floor's copy of the place, which PnP on the floor's features finds) the
  /// frame's table lands where the keyframe saw the floor beyond its own table or nothing within
  /// range, and the keyframe's table where the frame saw nothing: rejected.
  @Test func viewCheckRejectsAPoseOneFloorTileAway() throws {
    let keyframe = Self.camera(at: SIMD3(-2, 1.5, 0.2), lookingAt: SIMD3(0, 0.4, 0))
    let frame = Self.camera(at: SIMD3(1.5, 1.5, -0.3), lookingAt: SIMD3(0, 0.4, 0))
    let kept = try Self.thumbnail(Self.render(keyframe))
    let seen = try Self.thumbnail(Self.render(frame))
    let relocalizer = Relocalizer(options: Self.options, intrinsics: Self.intrinsics)
    let truth = keyframe.inverse * frame
    #expect(relocalizer.viewAgrees(seen, kept, keyframeFromFrame: truth))
    let tile = RigidTransform(translation: SIMD3(2, 0, 0))
    let copy = keyframe.inverse * tile * frame
    #expect(!relocalizer.viewAgrees(seen, kept, keyframeFromFrame: copy))

    let options = Self.options
    let tolerance = { (d: Double) in options.viewToleranceBase + options.viewToleranceSlope * d }
    func fractionInFront(_ pose: RigidTransform) -> (forward: Double, backward: Double) {
      let forward = kept.agreement(
        with: seen, keyframeFromFrame: pose, tolerance: tolerance, emptyRange: options.viewEmptyRange)
      let backward = seen.agreement(
        with: kept, keyframeFromFrame: pose.inverse, tolerance: tolerance, emptyRange: options.viewEmptyRange)
      return (
        Double(forward.inFront) / Double(max(1, forward.compared)),
        Double(backward.inFront) / Double(max(1, backward.compared))
      )
    }
    let agreeing = fractionInFront(truth)
    #expect(agreeing.forward < 0.02 && agreeing.backward < 0.02, "\(agreeing)")
    let wrong = fractionInFront(copy)
    // Either direction alone rejects it (26% and 31%).
    #expect(min(wrong.forward, wrong.backward) > options.maxViewInFront, "\(wrong)")
  }

  /// Views that hardly overlap cannot judge: the check passes (place recognition decides).
  @Test func viewCheckPassesWithoutOverlap() throws {
    let keyframe = Self.camera(at: SIMD3(-2, 1.5, 0.2), lookingAt: SIMD3(0, 0.4, 0))
    let away = Self.camera(at: SIMD3(-2, 1.5, 0.2), lookingAt: SIMD3(-4, 1.5, 0.2))
    let kept = try Self.thumbnail(Self.render(keyframe))
    let seen = try Self.thumbnail(Self.render(away))
    let relocalizer = Relocalizer(options: Self.options, intrinsics: Self.intrinsics)
    #expect(relocalizer.viewAgrees(seen, kept, keyframeFromFrame: keyframe.inverse * away))
  }
}
