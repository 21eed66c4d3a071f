// Sharing one KLT call's points between the calling thread and a helper thread
// (cv_set_klt_threads(2)). Each point is tracked from its own start and guess alone, so a call's
// result is the same, bit for bit, however its points are shared out.

#ifndef ARSIM_CVISION_KLT_HELPER_HPP
#define ARSIM_CVISION_KLT_HELPER_HPP

#include <cstddef>
#include <cstdint>
#include <vector>

#include <opencv2/core.hpp>

#include "klt.hpp"

namespace cvision {

/// One KLT call's points as the helper thread may take them: the pyramids (their levels' headers,
/// which keep the pixels alive however long the helper takes), the inputs, and where results go.
struct KLTCall {
  std::vector<cv::Mat> previous, next;
  const std::vector<cv::Point2f> *from = nullptr, *guesses = nullptr;
  std::vector<cv::Point2f> *to = nullptr;
  std::vector<uchar> *tracked = nullptr;
  std::vector<float> *errors = nullptr;
  LKSettings settings;
  LKKernels kernels = LKKernels::automatic;
  size_t count = 0;
  /// Where each share starts, then `count` (``klt_share_starts``).
  const std::vector<size_t> *starts = nullptr;
};

/// Where each share of `count` points starts, then `count` (shares shrink towards the end).
std::vector<size_t> klt_share_starts(size_t count);

/// Threads a KLT call on pyramids tracks its points on (1: the calling thread alone; 2: with a helper).
int32_t klt_thread_count();

/// Sets ``klt_thread_count`` (clamped to 1...2).
void set_klt_thread_count(int32_t threads);

/// Tracks every one of `shares` shares of `call` between this thread and the helper, into the call's
/// outputs. The caller never waits for the helper: a share it has not finished is tracked again here.
void track_klt_shared(const KLTCall &call, size_t shares);

}  // namespace cvision

#endif
