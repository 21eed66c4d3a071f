// CVision's pyramidal Lucas-Kanade tracker (see klt.hpp).
//
// The algorithm is calcOpticalFlowPyrLK's, step for step: the window's bilinear weights in 1/2^14,
// the previous window's intensities (5 fractional bits) and Scharr derivatives resampled once per
// level, the gradient matrix and its smallest eigenvalue, then at most `max_iterations` Gauss-Newton
// steps, stopping when a step is below epsilon or undoes the previous one, and the final window's
// mean absolute difference. What differs is how the window sums are formed: OpenCV handles 8 pixels of
// a row with 128-bit SIMD and the rest one by one, and sums the products in float; here a row's pixels
// go 16 at a time (AVX2, chosen at run time) or through portable code, and every sum of products is
// exact in integers (int32 lanes, flushed into int64 totals before they can overflow). So the kernels
// agree bit for bit, whatever the CPU, and results differ from OpenCV's only by its float rounding.

#include "klt.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>

#include "klt_kernels.hpp"
#include "status.hpp"

// Floating-point expressions are evaluated as written: no fused multiply-adds, whatever the target,
// so that positions do not depend on the machine.
#if defined(__clang__)
#pragma clang fp contract(off)
#endif

namespace cvision {

namespace {

using namespace lk;

/// Sums of products are scaled by 2^-20 into floats (calcOpticalFlowPyrLK's FLT_SCALE).
constexpr float kSumScale = 1.f / (1 << 20);

/// The bilinear weights (``Weights``) at fractional offset (a, b) from the top-left pixel.
Weights bilinear_weights(float a, float b) {
  Weights w;
  w.w00 = int(std::lrint((1.f - a) * (1.f - b) * float(1 << kWeightBits)));
  w.w01 = int(std::lrint(a * (1.f - b) * float(1 << kWeightBits)));
  w.w10 = int(std::lrint((1.f - a) * b * float(1 << kWeightBits)));
  w.w11 = (1 << kWeightBits) - w.w00 - w.w01 - w.w10;
  return w;
}

/// cvFloor of `v` into `out`; false when it does not fit an int (the point is outside any image).
bool floor_to_int(float v, int &out) {
  const float f = std::floor(v);
  if (!(f >= -2147483648.f && f < 2147483648.f)) return false;
  out = int(f);
  return true;
}

// MARK: - Portable kernels

inline int resample(const uint8_t *p, ptrdiff_t step, const Weights &w) {
  return (p[0] * w.w00 + p[1] * w.w01 + p[step] * w.w10 + p[step + 1] * w.w11 + (1 << (kImageShift - 1))) >>
         kImageShift;
}

inline int resample(const int16_t *p, ptrdiff_t step, const Weights &w) {
  return (p[0] * w.w00 + p[2] * w.w01 + p[step] * w.w10 + p[step + 2] * w.w11 + (1 << (kDerivativeShift - 1))) >>
         kDerivativeShift;
}

GradientSums extract_portable(Window from, DerivativeWindow derivatives, const Weights &w, Patch &patch) {
  const int n = patch.window;
  GradientSums sums;
  for (int y = 0; y < n; ++y) {
    const uint8_t *src = from.image + y * from.step;
    const int16_t *d = derivatives.values + y * derivatives.step;
    int16_t *image = patch.image + size_t(y) * patch.lanes;
    int16_t *dx = patch.dx + size_t(y) * patch.lanes;
    int16_t *dy = patch.dy + size_t(y) * patch.lanes;
    for (int x = 0; x < n; ++x) {
      const int ix = resample(d + 2 * x, derivatives.step, w), iy = resample(d + 2 * x + 1, derivatives.step, w);
      image[x] = int16_t(resample(src + x, from.step, w));
      dx[x] = int16_t(ix);
      dy[x] = int16_t(iy);
      sums.xx += int64_t(ix * ix);
      sums.xy += int64_t(ix * iy);
      sums.yy += int64_t(iy * iy);
    }
    std::fill(image + n, image + patch.lanes, int16_t(0));
    std::fill(dx + n, dx + patch.lanes, int16_t(0));
    std::fill(dy + n, dy + patch.lanes, int16_t(0));
  }
  return sums;
}

void mismatch_portable(Window to, const Weights &w, const Patch &patch, int64_t &b1, int64_t &b2) {
  const int n = patch.window;
  int64_t s1 = 0, s2 = 0;
  for (int y = 0; y < n; ++y) {
    const uint8_t *src = to.image + y * to.step;
    const int16_t *image = patch.image + size_t(y) * patch.lanes;
    const int16_t *dx = patch.dx + size_t(y) * patch.lanes;
    const int16_t *dy = patch.dy + size_t(y) * patch.lanes;
    for (int x = 0; x < n; ++x) {
      const int diff = resample(src + x, to.step, w) - image[x];
      s1 += int64_t(diff * dx[x]);
      s2 += int64_t(diff * dy[x]);
    }
  }
  b1 = s1;
  b2 = s2;
}

int64_t error_portable(Window to, const Weights &w, const Patch &patch) {
  const int n = patch.window;
  int64_t sum = 0;
  for (int y = 0; y < n; ++y) {
    const uint8_t *src = to.image + y * to.step;
    const int16_t *image = patch.image + size_t(y) * patch.lanes;
    for (int x = 0; x < n; ++x) sum += std::abs(resample(src + x, to.step, w) - image[x]);
  }
  return sum;
}

}  // namespace

Kernels lk::portable_kernels() { return {extract_portable, mismatch_portable, error_portable}; }

namespace {

Kernels kernels_for(LKKernels choice) {
#if defined(__x86_64__)
  if (choice == LKKernels::automatic && lk_avx2_available()) return avx2_kernels();
#else
  (void)choice;
#endif
  return portable_kernels();
}

/// Whether `levels` holds each level's image then its derivatives.
bool has_derivatives(const std::vector<cv::Mat> &levels) {
  return levels.size() >= 2 && levels.size() % 2 == 0 && levels[1].type() == CV_16SC2;
}

}  // namespace

bool lk_avx2_available() {
#if defined(__x86_64__)
  static const bool available = __builtin_cpu_supports("avx2");
  return available;
#else
  return false;
#endif
}

void track_lk(const std::vector<cv::Mat> &previous, const std::vector<cv::Mat> &next, const cv::Point2f *from,
              cv::Point2f *to, uint8_t *status, float *error, size_t count, const LKSettings &settings,
              LKKernels choice) {
  if (count == 0) return;
  const int n = settings.window;
  if (n < 3) fail(CV_ERR_INVALID_ARGUMENT, "the window must be at least 3 pixels (got %d)", n);
  if (!has_derivatives(previous)) fail(CV_ERR_INVALID_ARGUMENT, "the previous pyramid has no derivatives");
  const int next_step = has_derivatives(next) ? 2 : 1;
  if (next.empty()) fail(CV_ERR_INVALID_ARGUMENT, "the next pyramid is empty");
  const int max_level =
      std::min({settings.levels, int(previous.size()) / 2 - 1, int(next.size()) / next_step - 1});
  if (max_level < 0) fail(CV_ERR_INVALID_ARGUMENT, "levels must not be negative (got %d)", settings.levels);
  for (int level = 0; level <= max_level; ++level) {
    const cv::Mat &image = previous[size_t(2 * level)], &derivatives = previous[size_t(2 * level + 1)];
    const cv::Mat &target = next[size_t(next_step * level)];
    if (image.type() != CV_8UC1 || target.type() != CV_8UC1 || image.size() != target.size() ||
        derivatives.size() != image.size()) {
      fail(CV_ERR_INVALID_ARGUMENT, "the pyramids' level %d images do not match", level);
    }
    // The window reads up to `n` pixels around the image (and one more column and row past it).
    for (const cv::Mat *mat : {&image, &derivatives, &target}) {
      cv::Size whole;
      cv::Point offset;
      mat->locateROI(whole, offset);
      if (offset.x < n || offset.y < n || offset.x + mat->cols + n > whole.width ||
          offset.y + mat->rows + n > whole.height) {
        fail(CV_ERR_INVALID_ARGUMENT, "the pyramids' level %d has no border of %d pixels", level, n);
      }
    }
  }
  const Kernels kernels = kernels_for(choice);
  const int max_iterations = std::clamp(settings.max_iterations, 0, 100);
  const double epsilon = std::clamp(settings.epsilon, 0., 10.);
  const double epsilon_squared = epsilon * epsilon;
  const cv::Point2f half_window((n - 1) * 0.5f, (n - 1) * 0.5f);
  Patch patch(n);

  for (size_t i = 0; i < count; ++i) {
    status[i] = 1;
    error[i] = 0;
    for (int level = max_level; level >= 0; --level) {
      const cv::Mat &image = previous[size_t(2 * level)], &derivatives = previous[size_t(2 * level + 1)];
      const cv::Mat &target = next[size_t(next_step * level)];
      const float scale = float(1. / (1 << level));
      cv::Point2f previous_point = from[i] * scale;
      cv::Point2f next_point;
      if (level == max_level) {
        next_point = settings.use_initial ? to[i] * scale : previous_point;
      } else {
        next_point = to[i] * 2.f;
      }
      to[i] = next_point;

      previous_point -= half_window;
      int px = 0, py = 0;
      if (!floor_to_int(previous_point.x, px) || !floor_to_int(previous_point.y, py) || px < -n ||
          px >= image.cols || py < -n || py >= image.rows) {
        if (level == 0) {
          status[i] = 0;
          error[i] = 0;
        }
        continue;
      }
      Weights w = bilinear_weights(previous_point.x - float(px), previous_point.y - float(py));
      const ptrdiff_t derivative_step = ptrdiff_t(derivatives.step / sizeof(int16_t));
      const GradientSums sums = kernels.extract(
          Window{image.ptr<uint8_t>() + ptrdiff_t(py) * ptrdiff_t(image.step) + px, ptrdiff_t(image.step)},
          DerivativeWindow{derivatives.ptr<int16_t>() + ptrdiff_t(py) * derivative_step + 2 * px, derivative_step}, w,
          patch);
      const float a11 = float(sums.xx) * kSumScale, a12 = float(sums.xy) * kSumScale,
                  a22 = float(sums.yy) * kSumScale;
      float det = a11 * a22 - a12 * a12;
      const float min_eigenvalue =
          (a22 + a11 - std::sqrt((a11 - a22) * (a11 - a22) + 4.f * a12 * a12)) / float(2 * n * n);
      if (min_eigenvalue < settings.min_eigenvalue || det < FLT_EPSILON) {
        if (level == 0) status[i] = 0;
        continue;
      }
      det = 1.f / det;

      next_point -= half_window;
      cv::Point2f previous_delta;
      const ptrdiff_t target_step = ptrdiff_t(target.step);
      for (int j = 0; j < max_iterations; ++j) {
        int nx = 0, ny = 0;
        if (!floor_to_int(next_point.x, nx) || !floor_to_int(next_point.y, ny) || nx < -n || nx >= target.cols ||
            ny < -n || ny >= target.rows) {
          if (level == 0) status[i] = 0;
          break;
        }
        w = bilinear_weights(next_point.x - float(nx), next_point.y - float(ny));
        int64_t ib1 = 0, ib2 = 0;
        kernels.mismatch(Window{target.ptr<uint8_t>() + ptrdiff_t(ny) * target_step + nx, target_step}, w, patch,
                         ib1, ib2);
        const float b1 = float(ib1) * kSumScale, b2 = float(ib2) * kSumScale;
        const cv::Point2f delta((a12 * b2 - a22 * b1) * det, (a12 * b1 - a11 * b2) * det);
        next_point += delta;
        to[i] = next_point + half_window;
        if (double(delta.x) * double(delta.x) + double(delta.y) * double(delta.y) <= epsilon_squared) break;
        if (j > 0 && std::abs(delta.x + previous_delta.x) < 0.01 && std::abs(delta.y + previous_delta.y) < 0.01) {
          // The step undid the previous one: the point oscillates about the middle.
          to[i] -= delta * 0.5f;
          break;
        }
        previous_delta = delta;
      }

      if (level == 0 && status[i] != 0) {
        const cv::Point2f final_point = to[i] - half_window;
        int fx = 0, fy = 0;
        if (!floor_to_int(final_point.x, fx) || !floor_to_int(final_point.y, fy) || fx < -n ||
            fx >= target.cols || fy < -n || fy >= target.rows) {
          status[i] = 0;
          continue;
        }
        w = bilinear_weights(final_point.x - float(fx), final_point.y - float(fy));
        const int64_t sum =
            kernels.error(Window{target.ptr<uint8_t>() + ptrdiff_t(fy) * target_step + fx, target_step}, w, patch);
        error[i] = float(sum) * 1.f / float(32 * n * n);
      }
    }
  }
}

}  // namespace cvision
