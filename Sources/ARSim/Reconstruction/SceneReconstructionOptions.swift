/// How a session reconstructs the scene when `sceneReconstruction` is set (ARSim's addition; ARKit
/// has no such knobs). The defaults suit phone LiDAR depth (256x192, up to about 5 m).
public struct SceneReconstructionOptions: Sendable, Codable, Equatable {
  /// Spacing of the volume's voxels, metres: the mesh's resolution. Default 0.04.
  public var voxelSize: Double = 0.04
  /// Distances beyond this many voxels from a measured surface are clamped (the band a depth
  /// measurement updates). Default 2.5: 10 cm with the default voxels. A wider band lets the free space
  /// seen in front of other surfaces average away surfaces seen in few frames (thin and briefly seen
  /// parts go missing) and spreads each depth's noise over more voxels; a narrower one leaves no voxel
  /// behind a surface seen at a grazing angle (the band is measured along the ray), and the mesh gets
  /// holes there. Tools/mesh-reference.sh compares the mesh with Open3D's fusion.
  public var truncationVoxels: Double = 2.5
  /// Cap on the observations a voxel averages, so that later frames keep some weight. Default 64.
  public var maxWeight: Float = 64
  /// Voxel blocks (8 voxels a side) per mesh anchor's side: 3 blocks of 4 cm voxels make anchors of
  /// 0.96 m. Default 3.
  public var chunkBlocks: Int = 3
  /// Depth pixels whose confidence is below this level are not fused (ARKit's levels: 0 low,
  /// 1 medium, 2 high); recordings without confidence fuse every pixel. Default 1.
  public var minConfidence: Int = 1
  /// Depths nearer than this are not fused, metres. Default 0.1.
  public var minDepth: Float = 0.1
  /// Depths farther than this are not fused, metres (LiDAR depth is sparse and noisy beyond).
  /// Default 4.
  public var maxDepth: Float = 4
  /// Frames are fused at most this often, seconds of the recording's clock: a 60 Hz capture's
  /// neighbouring depth maps see the same surface, and fusing every fourth costs a quarter as much for
  /// much the same mesh. Default 1/15.
  public var integrationInterval: Double = 1.0 / 15
  /// Mesh anchors are updated at most this often, seconds of the recording's clock: chunks changed
  /// in between are meshed together, so a longer interval meshes a chunk the camera keeps seeing
  /// fewer times. Default 1.
  public var meshUpdateInterval: Double = 1

  /// The defaults.
  public init() {}
}

extension SceneReconstructionOptions {
  /// Options from JSON: a missing key keeps its documented default; an unknown key is an error.
  public init(from decoder: any Decoder) throws {
    self.init()
    let c = try decoder.optionsContainer(keyedBy: CodingKeys.self)
    try c.decode(.voxelSize, into: &voxelSize)
    try c.decode(.truncationVoxels, into: &truncationVoxels)
    try c.decode(.maxWeight, into: &maxWeight)
    try c.decode(.chunkBlocks, into: &chunkBlocks)
    try c.decode(.minConfidence, into: &minConfidence)
    try c.decode(.minDepth, into: &minDepth)
    try c.decode(.maxDepth, into: &maxDepth)
    try c.decode(.integrationInterval, into: &integrationInterval)
    try c.decode(.meshUpdateInterval, into: &meshUpdateInterval)
  }
}
