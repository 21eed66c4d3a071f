// The window kernels of CVision's KLT tracker (klt.cpp): the types they share and the two sets
// of them, portable and AVX2, which give the same bits (every sum of products is an exact integer).

#ifndef ARSIM_CVISION_KLT_KERNELS_HPP
#define ARSIM_CVISION_KLT_KERNELS_HPP

#include <cstddef>
#include <cstdint>
#include <vector>

#include "klt.hpp"

namespace cvision::lk {

/// Bilinear weights are integers in 1/2^14.
constexpr int kWeightBits = 14;
/// Resampled intensities keep 5 fractional bits: the sum of weighted pixels is shifted by 9.
constexpr int kImageShift = kWeightBits - 5;
/// Resampled derivatives keep none.
constexpr int kDerivativeShift = kWeightBits;

/// The bilinear weights of the four pixels around a point at fractional offset (a, b) from the
/// top-left one: top-left, top-right, bottom-left, bottom-right.
struct Weights {
  int w00, w01, w10, w11;
};

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

/// The three kernels of one window: resample the previous window (intensities, derivatives) and sum
/// its gradient matrix; the mismatch vector against the next window; the final window's error.
struct Kernels {
  GradientSums (*extract)(Window, DerivativeWindow, const Weights &, Patch &);
  void (*mismatch)(Window, const Weights &, const Patch &, int64_t &, int64_t &);
  int64_t (*error)(Window, const Weights &, const Patch &);
};

/// The portable kernels (klt.cpp).
Kernels portable_kernels();

#if defined(__x86_64__)
/// The AVX2 kernels (klt_avx2.cpp); call them only where ``lk_avx2_available``.
Kernels avx2_kernels();
#endif

}  // namespace cvision::lk

#endif
