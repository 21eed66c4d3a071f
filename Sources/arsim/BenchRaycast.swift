import ARSim
import ARSimRun
import Foundation

/// `arsim bench --raycast`: the time of one ``ARSession/raycast(_:in:)`` against a frame holding a
/// given number of plane anchors, on one thread.
///
/// The scene is synthetic and seeded, so runs are alike: plane anchors scattered over a 10 m × 10 m
/// area (three in five horizontal, at floor or table height and turned about y; the others vertical,
/// facing any horizontal direction), each with a convex boundary polygon of `boundaryVertices`
/// vertices (an ellipse of semi-axes 0.3 to 1.5 m around a centre near the anchor origin). Queries
/// start at eye height (1.2 to 1.8 m) anywhere in the area; three in four aim at a random point of
/// a random anchor's ellipse enlarged by 30% (so some miss its edge), the others go in a uniformly
/// random direction.
enum BenchRaycast {
  /// The figures of one target.
  struct Figure {
    var target: ARRaycastQuery.Target
    var alignment: ARRaycastQuery.TargetAlignment
    /// Median over batches of the batch's seconds per raycast, in microseconds.
    var medianMicroseconds: Double
    /// 10th and 90th percentiles over batches, microseconds per raycast.
    var p10Microseconds: Double
    var p90Microseconds: Double
    /// Mean number of results per query.
    var hitsPerQuery: Double
  }

  /// Plane anchors of the synthetic scene (see the type's description), deterministic for a `seed`.
  static func anchors(count: Int, boundaryVertices: Int, seed: UInt64 = 7) -> [ARPlaneAnchor] {
    var random = SplitMix64(seed: seed)
    let session = UUID(uuidString: "00000000-0000-0000-0000-0000000000BE")
    return (0..<count).map { i in
      let horizontal = i % 5 < 3
      let yaw = random.uniform(0, 2 * Double.pi)
      let rotation: simd_quatd
      let position: SIMD3<Double>
      if horizontal {
        rotation = simd_quatd(angle: yaw, axis: SIMD3(0, 1, 0))
        let height = i % 3 == 0 ? 0 : random.uniform(0.4, 1.1)
        position = SIMD3(random.uniform(-5, 5), height, random.uniform(-5, 5))
      } else {
        // The y axis (the normal) horizontal, facing the yaw direction: turn +y onto +x, then about y.
        rotation =
          simd_quatd(angle: yaw, axis: SIMD3(0, 1, 0))
          * simd_quatd(angle: -Double.pi / 2, axis: SIMD3(0, 0, 1))
        position = SIMD3(random.uniform(-5, 5), random.uniform(0.5, 2), random.uniform(-5, 5))
      }
      let transform = RigidTransform(rotation: rotation, translation: position).floatMatrix
      let center = simd_float3(Float(random.uniform(-0.2, 0.2)), 0, Float(random.uniform(-0.2, 0.2)))
      let a = random.uniform(0.3, 1.5)
      let b = random.uniform(0.3, 1.5)
      let boundary = (0..<boundaryVertices).map { k in
        let angle = 2 * Double.pi * Double(k) / Double(boundaryVertices)
        return center + simd_float3(Float(a * cos(angle)), 0, Float(-b * sin(angle)))
      }
      return ARPlaneAnchor(
        identifier: UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", i)) ?? UUID(),
        transform: transform, alignment: horizontal ? .horizontal : .vertical, center: center,
        planeExtent: ARPlaneExtent(width: Float(2 * a), height: Float(2 * b), rotationOnYAxis: 0),
        geometry: ARPlaneGeometry(boundary: boundary), classification: .none(.undetermined),
        sessionIdentifier: session)
    }
  }

  /// Queries into the scene of `anchors` (see the type's description), deterministic for a `seed`.
  static func queries(
    count: Int, anchors: [ARPlaneAnchor], target: ARRaycastQuery.Target,
    alignment: ARRaycastQuery.TargetAlignment, seed: UInt64 = 11
  ) -> [ARRaycastQuery] {
    var random = SplitMix64(seed: seed)
    return (0..<count).map { i in
      let origin = SIMD3(random.uniform(-5, 5), random.uniform(1.2, 1.8), random.uniform(-5, 5))
      var direction: SIMD3<Double>
      if i % 4 == 3 || anchors.isEmpty {
        // Uniform on the sphere.
        let z = random.uniform(-1, 1)
        let angle = random.uniform(0, 2 * Double.pi)
        let r = (1 - z * z).squareRoot()
        direction = SIMD3(r * cos(angle), r * sin(angle), z)
      } else {
        let anchor = anchors[Int(random.next() % UInt64(anchors.count))]
        let extent = anchor.planeExtent
        let angle = random.uniform(0, 2 * Double.pi)
        let radius = 1.3 * random.uniform(0, 1).squareRoot()
        let local = SIMD4(
          Double(anchor.center.x) + radius * Double(extent.width) / 2 * cos(angle), 0,
          Double(anchor.center.z) + radius * Double(extent.height) / 2 * sin(angle), 1)
        let world = simd_double4x4(anchor.transform) * local
        direction = SIMD3(world.x, world.y, world.z) - origin
      }
      return ARRaycastQuery(
        origin: simd_float3(origin), direction: simd_float3(direction), allowing: target, alignment: alignment
      )
    }
  }

  /// Times `queries` against `frame` in batches of `batch`, after one warm-up batch.
  static func measure(
    _ queries: [ARRaycastQuery], in frame: ARFrame, session: ARSession, batch: Int = 1000
  ) -> Figure {
    precondition(!queries.isEmpty, "at least one query")
    let size = min(max(batch, 1), queries.count)
    var hits = 0
    for query in queries.prefix(size) { hits &+= session.raycast(query, in: frame).count }
    hits = 0
    var perQuery: [Double] = []
    let clock = ContinuousClock()
    var start = 0
    while start < queries.count {
      let end = min(start + size, queries.count)
      let began = clock.now
      for query in queries[start..<end] { hits &+= session.raycast(query, in: frame).count }
      perQuery.append((clock.now - began).seconds / Double(end - start))
      start = end
    }
    perQuery.sort()
    func percentile(_ p: Double) -> Double {
      perQuery[min(perQuery.count - 1, Int(p * Double(perQuery.count)))] * 1e6
    }
    let first = queries[0]
    return Figure(
      target: first.target, alignment: first.targetAlignment, medianMicroseconds: percentile(0.5),
      p10Microseconds: percentile(0.1), p90Microseconds: percentile(0.9),
      hitsPerQuery: Double(hits) / Double(queries.count))
  }

  /// Runs the benchmark for `--anchors`, `--boundary`, `--queries`, prints the figures and writes
  /// them to `--json` when given.
  static func run(_ args: Arguments) throws -> Int32 {
    func count(_ name: String, default value: Int, minimum: Int) throws -> Int {
      guard let text = args.value(name) else { return value }
      guard let number = Int(text), number >= minimum else {
        throw Arguments.UsageError("--\(name) must be an integer of at least \(minimum), got '\(text)'")
      }
      return number
    }
    let anchorCount = try count("anchors", default: 50, minimum: 0)
    let boundary = try count("boundary", default: 20, minimum: 3)
    let queryCount = try count("queries", default: 100_000, minimum: 1)
    let anchors = anchors(count: anchorCount, boundaryVertices: boundary)
    let camera = ARCamera(
      transform: matrix_identity_float4x4,
      intrinsics: simd_float3x3(
        simd_float3(525, 0, 0), simd_float3(0, 525, 0), simd_float3(319.5, 239.5, 1)),
      imageResolution: CGSize(width: 640, height: 480))
    let frame = ARFrame(
      timestamp: 0, camera: camera, anchors: anchors, rawFeaturePoints: nil,
      capturedImage: .gray(GrayImage(width: 1, height: 1)), sceneDepth: nil, frameIndex: 0)
    let session = ARSession()
    let horizontal = anchors.filter { $0.alignment == .horizontal }.count
    print(
      "raycast: \(anchorCount) plane anchors (\(boundary)-vertex boundaries; \(horizontal) horizontal, "
        + "\(anchorCount - horizontal) vertical), \(queryCount) queries in batches of 1000, one thread")
    var figures: [Figure] = []
    for target in [ARRaycastQuery.Target.existingPlaneGeometry, .existingPlaneInfinite] {
      let queries = queries(count: queryCount, anchors: anchors, target: target, alignment: .any)
      let figure = measure(queries, in: frame, session: session)
      figures.append(figure)
      print(
        String(
          format: "%@, %@: %.3f µs/raycast (median over batches; p10 %.3f, p90 %.3f), %.2f hits/query",
          "\(figure.target)", "\(figure.alignment)", figure.medianMicroseconds, figure.p10Microseconds,
          figure.p90Microseconds, figure.hitsPerQuery))
    }
    if let path = args.value("json") {
      let file = try OutputFile(path: path)
      let report = JSON.object([
        ("anchors", .int(anchorCount)), ("boundaryVertices", .int(boundary)), ("queries", .int(queryCount)),
        (
          "targets",
          .array(
            figures.map {
              .object([
                ("target", .string("\($0.target)")), ("alignment", .string("\($0.alignment)")),
                ("medianMicroseconds", .number($0.medianMicroseconds)),
                ("p10Microseconds", .number($0.p10Microseconds)),
                ("p90Microseconds", .number($0.p90Microseconds)), ("hitsPerQuery", .number($0.hitsPerQuery)),
              ])
            })
        ),
      ])
      try file.write(report.text)
      try file.close()
    }
    return 0
  }
}
