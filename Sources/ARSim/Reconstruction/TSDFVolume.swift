internal import CVision

/// A chunk of a ``TSDFVolume``: integer coordinates, a cube of `chunkBlocks`³ voxel blocks.
package struct MeshChunkKey: Hashable, Comparable, Sendable {
  package var x: Int32
  package var y: Int32
  package var z: Int32

  package init(x: Int32, y: Int32, z: Int32) {
    self.x = x
    self.y = y
    self.z = z
  }

  /// z, then y, then x: CVision's order of dirty chunks.
  package static func < (lhs: MeshChunkKey, rhs: MeshChunkKey) -> Bool {
    (lhs.z, lhs.y, lhs.x) < (rhs.z, rhs.y, rhs.x)
  }
}

/// One chunk's surface as CVision meshes it: positions relative to the chunk's lowest voxel (metres,
/// volume axes), unit normals towards free space, three indices per triangle (counter-clockwise seen
/// from the normals' side).
package struct ChunkMesh: Sendable, Equatable {
  package var positions: [Float] = []
  package var normals: [Float] = []
  package var indices: [UInt32] = []
  package var vertexCount: Int { positions.count / 3 }
  package var triangleCount: Int { indices.count / 3 }
}

/// The error of a reconstruction call: one line naming what was wrong.
package struct ReconstructionError: Error, CustomStringConvertible, Sendable {
  package var message: String
  package init(_ message: String) { self.message = message }
  package var description: String { message }
}

/// CVision's TSDF volume (cv_tsdf_*): depth fused in hashed voxel blocks, meshed per chunk. Owns the C
/// handle. Not thread-safe: one thread at a time.
package final class TSDFVolume {
  private let handle: OpaquePointer
  /// Voxel spacing, metres.
  package let voxelSize: Double
  /// Blocks per chunk side.
  package let chunkBlocks: Int
  /// A chunk's side, metres.
  package var chunkSide: Double { voxelSize * 8 * Double(chunkBlocks) }

  /// A volume with voxels `voxelSize` metres apart, distances truncated at `truncation` metres,
  /// voxel weights capped at `maxWeight`, chunks of `chunkBlocks`³ blocks.
  /// - Throws: ``ReconstructionError`` naming a parameter out of range.
  package init(voxelSize: Double, truncation: Double, maxWeight: Float, chunkBlocks: Int)
    throws(ReconstructionError)
  {
    var status = cv_status()
    let params = cv_tsdf_params(
      voxel_size: voxelSize, truncation: truncation, max_weight: maxWeight,
      chunk_blocks: Int32(clamping: chunkBlocks))
    guard let handle = cv_tsdf_create(params, &status) else {
      throw ReconstructionError("scene reconstruction: \(VisionError(status).message)")
    }
    self.handle = handle
    self.voxelSize = voxelSize
    self.chunkBlocks = chunkBlocks
  }

  deinit { cv_tsdf_destroy(handle) }

  /// Fuses `depth` (metres, NaN unknown) seen with `intrinsics` (the depth map's own, scaled to its
  /// size) from `volumeFromCamera` (ARKit's camera frame: x right, y up, looking along -z). With
  /// `confidence` (same size), pixels below `minConfidence` are skipped; depths outside
  /// `minDepth...maxDepth` metres too. Returns the number of blocks updated.
  /// - Throws: ``ReconstructionError`` for inconsistent sizes or non-finite values.
  @discardableResult
  package func integrate(
    depth: DepthImage, confidence: ConfidenceMap?, intrinsics: CameraIntrinsics,
    volumeFromCamera: RigidTransform,
    minConfidence: Int, minDepth: Float, maxDepth: Float
  ) throws(ReconstructionError) -> Int {
    if let confidence, confidence.width != depth.width || confidence.height != depth.height {
      throw ReconstructionError(
        "scene reconstruction: confidence map is \(confidence.width)x\(confidence.height), depth "
          + "\(depth.width)x\(depth.height)")
    }
    let k = intrinsics.scaled(toWidth: depth.width, height: depth.height)
    // ARKit's camera frame to the optical frame: y and z flip.
    let volumeFromOptical =
      volumeFromCamera * RigidTransform(rotation: simd_quatd(ix: 1, iy: 0, iz: 0, r: 0))
    let opticalFromVolume = volumeFromOptical.inverse
    let m = simd_double3x3(opticalFromVolume.rotation)
    let pose = PoseCW(
      r: [
        m.columns.0.x, m.columns.1.x, m.columns.2.x, m.columns.0.y, m.columns.1.y, m.columns.2.y,
        m.columns.0.z, m.columns.1.z, m.columns.2.z,
      ], t: opticalFromVolume.translation)
    var status = cv_status()
    var updated: Int32 = 0
    let integration = cv_tsdf_integration(
      min_confidence: Int32(clamping: minConfidence), min_depth: minDepth, max_depth: maxDepth)
    let code = depth.metres.withUnsafeBufferPointer { metres in
      if let levels = confidence?.levels {
        return levels.withUnsafeBufferPointer {
          cv_tsdf_integrate(
            handle, metres.baseAddress, $0.baseAddress, Int32(depth.width), Int32(depth.height), k.c, pose.c,
            integration, &updated, &status)
        }
      }
      return cv_tsdf_integrate(
        handle, metres.baseAddress, nil, Int32(depth.width), Int32(depth.height), k.c, pose.c, integration,
        &updated, &status)
    }
    guard code == CV_OK else {
      throw ReconstructionError("scene reconstruction: \(VisionError(status).message)")
    }
    return Int(updated)
  }

  /// The chunks changed since the last call, sorted (z, y, x), and clears them.
  package func takeDirtyChunks() -> [MeshChunkKey] {
    var status = cv_status()
    var count: Int32 = 0
    _ = cv_tsdf_take_dirty_chunks(handle, nil, 0, &count, &status)
    guard count > 0 else { return [] }
    var keys = [Int32](repeating: 0, count: Int(count) * 3)
    let code = keys.withUnsafeMutableBufferPointer {
      cv_tsdf_take_dirty_chunks(handle, $0.baseAddress, count, &count, &status)
    }
    precondition(code == CV_OK, "cv_tsdf_take_dirty_chunks: \(VisionError(status).message)")
    return (0..<Int(count)).map { MeshChunkKey(x: keys[3 * $0], y: keys[3 * $0 + 1], z: keys[3 * $0 + 2]) }
  }

  /// The surface of `chunk` (empty where nothing was observed).
  package func mesh(of chunk: MeshChunkKey) -> ChunkMesh {
    var status = cv_status()
    var vertices: Int32 = 0
    var triangles: Int32 = 0
    let key = [chunk.x, chunk.y, chunk.z]
    _ = key.withUnsafeBufferPointer {
      cv_tsdf_extract_chunk(handle, $0.baseAddress, nil, nil, 0, nil, 0, &vertices, &triangles, &status)
    }
    var mesh = ChunkMesh()
    guard vertices > 0 else { return mesh }
    mesh.positions = [Float](repeating: 0, count: Int(vertices) * 3)
    mesh.normals = [Float](repeating: 0, count: Int(vertices) * 3)
    mesh.indices = [UInt32](repeating: 0, count: Int(triangles) * 3)
    let code = key.withUnsafeBufferPointer { key in
      mesh.positions.withUnsafeMutableBufferPointer { positions in
        mesh.normals.withUnsafeMutableBufferPointer { normals in
          mesh.indices.withUnsafeMutableBufferPointer { indices in
            cv_tsdf_extract_chunk(
              handle, key.baseAddress, positions.baseAddress, normals.baseAddress, vertices,
              indices.baseAddress,
              triangles, &vertices, &triangles, &status)
          }
        }
      }
    }
    precondition(code == CV_OK, "cv_tsdf_extract_chunk: \(VisionError(status).message)")
    return mesh
  }

  /// Empties the volume.
  package func reset() { cv_tsdf_reset(handle) }

  /// Allocated voxel blocks (about 4 KiB each).
  package var blockCount: Int { Int(cv_tsdf_block_count(handle)) }
}
