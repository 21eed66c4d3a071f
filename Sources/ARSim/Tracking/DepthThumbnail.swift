/// A frame's depth at low resolution (at most ``TrackerOptions/Relocalization/thumbnailWidth``
/// pixels wide: 80 x 60 for a 4:3 map, 9.6 KB), kept with each RGB-D keyframe to verify a relocalised
/// pose with the frame's own depth (``agreement(with:keyframeFromFrame:tolerance:)``). Each pixel is
/// a block of `factor` x `factor` depth pixels: their mean where at least half of them are valid and
/// they span less than ``TrackerOptions/Relocalization/thumbnailSpan`` of it (one surface, no edge);
/// unknown (0) otherwise. Stored as millimetres. Deterministic.
struct DepthThumbnail: Equatable {
  /// The thumbnail's intrinsics (its own size; block centres as pixel centres).
  let intrinsics: CameraIntrinsics
  /// Row-major z-depths, millimetres; ``noReturn`` where no depth pixel of the block was valid,
  /// ``unknown`` where some were but not enough, or not on one surface.
  let millimetres: [UInt16]
  /// The farthest depth of the thumbnail, metres (0 when none): the range the sensor measured in it.
  let farthest: Double

  /// A block without a valid depth pixel (nothing within range there, or a surface the sensor misses).
  static let noReturn: UInt16 = 0
  /// A block with too few valid depth pixels or more than one surface.
  static let unknown = UInt16.max

  init(intrinsics: CameraIntrinsics, millimetres: [UInt16]) {
    precondition(millimetres.count == intrinsics.width * intrinsics.height, "thumbnail size")
    self.intrinsics = intrinsics
    self.millimetres = millimetres
    farthest =
      Double(millimetres.lazy.filter { $0 != Self.noReturn && $0 != Self.unknown }.max() ?? 0) / 1000
  }

  /// The thumbnail of `depth`'s map (its own intrinsics), blocks of the smallest integer factor that
  /// makes it at most `maxWidth` wide; depths outside `range` count as invalid. Nil for an empty map.
  init?(_ depth: FrameDepth, maxWidth: Int, span: Double, range: ClosedRange<Double>) {
    let map = depth.map
    let factor = max(1, (map.width + maxWidth - 1) / max(1, maxWidth))
    let width = map.width / factor
    let height = map.height / factor
    guard width > 0, height > 0 else { return nil }
    // Thumbnail pixel u is the block whose full-resolution pixel centres run from u·f to u·f + f − 1.
    let k = depth.depthIntrinsics
    let f = Double(factor)
    let half = (f - 1) / 2
    intrinsics = CameraIntrinsics(
      fx: k.fx / f, fy: k.fy / f, cx: (k.cx - half) / f, cy: (k.cy - half) / f, width: width, height: height)
    var values = [UInt16](repeating: Self.noReturn, count: width * height)
    var largest = 0.0
    let low = Float(range.lowerBound)
    let high = Float(range.upperBound)
    for v in 0..<height {
      for u in 0..<width {
        var count = 0
        var sum = 0.0
        var near = Float.infinity
        var far = -Float.infinity
        for y in (v * factor)..<(v * factor + factor) {
          let row = y * map.width
          for x in (u * factor)..<(u * factor + factor) {
            let d = map.metres[row + x]
            guard d.isFinite, d >= low, d <= high else { continue }
            count += 1
            sum += Double(d)
            near = min(near, d)
            far = max(far, d)
          }
        }
        guard count > 0 else { continue }
        values[v * width + u] = Self.unknown
        let mean = sum / Double(count)
        guard 2 * count >= factor * factor, Double(far - near) <= span * mean else { continue }
        values[v * width + u] = UInt16(min((mean * 1000).rounded(), Double(Self.unknown - 1)))
        largest = max(largest, Double(values[v * width + u]) / 1000)
      }
    }
    millimetres = values
    farthest = largest
  }

  /// The depth at thumbnail pixel (`u`, `v`), metres, or nil where unknown or without a return.
  func depth(_ u: Int, _ v: Int) -> Double? {
    let value = millimetres[v * intrinsics.width + u]
    return value == Self.noReturn || value == Self.unknown ? nil : Double(value) / 1000
  }

  /// Whether thumbnail pixel (`u`, `v`) and its 8 neighbours (those inside) had no return: a region
  /// the sensor saw empty as far as it measures.
  func seesNothing(_ u: Int, _ v: Int) -> Bool {
    for y in max(0, v - 1)...min(intrinsics.height - 1, v + 1) {
      for x in max(0, u - 1)...min(intrinsics.width - 1, u + 1)
      where millimetres[y * intrinsics.width + x] != Self.noReturn {
        return false
      }
    }
    return true
  }

  /// How the depth `frame` saw agrees with this one's when the frame is at `keyframeFromFrame` (this
  /// thumbnail's optical frame from the frame's): each of the frame's known depths, moved into this
  /// view, that lands on a known depth (nearest pixel) is `compared`; it `agrees` within
  /// `tolerance(d)` metres of this depth `d`, and lies `inFront` of it when nearer by more than that,
  /// in space this view saw empty (a point farther may be hidden from this view: neither). A point
  /// that lands where this view had no return around (``seesNothing(_:_:)``) at less than
  /// `emptyRange` times the ``farthest`` depth it measured is compared and `inFront` too: the sensor
  /// would have seen a surface there.
  func agreement(
    with frame: DepthThumbnail, keyframeFromFrame: RigidTransform, tolerance: (Double) -> Double,
    emptyRange: Double
  ) -> (compared: Int, agrees: Int, inFront: Int) {
    let empty = emptyRange * farthest
    var compared = 0
    var agrees = 0
    var inFront = 0
    let width = Double(intrinsics.width)
    let height = Double(intrinsics.height)
    for v in 0..<frame.intrinsics.height {
      for u in 0..<frame.intrinsics.width {
        guard let d = frame.depth(u, v) else { continue }
        let p = keyframeFromFrame.apply(
          to: frame.intrinsics.backProject(SIMD2(Double(u), Double(v)), depth: d))
        guard p.z > 0 else { continue }
        let pixel = intrinsics.project(p)
        let x = pixel.x.rounded()
        let y = pixel.y.rounded()
        guard x >= 0, y >= 0, x < width, y < height else { continue }
        guard let seen = depth(Int(x), Int(y)) else {
          if p.z < empty, seesNothing(Int(x), Int(y)) {
            compared += 1
            inFront += 1
          }
          continue
        }
        compared += 1
        let limit = tolerance(seen)
        if abs(p.z - seen) <= limit {
          agrees += 1
        } else if p.z < seen {
          inFront += 1
        }
      }
    }
    return (compared, agrees, inFront)
  }
}
