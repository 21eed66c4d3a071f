import ARSim
import ARSimTestSupport
import Foundation
import Testing

/// A scene with known surfaces for fusion tests: the floor (y = 0), a wall (z = -3, facing +z) and a
/// table-like box on the floor; depth rendered exactly (z-depth of the first surface each pixel's ray
/// meets) from known poses.
struct KnownScene {
  var boxLow = SIMD3<Double>(-0.4, 0, -1.6)
  var boxHigh = SIMD3<Double>(0.4, 0.75, -0.8)
  var wallZ = -3.0
  let intrinsics = CameraIntrinsics(fx: 110, fy: 110, cx: 63.5, cy: 47.5, width: 128, height: 96)

  /// World from ARKit's camera frame for an eye looking at `target` (y up).
  static func lookAt(eye: SIMD3<Double>, target: SIMD3<Double>) -> RigidTransform {
    let z = simd_normalize(eye - target)
    let x = simd_normalize(simd_cross(SIMD3<Double>(0, 1, 0), z))
    let y = simd_cross(z, x)
    return RigidTransform(
      matrix: simd_double4x4(
        columns: (SIMD4(x, 0), SIMD4(y, 0), SIMD4(z, 0), SIMD4(eye, 1))))
  }

  /// Camera poses on a short arc in front of the box, 1.4 m high.
  func poses(_ count: Int) -> [RigidTransform] {
    (0..<count).map { i in
      let s = count > 1 ? Double(i) / Double(count - 1) : 0.5
      return Self.lookAt(eye: SIMD3(-0.6 + 1.2 * s, 1.4, 0.6), target: SIMD3(0, 0.3, -1.4))
    }
  }

  /// The ray parameter of the first surface along `origin + t * direction`, or nil.
  func hit(origin: SIMD3<Double>, direction d: SIMD3<Double>, withBox: Bool = true) -> Double? {
    var best = Double.infinity
    if d.y < 0 { best = min(best, -origin.y / d.y) }
    if d.z < 0 { best = min(best, (wallZ - origin.z) / d.z) }
    if withBox {
      var near = -Double.infinity
      var far = Double.infinity
      for axis in 0..<3 where d[axis] != 0 {
        let a = (boxLow[axis] - origin[axis]) / d[axis]
        let b = (boxHigh[axis] - origin[axis]) / d[axis]
        near = max(near, min(a, b))
        far = min(far, max(a, b))
      }
      if near <= far, near > 0 { best = min(best, near) }
    }
    return best.isFinite ? best : nil
  }

  /// The exact depth map seen from `worldFromCamera`.
  func depth(from worldFromCamera: RigidTransform, withBox: Bool = true) -> DepthImage {
    var metres = [Float](repeating: .nan, count: intrinsics.width * intrinsics.height)
    for v in 0..<intrinsics.height {
      for u in 0..<intrinsics.width {
        // Optical ray (z = 1), in ARKit's camera frame, then world: t along it is the z-depth.
        let x = (Double(u) - intrinsics.cx) / intrinsics.fx
        let y = (Double(v) - intrinsics.cy) / intrinsics.fy
        let direction = worldFromCamera.rotate(SIMD3(x, -y, -1))
        if let t = hit(origin: worldFromCamera.translation, direction: direction, withBox: withBox) {
          metres[v * intrinsics.width + u] = Float(t)
        }
      }
    }
    return DepthImage(width: intrinsics.width, height: intrinsics.height, metres: metres)
  }

  /// Distance from `p` to the nearest surface of the scene.
  func distance(_ p: SIMD3<Double>, withBox: Bool = true) -> Double {
    var d = min(abs(p.y), abs(p.z - wallZ))
    if withBox {
      let centre = (boxLow + boxHigh) / 2
      let half = (boxHigh - boxLow) / 2
      let q = simd_abs(p - centre) - half
      let outside = simd_length(simd_max(q, SIMD3<Double>()))
      let inside = min(max(q.x, max(q.y, q.z)), 0)
      d = min(d, abs(outside + inside))
    }
    return d
  }
}

/// Element `i` of a packed x, y, z array.
private func vector(_ values: [Float], _ i: Int) -> SIMD3<Double> {
  let x = Double(values[3 * i])
  let y = Double(values[3 * i + 1])
  let z = Double(values[3 * i + 2])
  return SIMD3(x, y, z)
}

/// The lowest corner of a chunk, metres.
private func origin(_ key: MeshChunkKey, _ volume: TSDFVolume) -> SIMD3<Double> {
  SIMD3(Double(key.x), Double(key.y), Double(key.z)) * volume.chunkSide
}

/// Every vertex of every chunk in world coordinates (the volume's frame is the world's here).
private func worldVertices(_ volume: TSDFVolume, chunks: [MeshChunkKey]) -> [SIMD3<Double>] {
  chunks.flatMap { key -> [SIMD3<Double>] in
    let mesh = volume.mesh(of: key)
    let corner = origin(key, volume)
    return (0..<mesh.vertexCount).map { corner + vector(mesh.positions, $0) }
  }
}

private func percentile(_ values: [Double], _ p: Double) -> Double {
  let sorted = values.sorted()
  return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p))]
}

@Suite("Scene reconstruction: TSDF fusion and marching cubes (CVision)")
struct ReconstructionVolumeTests {
  let scene = KnownScene()

  func fused(_ poses: [RigidTransform], withBox: Bool = true) throws -> (TSDFVolume, [MeshChunkKey]) {
    let volume = try TSDFVolume(voxelSize: 0.04, truncation: 0.14, maxWeight: 64, chunkBlocks: 3)
    for pose in poses {
      try volume.integrate(
        depth: scene.depth(from: pose, withBox: withBox), confidence: nil, intrinsics: scene.intrinsics,
        volumeFromCamera: pose, minConfidence: 1, minDepth: 0.1, maxDepth: 5)
    }
    return (volume, volume.takeDirtyChunks())
  }

  /// Whether `p` lies where the floor's and the wall's truncation bands overlap (the corner between
  /// them, which fusion rounds off).
  func nearCorner(_ p: SIMD3<Double>) -> Bool { p.y < 0.15 && p.z < scene.wallZ + 0.15 }

  @Test(
    "exact depth of a floor and a wall fuses to vertices within a few mm of the planes, away from their corner"
  )
  func planesAreExact() throws {
    let (volume, chunks) = try fused(scene.poses(6), withBox: false)
    let vertices = worldVertices(volume, chunks: chunks).filter { !nearCorner($0) }
    #expect(vertices.count > 1000)
    let errors = vertices.map { scene.distance($0, withBox: false) }
    #expect(percentile(errors, 0.5) < 0.001, "median \(percentile(errors, 0.5)) m")
    // Depth is read at the nearest pixel, whose footprint on a distant floor is centimetres long.
    #expect(percentile(errors, 0.95) < 0.008, "95th percentile \(percentile(errors, 0.95)) m")
    // Where a surface is seen at a grazing angle, voxels a voxel off it are beyond the truncation
    // along the ray (clamped), and the zero crossing moves by up to half a voxel.
    #expect(errors.max()! < 0.02, "largest distance \(errors.max()!) m")
  }

  @Test("a box on the floor: median vertex within 3 mm of the true surface, 95% within 1.5 cm")
  func boxIsClose() throws {
    let (volume, chunks) = try fused(scene.poses(8))
    let vertices = worldVertices(volume, chunks: chunks)
    let errors = vertices.map { scene.distance($0) }
    #expect(percentile(errors, 0.5) < 0.003, "median \(percentile(errors, 0.5)) m")
    #expect(percentile(errors, 0.95) < 0.015, "95th percentile \(percentile(errors, 0.95)) m")
    // The box's top is in the mesh: vertices at its height over its footprint.
    let top = vertices.filter {
      abs($0.y - 0.75) < 0.005 && $0.x > -0.35 && $0.x < 0.35 && $0.z > -1.55 && $0.z < -0.85
    }
    #expect(top.count > 100)
  }

  @Test("triangles wind counter-clockwise around their normals, which point to free space")
  func normalsAndWinding() throws {
    let (volume, chunks) = try fused(scene.poses(4), withBox: false)
    var faces = 0
    var wound = 0
    var floor = (up: 0, all: 0)
    var wall = (facing: 0, all: 0)
    for key in chunks {
      let mesh = volume.mesh(of: key)
      for f in 0..<mesh.triangleCount {
        let a = Int(mesh.indices[3 * f])
        let b = Int(mesh.indices[3 * f + 1])
        let c = Int(mesh.indices[3 * f + 2])
        let pa = vector(mesh.positions, a)
        let face = simd_cross(vector(mesh.positions, b) - pa, vector(mesh.positions, c) - pa)
        let normal = vector(mesh.normals, a)
        faces += 1
        if simd_dot(face, normal) > 0 { wound += 1 }
        let world = pa + origin(key, volume)
        guard !nearCorner(world) else { continue }
        if world.y < 0.02 {
          floor.all += 1
          if normal.y > 0.95 { floor.up += 1 }
        }
        if world.z < scene.wallZ + 0.02 {
          wall.all += 1
          if normal.z > 0.95 { wall.facing += 1 }
        }
      }
    }
    #expect(faces > 1000 && wound == faces)
    #expect(floor.all > 500 && Double(floor.up) >= 0.98 * Double(floor.all), "\(floor)")
    #expect(wall.all > 500 && Double(wall.facing) >= 0.98 * Double(wall.all), "\(wall)")
  }

  @Test("only chunks the depth reached become dirty; an empty depth map dirties none")
  func dirtyChunksFollowTheDepth() throws {
    let volume = try TSDFVolume(voxelSize: 0.04, truncation: 0.14, maxWeight: 64, chunkBlocks: 3)
    let pose = scene.poses(1)[0]
    // Only a 12x12 patch in the middle of the image has depth.
    var depth = scene.depth(from: pose)
    var points: [SIMD3<Double>] = []
    for v in 0..<depth.height {
      for u in 0..<depth.width {
        let index = v * depth.width + u
        guard (42..<54).contains(v) && (58..<70).contains(u) else {
          depth.metres[index] = .nan
          continue
        }
        let z = Double(depth.metres[index])
        let x = (Double(u) - scene.intrinsics.cx) / scene.intrinsics.fx * z
        let y = (Double(v) - scene.intrinsics.cy) / scene.intrinsics.fy * z
        points.append(pose.apply(to: SIMD3(x, -y, -z)))
      }
    }
    try volume.integrate(
      depth: depth, confidence: nil, intrinsics: scene.intrinsics, volumeFromCamera: pose, minConfidence: 1,
      minDepth: 0.1, maxDepth: 5)
    let dirty = volume.takeDirtyChunks()
    #expect(!dirty.isEmpty)
    #expect(dirty == dirty.sorted())
    // Every dirty chunk holds, or lies just below, a point within the truncation band of the patch's
    // surface points.
    let side = volume.chunkSide
    let band = 0.14 + 0.04
    for key in dirty {
      let low = origin(key, volume) - SIMD3(repeating: band)
      let high = low + SIMD3(repeating: 2 * side + 2 * band)  // the chunk and the one above it in each axis
      let near = points.contains { p in
        p.x > low.x && p.y > low.y && p.z > low.z && p.x < high.x && p.y < high.y && p.z < high.z
      }
      #expect(near, "chunk \(key)")
    }
    #expect(volume.takeDirtyChunks().isEmpty, "taking the dirty chunks clears them")
    let empty = DepthImage(width: depth.width, height: depth.height)
    try volume.integrate(
      depth: empty, confidence: nil, intrinsics: scene.intrinsics, volumeFromCamera: pose, minConfidence: 1,
      minDepth: 0.1, maxDepth: 5)
    #expect(volume.takeDirtyChunks().isEmpty)
    // Low-confidence pixels are not fused.
    let blocks = volume.blockCount
    let low = ConfidenceMap(
      width: depth.width, height: depth.height,
      levels: [UInt8](repeating: 0, count: depth.width * depth.height))
    try volume.integrate(
      depth: scene.depth(from: pose), confidence: low, intrinsics: scene.intrinsics, volumeFromCamera: pose,
      minConfidence: 1, minDepth: 0.1, maxDepth: 5)
    #expect(volume.takeDirtyChunks().isEmpty && volume.blockCount == blocks)
  }

  @Test("the same depth and poses give the same meshes, bit for bit")
  func deterministic() throws {
    let (a, chunksA) = try fused(scene.poses(5))
    let (b, chunksB) = try fused(scene.poses(5))
    #expect(chunksA == chunksB)
    for key in chunksA {
      let (meshA, meshB) = (a.mesh(of: key), b.mesh(of: key))
      #expect(meshA.positions.map(\.bitPattern) == meshB.positions.map(\.bitPattern))
      #expect(meshA.normals.map(\.bitPattern) == meshB.normals.map(\.bitPattern))
      #expect(meshA.indices == meshB.indices)
    }
  }

  @Test("bad input gives one line naming the problem")
  func badInput() throws {
    #expect(throws: ReconstructionError.self) {
      try TSDFVolume(voxelSize: 0, truncation: 0.1, maxWeight: 64, chunkBlocks: 3)
    }
    do {
      _ = try TSDFVolume(voxelSize: 0.04, truncation: 0.01, maxWeight: 64, chunkBlocks: 3)
      Issue.record("a truncation below one voxel was accepted")
    } catch {
      #expect(error.message.contains("truncation") && !error.message.contains("\n"))
    }
    let volume = try TSDFVolume(voxelSize: 0.04, truncation: 0.14, maxWeight: 64, chunkBlocks: 3)
    let depth = scene.depth(from: scene.poses(1)[0])
    do {
      try volume.integrate(
        depth: depth, confidence: ConfidenceMap(width: 2, height: 1, levels: [2, 2]),
        intrinsics: scene.intrinsics,
        volumeFromCamera: .identity, minConfidence: 1, minDepth: 0.1, maxDepth: 5)
      Issue.record("a confidence map of the wrong size was accepted")
    } catch {
      #expect(error.message.contains("confidence map is 2x1"))
    }
    do {
      try volume.integrate(
        depth: depth, confidence: nil, intrinsics: scene.intrinsics,
        volumeFromCamera: RigidTransform(translation: SIMD3(.nan, 0, 0)), minConfidence: 1, minDepth: 0.1,
        maxDepth: 5)
      Issue.record("a non-finite pose was accepted")
    } catch {
      #expect(error.message.contains("camera_from_world") && !error.message.contains("\n"))
    }
    do {
      try volume.integrate(
        depth: depth, confidence: nil, intrinsics: scene.intrinsics, volumeFromCamera: .identity,
        minConfidence: 1,
        minDepth: 2, maxDepth: 1)
      Issue.record("an empty depth range was accepted")
    } catch {
      #expect(error.message.contains("depth range"))
    }
    #expect(volume.blockCount == 0)
  }
}
