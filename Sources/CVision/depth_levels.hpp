// Internal to icp.cpp: the depth pyramid, reference points and normals, and the four-lane
// arithmetic the association loop runs on (see icp.cpp for the method and its guarantees).

#ifndef ARSIM_CVISION_DEPTH_LEVELS_HPP
#define ARSIM_CVISION_DEPTH_LEVELS_HPP

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "geometry.hpp"
#include "status.hpp"

namespace cvision::icp {

using cvision::fail;
using cvision::Pose;

/// Depth discontinuity threshold: two pixels one pixel apart (at focal length f, pixels) are on
/// the same surface when their depths differ by at most kEdgeSlope * d / f, which accepts
/// surfaces seen at more than atan(1 / kEdgeSlope) ~ 5.7 degrees from the ray.
constexpr double kEdgeSlope = 10.0;

/// Fewest correspondences a Gauss-Newton step (and the final pose) needs.
constexpr int kMinCorrespondences = 6;

/// Coarsest level size accepted (pixels, both directions).
constexpr int kMinLevelSize = 4;

/// Points processed together (the width of Float4).
constexpr int kLanes = 4;

/// Points whose sums are accumulated in single precision before they are added into doubles.
constexpr size_t kBlock = 512;

// MARK: Four-lane arithmetic

/// Four floats or four 32-bit integers. Comparisons give 0 or -1 per lane.
typedef float Float4 __attribute__((vector_size(16)));
typedef int32_t Int4 __attribute__((vector_size(16)));

inline Float4 load4(const float *p) {
  Float4 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline Float4 splat(double x) { return Float4{} + float(x); }
inline Float4 select(Int4 mask, Float4 a, Float4 b) { return Float4((Int4(a) & mask) | (Int4(b) & ~mask)); }
inline Float4 abs4(Float4 x) { return Float4(Int4(x) & 0x7fffffff); }
inline bool any(Int4 mask) { return (mask[0] | mask[1] | mask[2] | mask[3]) != 0; }
inline double sum(Float4 x) { return (double(x[0]) + double(x[1])) + (double(x[2]) + double(x[3])); }

/// Normals (pointing towards the camera, not normalised) of four pixels from the central
/// differences of their back-projected neighbours `step` pixels away:
/// k = (P(v + step) - P(v - step)) x (P(u + step) - P(u - step)).
/// `x`, `y`: normalised coordinates (u - cx) / fx, (v - cy) / fy of the pixels; `step_x`,
/// `step_y`: step / fx, step / fy; d, left, right, up, down: depths of the pixel and its
/// neighbours. `ok` is false where a neighbour is invalid (not > 0, NaN included) or differs from
/// d by more than `tolerance` (a depth discontinuity), or where k vanishes.
struct Normals4 {
  Float4 x, y, z;
  Int4 ok;
};

inline Normals4 normals4(Float4 x, Float4 y, Float4 step_x, Float4 step_y, Float4 d, Float4 left, Float4 right,
                         Float4 up, Float4 down, Float4 tolerance) {
  const Float4 zero = Float4{};
  Normals4 k;
  k.ok = (left > zero) & (right > zero) & (up > zero) & (down > zero) & (abs4(left - d) <= tolerance) &
         (abs4(right - d) <= tolerance) & (abs4(up - d) <= tolerance) & (abs4(down - d) <= tolerance);
  const Float4 dx0 = (x + step_x) * right - (x - step_x) * left, dx1 = y * (right - left), dx2 = right - left;
  const Float4 dy0 = x * (down - up), dy1 = (y + step_y) * down - (y - step_y) * up, dy2 = down - up;
  k.x = dy1 * dx2 - dy2 * dx1;
  k.y = dy2 * dx0 - dy0 * dx2;
  k.z = dy0 * dx1 - dy1 * dx0;
  k.ok &= (k.x * k.x + k.y * k.y + k.z * k.z) > zero;
  return k;
}

// MARK: Pyramid

/// One pyramid level of a depth map: depths (0 = invalid) and the level's intrinsics.
struct DepthLevel {
  int width = 0;
  int height = 0;
  double fx = 0, fy = 0, cx = 0, cy = 0;
  double edge_ratio = 0;  // kEdgeSlope / min(fx, fy): tolerance per pixel, relative to depth
  int normal_step = 1;    // neighbours used for normals are this many pixels away
  std::vector<float> depth;

  void set_intrinsics(double fx_, double fy_, double cx_, double cy_) {
    fx = fx_;
    fy = fy_;
    cx = cx_;
    cy = cy_;
    edge_ratio = kEdgeSlope / std::min(fx, fy);
  }
};

/// Copies a caller's depth map, marking NaN, non-positive and out-of-range depths with 0.
inline void load_level0(const float *input, int width, int height, double min_depth, double max_depth,
                 DepthLevel &level) {
  level.width = width;
  level.height = height;
  const size_t count = size_t(width) * size_t(height);
  level.depth.resize(count);
  float *out = level.depth.data();
  // The float bounds equivalent to the double ones: d >= low <=> double(d) >= min_depth.
  float low = float(min_depth);
  if (double(low) < min_depth) low = std::nextafter(low, std::numeric_limits<float>::infinity());
  float high = max_depth >= double(std::numeric_limits<float>::max()) ? std::numeric_limits<float>::infinity()
                                                                       : float(max_depth);
  if (double(high) > max_depth) high = std::nextafter(high, 0.0f);
  for (size_t i = 0; i < count; ++i) {
    const float d = input[i];
    // NaN fails every comparison and so becomes 0.
    out[i] = (d > 0 && d >= low && d <= high) ? d : 0.0f;
  }
}

/// 2x2 downsampling that averages the valid depths of each block, unless they differ by more
/// than the discontinuity threshold of the finer level (then the coarse pixel is invalid).
inline void downsample(const DepthLevel &fine, DepthLevel &coarse) {
  coarse.width = fine.width / 2;
  coarse.height = fine.height / 2;
  coarse.depth.resize(size_t(coarse.width) * size_t(coarse.height));
  // Block corners are up to two pixel steps apart (diagonal).
  const float ratio = float(2.0 * fine.edge_ratio);
  for (int y = 0; y < coarse.height; ++y) {
    const float *top = fine.depth.data() + size_t(2 * y) * size_t(fine.width);
    const float *bottom = top + fine.width;
    float *out = coarse.depth.data() + size_t(y) * size_t(coarse.width);
    for (int x = 0; x < coarse.width; ++x) {
      const float block[4] = {top[2 * x], top[2 * x + 1], bottom[2 * x], bottom[2 * x + 1]};
      float sum = 0, low = std::numeric_limits<float>::infinity(), high = 0;
      int valid = 0;
      for (float d : block) {
        if (d > 0) {
          sum += d;
          low = std::min(low, d);
          high = std::max(high, d);
          ++valid;
        }
      }
      out[x] = (valid == 0 || high - low > ratio * low) ? 0.0f : sum / float(valid);
    }
  }
  coarse.set_intrinsics(fine.fx / 2, fine.fy / 2, (fine.cx - 0.5) / 2, (fine.cy - 0.5) / 2);
}

// MARK: Reference samples

/// The reference surface of one level: points and unit normals (reference optical frame) as
/// separate arrays, padded to a multiple of kLanes with points that can never match (NaN
/// position, zero normal).
struct ReferenceSamples {
  std::vector<float> px, py, pz, nx, ny, nz;
  size_t count = 0;      // real points
  int valid_pixels = 0;  // sampled pixels with a valid depth (with or without a normal)
};

/// Samples the reference surface of one level at every `stride`-th pixel in x and y, keeping the
/// pixels with a valid depth and normal.
inline void sample_reference(const DepthLevel &level, int stride, ReferenceSamples &samples) {
  const int width = level.width, height = level.height, step = level.normal_step;
  const ptrdiff_t vertical = ptrdiff_t(step) * width;
  const size_t columns = size_t((width + stride - 1) / stride);
  const size_t capacity = columns * size_t((height + stride - 1) / stride) + kLanes;
  std::vector<float> *arrays[6] = {&samples.px, &samples.py, &samples.pz, &samples.nx, &samples.ny, &samples.nz};
  for (std::vector<float> *array : arrays) {
    if (array->size() < capacity) array->resize(capacity);
  }
  float *px = samples.px.data(), *py = samples.py.data(), *pz = samples.pz.data();
  float *nx = samples.nx.data(), *ny = samples.ny.data(), *nz = samples.nz.data();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Float4 step_x = splat(step / level.fx), step_y = splat(step / level.fy);
  const Float4 edge_tolerance = splat(level.edge_ratio * step);
  const double inverse_fx = 1.0 / level.fx, inverse_fy = 1.0 / level.fy;
  size_t n = 0;
  int valid_pixels = 0;
  for (int v = 0; v < height; v += stride) {
    const float *row = level.depth.data() + size_t(v) * size_t(width);
    const bool row_inside = v >= step && v < height - step;
    const Float4 y = splat((v - level.cy) * inverse_fy);
    for (int u0 = 0; u0 < width; u0 += kLanes * stride) {
      alignas(16) float centre[kLanes], left[kLanes], right[kLanes], up[kLanes], down[kLanes], xs[kLanes];
      for (int lane = 0; lane < kLanes; ++lane) {
        const int u = u0 + lane * stride;
        xs[lane] = float((u - level.cx) * inverse_fx);
        centre[lane] = u < width ? row[u] : 0.0f;
        if (row_inside && u >= step && u < width - step) {
          left[lane] = row[u - step];
          right[lane] = row[u + step];
          up[lane] = row[u - vertical];
          down[lane] = row[u + vertical];
        } else {
          left[lane] = right[lane] = up[lane] = down[lane] = nan;  // no normal at the border
        }
      }
      const Float4 d = load4(centre), x = load4(xs);
      const Normals4 k = normals4(x, y, step_x, step_y, d, load4(left), load4(right), load4(up), load4(down),
                                  edge_tolerance * d);
      for (int lane = 0; lane < kLanes; ++lane) {
        if (!(centre[lane] > 0)) continue;
        ++valid_pixels;
        if (k.ok[lane] == 0) continue;
        const float inverse = 1.0f / std::sqrt(k.x[lane] * k.x[lane] + k.y[lane] * k.y[lane] + k.z[lane] * k.z[lane]);
        px[n] = x[lane] * centre[lane];
        py[n] = y[lane] * centre[lane];
        pz[n] = centre[lane];
        nx[n] = k.x[lane] * inverse;
        ny[n] = k.y[lane] * inverse;
        nz[n] = k.z[lane] * inverse;
        ++n;
      }
    }
  }
  samples.count = n;
  samples.valid_pixels = valid_pixels;
  for (; n % kLanes != 0; ++n) {
    px[n] = py[n] = pz[n] = nan;
    nx[n] = ny[n] = nz[n] = 0;
  }
  for (std::vector<float> *array : arrays) array->resize(n);  // keeps the capacity
}

}  // namespace cvision::icp

#endif
