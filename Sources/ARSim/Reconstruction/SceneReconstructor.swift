import Foundation

/// What one mesh update changed: mesh anchors new, changed and gone, each list sorted by chunk.
package struct MeshAnchorChanges: Sendable {
  package var added: [ARMeshAnchor] = []
  package var updated: [ARMeshAnchor] = []
  package var removed: [ARMeshAnchor] = []
  package var isEmpty: Bool { added.isEmpty && updated.isEmpty && removed.isEmpty }
  package init() {}
}

/// The session's scene reconstruction stage: each tracked frame's depth fused into one TSDF volume
/// (CVision), the chunks it changed meshed at most every ``SceneReconstructionOptions/meshUpdateInterval``
/// seconds and handed out as ``ARMeshAnchor``s, one per chunk with a surface. The volume keeps its own
/// frame; a rigid correction of the session world moves it (`worldFromVolume`) and every anchor with
/// it, without fusing again. Work per frame is bounded by the blocks the frame's depth reaches and the
/// chunks it changed, never by the map. Not thread-safe: the session calls it from one thread at a time.
package final class SceneReconstructor {
  package let options: SceneReconstructionOptions
  /// Whether faces are classified (`.meshWithClassification`).
  package let classifies: Bool
  private let volume: TSDFVolume
  private let classifier: MeshClassifier
  private let sessionIdentifier: UUID?
  private var identifiers: AnchorIdentifierGenerator
  /// The session world from the volume's frame.
  private var worldFromVolume = RigidTransform.identity
  /// The anchor of each chunk with a surface.
  private var chunkAnchors: [MeshChunkKey: ARMeshAnchor] = [:]
  /// Upward faces' area (m²) per height bin of each chunk's last mesh, for the floor estimate.
  private var upwardArea: [MeshChunkKey: [Int: Double]] = [:]
  private var lastMeshTime: Double?
  private var lastIntegrationTime: Double?
  /// Depth maps to fuse again when a loop closure bends the world.
  private var keyframes = MeshKeyframes()
  /// Chunks to mesh at the next update whether or not the volume marked them (after a new fusion,
  /// the chunks whose anchors may have lost their surface).
  private var forcedChunks: Set<MeshChunkKey> = []
  private var cameraHeightSum = 0.0
  private var cameraCount = 0
  /// Frames fused since the start or the last reset.
  package private(set) var framesFused = 0

  /// A reconstructor with `options`; `planeOptions` give the classification's heights.
  /// - Throws: ``ReconstructionError`` when the options are out of range.
  package init(
    options: SceneReconstructionOptions, classifies: Bool, planeOptions: PlaneDetectionOptions,
    sessionIdentifier: UUID?, seed: UInt64
  ) throws(ReconstructionError) {
    self.options = options
    self.classifies = classifies
    guard options.integrationInterval.isFinite, options.integrationInterval >= 0 else {
      throw ReconstructionError(
        "scene reconstruction: integrationInterval must be finite and not negative "
          + "(got \(options.integrationInterval))")
    }
    guard options.meshUpdateInterval.isFinite, options.meshUpdateInterval >= 0 else {
      throw ReconstructionError(
        "scene reconstruction: meshUpdateInterval must be finite and not negative (got \(options.meshUpdateInterval))"
      )
    }
    volume = try TSDFVolume(
      voxelSize: options.voxelSize, truncation: options.voxelSize * options.truncationVoxels,
      maxWeight: options.maxWeight, chunkBlocks: options.chunkBlocks)
    classifier = MeshClassifier(options: planeOptions)
    self.sessionIdentifier = sessionIdentifier
    identifiers = AnchorIdentifierGenerator(seed: seed ^ 0x4D45_5348)  // "MESH"
  }

  /// The mesh anchors now, sorted by chunk.
  package var anchors: [ARMeshAnchor] { chunkAnchors.keys.sorted().map { chunkAnchors[$0]! } }

  /// Allocated voxel blocks (memory: about 4 KiB each).
  package var blockCount: Int { volume.blockCount }

  /// Whether a frame at `time` (seconds, recording clock) is due to be fused:
  /// ``SceneReconstructionOptions/integrationInterval`` after the last fused one.
  package func isDue(at time: Double) -> Bool {
    lastIntegrationTime.map { time - $0 >= options.integrationInterval - 1e-9 } ?? true
  }

  /// Fuses one frame's depth, taken at `time` (seconds, recording clock), seen from `worldFromCamera`
  /// (ARKit's camera frame) with the depth map's `intrinsics`.
  /// - Throws: ``ReconstructionError`` for a depth map CVision refuses (one line naming the problem).
  package func integrate(
    depth: DepthImage, confidence: ConfidenceMap?, intrinsics: CameraIntrinsics,
    worldFromCamera: RigidTransform, at time: Double
  ) throws(ReconstructionError) {
    let volumeFromCamera = worldFromVolume.inverse * worldFromCamera
    try volume.integrate(
      depth: depth, confidence: confidence, intrinsics: intrinsics, volumeFromCamera: volumeFromCamera,
      minConfidence: options.minConfidence, minDepth: options.minDepth, maxDepth: options.maxDepth)
    keyframes.keep(
      MeshKeyframes.Keyframe(
        time: time, depth: depth, confidence: confidence, intrinsics: intrinsics,
        volumeFromCamera: volumeFromCamera))
    lastIntegrationTime = time
    cameraHeightSum += worldFromCamera.translation.y
    cameraCount += 1
    framesFused += 1
  }

  /// Meshes the chunks changed since the last update when `time` (seconds, recording clock) is at
  /// least ``SceneReconstructionOptions/meshUpdateInterval`` after it, or `force`: anchors for chunks
  /// that gained a surface are added, those whose surface changed updated, those that lost it removed.
  package func update(at time: Double, force: Bool = false) -> MeshAnchorChanges {
    var changes = MeshAnchorChanges()
    if !force, let last = lastMeshTime, time - last < options.meshUpdateInterval - 1e-9 { return changes }
    lastMeshTime = time
    let dirty = Array(Set(volume.takeDirtyChunks()).union(forcedChunks)).sorted()
    forcedChunks.removeAll()
    guard !dirty.isEmpty else { return changes }
    let meshes = dirty.map { ($0, volume.mesh(of: $0)) }
    let up = SIMD3<Double>(0, 1, 0)
    let volumeUp = worldFromVolume.inverse.rotate(up)
    let faceLists = classifies ? meshes.map { faces(of: $0.1, $0.0, volumeUp) } : []
    for ((key, _), faces) in zip(meshes, faceLists) {
      upwardArea[key] = faces.isEmpty ? nil : upwardAreas(of: faces)
    }
    let meanCameraHeight = cameraCount > 0 ? cameraHeightSum / Double(cameraCount) : 0
    let floor =
      classifies
      ? classifier.floorHeight(upwardArea: totalUpwardArea(), meanCameraHeight: meanCameraHeight) : nil
    for (index, (key, mesh)) in meshes.enumerated() {
      let existing = chunkAnchors[key]
      guard mesh.triangleCount > 0 else {
        if let existing {
          chunkAnchors[key] = nil
          changes.removed.append(existing)
        }
        continue
      }
      let classification =
        classifies ? faceClasses(of: faceLists[index], floor: floor, meanCameraHeight: meanCameraHeight) : nil
      let geometry = ARMeshGeometry(
        vertices: ARGeometrySource(float3: mesh.positions), normals: ARGeometrySource(float3: mesh.normals),
        faces: ARGeometryElement(triangles: mesh.indices),
        classification: classification.map { ARGeometrySource(bytes: $0) })
      let anchor = ARMeshAnchor(
        identifier: existing?.identifier ?? identifiers.next(), transform: transform(of: key),
        geometry: geometry,
        sessionIdentifier: sessionIdentifier)
      chunkAnchors[key] = anchor
      if existing == nil { changes.added.append(anchor) } else { changes.updated.append(anchor) }
    }
    return changes
  }

  /// Moves the volume and every anchor by a rigid correction of the session world
  /// (`newWorldFromOld`); returns the moved anchors (sorted by chunk), to report updated.
  package func applyWorldCorrection(_ correction: RigidTransform) -> [ARMeshAnchor] {
    worldFromVolume = correction * worldFromVolume
    return chunkAnchors.keys.sorted().map { key in
      let old = chunkAnchors[key]!
      let moved = ARMeshAnchor(
        identifier: old.identifier, transform: transform(of: key), geometry: old.geometry,
        sessionIdentifier: sessionIdentifier)
      chunkAnchors[key] = moved
      return moved
    }
  }

  /// Follows a loop closure's non-rigid correction of the session world: each kept depth map's pose
  /// moves by the correction of its time (``WorldDeformation/correction(at:)``; those before the
  /// held part stay), and the volume is fused again from them, in time order; every chunk is meshed
  /// again at the next update (anchors keep their identifiers, chunks left without a surface lose
  /// theirs).
  package func applyWorldDeformation(_ deformation: WorldDeformation) {
    let worldFromVolume = self.worldFromVolume
    keyframes.movePoses { keyframe in
      guard let correction = deformation.correction(at: keyframe.time) else {
        return keyframe.volumeFromCamera
      }
      return worldFromVolume.inverse * correction * worldFromVolume * keyframe.volumeFromCamera
    }
    volume.reset()
    for keyframe in keyframes.inOrder {
      // Each was fused before with the same depth, so CVision accepts it again.
      _ = try? volume.integrate(
        depth: keyframe.depth, confidence: keyframe.confidence, intrinsics: keyframe.intrinsics,
        volumeFromCamera: keyframe.volumeFromCamera, minConfidence: options.minConfidence,
        minDepth: options.minDepth, maxDepth: options.maxDepth)
    }
    forcedChunks.formUnion(chunkAnchors.keys)
    upwardArea.removeAll()
  }

  /// The number of depth maps kept for a new fusion.
  package var keyframeCount: Int { keyframes.count }

  /// Empties the reconstruction (`resetSceneReconstruction`); returns the anchors removed, sorted by chunk.
  package func reset() -> [ARMeshAnchor] {
    let removed = anchors
    volume.reset()
    chunkAnchors.removeAll()
    upwardArea.removeAll()
    lastMeshTime = nil
    lastIntegrationTime = nil
    keyframes.removeAll()
    forcedChunks.removeAll()
    framesFused = 0
    return removed
  }

  /// A chunk anchor's transform: the volume's frame, moved to the chunk's lowest voxel.
  private func transform(of key: MeshChunkKey) -> simd_float4x4 {
    let side = volume.chunkSide
    let origin = SIMD3(Double(key.x), Double(key.y), Double(key.z)) * side
    return (worldFromVolume * RigidTransform(translation: origin)).floatMatrix
  }

  /// One face's unit normal's component along the world's up, its centre's world height and its
  /// area (m²): what the classification reads.
  private struct Face {
    var up: Double
    var height: Double
    var area: Double
  }

  /// The faces of `mesh` (chunk `key`), in order. Up in volume axes is `volumeUp`, so a point's world
  /// height is its projection on it plus the volume origin's height.
  private func faces(of mesh: ChunkMesh, _ key: MeshChunkKey, _ volumeUp: SIMD3<Double>) -> [Face] {
    let origin = SIMD3(Double(key.x), Double(key.y), Double(key.z)) * volume.chunkSide
    let originHeight = simd_dot(volumeUp, origin) + worldFromVolume.translation.y
    let p = mesh.positions
    func vertex(_ i: UInt32) -> SIMD3<Double> {
      let j = Int(i) * 3
      return SIMD3(Double(p[j]), Double(p[j + 1]), Double(p[j + 2]))
    }
    var faces: [Face] = []
    faces.reserveCapacity(mesh.triangleCount)
    for f in 0..<mesh.triangleCount {
      let a = vertex(mesh.indices[3 * f])
      let b = vertex(mesh.indices[3 * f + 1])
      let c = vertex(mesh.indices[3 * f + 2])
      let cross = simd_cross(b - a, c - a)
      let length = simd_length(cross)
      let normal = length > 0 ? cross / length : SIMD3<Double>()
      faces.append(
        Face(
          up: simd_dot(normal, volumeUp), height: originHeight + simd_dot(volumeUp, (a + b + c) / 3),
          area: length / 2))
    }
    return faces
  }

  private func upwardAreas(of faces: [Face]) -> [Int: Double] {
    var bins: [Int: Double] = [:]
    for face in faces where face.up >= MeshClassifier.horizontalCosine {
      bins[Int((face.height / MeshClassifier.binSize).rounded(.down)), default: 0] += face.area
    }
    return bins
  }

  private func totalUpwardArea() -> [Int: Double] {
    var total: [Int: Double] = [:]
    for key in upwardArea.keys.sorted() {
      for (bin, area) in upwardArea[key]!.sorted(by: { $0.key < $1.key }) { total[bin, default: 0] += area }
    }
    return total
  }

  private func faceClasses(of faces: [Face], floor: Double?, meanCameraHeight: Double) -> [UInt8] {
    faces.map { face in
      UInt8(
        classifier.classify(
          up: face.up, height: face.height, floor: floor, meanCameraHeight: meanCameraHeight
        )
        .rawValue)
    }
  }
}
