// The C entry points of the TSDF volume (cv_tsdf_* in cvision.h): argument checks, and the last
// extracted chunk mesh kept for a second call with larger buffers.

#include <algorithm>
#include <cmath>
#include <memory>

#include "cvision_tsdf.h"
#include "status.hpp"
#include "tsdf.hpp"

struct cv_tsdf {
  cvision::tsdf::Volume volume;
  /// The mesh extracted last, for a second call with larger buffers.
  cvision::tsdf::Mesh mesh;
  cvision::tsdf::Key mesh_chunk{0, 0, 0};
  bool mesh_valid = false;
  explicit cv_tsdf(const cv_tsdf_params &params) : volume(params) {}
};

using cvision::fail;
using cvision::guarded;

cv_tsdf *cv_tsdf_create(cv_tsdf_params params, cv_status *status) noexcept {
  cv_tsdf *result = nullptr;
  guarded(status, "cv_tsdf_create", [&](cv_status *) {
    if (!(std::isfinite(params.voxel_size) && params.voxel_size >= 0.002 && params.voxel_size <= 0.5)) {
      fail(CV_ERR_INVALID_ARGUMENT, "voxel size must be 0.002...0.5 m (got %g)", params.voxel_size);
    }
    if (!(std::isfinite(params.truncation) && params.truncation >= params.voxel_size &&
          params.truncation <= 4 * cvision::tsdf::kBlockSide * params.voxel_size)) {
      fail(CV_ERR_INVALID_ARGUMENT, "truncation must be 1...32 voxels (%g m for a voxel of %g m)",
           params.truncation, params.voxel_size);
    }
    if (!(std::isfinite(params.max_weight) && params.max_weight >= 1)) {
      fail(CV_ERR_INVALID_ARGUMENT, "max_weight must be at least 1 (got %g)", double(params.max_weight));
    }
    if (params.chunk_blocks < 1 || params.chunk_blocks > 32) {
      fail(CV_ERR_INVALID_ARGUMENT, "chunk_blocks must be 1...32 (got %d)", params.chunk_blocks);
    }
    result = new cv_tsdf(params);
    return int32_t(CV_OK);
  });
  return result;
}

void cv_tsdf_destroy(cv_tsdf *tsdf) noexcept { delete tsdf; }

int32_t cv_tsdf_integrate(cv_tsdf *tsdf, const float *depth, const uint8_t *confidence, int32_t width,
                          int32_t height, cv_intrinsics intrinsics, cv_pose camera_from_world,
                          cv_tsdf_integration integration, int32_t *updated_blocks,
                          cv_status *status) noexcept {
  return guarded(status, "cv_tsdf_integrate", [&](cv_status *) {
    cvision::require_pointer(tsdf, "tsdf");
    cvision::require_pointer(depth, "depth");
    if (width <= 0 || height <= 0 || int64_t(width) * height > CV_IMAGE_MAX_PIXELS) {
      fail(CV_ERR_INVALID_ARGUMENT, "depth size must be positive and at most %d pixels (got %d x %d)",
           CV_IMAGE_MAX_PIXELS, width, height);
    }
    cvision::require_intrinsics(intrinsics);
    for (int i = 0; i < 9; ++i) cvision::require_finite(camera_from_world.r[i], "camera_from_world.r");
    for (int i = 0; i < 3; ++i) cvision::require_finite(camera_from_world.t[i], "camera_from_world.t");
    if (!(std::isfinite(integration.min_depth) && std::isfinite(integration.max_depth) &&
          integration.min_depth >= 0 && integration.max_depth > integration.min_depth)) {
      fail(CV_ERR_INVALID_ARGUMENT, "depth range must be finite with 0 <= min < max (got %g...%g m)",
           double(integration.min_depth), double(integration.max_depth));
    }
    tsdf->mesh_valid = false;
    int32_t updated = tsdf->volume.integrate(depth, confidence, width, height, intrinsics, camera_from_world,
                                             integration);
    if (updated_blocks != nullptr) *updated_blocks = updated;
    return int32_t(CV_OK);
  });
}

int32_t cv_tsdf_take_dirty_chunks(cv_tsdf *tsdf, int32_t *chunks, int32_t capacity, int32_t *count,
                                  cv_status *status) noexcept {
  return guarded(status, "cv_tsdf_take_dirty_chunks", [&](cv_status *target) {
    cvision::require_pointer(tsdf, "tsdf");
    cvision::require_pointer(count, "count");
    size_t dirty = tsdf->volume.dirty_count();
    *count = int32_t(std::min<size_t>(dirty, INT32_MAX));
    if (size_t(std::max(capacity, 0)) < dirty) {
      cvision::set_status(target, CV_ERR_BUFFER_TOO_SMALL, "%zu dirty chunks do not fit in %d", dirty, capacity);
      return int32_t(CV_ERR_BUFFER_TOO_SMALL);
    }
    if (dirty > 0) cvision::require_pointer(chunks, "chunks");
    auto keys = tsdf->volume.take_dirty();
    for (size_t i = 0; i < keys.size(); ++i) {
      chunks[3 * i] = keys[i].x;
      chunks[3 * i + 1] = keys[i].y;
      chunks[3 * i + 2] = keys[i].z;
    }
    return int32_t(CV_OK);
  });
}

int32_t cv_tsdf_extract_chunk(cv_tsdf *tsdf, const int32_t chunk[3], float *positions, float *normals,
                              int32_t vertex_capacity, uint32_t *indices, int32_t triangle_capacity,
                              int32_t *vertex_count, int32_t *triangle_count, cv_status *status) noexcept {
  return guarded(status, "cv_tsdf_extract_chunk", [&](cv_status *target) {
    cvision::require_pointer(tsdf, "tsdf");
    cvision::require_pointer(chunk, "chunk");
    cvision::require_pointer(vertex_count, "vertex_count");
    cvision::require_pointer(triangle_count, "triangle_count");
    const int32_t limit = (1 << 20) / 32 - 1;
    for (int i = 0; i < 3; ++i) {
      if (chunk[i] < -limit || chunk[i] > limit) {
        fail(CV_ERR_INVALID_ARGUMENT, "chunk coordinate %d is out of range (+-%d)", chunk[i], limit);
      }
    }
    cvision::tsdf::Key key{chunk[0], chunk[1], chunk[2]};
    if (!tsdf->mesh_valid || !(tsdf->mesh_chunk == key)) {
      tsdf->volume.extract(key, tsdf->mesh);
      tsdf->mesh_chunk = key;
      tsdf->mesh_valid = true;
    }
    const auto &mesh = tsdf->mesh;
    size_t vertices = mesh.positions.size() / 3, triangles = mesh.indices.size() / 3;
    if (vertices > size_t(INT32_MAX) || triangles > size_t(INT32_MAX)) {
      fail(CV_ERR_INTERNAL, "chunk mesh too large (%zu vertices)", vertices);
    }
    *vertex_count = int32_t(vertices);
    *triangle_count = int32_t(triangles);
    if (size_t(std::max(vertex_capacity, 0)) < vertices || size_t(std::max(triangle_capacity, 0)) < triangles) {
      cvision::set_status(target, CV_ERR_BUFFER_TOO_SMALL, "chunk mesh of %zu vertices and %zu triangles does not fit",
                          vertices, triangles);
      return int32_t(CV_ERR_BUFFER_TOO_SMALL);
    }
    if (vertices > 0) {
      cvision::require_pointer(positions, "positions");
      cvision::require_pointer(normals, "normals");
      std::copy(mesh.positions.begin(), mesh.positions.end(), positions);
      std::copy(mesh.normals.begin(), mesh.normals.end(), normals);
    }
    if (triangles > 0) {
      cvision::require_pointer(indices, "indices");
      std::copy(mesh.indices.begin(), mesh.indices.end(), indices);
    }
    return int32_t(CV_OK);
  });
}

void cv_tsdf_reset(cv_tsdf *tsdf) noexcept {
  if (tsdf == nullptr) return;
  tsdf->volume.reset();
  tsdf->mesh_valid = false;
}

int64_t cv_tsdf_block_count(const cv_tsdf *tsdf) noexcept {
  return tsdf == nullptr ? 0 : int64_t(tsdf->volume.block_count());
}
