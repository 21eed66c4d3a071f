import ARSimAssets
import Foundation

/// Entities from a read model file (``ModelAsset``): the prim hierarchy as entities, meshes as
/// ``ModelEntity``s, the stage's animation as an ``AnimationResource``.
enum AssetEntities {
  /// The root entity of `asset`: it stands for the stage's pseudo-root (identity transform, no name)
  /// and holds one child per top-level prim. Its ``Entity/availableAnimations`` hold the stage's
  /// time-sampled animation, if any.
  static func root(_ asset: ModelAsset, into root: Entity) throws(AssetError) {
    for node in asset.roots { root.addChild(try entity(node, file: asset.file)) }
    root.availableAnimations = animations(asset)
  }

  /// The entity for one prim and its descendants: a ``ModelEntity`` with a mesh for a gprim (one
  /// default ``SimpleMaterial``: materials are not read), an ``Entity`` otherwise; named as the prim,
  /// placed by its transform (metres, y-up).
  static func entity(_ node: AssetNode, file: String) throws(AssetError) -> Entity {
    let entity: Entity
    if let geometry = node.geometry {
      entity = ModelEntity(
        mesh: try mesh(geometry, path: node.path, file: file), materials: [SimpleMaterial()])
    } else {
      entity = Entity()
    }
    entity.name = node.name
    entity.transform = Transform(matrix: simd_float4x4(node.transform))
    for child in node.children { entity.addChild(try self.entity(child, file: file)) }
    return entity
  }

  /// A gprim's mesh: a mesh's own points and faces (polygons fanned into triangles); for an analytic
  /// shape (`Cube`, `Sphere`, `Cylinder`, ...), a box filling its extent, so that its bounds are exact
  /// (its surface is not tessellated).
  static func mesh(_ geometry: AssetGeometry, path: String, file: String) throws(AssetError) -> MeshResource {
    do {
      return try MeshResource.generate(from: [descriptor(geometry, name: path, transform: nil)])
    } catch {
      throw AssetError(file: file, problem: "prim \(path): \(error.message)")
    }
  }

  /// The mesh descriptor of a gprim (its points mapped by `transform` if given): a mesh's points and
  /// faces, or an analytic shape's box (24 vertices, 12 triangles).
  static func descriptor(_ geometry: AssetGeometry, name: String, transform: simd_double4x4?)
    -> MeshDescriptor
  {
    var descriptor = MeshDescriptor(name: name)
    var positions = geometry.positions
    if geometry.kind == "Mesh" && !positions.isEmpty {
      descriptor.primitives = .polygons(
        geometry.faceVertexCounts.map { UInt8(clamping: $0) }, geometry.faceVertexIndices.map { UInt32($0) })
    } else {
      let box = MeshResource.box(min: SIMD3<Float>(geometry.boundsMin), max: SIMD3<Float>(geometry.boundsMax))
      positions = box.positions
      descriptor.primitives = .triangles(box.triangleIndices)
    }
    if let transform {
      let m = simd_float4x4(transform)
      positions = positions.map { p in
        let q = m * SIMD4(p, 1)
        return SIMD3(q.x, q.y, q.z)
      }
    }
    descriptor.positions = MeshBuffer(positions)
    return descriptor
  }

  /// The stage's animation as RealityKit lists it: one ``AnimationResource`` named as RealityKit names
  /// a USD file's timeline animation, with one transform track per animated prim (keyframes at every
  /// time code, so that playing it follows USD's interpolation). Skeletal animation is not read.
  static func animations(_ asset: ModelAsset) -> [AnimationResource] {
    guard let animation = asset.animations.first else { return [] }
    var tracks: [TransformTrack] = []
    for node in asset.allNodes where !node.transformKeyframes.isEmpty {
      tracks.append(
        TransformTrack(
          targetPath: node.path.split(separator: "/").map(String.init),
          keyframes: node.transformKeyframes.map {
            TransformTrack.Keyframe(time: $0.time, transform: Transform(matrix: simd_float4x4($0.transform)))
          }))
    }
    return [AnimationResource(name: animation.name, tracks: tracks)]
  }

  /// One model entity holding every mesh of `asset`, each mapped into the stage's space (RealityKit's
  /// `loadModel`, which flattens the hierarchy): named after the file, no children, no animations.
  static func flattened(_ asset: ModelAsset, into model: ModelEntity, name: String) throws(AssetError) {
    var descriptors: [MeshDescriptor] = []
    func visit(_ node: AssetNode, _ parent: simd_double4x4) throws(AssetError) {
      let world = parent * node.transform
      if let geometry = node.geometry {
        descriptors.append(descriptor(geometry, name: node.path, transform: world))
      }
      for child in node.children { try visit(child, world) }
    }
    for root in asset.roots { try visit(root, .identity) }
    model.name = name
    guard !descriptors.isEmpty else { return }
    do {
      model.model = ModelComponent(
        mesh: try MeshResource.generate(from: descriptors), materials: [SimpleMaterial()])
    } catch {
      throw AssetError(file: asset.file, problem: error.message)
    }
  }
}
