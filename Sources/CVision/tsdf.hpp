// A truncated signed distance volume in hashed voxel blocks, fused from depth maps, meshed by
// marching cubes per chunk of blocks (the C API is cv_tsdf_* in cvision.h).
//
// Layout: voxels are grid points at integer multiples of the voxel size; a block holds 8^3 of them;
// a chunk is `chunk_blocks`^3 blocks. Blocks exist only where some frame's depth came within the
// truncation distance, so memory grows with the surface seen, and one frame's integration visits
// only the blocks its own depth reaches. Nothing iterates the hash map: blocks and chunks are
// visited in sorted key order, so results do not depend on hashing.

#ifndef ARSIM_CVISION_TSDF_HPP
#define ARSIM_CVISION_TSDF_HPP

#include <array>
#include <cstdint>
#include <deque>
#include <set>
#include <unordered_map>
#include <vector>

#include "cvision_tsdf.h"

namespace cvision::tsdf {

constexpr int kBlockSide = 8;
constexpr int kBlockVoxels = kBlockSide * kBlockSide * kBlockSide;

/// Integer coordinates of a block, a chunk or a voxel.
struct Key {
  int32_t x, y, z;
  bool operator<(const Key &other) const {
    if (z != other.z) return z < other.z;
    if (y != other.y) return y < other.y;
    return x < other.x;
  }
  bool operator==(const Key &other) const { return x == other.x && y == other.y && z == other.z; }
};

/// One voxel: the signed distance divided by the truncation distance (-1...1, positive in front of
/// the surface) and the weight of the observations averaged into it (0: never observed).
struct Voxel {
  float sdf = 0;
  float weight = 0;
};

struct Block {
  std::array<Voxel, kBlockVoxels> voxels{};
};

/// A chunk's mesh: positions relative to the chunk's origin and unit normals (x, y, z each), and
/// triangles of vertex indices, counter-clockwise seen from the side the normal points to.
struct Mesh {
  std::vector<float> positions;
  std::vector<float> normals;
  std::vector<uint32_t> indices;
};

class Volume {
 public:
  explicit Volume(const cv_tsdf_params &params);

  /// Fuses one depth map (see cv_tsdf_integrate); returns the number of blocks it updated.
  int32_t integrate(const float *depth, const uint8_t *confidence, int32_t width, int32_t height,
                    const cv_intrinsics &intrinsics, const cv_pose &camera_from_world,
                    const cv_tsdf_integration &integration);

  /// The chunks changed since the last call, sorted (z, then y, then x); clears them.
  std::vector<Key> take_dirty();
  /// Number of chunks waiting in the dirty set.
  size_t dirty_count() const { return dirty_.size(); }

  /// Marching cubes over the cubes whose lowest corner lies in `chunk`.
  void extract(const Key &chunk, Mesh &mesh);

  void reset();
  size_t block_count() const { return blocks_.size(); }
  const cv_tsdf_params &params() const { return params_; }

 private:
  static uint64_t pack(const Key &key);
  Block *find(const Key &key);
  const Block *find(const Key &key) const;
  Block *find_or_allocate(const Key &key);
  void mark_dirty(const Key &block);

  /// Buffers of `extract`, kept from one call to the next (their size is a chunk's, and
  /// allocating them per chunk costs page faults).
  struct ExtractScratch {
    std::vector<Voxel> dense;
    std::vector<uint8_t> flags;
    /// The vertex of each grid edge: none (UINT32_MAX) but those edges_set lists.
    std::vector<uint32_t> vertex_of_edge;
    /// The entries of vertex_of_edge the last call set.
    std::vector<uint32_t> edges_set;
  };

  cv_tsdf_params params_;
  ExtractScratch scratch_;
  /// The depths `integrate` fuses, kept from one call to the next for the same reason.
  std::vector<float> usable_;
  std::unordered_map<uint64_t, uint32_t> index_;
  std::deque<Block> blocks_;
  std::set<Key> dirty_;
};

}  // namespace cvision::tsdf

#endif  // ARSIM_CVISION_TSDF_HPP
