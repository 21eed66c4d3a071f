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

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "status.hpp"

// Floating-point expressions are evaluated as written: no fused multiply-adds, whatever the target,
// so that positions do not depend on the machine.
#if defined(__clang__)
#pragma clang fp contract(off)
#endif

namespace cvision {

namespace {

/// Bilinear weights are integers in 1/2^14.
constexpr int kWeightBits = 14;
/// Resampled intensities keep 5 fractional bits: the sum of weighted pixels is shifted by 9.
constexpr int kImageShift = kWeightBits - 5;
/// Resampled derivatives keep none.
constexpr int kDerivativeShift = kWeightBits;
/// Sums of products are scaled by 2^-20 into floats (calcOpticalFlowPyrLK's FLT_SCALE).
constexpr float kSumScale = 1.f / (1 << 20);

/// The bilinear weights of the four pixels around a point at fractional offset (a, b) from the
/// top-left one: top-left, top-right, bottom-left, bottom-right.
struct Weights {
  int w00, w01, w10, w11;
};

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

/// The previous image's window, resampled at the point: intensities and derivatives, each row
/// `lanes` values long (a multiple of 16), the values past `window` zero.
struct Patch {
  explicit Patch(int window)
      : window(window), chunks((window + 15) / 16), lanes(16 * chunks), storage(size_t(3) * window * lanes + 16) {
    image = storage.data();
    dx = image + size_t(window) * lanes;
    dy = dx + size_t(window) * lanes;
  }
  int window, chunks, lanes;
  std::vector<int16_t> storage;
  int16_t *image, *dx, *dy;
};

/// The three sums of the gradient matrix: sum of dx^2, dx dy, dy^2.
struct GradientSums {
  int64_t xx = 0, xy = 0, yy = 0;
};

/// The window's top-left pixel in an image (`step` bytes a row), or in derivatives (`step` int16s a row).
struct Window {
  const uint8_t *image;
  ptrdiff_t step;
};
struct DerivativeWindow {
  const int16_t *values;
  ptrdiff_t step;
};

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

// MARK: - AVX2 kernels
//
// A window row goes in chunks of 16 pixels, the last one masked. Resampling pairs each pixel with its
// right neighbour in an int32 lane (low half: the pixel, high half: the neighbour), so that one
// _mm256_madd_epi16 with the weights (w00, w01) gives a row's share of 8 pixels; the next row's pairs,
// with (w10, w11), give the rest, and are then that row's own pairs. Loads never reach past the
// pixels calcOpticalFlowPyrLK reads (the window and one more column and row, inside the pyramid's
// border): where a chunk needs fewer than 17 pixels, the neighbours come from shifting the pixels in,
// or from a zeroed copy.

#if defined(__x86_64__)
#define LK_AVX2 __attribute__((target("avx2")))

/// Products of int16s that may be added in an int32 lane before it could overflow: the derivatives
/// are at most 16 * 255 (Scharr) in magnitude, the intensities 32 * 255, and a lane holds two
/// products a madd: |dx dx| sums take 64 madds, |diff dx| sums 32.
constexpr int kGradientMadds = 64;
constexpr int kMismatchMadds = 32;

/// Pairs (pixel, right neighbour) of 16 bytes from `p` where `avail` bytes (2...17 or more) are
/// readable: pixels 0-3 and 8-11 in `lo`, 4-7 and 12-15 in `hi`.
LK_AVX2 inline void byte_pairs(const uint8_t *p, int avail, __m256i &lo, __m256i &hi) {
  __m128i here, right;
  if (avail >= 17) {
    here = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
    right = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p + 1));
  } else if (avail == 16) {
    here = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
    right = _mm_srli_si128(here, 1);
  } else {
    alignas(16) uint8_t copy[32] = {};
    std::memcpy(copy, p, size_t(avail));
    here = _mm_load_si128(reinterpret_cast<const __m128i *>(copy));
    right = _mm_loadu_si128(reinterpret_cast<const __m128i *>(copy + 1));
  }
  const __m256i h = _mm256_cvtepu8_epi16(here), r = _mm256_cvtepu8_epi16(right);
  lo = _mm256_unpacklo_epi16(h, r);
  hi = _mm256_unpackhi_epi16(h, r);
}

/// Pairs (pixel, right neighbour) of 16 pixels' derivatives (dx, dy interleaved) from `p` where `avail`
/// pixels are readable: dx of pixels 0-7 and 8-15 in `dx0`, `dx1`, dy likewise, in pixel order.
LK_AVX2 inline void derivative_pairs(const int16_t *p, int avail, __m256i &dx0, __m256i &dx1, __m256i &dy0,
                                     __m256i &dy1) {
  __m256i v0, s0, v1, s1;
  if (avail >= 16) {
    v0 = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p));
    s0 = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p + 2));
    v1 = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p + 16));
    if (avail >= 17) {
      s1 = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p + 18));
    } else {
      // Pixels 9-15, then zero: v1 moved one pixel (4 bytes) down across the halves.
      s1 = _mm256_alignr_epi8(_mm256_permute2x128_si256(v1, v1, 0x81), v1, 4);
    }
  } else {
    alignas(32) int16_t copy[48] = {};
    std::memcpy(copy, p, size_t(avail) * 2 * sizeof(int16_t));
    v0 = _mm256_load_si256(reinterpret_cast<const __m256i *>(copy));
    s0 = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(copy + 2));
    v1 = _mm256_load_si256(reinterpret_cast<const __m256i *>(copy + 16));
    s1 = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(copy + 18));
  }
  dx0 = _mm256_blend_epi16(v0, _mm256_slli_epi32(s0, 16), 0xAA);
  dy0 = _mm256_blend_epi16(_mm256_srli_epi32(v0, 16), s0, 0xAA);
  dx1 = _mm256_blend_epi16(v1, _mm256_slli_epi32(s1, 16), 0xAA);
  dy1 = _mm256_blend_epi16(_mm256_srli_epi32(v1, 16), s1, 0xAA);
}

/// Adds the 8 int32 lanes of `lanes` into the 4 int64 lanes of `total`.
LK_AVX2 inline __m256i widen_add(__m256i total, __m256i lanes) {
  total = _mm256_add_epi64(total, _mm256_cvtepi32_epi64(_mm256_castsi256_si128(lanes)));
  return _mm256_add_epi64(total, _mm256_cvtepi32_epi64(_mm256_extracti128_si256(lanes, 1)));
}

LK_AVX2 inline int64_t reduce(__m256i total) {
  alignas(32) int64_t parts[4];
  _mm256_store_si256(reinterpret_cast<__m256i *>(parts), total);
  return parts[0] + parts[1] + parts[2] + parts[3];
}

/// The mask of a chunk's lanes inside the window (`inside` of them, 1...16).
LK_AVX2 inline __m256i inside_mask(int inside) {
  const __m256i lanes = _mm256_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  return _mm256_cmpgt_epi16(_mm256_set1_epi16(int16_t(inside)), lanes);
}

LK_AVX2 inline __m256i weight_pair(int low, int high) { return _mm256_set1_epi32(int(uint32_t(low) | (uint32_t(high) << 16))); }

/// One row's resampled intensities, in pixel order, from the row's own pairs' share (`top_lo`,
/// `top_hi`, with the top weights) and the next row's pairs (with the bottom weights).
LK_AVX2 inline __m256i resampled_row(__m256i top_lo, __m256i top_hi, __m256i lo, __m256i hi, __m256i bottom) {
  const __m256i round = _mm256_set1_epi32(1 << (kImageShift - 1));
  const __m256i r_lo = _mm256_add_epi32(_mm256_add_epi32(top_lo, _mm256_madd_epi16(lo, bottom)), round);
  const __m256i r_hi = _mm256_add_epi32(_mm256_add_epi32(top_hi, _mm256_madd_epi16(hi, bottom)), round);
  return _mm256_packs_epi32(_mm256_srai_epi32(r_lo, kImageShift), _mm256_srai_epi32(r_hi, kImageShift));
}

/// One row's resampled derivatives (dx or dy) of 16 pixels, in pixel order.
LK_AVX2 inline __m256i resampled_derivatives(__m256i top0, __m256i top1, __m256i p0, __m256i p1, __m256i bottom) {
  const __m256i round = _mm256_set1_epi32(1 << (kDerivativeShift - 1));
  const __m256i r0 = _mm256_add_epi32(_mm256_add_epi32(top0, _mm256_madd_epi16(p0, bottom)), round);
  const __m256i r1 = _mm256_add_epi32(_mm256_add_epi32(top1, _mm256_madd_epi16(p1, bottom)), round);
  const __m256i packed =
      _mm256_packs_epi32(_mm256_srai_epi32(r0, kDerivativeShift), _mm256_srai_epi32(r1, kDerivativeShift));
  return _mm256_permute4x64_epi64(packed, 0xD8);
}

LK_AVX2 GradientSums extract_avx2(Window from, DerivativeWindow derivatives, const Weights &w, Patch &patch) {
  const int n = patch.window;
  const __m256i top = weight_pair(w.w00, w.w01), bottom = weight_pair(w.w10, w.w11);
  __m256i xx = _mm256_setzero_si256(), xy = xx, yy = xx;
  __m256i total_xx = xx, total_xy = xx, total_yy = xx;
  int madds = 0;
  for (int c = 0; c < patch.chunks; ++c) {
    const int avail = std::min(17, n + 1 - 16 * c);
    const __m256i mask = inside_mask(std::min(16, n - 16 * c));
    const uint8_t *src = from.image + 16 * c;
    const int16_t *d = derivatives.values + 32 * c;
    __m256i lo, hi, dx0, dx1, dy0, dy1;
    byte_pairs(src, avail, lo, hi);
    derivative_pairs(d, avail, dx0, dx1, dy0, dy1);
    __m256i top_lo = _mm256_madd_epi16(lo, top), top_hi = _mm256_madd_epi16(hi, top);
    __m256i top_dx0 = _mm256_madd_epi16(dx0, top), top_dx1 = _mm256_madd_epi16(dx1, top);
    __m256i top_dy0 = _mm256_madd_epi16(dy0, top), top_dy1 = _mm256_madd_epi16(dy1, top);
    for (int y = 0; y < n; ++y) {
      byte_pairs(src + (y + 1) * from.step, avail, lo, hi);
      derivative_pairs(d + (y + 1) * derivatives.step, avail, dx0, dx1, dy0, dy1);
      const __m256i image = _mm256_and_si256(resampled_row(top_lo, top_hi, lo, hi, bottom), mask);
      const __m256i ix = _mm256_and_si256(resampled_derivatives(top_dx0, top_dx1, dx0, dx1, bottom), mask);
      const __m256i iy = _mm256_and_si256(resampled_derivatives(top_dy0, top_dy1, dy0, dy1, bottom), mask);
      top_lo = _mm256_madd_epi16(lo, top);
      top_hi = _mm256_madd_epi16(hi, top);
      top_dx0 = _mm256_madd_epi16(dx0, top);
      top_dx1 = _mm256_madd_epi16(dx1, top);
      top_dy0 = _mm256_madd_epi16(dy0, top);
      top_dy1 = _mm256_madd_epi16(dy1, top);
      const size_t at = size_t(y) * patch.lanes + 16 * size_t(c);
      _mm256_storeu_si256(reinterpret_cast<__m256i *>(patch.image + at), image);
      _mm256_storeu_si256(reinterpret_cast<__m256i *>(patch.dx + at), ix);
      _mm256_storeu_si256(reinterpret_cast<__m256i *>(patch.dy + at), iy);
      xx = _mm256_add_epi32(xx, _mm256_madd_epi16(ix, ix));
      xy = _mm256_add_epi32(xy, _mm256_madd_epi16(ix, iy));
      yy = _mm256_add_epi32(yy, _mm256_madd_epi16(iy, iy));
      if (++madds == kGradientMadds) {
        total_xx = widen_add(total_xx, xx);
        total_xy = widen_add(total_xy, xy);
        total_yy = widen_add(total_yy, yy);
        xx = xy = yy = _mm256_setzero_si256();
        madds = 0;
      }
    }
  }
  GradientSums sums;
  sums.xx = reduce(widen_add(total_xx, xx));
  sums.xy = reduce(widen_add(total_xy, xy));
  sums.yy = reduce(widen_add(total_yy, yy));
  return sums;
}

/// Walks the next window's resampled rows, chunk by chunk: `visit.row(resampled, at, mask)` for each
/// row of a chunk (its 16 resampled intensities, its offset in the patch, the mask of the lanes inside
/// the window), and `visit.flush()` after every kMismatchMadds rows, when the visitor's int32 sums
/// must move into its int64 totals. The mismatch and the error walk the same rows; they differ only
/// in what they add up. `Visit` is a struct whose members carry LK_AVX2 (a lambda would not inherit
/// the target, and the intrinsics cannot be inlined into it).
template <class Visit>
LK_AVX2 inline void walk_resampled(Window to, const Weights &w, const Patch &patch, Visit &visit) {
  const int n = patch.window;
  const __m256i top = weight_pair(w.w00, w.w01), bottom = weight_pair(w.w10, w.w11);
  int madds = 0;
  for (int c = 0; c < patch.chunks; ++c) {
    const int avail = std::min(17, n + 1 - 16 * c);
    const __m256i mask = inside_mask(std::min(16, n - 16 * c));
    const uint8_t *src = to.image + 16 * c;
    __m256i lo, hi;
    byte_pairs(src, avail, lo, hi);
    __m256i top_lo = _mm256_madd_epi16(lo, top), top_hi = _mm256_madd_epi16(hi, top);
    for (int y = 0; y < n; ++y) {
      byte_pairs(src + (y + 1) * to.step, avail, lo, hi);
      const __m256i resampled = resampled_row(top_lo, top_hi, lo, hi, bottom);
      top_lo = _mm256_madd_epi16(lo, top);
      top_hi = _mm256_madd_epi16(hi, top);
      visit.row(resampled, size_t(y) * patch.lanes + 16 * size_t(c), mask);
      if (++madds == kMismatchMadds) {
        visit.flush();
        madds = 0;
      }
    }
  }
}

/// The mismatch vector's sums: (resampled − template) · dx and · dy.
struct MismatchSums {
  const Patch &patch;
  __m256i s1{}, s2{}, total1{}, total2{};

  LK_AVX2 void row(__m256i resampled, size_t at, __m256i) {
    // Lanes past the window have zero derivatives: their differences add nothing.
    const __m256i diff =
        _mm256_sub_epi16(resampled, _mm256_loadu_si256(reinterpret_cast<const __m256i *>(patch.image + at)));
    s1 = _mm256_add_epi32(
        s1, _mm256_madd_epi16(diff, _mm256_loadu_si256(reinterpret_cast<const __m256i *>(patch.dx + at))));
    s2 = _mm256_add_epi32(
        s2, _mm256_madd_epi16(diff, _mm256_loadu_si256(reinterpret_cast<const __m256i *>(patch.dy + at))));
  }

  LK_AVX2 void flush() {
    total1 = widen_add(total1, s1);
    total2 = widen_add(total2, s2);
    s1 = s2 = _mm256_setzero_si256();
  }
};

LK_AVX2 void mismatch_avx2(Window to, const Weights &w, const Patch &patch, int64_t &b1, int64_t &b2) {
  MismatchSums sums{patch};
  walk_resampled(to, w, patch, sums);
  b1 = reduce(widen_add(sums.total1, sums.s1));
  b2 = reduce(widen_add(sums.total2, sums.s2));
}

/// The sum of absolute differences |resampled − template| over the window's lanes.
struct ErrorSum {
  const Patch &patch;
  __m256i sum{}, total{};

  LK_AVX2 void row(__m256i resampled, size_t at, __m256i mask) {
    const __m256i diff =
        _mm256_sub_epi16(resampled, _mm256_loadu_si256(reinterpret_cast<const __m256i *>(patch.image + at)));
    const __m256i ones = _mm256_set1_epi16(1);
    sum = _mm256_add_epi32(sum, _mm256_madd_epi16(_mm256_and_si256(_mm256_abs_epi16(diff), mask), ones));
  }

  LK_AVX2 void flush() {
    total = widen_add(total, sum);
    sum = _mm256_setzero_si256();
  }
};

LK_AVX2 int64_t error_avx2(Window to, const Weights &w, const Patch &patch) {
  ErrorSum sums{patch};
  walk_resampled(to, w, patch, sums);
  return reduce(widen_add(sums.total, sums.sum));
}
#endif

struct Kernels {
  GradientSums (*extract)(Window, DerivativeWindow, const Weights &, Patch &);
  void (*mismatch)(Window, const Weights &, const Patch &, int64_t &, int64_t &);
  int64_t (*error)(Window, const Weights &, const Patch &);
};

Kernels kernels_for(LKKernels choice) {
#if defined(__x86_64__)
  if (choice == LKKernels::automatic && lk_avx2_available()) return {extract_avx2, mismatch_avx2, error_avx2};
#else
  (void)choice;
#endif
  return {extract_portable, mismatch_portable, error_portable};
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
