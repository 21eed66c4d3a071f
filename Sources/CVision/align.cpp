// Feature alignment against reference patches (SVO's "feature alignment", Forster et al. 2014): each
// feature's patch as it looked where it was first found, warped by the affine map the motion since
// predicts, is aligned to the current image in translation, with a gain and an offset for the
// exposure. Frame-to-frame KLT accumulates its error along a track (a random walk: 0.1 px a frame
// grows to 0.3 px over ten); aligned to its first appearance a track keeps one frame's error.
//
// Per feature: the template T(d) on a (2h)² grid of offsets d (pixel centres at ±0.5 ... ±(h - 0.5)) is
// read bilinearly from the reference region at `origin + A⁻¹ d`; then Gauss-Newton on
// e(d) = I(p + d) - (α (T(d) - mean T) + β) over (p, α, β), with the template's gradients standing in for the
// image's (∇I ≈ α ∇T near the solution), so only I is sampled per iteration.

#include <array>
#include <cmath>
#include <cstdint>

#include <Eigen/Dense>

#include "cvision.h"
#include "status.hpp"

// Evaluated as written (no fused multiply-adds), so that positions do not depend on the machine.
#if defined(__clang__)
#pragma clang fp contract(off)
#endif

namespace {

using cvision::fail;

/// Bilinear sample of a row-major float grid (`width` x `height`); false when the 2x2 footprint leaves
/// it or touches a negative (unknown) value.
bool sample(const float *grid, int32_t width, int32_t height, float x, float y, float &value) {
  const float fx = std::floor(x), fy = std::floor(y);
  const int32_t x0 = static_cast<int32_t>(fx), y0 = static_cast<int32_t>(fy);
  if (x0 < 0 || y0 < 0 || x0 + 1 >= width || y0 + 1 >= height) return false;
  const float a = x - fx, b = y - fy;
  const float *row = grid + static_cast<size_t>(y0) * width + x0;
  const float v00 = row[0], v01 = row[1], v10 = row[width], v11 = row[width + 1];
  if (v00 < 0 || v01 < 0 || v10 < 0 || v11 < 0) return false;
  value = (1 - b) * ((1 - a) * v00 + a * v01) + b * ((1 - a) * v10 + a * v11);
  return true;
}

/// Aligns one feature; returns false when it cannot be (template outside its region, patch outside
/// the image, a flat patch, a step past `max_shift`, or no convergence).
bool align_one(const cv_gray_image &image, const float *region, int32_t region_size, const float *warp,
               const cv_align_params &params, float &px, float &py) {
  constexpr int32_t kMaxSide = 32;
  const int32_t h = params.half_patch, side = 2 * h;
  const int32_t n = side * side;
  // Template with a one-pixel border for its central-difference gradients.
  const int32_t bordered = side + 2;
  std::array<float, (kMaxSide + 2) * (kMaxSide + 2)> t;
  for (int32_t j = 0; j < bordered; ++j) {
    for (int32_t i = 0; i < bordered; ++i) {
      const float dx = static_cast<float>(i - h - 1) + 0.5f, dy = static_cast<float>(j - h - 1) + 0.5f;
      const float rx = warp[4] + warp[0] * dx + warp[1] * dy, ry = warp[5] + warp[2] * dx + warp[3] * dy;
      if (!sample(region, region_size, region_size, rx, ry, t[static_cast<size_t>(j) * bordered + i])) return false;
    }
  }
  std::array<float, kMaxSide * kMaxSide> value, gx, gy;
  float mean = 0;
  for (int32_t j = 0; j < side; ++j) {
    for (int32_t i = 0; i < side; ++i) {
      const float *c = &t[static_cast<size_t>(j + 1) * bordered + i + 1];
      const int32_t k = j * side + i;
      value[k] = c[0];
      gx[k] = 0.5f * (c[1] - c[-1]);
      gy[k] = 0.5f * (c[bordered] - c[-bordered]);
      mean += c[0];
    }
  }
  mean /= static_cast<float>(n);
  // The template about its mean: the gain then acts about it and stays apart from the offset.
  double structure_xx = 0, structure_yy = 0, structure_xy = 0;
  for (int32_t k = 0; k < n; ++k) {
    value[k] -= mean;
    structure_xx += gx[k] * gx[k];
    structure_yy += gy[k] * gy[k];
    structure_xy += gx[k] * gy[k];
  }
  // A flat patch fixes no position.
  const double trace = structure_xx + structure_yy;
  const double smallest =
      0.5 * (trace - std::sqrt((structure_xx - structure_yy) * (structure_xx - structure_yy) +
                               4 * structure_xy * structure_xy));
  if (!(smallest / n >= params.min_eigenvalue)) return false;

  const double start_x = px, start_y = py;
  double x = px, y = py, gain = 1, offset = mean;
  for (int32_t iteration = 0; iteration < params.max_iterations; ++iteration) {
    // Every pixel of the patch has the same fractional position: one set of bilinear weights.
    const double left = x - h + 0.5, top = y - h + 0.5;
    const double fx = std::floor(left), fy = std::floor(top);
    const int32_t x0 = static_cast<int32_t>(fx), y0 = static_cast<int32_t>(fy);
    if (!(left >= 0 && top >= 0) || x0 + side >= image.width || y0 + side >= image.height) return false;
    const float a = static_cast<float>(left - fx), b = static_cast<float>(top - fy);
    const float w00 = (1 - a) * (1 - b), w01 = a * (1 - b), w10 = (1 - a) * b, w11 = a * b;
    const float g = static_cast<float>(gain), o = static_cast<float>(offset);
    // The normal equations' 10 distinct entries (symmetric 4x4) and right-hand side.
    double nxx = 0, nxy = 0, nxv = 0, nx1 = 0, nyy = 0, nyv = 0, ny1 = 0, nvv = 0, nv1 = 0;
    double rx = 0, ry = 0, rv = 0, r1 = 0;
    for (int32_t j = 0; j < side; ++j) {
      const uint8_t *row = image.pixels + static_cast<size_t>(y0 + j) * image.stride + x0;
      const uint8_t *below = row + image.stride;
      float sxx = 0, sxy = 0, sxv = 0, sx1 = 0, syy = 0, syv = 0, sy1 = 0, svv = 0, sv1 = 0;
      float ex = 0, ey = 0, ev = 0, e1 = 0;
      for (int32_t i = 0; i < side; ++i) {
        const int32_t k = j * side + i;
        const float observed = w00 * row[i] + w01 * row[i + 1] + w10 * below[i] + w11 * below[i + 1];
        const float e = observed - (g * value[k] + o);
        // Jacobian of the model's residual: (gain ∇T, -(T - mean), -1).
        const float jx = g * gx[k], jy = g * gy[k], jv = -value[k];
        sxx += jx * jx;
        sxy += jx * jy;
        sxv += jx * jv;
        sx1 -= jx;
        syy += jy * jy;
        syv += jy * jv;
        sy1 -= jy;
        svv += jv * jv;
        sv1 -= jv;
        ex -= jx * e;
        ey -= jy * e;
        ev -= jv * e;
        e1 += e;
      }
      nxx += sxx, nxy += sxy, nxv += sxv, nx1 += sx1, nyy += syy, nyv += syv, ny1 += sy1, nvv += svv, nv1 += sv1;
      rx += ex, ry += ey, rv += ev, r1 += e1;
    }
    Eigen::Matrix4d normal;
    normal << nxx, nxy, nxv, nx1,  //
        nxy, nyy, nyv, ny1,        //
        nxv, nyv, nvv, nv1,        //
        nx1, ny1, nv1, n;
    const Eigen::Vector4d step = normal.ldlt().solve(Eigen::Vector4d(rx, ry, rv, r1));
    if (!step.allFinite()) return false;
    x += step[0];
    y += step[1];
    gain += step[2];
    offset += step[3];
    if (!(gain > 0.5 && gain < 2)) return false;
    if (std::hypot(x - start_x, y - start_y) > params.max_shift) return false;
    if (std::hypot(step[0], step[1]) < params.epsilon) {
      px = static_cast<float>(x);
      py = static_cast<float>(y);
      return true;
    }
  }
  return false;
}

}  // namespace

extern "C" int32_t cv_align_features(cv_gray_image image, const float *regions, int32_t region_count,
                                     int32_t region_size, const int32_t *slots, const float *warps, int32_t count,
                                     cv_align_params params, float *points, uint8_t *aligned,
                                     cv_status *status) noexcept {
  return cvision::guarded(status, "cv_align_features", [&](cv_status *) -> int32_t {
    (void)cvision::wrap_gray(image, "image");
    cvision::require_count(count, 0, "count");
    if (count == 0) return CV_OK;
    cvision::require_pointer(regions, "regions");
    cvision::require_pointer(warps, "warps");
    cvision::require_pointer(points, "points");
    cvision::require_pointer(aligned, "aligned");
    cvision::require_pointer(slots, "slots");
    cvision::require_count(region_count, 0, "region_count");
    if (region_size < 4 || region_size > 256) {
      fail(CV_ERR_INVALID_ARGUMENT, "region_size must be in 4...256 (got %d)", region_size);
    }
    for (int32_t f = 0; f < count; ++f) {
      if (slots[f] < 0 || slots[f] >= region_count) {
        fail(CV_ERR_INVALID_ARGUMENT, "slots[%d] = %d is not a region (0...%d)", f, slots[f], region_count - 1);
      }
    }
    if (params.half_patch < 2 || params.half_patch > 16) {
      fail(CV_ERR_INVALID_ARGUMENT, "params.half_patch must be in 2...16 (got %d)", params.half_patch);
    }
    if (params.max_iterations < 1 || params.max_iterations > 100) {
      fail(CV_ERR_INVALID_ARGUMENT, "params.max_iterations must be in 1...100 (got %d)", params.max_iterations);
    }
    if (!(params.epsilon > 0) || !(params.max_shift > 0) || !(params.min_eigenvalue >= 0) ||
        !std::isfinite(params.epsilon) || !std::isfinite(params.max_shift) || !std::isfinite(params.min_eigenvalue)) {
      fail(CV_ERR_INVALID_ARGUMENT, "params.epsilon and params.max_shift must be positive and finite, "
           "params.min_eigenvalue finite and non-negative");
    }
    for (int32_t f = 0; f < count; ++f) {
      const float *warp = warps + 6 * static_cast<size_t>(f);
      float px = points[2 * f], py = points[2 * f + 1];
      bool finite = std::isfinite(px) && std::isfinite(py);
      for (int32_t k = 0; k < 6; ++k) finite = finite && std::isfinite(warp[k]);
      const float *region = regions + static_cast<size_t>(slots[f]) * region_size * region_size;
      aligned[f] = finite && align_one(image, region, region_size, warp, params, px, py) ? 1 : 0;
      if (aligned[f] != 0) {
        points[2 * f] = px;
        points[2 * f + 1] = py;
      }
    }
    return CV_OK;
  });
}
