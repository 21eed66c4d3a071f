// CVision's scene reconstruction: a TSDF volume fused from depth maps and meshed per chunk, under
// the rules and conventions stated in cvision.h.

#ifndef ARSIM_CVISION_TSDF_H
#define ARSIM_CVISION_TSDF_H

#include "cvision.h"

#ifdef __cplusplus
extern "C" {
#endif

// MARK: - Scene reconstruction

/// A truncated signed distance volume (TSDF) in hashed blocks of 8^3 voxels, fused from depth maps
/// and meshed by marching cubes per chunk (a cube of `chunk_blocks`^3 blocks). World coordinates are
/// the caller's (metres); voxel (i, j, k) sits at (i, j, k) * voxel_size; chunk (x, y, z) holds the
/// cubes whose lowest voxel lies in [x, x + 1) * chunk_blocks * 8 voxels, and so on for y and z.
/// Blocks are allocated only where some depth came within the truncation distance, so memory follows
/// the surface seen; one integration visits only the blocks its own depth reaches. Deterministic:
/// the same calls give the same bits. Not thread-safe: one thread at a time per volume.
typedef struct cv_tsdf cv_tsdf;

/// How a volume is laid out.
typedef struct cv_tsdf_params {
  double voxel_size;     ///< metres between voxels, 0.002...0.5
  double truncation;     ///< metres, 1...32 voxels: distances beyond are clamped to +-1
  float max_weight;      ///< cap on a voxel's observation count (>= 1): later frames keep some say
  int32_t chunk_blocks;  ///< blocks per chunk side, 1...32
} cv_tsdf_params;

/// Which pixels of a depth map are fused.
typedef struct cv_tsdf_integration {
  /// With a confidence map, pixels below this level are skipped (ARKit: 0 low, 1 medium, 2 high).
  int32_t min_confidence;
  float min_depth;  ///< metres, >= 0
  float max_depth;  ///< metres, > min_depth: farther pixels are skipped
} cv_tsdf_integration;

/// A new, empty volume; NULL with a status naming the bad parameter.
cv_tsdf *cv_tsdf_create(cv_tsdf_params params, cv_status *status) CVISION_NOEXCEPT;

/// Frees a volume (NULL is fine).
void cv_tsdf_destroy(cv_tsdf *tsdf) CVISION_NOEXCEPT;

/// Fuses one depth map: `depth` holds `width` x `height` z-depths in metres, row-major, tightly
/// packed (NaN, infinite or out of range: no measurement); `confidence` (optional, same layout, one
/// byte a pixel) filters pixels; `intrinsics` are the depth map's own; `camera_from_world` is the
/// optical frame's pose. Blocks are allocated along each usable pixel's ray within the truncation
/// distance of its depth; every voxel of those blocks that projects (nearest pixel) onto a usable
/// pixel no more than the truncation distance behind its surface averages in the clamped signed
/// distance along the optical axis. The chunks of the updated blocks (and the chunks below whose
/// cubes reach into them) become dirty. `updated_blocks` (optional) receives how many blocks changed.
int32_t cv_tsdf_integrate(cv_tsdf *tsdf, const float *depth, const uint8_t *confidence, int32_t width,
                          int32_t height, cv_intrinsics intrinsics, cv_pose camera_from_world,
                          cv_tsdf_integration integration, int32_t *updated_blocks,
                          cv_status *status) CVISION_NOEXCEPT;

/// The chunks made dirty since the last call, as (x, y, z) triples sorted by z, then y, then x, and
/// clears them. `count` receives how many there are; when more than `capacity`, returns
/// CV_ERR_BUFFER_TOO_SMALL and keeps them.
int32_t cv_tsdf_take_dirty_chunks(cv_tsdf *tsdf, int32_t *chunks, int32_t capacity, int32_t *count,
                                  cv_status *status) CVISION_NOEXCEPT;

/// The surface mesh of chunk (x, y, z) by marching cubes over cubes whose eight corners were all
/// observed: `positions` (x, y, z per vertex, metres, relative to the chunk's lowest voxel),
/// `normals` (unit, x, y, z per vertex, the distance field's gradient: towards free space), and
/// `indices` (three per triangle, counter-clockwise seen from the normals' side). Vertices on a
/// chunk's upper faces are repeated by the next chunk. Counts go to `vertex_count` and
/// `triangle_count`; when a capacity is too small, returns CV_ERR_BUFFER_TOO_SMALL without writing
/// (the mesh is kept, so a second call for the same chunk with larger buffers does not mesh again).
int32_t cv_tsdf_extract_chunk(cv_tsdf *tsdf, const int32_t chunk[3], float *positions, float *normals,
                              int32_t vertex_capacity, uint32_t *indices, int32_t triangle_capacity,
                              int32_t *vertex_count, int32_t *triangle_count, cv_status *status) CVISION_NOEXCEPT;

/// Empties the volume: no blocks, no dirty chunks.
void cv_tsdf_reset(cv_tsdf *tsdf) CVISION_NOEXCEPT;

/// The number of allocated blocks (memory: about 4 KiB each).
int64_t cv_tsdf_block_count(const cv_tsdf *tsdf) CVISION_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif  // ARSIM_CVISION_TSDF_H
