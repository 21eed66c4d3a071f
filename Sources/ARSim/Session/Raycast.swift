import Foundation

/// A ray to cast into the session's understanding of the world, as ARKit's `ARRaycastQuery`.
public struct ARRaycastQuery: Sendable, Equatable {
  /// What a ray may hit.
  public enum Target: Int, Sendable, Codable, CustomStringConvertible {
    /// A detected plane, within its boundary polygon.
    case existingPlaneGeometry
    /// A detected plane's infinite extension.
    case existingPlaneInfinite
    /// A surface estimated on the spot from feature points and depth near the ray; with scene
    /// reconstruction and `.any` alignment, the reconstructed mesh.
    case estimatedPlane

    public var description: String {
      switch self {
      case .existingPlaneGeometry: "existingPlaneGeometry"
      case .existingPlaneInfinite: "existingPlaneInfinite"
      case .estimatedPlane: "estimatedPlane"
      }
    }
  }

  /// Which surface orientations a ray may hit.
  public enum TargetAlignment: Int, Sendable, Codable, CustomStringConvertible {
    /// Normal within 10° of gravity's direction (either way).
    case horizontal
    /// Normal within 10° of perpendicular to gravity.
    case vertical
    /// Any orientation.
    case any

    public var description: String {
      switch self {
      case .horizontal: "horizontal"
      case .vertical: "vertical"
      case .any: "any"
      }
    }
  }

  /// Start of the ray in world coordinates, metres.
  public let origin: simd_float3
  /// Direction of the ray in world coordinates (normalized when the query is made).
  public let direction: simd_float3
  /// What the ray may hit.
  public let target: Target
  /// Which orientations it may hit.
  public let targetAlignment: TargetAlignment

  /// A query. A zero or non-finite direction gives a query that hits nothing.
  public init(
    origin: simd_float3, direction: simd_float3, allowing target: Target, alignment: TargetAlignment
  ) {
    self.origin = origin
    let length = simd_length(direction)
    self.direction = length > 0 && length.isFinite ? direction / length : simd_float3(repeating: .nan)
    self.target = target
    targetAlignment = alignment
  }

  /// Whether the query can hit anything at all (finite origin, finite non-zero direction).
  var isValid: Bool {
    origin.x.isFinite && origin.y.isFinite && origin.z.isFinite && direction.x.isFinite
      && direction.y.isFinite
      && direction.z.isFinite
  }
}

/// A hit of a raycast, as ARKit's `ARRaycastResult`.
///
/// `Hashable` and `Equatable` by identity, as ARKit's (an `NSObject`): each hit a raycast returns is a
/// result of its own, equal only to itself and its copies, even when another raycast hits the same
/// point.
public struct ARRaycastResult: Sendable, Hashable {
  /// Position of the hit (translation) and orientation of the surface there: the y axis is the
  /// surface normal, on the side the ray came from for estimated planes and the anchor's own axes
  /// for detected planes.
  public let worldTransform: simd_float4x4
  /// What was hit.
  public let target: ARRaycastQuery.Target
  /// The orientation of the surface hit.
  public let targetAlignment: ARRaycastQuery.TargetAlignment
  /// The plane anchor hit: for detected planes, and for estimated planes on the scene mesh when the
  /// hit lies on a detected plane.
  public let anchor: ARAnchor?
  /// Distance from the query's origin to the hit, metres (ARSim's addition).
  public let distance: Float
  /// The result's identity, shared by its copies.
  private let identity = Identity()

  /// An object whose only content is its identity.
  private final class Identity: Sendable {}

  /// Whether `lhs` and `rhs` are copies of one result.
  public static func == (lhs: ARRaycastResult, rhs: ARRaycastResult) -> Bool { lhs.identity === rhs.identity }

  /// Hashes the result's identity.
  public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(identity)) }
}

/// A raycast re-evaluated as the session's anchors change, as ARKit's `ARTrackedRaycast`.
public final class ARTrackedRaycast: @unchecked Sendable {
  private let query: ARRaycastQuery
  private let handler: ([ARRaycastResult]) -> Void
  private weak var session: ARSession?
  private let lock = NSLock()
  private var stopped = false
  private var lastTransforms: [simd_float4x4]?

  init(query: ARRaycastQuery, session: ARSession, handler: @escaping ([ARRaycastResult]) -> Void) {
    self.query = query
    self.session = session
    self.handler = handler
  }

  /// Stops re-evaluating; the handler is not called again.
  public func stopTracking() {
    lock.lock()
    stopped = true
    lock.unlock()
    session?.unregister(self)
  }

  /// Re-evaluates the query in `frame` (the session's current frame when nil) and calls the handler
  /// when the results changed.
  func update(in session: ARSession, frame: ARFrame? = nil) {
    lock.lock()
    let isStopped = stopped
    lock.unlock()
    guard !isStopped else { return }
    let results = frame.map { session.raycast(query, in: $0) } ?? session.raycast(query)
    let transforms = results.map(\.worldTransform)
    guard transforms != lastTransforms else { return }
    lastTransforms = transforms
    handler(results)
  }
}

extension ARSession {
  /// Casts `query` into the current frame's world and returns the hits, nearest first. Empty when
  /// the session has no frame yet, the query's direction is zero or not finite, or nothing is hit.
  public func raycast(_ query: ARRaycastQuery) -> [ARRaycastResult] {
    guard let frame = currentFrame else { return [] }
    return raycast(query, in: frame)
  }

  /// Casts `query` into the world as it was at `frame` (its anchors, points and depth).
  package func raycast(_ query: ARRaycastQuery, in frame: ARFrame) -> [ARRaycastResult] {
    guard query.isValid else { return [] }
    let origin = SIMD3<Double>(query.origin)
    let direction = SIMD3<Double>(query.direction)
    var results: [ARRaycastResult] = []
    switch query.target {
    case .existingPlaneGeometry, .existingPlaneInfinite:
      let bounded = query.target == .existingPlaneGeometry
      let planes = raycastCache.planes(of: frame)
      for i in planes.indices {
        let plane = planes[i].plane
        guard Self.matches(plane.alignment, query.targetAlignment),
          let hit = planes[i].hit(origin: origin, direction: direction, bounded: bounded)
        else { continue }
        results.append(
          ARRaycastResult(
            worldTransform: hit.transform, target: query.target,
            targetAlignment: plane.alignment == .horizontal ? .horizontal : .vertical, anchor: plane,
            distance: Float(hit.distance)))
      }
    case .estimatedPlane:
      // With a reconstructed mesh, `.any` rays hit it (ARKit's documented behaviour); other rays, and
      // rays that miss the mesh, estimate a plane on the spot.
      if query.targetAlignment == .any, let hit = meshHit(frame: frame, origin: origin, direction: direction)
      {
        results.append(hit)
      } else if let hit = Self.estimatedHit(
        frame: frame, origin: origin, direction: direction, alignment: query.targetAlignment,
        options: configuration?.tracking.estimatedPlane ?? TrackerOptions.EstimatedPlane())
      {
        results.append(hit)
      }
    }
    // Nearest first, ties in anchor order; sorting indices moves 8 bytes a swap instead of a result.
    let order = results.indices.sorted {
      results[$0].distance < results[$1].distance || (results[$0].distance == results[$1].distance && $0 < $1)
    }
    return order.map { results[$0] }
  }

  /// Starts a raycast that the session re-evaluates after every frame, calling `updateHandler` with
  /// the results when they change: first right away on the calling thread, then with each frame's
  /// callbacks (after its anchor callbacks), on `delegateQueue` when set. Nil when the query can hit
  /// nothing.
  public func trackedRaycast(
    _ query: ARRaycastQuery, updateHandler: @escaping ([ARRaycastResult]) -> Void
  ) -> ARTrackedRaycast? {
    guard query.isValid else { return nil }
    let tracked = ARTrackedRaycast(query: query, session: self, handler: updateHandler)
    register(tracked)
    tracked.update(in: self)
    return tracked
  }

  private static func matches(_ alignment: ARPlaneAnchor.Alignment, _ wanted: ARRaycastQuery.TargetAlignment)
    -> Bool
  {
    switch wanted {
    case .any: true
    case .horizontal: alignment == .horizontal
    case .vertical: alignment == .vertical
    }
  }

  /// A plane fitted on the spot to depth and feature points near the ray.
  private static func estimatedHit(
    frame: ARFrame, origin: SIMD3<Double>, direction: SIMD3<Double>,
    alignment: ARRaycastQuery.TargetAlignment,
    options: TrackerOptions.EstimatedPlane
  ) -> ARRaycastResult? {
    let points = nearbyPoints(frame: frame, origin: origin, direction: direction, options: options)
    guard points.count >= options.minPoints else { return nil }
    var moments = PlaneMoments()
    for p in points { moments.add(p) }
    guard var plane = moments.plane, let spread = moments.meanSquaredDistance,
      spread < options.maxSpread * options.maxSpread
    else {
      return nil
    }
    // The normal faces the ray's origin.
    if simd_dot(plane.normal, direction) > 0 { plane = plane.flipped }
    let surface = estimatedAlignment(of: plane.normal)
    guard alignment == .any || alignment == surface,
      let t = plane.intersection(rayOrigin: origin, direction: direction), t > 0
    else { return nil }
    return ARRaycastResult(
      worldTransform: estimatedTransform(
        at: origin + t * direction, normal: plane.normal, direction: direction),
      target: .estimatedPlane, targetAlignment: surface, anchor: nil, distance: Float(t))
  }

  /// Points near the ray: depth pixels around where the ray meets the depth surface (when the
  /// frame has depth and the ray starts at the camera), else tracked feature points near the ray
  /// (``TrackerOptions/EstimatedPlane``).
  private static func nearbyPoints(
    frame: ARFrame, origin: SIMD3<Double>, direction: SIMD3<Double>, options: TrackerOptions.EstimatedPlane
  ) -> [SIMD3<Double>] {
    let camera = frame.camera
    if let depth = frame.sceneDepth?.depthMap,
      simd_length(origin - camera.worldFromCamera.translation) < options.cameraOriginTolerance,
      let pixel = camera.projectToImage(origin + direction)
    {
      // Depth at its own resolution has its own intrinsics; the image pixel maps to it by the size ratio.
      let image = camera.cameraIntrinsics
      let k = image.scaled(toWidth: depth.width, height: depth.height)
      let sameSize = k.width == image.width && k.height == image.height
      let u0 = Int((sameSize ? pixel.x : pixel.x * Double(k.width) / Double(image.width)).rounded())
      let v0 = Int((sameSize ? pixel.y : pixel.y * Double(k.height) / Double(image.height)).rounded())
      let radius = max(4, k.width / options.depthWindowDivisor)
      let opticalToWorld = camera.worldFromOptical
      var points: [SIMD3<Double>] = []
      for v in stride(from: v0 - radius, through: v0 + radius, by: 2) where v >= 0 && v < depth.height {
        for u in stride(from: u0 - radius, through: u0 + radius, by: 2) where u >= 0 && u < depth.width {
          let z = Double(depth.metres[v * depth.width + u])
          guard z.isFinite, z > 0 else { continue }
          points.append(opticalToWorld.apply(to: k.backProject(SIMD2(Double(u), Double(v)), depth: z)))
        }
      }
      if points.count >= options.minPoints { return points }
    }
    guard let cloud = frame.rawFeaturePoints else { return [] }
    return cloud.points.map { SIMD3<Double>($0) }.filter { p in
      let along = simd_dot(p - origin, direction)
      guard along > 0 else { return false }
      return simd_length(p - origin - along * direction) < options.featureRadius
    }
  }
}

extension ARFrame {
  /// A raycast query from the camera through a point of the captured image, as ARKit's.
  /// - Parameter point: normalized image coordinates, (0, 0) at the captured image's top-left
  ///   corner and (1, 1) at its bottom-right (use ``displayTransform(for:viewportSize:)`` inverted
  ///   to get there from a view point). A point outside the image still gives a ray.
  public func raycastQuery(
    from point: CGPoint, allowing target: ARRaycastQuery.Target, alignment: ARRaycastQuery.TargetAlignment
  ) -> ARRaycastQuery {
    let ray = camera.rayThroughImagePoint(camera.pixel(fromNormalized: point))
    return ARRaycastQuery(
      origin: simd_float3(ray.origin), direction: simd_float3(ray.direction), allowing: target,
      alignment: alignment)
  }
}

/// What a raycast needs of a plane anchor, derived once per frame (see ``PlaneRaycastCache``): the
/// anchor's pose both ways in double precision, its boundary polygon in anchor space, the surface the
/// boundary lies in, and a bounding radius for rejecting rays early.
///
/// The surface is the plane through the boundary vertices, `y = slope·(x, z) + height` in anchor space:
/// the detector refines a plane as its support grows while the anchor's transform stays as first
/// reported, and the geometry follows the refined plane (the floor's height settles by millimetres, a
/// wall's direction by a fraction of a degree). Rays hit that surface, as they hit what an app draws
/// from the geometry; an anchor whose vertices all have `y = 0` is hit on its `y = 0` plane.
struct PlaneRaycastGeometry {
  let plane: ARPlaneAnchor
  /// `RigidTransform(matrix: plane.transform)`: anchor space to world, metres, as a rotation matrix
  /// and a translation (cheaper to apply per ray than the quaternion).
  let worldFromAnchorRotation: simd_double3x3
  let worldFromAnchorTranslation: SIMD3<Double>
  /// The inverse rotation (world to anchor space).
  let anchorFromWorldRotation: simd_double3x3
  /// The boundary vertices' (x, z) in anchor space, metres.
  let polygon: [SIMD2<Double>]
  /// The surface `y = simd_dot(slope, (x, z)) + height` in anchor space.
  let slope: SIMD2<Double>
  let height: Double
  /// The largest distance of a boundary vertex from the anchor's origin, metres (infinite when a
  /// vertex is not finite): every point of the surface inside the polygon lies within it.
  let radius: Double

  init(_ plane: ARPlaneAnchor) {
    self.plane = plane
    let worldFromAnchor = RigidTransform(matrix: plane.transform)
    worldFromAnchorRotation = simd_double3x3(worldFromAnchor.rotation)
    worldFromAnchorTranslation = worldFromAnchor.translation
    anchorFromWorldRotation = worldFromAnchorRotation.transpose
    let vertices = plane.geometry.boundaryVertices.map(SIMD3<Double>.init)
    polygon = vertices.map { SIMD2($0.x, $0.z) }
    (slope, height) = Self.surface(through: vertices)
    let radius = vertices.reduce(0.0) { max($0, simd_length($1)) }
    self.radius = radius.isFinite ? radius : .infinity
  }

  /// The least-squares plane `y = slope·(x, z) + height` through `vertices`; the `y = 0` plane when
  /// they are fewer than three, collinear in (x, z) or not finite.
  static func surface(through vertices: [SIMD3<Double>]) -> (slope: SIMD2<Double>, height: Double) {
    guard vertices.count >= 3, vertices.allSatisfy({ $0.x.isFinite && $0.y.isFinite && $0.z.isFinite })
    else { return (.zero, 0) }
    let mean = vertices.reduce(SIMD3<Double>.zero, +) / Double(vertices.count)
    var xx = 0.0
    var xz = 0.0
    var zz = 0.0
    var xy = 0.0
    var zy = 0.0
    for v in vertices {
      let d = v - mean
      xx += d.x * d.x
      xz += d.x * d.z
      zz += d.z * d.z
      xy += d.x * d.y
      zy += d.z * d.y
    }
    let determinant = xx * zz - xz * xz
    guard determinant > 1e-12 * max(xx * zz, 1e-30) else { return (.zero, 0) }
    let slope = SIMD2((zz * xy - xz * zy) / determinant, (xx * zy - xz * xy) / determinant)
    return (slope, mean.y - simd_dot(slope, SIMD2(mean.x, mean.z)))
  }

  /// The hit of a ray on the anchor's surface, within its boundary polygon when `bounded`.
  func hit(origin: SIMD3<Double>, direction: SIMD3<Double>, bounded: Bool)
    -> (transform: simd_float4x4, distance: Double)?
  {
    if bounded {
      guard polygon.count >= 3 else { return nil }
      // A hit inside the polygon is within `radius` of the anchor's origin and ahead of the ray's
      // origin, so a ray that passes farther away, or only behind its origin, cannot hit. The margin
      // keeps this test conservative against rounding; the exact test below decides.
      let toAnchor = worldFromAnchorTranslation - origin
      let along = simd_dot(toAnchor, direction) / simd_length(direction)
      let reach = radius + 1e-6 * (1 + radius + simd_length(toAnchor))
      guard along > -reach, simd_length_squared(toAnchor) - along * along <= reach * reach else { return nil }
    }
    let o = anchorFromWorldRotation * (origin - worldFromAnchorTranslation)
    let d = anchorFromWorldRotation * direction
    // o + t·d on y = slope·(x, z) + height.
    let rate = d.y - simd_dot(slope, SIMD2(d.x, d.z))
    guard abs(rate) > 1e-9 * simd_length(d) else { return nil }
    let t = (simd_dot(slope, SIMD2(o.x, o.z)) + height - o.y) / rate
    guard t > 0, t.isFinite else { return nil }
    let local = o + t * d
    if bounded {
      guard Polygon2D.contains(SIMD2(local.x, local.z), in: polygon) else { return nil }
    }
    var transform = plane.transform
    let world = worldFromAnchorRotation * local + worldFromAnchorTranslation
    transform.columns.3 = SIMD4(Float(world.x), Float(world.y), Float(world.z), 1)
    return (transform, t)
  }
}

/// The ``PlaneRaycastGeometry`` of the plane anchors of the last few frames raycast into, so that
/// repeated raycasts into one frame (taps, tracked raycasts, a benchmark) derive each anchor's pose
/// and polygon once instead of once per ray. Frames and anchors are immutable, so an entry stays valid
/// for as long as its frame lives; frames are held weakly and matched by identity. Each session has its
/// own.
final class PlaneRaycastCache: @unchecked Sendable {
  private struct Entry {
    weak var frame: ARFrame?
    var planes: [PlaneRaycastGeometry]
  }

  /// Frames remembered (the current one and a few before it).
  private static let capacity = 4
  private let lock = NSLock()
  private var entries: [Entry] = []

  /// The geometry of `frame`'s plane anchors, in the order of `frame.anchors`.
  func planes(of frame: ARFrame) -> [PlaneRaycastGeometry] {
    lock.lock()
    let cached = entries.first { $0.frame === frame }?.planes
    lock.unlock()
    if let cached { return cached }
    let planes = frame.anchors.compactMap { ($0 as? ARPlaneAnchor).map(PlaneRaycastGeometry.init) }
    lock.lock()
    entries.removeAll { $0.frame == nil || $0.frame === frame }
    if entries.count >= Self.capacity { entries.removeFirst(entries.count - Self.capacity + 1) }
    entries.append(Entry(frame: frame, planes: planes))
    lock.unlock()
    return planes
  }
}
