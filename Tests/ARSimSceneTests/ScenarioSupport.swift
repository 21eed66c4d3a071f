import ARSimEval
import ARSimScene
import ARSimTestSupport
import Foundation

/// A ground-truth tap of a recording (`taps.txt`): `timestamp u v frame wx wy wz planeId`.
struct GroundTruthTap: Sendable {
  var time: Double
  /// Pixels, integers at pixel centres, origin top-left.
  var pixel: SIMD2<Double>
  var frame: Int
  /// Where the pixel's ray meets the scene, in the ground-truth world, metres.
  var world: SIMD3<Double>
  var planeId: Int

  static func load(_ dataset: String) throws -> [GroundTruthTap] {
    let text = try String(contentsOfFile: Datasets.path(dataset) + "/taps.txt", encoding: .utf8)
    return text.split(separator: "\n").compactMap { line in
      let f = line.split(separator: " ").compactMap { Double($0) }
      guard !line.hasPrefix("#"), f.count == 8 else { return nil }
      return GroundTruthTap(
        time: f[0], pixel: SIMD2(f[1], f[2]), frame: Int(f[3]), world: SIMD3(f[4], f[5], f[6]),
        planeId: Int(f[7]))
    }
  }
}

/// A ground-truth plane of a recording (`planes.json`), in the ground-truth world (+y up).
struct GroundTruthPlane: Sendable {
  var id: Int
  var label: String
  var isHorizontal: Bool
  /// Unit normal `n` and offset `d` of `n · x + d = 0`.
  var normal: SIMD3<Double>
  var offset: Double
  var polygon: [SIMD3<Double>]

  /// The height of a horizontal plane, metres.
  var height: Double { -offset / normal.y }

  static func load(_ dataset: String) throws -> [GroundTruthPlane] {
    let data = try Data(contentsOf: URL(fileURLWithPath: Datasets.path(dataset) + "/planes.json"))
    let root = try JSONSerialization.jsonObject(with: data) as? [String: Any]
    let planes = root?["planes"] as? [[String: Any]] ?? []
    func vector(_ any: Any?) -> SIMD3<Double> {
      let a = (any as? [NSNumber])?.map(\.doubleValue) ?? [0, 0, 0]
      return SIMD3(a[0], a[1], a[2])
    }
    return planes.map { p in
      GroundTruthPlane(
        id: (p["id"] as? NSNumber)?.intValue ?? -1, label: p["label"] as? String ?? "",
        isHorizontal: p["alignment"] as? String == "horizontal", normal: vector(p["normal"]),
        offset: (p["offset"] as? NSNumber)?.doubleValue ?? 0,
        polygon: (p["polygon"] as? [Any] ?? []).map(vector))
    }
  }

  /// Whether the vertical projection of `point` lies inside a horizontal plane's polygon.
  func containsHorizontally(_ point: SIMD3<Double>) -> Bool {
    Polygon2D.contains(SIMD2(point.x, point.z), in: polygon.map { SIMD2($0.x, $0.z) })
  }

  /// The nearest hit of a ray (ground-truth world) on a horizontal plane's polygon, or nil.
  func hit(origin: SIMD3<Double>, direction: SIMD3<Double>) -> SIMD3<Double>? {
    let along = simd_dot(normal, direction)
    guard abs(along) > 1e-9 else { return nil }
    let t = -(simd_dot(normal, origin) + offset) / along
    let point = origin + t * direction
    return t > 0 && containsHorizontally(point) ? point : nil
  }
}

/// The view point where a pixel of the captured image is shown: the pixel's normalized image point
/// `(pixel + 0.5) / size` mapped through the view's viewport.
func viewPoint(ofPixel pixel: SIMD2<Double>, in view: ARView, imageResolution: CGSize) -> CGPoint {
  let normalized = CGPoint(
    x: (pixel.x + 0.5) / Double(imageResolution.width), y: (pixel.y + 0.5) / Double(imageResolution.height))
  return view.viewport.viewPoint(fromNormalizedImagePoint: normalized, imageResolution: imageResolution)
}

/// Corresponding camera positions of the session and of the ground truth, for the SE(3) alignment
/// that maps the session's world onto the ground-truth world.
struct TrajectoryPairs {
  var session: [SIMD3<Double>] = []
  var truth: [SIMD3<Double>] = []

  /// Adds the replay's last frame when the session tracked it normally.
  mutating func add(frame: ARFrame?, recorded: RecordedFrame?) {
    guard let frame, let recorded, let truth = recorded.groundTruth, frame.frameIndex == recorded.index,
      frame.camera.trackingState == .normal
    else { return }
    let c = frame.camera.transform.columns.3
    session.append(SIMD3(Double(c.x), Double(c.y), Double(c.z)))
    self.truth.append(truth.translation)
  }

  /// Session world to ground-truth world (Umeyama, no scale).
  func alignment() throws -> Similarity {
    try Similarity.umeyama(from: session, to: truth, withScale: false)
  }
}

/// The `q`-th quantile (0...1) of `values` by linear interpolation between order statistics (numpy's
/// default); nil for no values.
func quantile(_ values: [Double], _ q: Double) -> Double? {
  guard !values.isEmpty else { return nil }
  let sorted = values.sorted()
  let position = q * Double(sorted.count - 1)
  let low = Int(position.rounded(.down))
  let high = min(low + 1, sorted.count - 1)
  return sorted[low] + (position - Double(low)) * (sorted[high] - sorted[low])
}

extension SIMD3 where Scalar == Float {
  /// In double precision.
  var double: SIMD3<Double> { SIMD3<Double>(Double(x), Double(y), Double(z)) }
}

extension simd_float4x4 {
  /// Column 3 as a point.
  var translation: SIMD3<Float> { SIMD3(columns.3.x, columns.3.y, columns.3.z) }
}
