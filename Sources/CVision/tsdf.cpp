// The TSDF volume (tsdf.hpp): block storage, integration of depth maps, and meshing of a chunk.
// Its C entry points (cv_tsdf_* in cvision.h) are in tsdf_entry.cpp.

#include "tsdf.hpp"

#include <algorithm>
#include <cmath>
#include <memory>

#include "status.hpp"
#include "tsdf_marching_cubes.hpp"

namespace cvision::tsdf {
namespace {

/// Block coordinates are kept within +-2^20 so that a key packs into 63 bits.
constexpr int32_t kKeyLimit = 1 << 20;

int32_t floor_div(int32_t value, int32_t divisor) {
  int32_t quotient = value / divisor;
  if ((value % divisor != 0) && ((value < 0) != (divisor < 0))) --quotient;
  return quotient;
}

/// std::floor for |value| < 2^62, inline: the baseline x86-64 target has no rounding instruction, so
/// std::floor is a library call, made three times per ray sample.
inline double floor_inline(double value) {
  double truncated = double(int64_t(value));
  return truncated > value ? truncated - 1 : truncated;
}

struct Rigid {
  double r[9];
  double t[3];
  void apply(const double p[3], double out[3]) const {
    for (int i = 0; i < 3; ++i) out[i] = r[3 * i] * p[0] + r[3 * i + 1] * p[1] + r[3 * i + 2] * p[2] + t[i];
  }
  Rigid inverse() const {
    Rigid inv{};
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) inv.r[3 * i + j] = r[3 * j + i];
    }
    for (int i = 0; i < 3; ++i) {
      inv.t[i] = -(inv.r[3 * i] * t[0] + inv.r[3 * i + 1] * t[1] + inv.r[3 * i + 2] * t[2]);
    }
    return inv;
  }
};

}  // namespace

Volume::Volume(const cv_tsdf_params &params) : params_(params) {}

uint64_t Volume::pack(const Key &key) {
  return (uint64_t(uint32_t(key.x + kKeyLimit)) << 42) | (uint64_t(uint32_t(key.y + kKeyLimit)) << 21) |
         uint64_t(uint32_t(key.z + kKeyLimit));
}

Block *Volume::find(const Key &key) {
  auto found = index_.find(pack(key));
  return found == index_.end() ? nullptr : &blocks_[found->second];
}

const Block *Volume::find(const Key &key) const {
  auto found = index_.find(pack(key));
  return found == index_.end() ? nullptr : &blocks_[found->second];
}

Block *Volume::find_or_allocate(const Key &key) {
  auto [position, inserted] = index_.try_emplace(pack(key), uint32_t(blocks_.size()));
  if (inserted) blocks_.emplace_back();
  return &blocks_[position->second];
}

void Volume::mark_dirty(const Key &block) {
  // A block's voxels are corners of cubes in its own chunk, and of cubes in the chunks below it
  // when it lies on its chunk's lower faces.
  const int32_t n = params_.chunk_blocks;
  Key chunk{floor_div(block.x, n), floor_div(block.y, n), floor_div(block.z, n)};
  int32_t lowest_x = block.x - chunk.x * n == 0 ? -1 : 0;
  int32_t lowest_y = block.y - chunk.y * n == 0 ? -1 : 0;
  int32_t lowest_z = block.z - chunk.z * n == 0 ? -1 : 0;
  for (int32_t dz = lowest_z; dz <= 0; ++dz) {
    for (int32_t dy = lowest_y; dy <= 0; ++dy) {
      for (int32_t dx = lowest_x; dx <= 0; ++dx) dirty_.insert(Key{chunk.x + dx, chunk.y + dy, chunk.z + dz});
    }
  }
}

int32_t Volume::integrate(const float *depth, const uint8_t *confidence, int32_t width, int32_t height,
                          const cv_intrinsics &k, const cv_pose &camera_from_world,
                          const cv_tsdf_integration &integration) {
  Rigid camera_from_world_rigid{};
  std::copy(camera_from_world.r, camera_from_world.r + 9, camera_from_world_rigid.r);
  std::copy(camera_from_world.t, camera_from_world.t + 3, camera_from_world_rigid.t);
  const Rigid world_from_camera = camera_from_world_rigid.inverse();
  const double voxel = params_.voxel_size;
  const double truncation = params_.truncation;
  const double block_side = voxel * kBlockSide;
  // The depths fused, 0 where a pixel is not (unknown, out of range, not confident enough).
  std::vector<float> &usable = usable_;
  usable.resize(size_t(width) * height);
  for (size_t i = 0; i < usable.size(); ++i) {
    float d = depth[i];
    bool keep = std::isfinite(d) && d >= integration.min_depth && d <= integration.max_depth && d > 0 &&
                (confidence == nullptr || confidence[i] >= integration.min_confidence);
    usable[i] = keep ? d : 0.0f;
  }

  // The blocks along the rays of usable pixels within the truncation band, sampled at most half a
  // block apart so that none is stepped over. Every other pixel in each direction: neighbouring
  // pixels' surface points lie far closer together than a block's side at any depth a map reaches
  // (the rest of the voxels their depth updates are in the same blocks).
  const int samples = std::max(2, int(std::ceil(2 * truncation / (block_side / 2))) + 1);
  const double limit = double(kKeyLimit - 2) * block_side;
  std::vector<uint64_t> touched_keys;
  std::vector<Key> touched;
  std::vector<uint64_t> previous(size_t(samples), UINT64_MAX);
  touched_keys.reserve(size_t(width) * height / 16);
  for (int32_t v = 0; v < height; v += 2) {
    double ray_y = (v - k.cy) / k.fy;
    for (int32_t u = 0; u < width; u += 2) {
      double d = usable[size_t(v) * width + u];
      if (d <= 0) continue;
      double ray[3] = {(u - k.cx) / k.fx, ray_y, 1.0};
      for (int s = 0; s < samples; ++s) {
        double z = d - truncation + 2 * truncation * s / (samples - 1);
        if (z <= 0) continue;
        double camera[3] = {ray[0] * z, ray[1] * z, z}, world[3];
        world_from_camera.apply(camera, world);
        if (std::fabs(world[0]) > limit || std::fabs(world[1]) > limit || std::fabs(world[2]) > limit) continue;
        Key key{int32_t(floor_inline(world[0] / block_side)), int32_t(floor_inline(world[1] / block_side)),
                int32_t(floor_inline(world[2] / block_side))};
        uint64_t packed = pack(key);
        if (packed == previous[s]) continue;
        previous[s] = packed;
        touched_keys.push_back(packed);
      }
    }
  }
  std::sort(touched_keys.begin(), touched_keys.end());
  touched_keys.erase(std::unique(touched_keys.begin(), touched_keys.end()), touched_keys.end());
  touched.reserve(touched_keys.size());
  for (uint64_t packed : touched_keys) {
    touched.push_back(Key{int32_t((packed >> 42) & 0x1FFFFF) - kKeyLimit,
                          int32_t((packed >> 21) & 0x1FFFFF) - kKeyLimit, int32_t(packed & 0x1FFFFF) - kKeyLimit});
  }

  // Projective update of every voxel of those blocks: the signed distance along the optical axis
  // to the depth of the pixel the voxel projects to (nearest pixel), truncated.
  int32_t updated_blocks = 0;
  const float max_weight = params_.max_weight;
  const double *r = camera_from_world.r;
  const double *t = camera_from_world.t;
  for (const Key &key : touched) {
    Block &block = *find_or_allocate(key);
    bool changed = false;
    const double origin[3] = {key.x * block_side, key.y * block_side, key.z * block_side};
    for (int vz = 0; vz < kBlockSide; ++vz) {
      for (int vy = 0; vy < kBlockSide; ++vy) {
        double wy = origin[1] + vy * voxel, wz = origin[2] + vz * voxel;
        // The camera coordinates of the row's first voxel, then steps along x.
        double base[3], step[3];
        for (int i = 0; i < 3; ++i) {
          base[i] = r[3 * i] * origin[0] + r[3 * i + 1] * wy + r[3 * i + 2] * wz + t[i];
          step[i] = r[3 * i] * voxel;
        }
        for (int vx = 0; vx < kBlockSide; ++vx) {
          double x = base[0] + step[0] * vx, y = base[1] + step[1] * vx, z = base[2] + step[2] * vx;
          if (z <= 0) continue;
          double inverse_z = 1.0 / z;
          // Nearest pixel: the coordinates plus a half, truncated (both are positive here).
          double pu = k.fx * x * inverse_z + k.cx + 0.5, pv = k.fy * y * inverse_z + k.cy + 0.5;
          if (!(pu > 0 && pv > 0 && pu < width && pv < height)) continue;
          double d = usable[size_t(int32_t(pv)) * width + size_t(int32_t(pu))];
          if (d <= 0) continue;
          double sdf = d - z;
          if (sdf < -truncation) continue;
          float value = float(std::min(1.0, sdf / truncation));
          Voxel &voxel_value = block.voxels[(vz * kBlockSide + vy) * kBlockSide + vx];
          float weight = voxel_value.weight;
          voxel_value.sdf = (voxel_value.sdf * weight + value) / (weight + 1);
          voxel_value.weight = std::min(weight + 1, max_weight);
          changed = true;
        }
      }
    }
    if (changed) {
      ++updated_blocks;
      mark_dirty(key);
    }
  }
  return updated_blocks;
}

std::vector<Key> Volume::take_dirty() {
  std::vector<Key> keys(dirty_.begin(), dirty_.end());
  dirty_.clear();
  return keys;
}

void Volume::reset() {
  index_.clear();
  blocks_.clear();
  dirty_.clear();
}

void Volume::extract(const Key &chunk, Mesh &mesh) {
  mesh.positions.clear();
  mesh.normals.clear();
  mesh.indices.clear();
  const int32_t n = params_.chunk_blocks;
  const int32_t side = n * kBlockSide;  // cubes per chunk side
  // A dense copy of the voxels the chunk's cubes and their normals read: grid points -1...side + 1
  // from the chunk's lowest voxel in each direction.
  const int32_t dense_side = side + 3;
  std::vector<Voxel> &dense = scratch_.dense;
  dense.assign(size_t(dense_side) * dense_side * dense_side, Voxel{});
  const int32_t first_voxel[3] = {chunk.x * side - 1, chunk.y * side - 1, chunk.z * side - 1};
  bool any = false;
  for (int32_t bz = floor_div(first_voxel[2], kBlockSide); bz * kBlockSide < first_voxel[2] + dense_side; ++bz) {
    for (int32_t by = floor_div(first_voxel[1], kBlockSide); by * kBlockSide < first_voxel[1] + dense_side; ++by) {
      for (int32_t bx = floor_div(first_voxel[0], kBlockSide); bx * kBlockSide < first_voxel[0] + dense_side;
           ++bx) {
        const Block *block = find(Key{bx, by, bz});
        if (block == nullptr) continue;
        any = true;
        for (int vz = 0; vz < kBlockSide; ++vz) {
          int32_t dz = bz * kBlockSide + vz - first_voxel[2];
          if (dz < 0 || dz >= dense_side) continue;
          for (int vy = 0; vy < kBlockSide; ++vy) {
            int32_t dy = by * kBlockSide + vy - first_voxel[1];
            if (dy < 0 || dy >= dense_side) continue;
            // The row's voxels that fall inside the dense copy, at once.
            int32_t first_dx = bx * kBlockSide - first_voxel[0];
            int32_t from = std::max(0, -first_dx), to = std::min(kBlockSide, dense_side - first_dx);
            if (from >= to) continue;
            const Voxel *row = &block->voxels[size_t(vz * kBlockSide + vy) * kBlockSide];
            std::copy(row + from, row + to, &dense[(size_t(dz) * dense_side + dy) * dense_side + first_dx + from]);
          }
        }
      }
    }
  }
  if (!any) return;
  auto index = [&](int32_t x, int32_t y, int32_t z) {
    return (size_t(z + 1) * dense_side + (y + 1)) * dense_side + (x + 1);
  };
  auto at = [&](int32_t x, int32_t y, int32_t z) -> const Voxel & { return dense[index(x, y, z)]; };
  // Per grid point, bit 0: observed; bit 1: negative (behind the surface). A cube reads these to
  // skip the many that the surface does not cross.
  std::vector<uint8_t> &flags = scratch_.flags;
  flags.resize(dense.size());
  for (size_t i = 0; i < dense.size(); ++i) {
    flags[i] = uint8_t((dense[i].weight > 0 ? 1 : 0) | (dense[i].sdf < 0 ? 2 : 0));
  }
  // Offsets of a cube's corners from its lowest corner in the dense copy (corner c at
  // (c & 1, (c >> 1) & 1, (c >> 2) & 1)).
  size_t corner_offset[8];
  for (int c = 0; c < 8; ++c) corner_offset[c] = index(c & 1, (c >> 1) & 1, (c >> 2) & 1) - index(0, 0, 0);
  // The gradient of the distance at a grid point: central differences where both neighbours were
  // observed, one-sided where one was.
  auto gradient = [&](int32_t x, int32_t y, int32_t z, float out[3]) {
    const int32_t p[3] = {x, y, z};
    const float centre = at(x, y, z).sdf;
    for (int axis = 0; axis < 3; ++axis) {
      int32_t lo[3] = {p[0], p[1], p[2]}, hi[3] = {p[0], p[1], p[2]};
      lo[axis] -= 1;
      hi[axis] += 1;
      const Voxel &a = at(lo[0], lo[1], lo[2]);
      const Voxel &b = at(hi[0], hi[1], hi[2]);
      if (a.weight > 0 && b.weight > 0) {
        out[axis] = (b.sdf - a.sdf) / 2;
      } else if (b.weight > 0) {
        out[axis] = b.sdf - centre;
      } else if (a.weight > 0) {
        out[axis] = centre - a.sdf;
      } else {
        out[axis] = 0;
      }
    }
  };

  const auto &edges = cube_edges();
  const auto &cases = cube_cases();
  // Vertex of each crossed grid edge, indexed by its lower grid point (chunk-local, 0...side) and
  // axis; kNoVertex until the edge's first cube makes it.
  constexpr uint32_t kNoVertex = UINT32_MAX;
  const int32_t edge_side = side + 1;
  std::vector<uint32_t> &vertex_of_edge = scratch_.vertex_of_edge;
  vertex_of_edge.resize(size_t(edge_side) * edge_side * edge_side * 3, kNoVertex);
  std::vector<uint32_t> &edges_set = scratch_.edges_set;
  // Cleared here rather than on return, so that a call cut short by an exception leaves none set.
  for (uint32_t index : edges_set) vertex_of_edge[index] = kNoVertex;
  edges_set.clear();
  const float voxel = float(params_.voxel_size);
  for (int32_t z = 0; z < side; ++z) {
    for (int32_t y = 0; y < side; ++y) {
      for (int32_t x = 0; x < side; ++x) {
        const size_t lowest = index(x, y, z);
        int pattern = 0, observed = 1;
        for (int c = 0; c < 8; ++c) {
          const uint8_t flag = flags[lowest + corner_offset[c]];
          observed &= flag;
          pattern |= ((flag >> 1) & 1) << c;
        }
        if (!observed || pattern == 0 || pattern == 255) continue;
        float values[8];
        for (int c = 0; c < 8; ++c) values[c] = dense[lowest + corner_offset[c]].sdf;
        const CubeCase &cube = cases[pattern];
        uint32_t vertex_index[12];
        for (int e = 0; e < 12; ++e) {
          const CubeEdge &edge = edges[e];
          bool crossed = ((pattern >> edge.from) & 1) != ((pattern >> edge.to) & 1);
          if (!crossed) continue;
          int32_t gx = x + (edge.from & 1), gy = y + ((edge.from >> 1) & 1), gz = z + ((edge.from >> 2) & 1);
          const size_t edge_index = ((size_t(gz) * edge_side + gy) * edge_side + gx) * 3 + edge.axis;
          uint32_t &slot = vertex_of_edge[edge_index];
          if (slot != kNoVertex) {
            vertex_index[e] = slot;
            continue;
          }
          slot = uint32_t(mesh.positions.size() / 3);
          edges_set.push_back(uint32_t(edge_index));
          vertex_index[e] = slot;
          float a = values[edge.from], b = values[edge.to];
          float s = a / (a - b);
          float position[3] = {float(gx), float(gy), float(gz)};
          position[edge.axis] += s;
          for (int i = 0; i < 3; ++i) mesh.positions.push_back(position[i] * voxel);
          float ga[3], gb[3], g[3];
          int32_t hx = gx + (edge.axis == 0), hy = gy + (edge.axis == 1), hz = gz + (edge.axis == 2);
          gradient(gx, gy, gz, ga);
          gradient(hx, hy, hz, gb);
          for (int i = 0; i < 3; ++i) g[i] = ga[i] + s * (gb[i] - ga[i]);
          float length = std::sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
          if (!(length > 0)) {
            // No gradient: the axis of the edge, towards its positive end.
            g[0] = g[1] = g[2] = 0;
            g[edge.axis] = a < 0 ? 1.0f : -1.0f;
            length = 1;
          }
          for (int i = 0; i < 3; ++i) mesh.normals.push_back(g[i] / length);
        }
        for (int i = 0; i < cube.triangle_count; ++i) {
          uint32_t a = vertex_index[cube.triangles[i][0]];
          uint32_t b = vertex_index[cube.triangles[i][1]];
          uint32_t c = vertex_index[cube.triangles[i][2]];
          if (a == b || b == c || a == c) continue;
          mesh.indices.push_back(a);
          mesh.indices.push_back(b);
          mesh.indices.push_back(c);
        }
      }
    }
  }
}

}  // namespace cvision::tsdf
