// CVision's pyramidal Lucas-Kanade tracker (klt.cpp): OpenCV's calcOpticalFlowPyrLK algorithm on the
// same pyramids, with every window row vectorised and every sum of products exact in integers.

#ifndef ARSIM_CVISION_KLT_HPP
#define ARSIM_CVISION_KLT_HPP

#include <cstddef>
#include <cstdint>
#include <vector>

#include <opencv2/core.hpp>

namespace cvision {

/// Which kernels compute a window's sums: `automatic` picks AVX2 where the CPU has it, else the
/// portable kernels; `portable` forces the portable kernels (tests compare the two). Both give the same
/// bits: every sum is an exact integer.
enum class LKKernels { automatic, portable };

/// Whether `LKKernels::automatic` runs the AVX2 kernels on this CPU.
bool lk_avx2_available();

/// What a tracking call does, as calcOpticalFlowPyrLK's arguments.
struct LKSettings {
  /// Window side in pixels (odd, >= 3): the pyramids' border must be at least this wide.
  int window = 21;
  /// Levels above the base to track on (fewer when a pyramid has fewer).
  int levels = 3;
  /// Iterations per level (calcOpticalFlowPyrLK clamps its count to 0...100).
  int max_iterations = 30;
  /// The convergence threshold on an update, pixels (clamped to 0...10, then squared).
  double epsilon = 0.01;
  /// Points whose window's normalised smallest eigenvalue of the gradient matrix is below it are lost.
  float min_eigenvalue = 1e-4f;
  /// Whether `to` holds initial guesses (else tracking starts at `from`).
  bool use_initial = false;
};

/// Tracks `count` points `from` (pixels in the previous image) into the next image, as
/// cv::calcOpticalFlowPyrLK does given pyramids from cv::buildOpticalFlowPyramid: `previous` must hold
/// each level's image and its Scharr derivatives (built with derivatives), `next` each level's image
/// (with or without derivatives), both with borders of `settings.window` pixels. Writes each point's
/// position to `to` (which holds the initial guesses when `settings.use_initial`), 1 or 0 to `status`,
/// and the mean absolute difference of the windows (intensity levels per pixel) to `error` (0 for
/// points lost before it is measured). Each point is tracked on its own: tracking a subset gives the
/// same bits for its points.
void track_lk(const std::vector<cv::Mat> &previous, const std::vector<cv::Mat> &next, const cv::Point2f *from,
              cv::Point2f *to, uint8_t *status, float *error, size_t count, const LKSettings &settings,
              LKKernels kernels = LKKernels::automatic);

}  // namespace cvision

#endif
