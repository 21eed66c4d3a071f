// The AVX2 kernels of CVision's KLT tracker (see klt.cpp for the algorithm, klt_kernels.hpp for the
// types): the same sums as the portable kernels, exact in integers, 16 pixels of a row at a time.

#include "klt_kernels.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

// Floating-point expressions are evaluated as written (see klt.cpp).
#if defined(__clang__)
#pragma clang fp contract(off)
#endif

namespace cvision::lk {

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

namespace {

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

}  // namespace

Kernels avx2_kernels() { return {extract_avx2, mismatch_avx2, error_avx2}; }
#endif

}  // namespace cvision::lk
