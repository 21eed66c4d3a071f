import ARSim
import Foundation

/// Which hits a collision query returns (RealityKit's `CollisionCastQueryType`).
public enum CollisionCastQueryType: Sendable, Hashable {
  /// The nearest hit only.
  case nearest
  /// Every hit, nearest first.
  case all
  /// One hit, whichever is cheapest (in ARSim: the nearest).
  case any
}

/// Where a ray met an entity's collision shape (RealityKit's `CollisionCastHit`).
public struct CollisionCastHit {
  /// The entity hit.
  public let entity: Entity
  /// The hit point, in the query's reference space (world for nil), metres.
  public let position: SIMD3<Float>
  /// The shape's outward unit normal at the hit, in the query's reference space.
  public let normal: SIMD3<Float>
  /// The distance from the ray's origin along the ray, metres.
  public let distance: Float
}

extension Scene {
  /// The entities whose collision shapes the segment from `startPosition` to `endPosition` (both in
  /// `referenceEntity`'s space, world for nil) meets, as RealityKit's
  /// `raycast(from:to:query:mask:relativeTo:)`: the ray from the start towards the end, no longer than the
  /// segment. A segment of zero length gives no hits.
  public func raycast(
    from startPosition: SIMD3<Float>, to endPosition: SIMD3<Float>, query: CollisionCastQueryType = .all,
    mask: CollisionGroup = .all, relativeTo referenceEntity: Entity? = nil
  ) -> [CollisionCastHit] {
    let segment = endPosition - startPosition
    return raycast(
      origin: startPosition, direction: segment, length: simd_length(segment), query: query, mask: mask,
      relativeTo: referenceEntity)
  }

  /// The entities whose collision shapes (``CollisionComponent``) the ray from `origin` along
  /// `direction` meets within `length` metres (both in `referenceEntity`'s space, world for nil), as
  /// RealityKit's `raycast(origin:direction:length:query:mask:relativeTo:)`. Only entities enabled in
  /// their hierarchy whose collision group meets `mask` count; a ray starting inside a shape hits it
  /// at distance 0. Nil direction length gives no hits.
  public func raycast(
    origin: SIMD3<Float>, direction: SIMD3<Float>, length: Float = 100, query: CollisionCastQueryType = .all,
    mask: CollisionGroup = .all, relativeTo referenceEntity: Entity? = nil
  ) -> [CollisionCastHit] {
    guard simd_length_squared(direction) > 0, origin.x.isFinite, origin.y.isFinite, origin.z.isFinite else {
      return []
    }
    let worldFromReference = Entity.worldMatrix(of: referenceEntity)
    let o4 = worldFromReference * SIMD4(origin, 1)
    let d4 = worldFromReference * SIMD4(simd_normalize(direction), 0)
    let worldOrigin = SIMD3(o4.x, o4.y, o4.z)
    // Distances in the reference space: the ray direction is unit length there.
    let worldDirection = SIMD3(d4.x, d4.y, d4.z)
    var hits: [CollisionCastHit] = []
    func visit(_ entity: Entity) {
      guard entity.isEnabled else { return }
      if let collision = entity.components[CollisionComponent.self],
        !collision.filter.group.intersection(mask).isEmpty
      {
        let entityFromWorld = entity.worldMatrix.inverse
        let lo = entityFromWorld * SIMD4(worldOrigin, 1)
        let ld = entityFromWorld * SIMD4(worldDirection, 0)
        let best = collision.shapes.compactMap {
          $0.intersect(origin: SIMD3(lo.x, lo.y, lo.z), direction: SIMD3(ld.x, ld.y, ld.z))
        }.min { $0.t < $1.t }
        if let best, best.t <= length {
          let referenceFromEntity = worldFromReference.inverse * entity.worldMatrix
          let n = referenceFromEntity.inverse.transpose * SIMD4(best.normal, 0)
          let normal = SIMD3(n.x, n.y, n.z)
          hits.append(
            CollisionCastHit(
              entity: entity, position: origin + best.t * simd_normalize(direction),
              normal: simd_length_squared(normal) > 0 ? simd_normalize(normal) : normal, distance: best.t))
        }
      }
      for child in entity.children { visit(child) }
    }
    for anchor in anchors { visit(anchor) }
    hits.sort { $0.distance < $1.distance }
    return query == .all ? hits : Array(hits.prefix(1))
  }
}

extension ARView {
  /// The ray (world space, unit direction) from the viewpoint through the view point `point`: the
  /// tracked camera in `.ar` mode, the scene's first active ``PerspectiveCamera`` in `.nonAR` mode; nil
  /// without either, or for a point whose image point lies outside the captured image.
  public func ray(through point: CGPoint) -> (origin: SIMD3<Float>, direction: SIMD3<Float>)? {
    switch cameraMode {
    case .ar:
      guard let query = makeRaycastQuery(from: point, allowing: .estimatedPlane, alignment: .any) else {
        return nil
      }
      return (query.origin, simd_normalize(query.direction))
    case .nonAR:
      guard let camera = activeVirtualCamera(), frame.width > 0, frame.height > 0,
        point.x.isFinite, point.y.isFinite
      else { return nil }
      let halfHeight = tan(camera.camera.fieldOfViewInDegrees * .pi / 360)
      let aspect = Float(frame.width / frame.height)
      let x = (2 * Float(point.x / frame.width) - 1) * halfHeight * aspect
      let y = (1 - 2 * Float(point.y / frame.height)) * halfHeight
      let origin = camera.position(relativeTo: nil)
      let direction = camera.convert(direction: SIMD3(x, y, -1), to: nil)
      return (origin, simd_normalize(direction))
    }
  }

  /// The scene's first active virtual camera, depth-first.
  func activeVirtualCamera() -> PerspectiveCamera? {
    func find(_ entity: Entity) -> PerspectiveCamera? {
      guard entity.isEnabled else { return nil }
      if let camera = entity as? PerspectiveCamera { return camera }
      for child in entity.children {
        if let found = find(child) { return found }
      }
      return nil
    }
    for anchor in scene.anchors {
      if let found = find(anchor) { return found }
    }
    return nil
  }

  /// The entities with collision shapes under the view point `point` (points from the top-left),
  /// as RealityKit's `hitTest(_:query:mask:)`: a ray from the viewpoint (see ``ray(through:)``) cast
  /// with ``Scene/raycast(origin:direction:length:query:mask:relativeTo:)`` in world space, nearest
  /// first. Entities without a ``CollisionComponent`` are never hit (give them one with
  /// ``Entity/generateCollisionShapes(recursive:)``).
  public func hitTest(_ point: CGPoint, query: CollisionCastQueryType = .all, mask: CollisionGroup = .all)
    -> [CollisionCastHit]
  {
    guard let ray = ray(through: point) else { return [] }
    return scene.raycast(
      origin: ray.origin, direction: ray.direction, length: .infinity, query: query, mask: mask)
  }

  /// The nearest entity with collision shapes under `point`, or nil.
  public func entity(at point: CGPoint) -> Entity? {
    hitTest(point, query: .nearest).first?.entity
  }

  /// Every entity with collision shapes under `point`, nearest first.
  public func entities(at point: CGPoint) -> [Entity] {
    hitTest(point, query: .all).map(\.entity)
  }
}
