// The C entry points of KLT tracking: on images, and on pyramids built once per image
// (cv_pyramid_build), whose calls may share their points with a helper thread (klt_helper.hpp).

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/video/tracking.hpp>

#include "cvision.h"
#include "klt.hpp"
#include "klt_helper.hpp"
#include "status.hpp"

struct cv_pyramid {
  std::vector<cv::Mat> levels;
  int32_t width;
  int32_t height;
  int32_t window;
  int32_t levels_above_base;
};

namespace {

using cvision::fail;

void check_klt_params(const cv_klt_params &params, int32_t count) {
  if (count < 0) fail(CV_ERR_INVALID_ARGUMENT, "count must not be negative (got %d)", count);
  if (params.window < 5 || params.window % 2 == 0) {
    fail(CV_ERR_INVALID_ARGUMENT, "params.window must be odd and at least 5 (got %d)", params.window);
  }
  if (params.levels < 0 || params.levels > 10) {
    fail(CV_ERR_INVALID_ARGUMENT, "params.levels must be in 0...10 (got %d)", params.levels);
  }
  cvision::require_count(params.max_iterations, 1, "params.max_iterations");
  if (!std::isfinite(params.epsilon) || params.epsilon <= 0) {
    fail(CV_ERR_INVALID_ARGUMENT, "params.epsilon must be positive and finite (got %g)", double(params.epsilon));
  }
  if (std::isnan(params.max_error) || params.max_error <= 0) {
    fail(CV_ERR_INVALID_ARGUMENT, "params.max_error must be positive (got %g)", double(params.max_error));
  }
}

/// The common body of the KLT entry points: `previous` is a pyramid with derivatives, `next` one with or
/// without (cv::buildOpticalFlowPyramid's). When `shared`, the helper thread may take a share of the
/// points (``cv_set_klt_threads``). `implementation` is a CV_KLT_* value.
int32_t track_klt(const std::vector<cv::Mat> &previous, const std::vector<cv::Mat> &next, int32_t width,
                  int32_t height, const float *previous_points, int32_t count, const cv_klt_params &params,
                  float *next_points, uint8_t *found, float *error, bool shared, int32_t implementation) {
  if (count == 0) return CV_OK;
  cvision::require_pointer(previous_points, "previous_points");
  cvision::require_pointer(next_points, "next_points");
  cvision::require_pointer(found, "found");

  std::vector<cv::Point2f> from(static_cast<size_t>(count)), to;
  for (int32_t i = 0; i < count; ++i) {
    from[i] = cv::Point2f(previous_points[2 * i], previous_points[2 * i + 1]);
    if (!std::isfinite(from[i].x) || !std::isfinite(from[i].y)) {
      fail(CV_ERR_INVALID_ARGUMENT, "previous_points[%d] is not finite", i);
    }
  }
  if (params.use_initial != 0) {
    to.resize(size_t(count));
    for (int32_t i = 0; i < count; ++i) {
      to[i] = cv::Point2f(next_points[2 * i], next_points[2 * i + 1]);
      if (!std::isfinite(to[i].x) || !std::isfinite(to[i].y)) {
        fail(CV_ERR_INVALID_ARGUMENT, "next_points[%d] (initial guess) is not finite", i);
      }
    }
  }
  to.resize(size_t(count));
  std::vector<uchar> tracked(static_cast<size_t>(count));
  std::vector<float> errors(static_cast<size_t>(count));
  cvision::LKSettings settings;
  settings.window = params.window;
  settings.levels = params.levels;
  settings.max_iterations = params.max_iterations;
  settings.epsilon = double(params.epsilon);
  settings.use_initial = params.use_initial != 0;
  const cvision::LKKernels kernels =
      implementation == CV_KLT_PORTABLE ? cvision::LKKernels::portable : cvision::LKKernels::automatic;
  const std::vector<size_t> starts = cvision::klt_share_starts(size_t(count));
  const size_t shares = starts.size() - 1;
  if (implementation == CV_KLT_OPENCV) {
    const cv::TermCriteria criteria(cv::TermCriteria::COUNT | cv::TermCriteria::EPS, params.max_iterations,
                                    double(params.epsilon));
    cv::calcOpticalFlowPyrLK(previous, next, from, to, tracked, errors, cv::Size(params.window, params.window),
                             params.levels, criteria, settings.use_initial ? cv::OPTFLOW_USE_INITIAL_FLOW : 0,
                             double(settings.min_eigenvalue));
  } else if (!shared || cvision::klt_thread_count() < 2 || shares < 2) {
    cvision::track_lk(previous, next, from.data(), to.data(), tracked.data(), errors.data(), size_t(count), settings,
                      kernels);
  } else {
    // Each point is tracked from its own start and guess alone, so sharing the points out between
    // this thread and the helper gives the same result, bit for bit.
    const std::vector<cv::Point2f> guesses = to;
    cvision::KLTCall call;
    call.previous = previous;
    call.next = next;
    call.from = &from;
    call.guesses = &guesses;
    call.to = &to;
    call.tracked = &tracked;
    call.errors = &errors;
    call.settings = settings;
    call.kernels = kernels;
    call.count = size_t(count);
    call.starts = &starts;
    cvision::track_klt_shared(call, shares);
  }
  const float max_x = float(width - 1), max_y = float(height - 1);
  for (int32_t i = 0; i < count; ++i) {
    const cv::Point2f p = to[i];
    const bool inside = std::isfinite(p.x) && std::isfinite(p.y) && p.x >= 0 && p.y >= 0 && p.x <= max_x &&
                        p.y <= max_y;
    const bool ok = tracked[i] != 0 && inside && errors[i] <= params.max_error;
    next_points[2 * i] = p.x;
    next_points[2 * i + 1] = p.y;
    found[i] = ok ? 1 : 0;
    if (error != nullptr) error[i] = errors[i];
  }
  return CV_OK;
}

}  // namespace

extern "C" int32_t cv_track_klt_using(cv_gray_image previous, cv_gray_image next, const float *previous_points,
                                      int32_t count, cv_klt_params params, float *next_points, uint8_t *found,
                                      float *error, int32_t implementation, cv_status *status) noexcept {
  return cvision::guarded(status, "cv_track_klt", [&](cv_status *) -> int32_t {
    const cv::Mat prev_mat = cvision::wrap_gray(previous, "previous");
    const cv::Mat next_mat = cvision::wrap_gray(next, "next");
    if (previous.width != next.width || previous.height != next.height) {
      fail(CV_ERR_INVALID_ARGUMENT, "previous (%d x %d) and next (%d x %d) must have the same size", previous.width,
           previous.height, next.width, next.height);
    }
    check_klt_params(params, count);
    if (implementation != CV_KLT_AUTOMATIC && implementation != CV_KLT_PORTABLE && implementation != CV_KLT_OPENCV) {
      fail(CV_ERR_INVALID_ARGUMENT, "implementation must be CV_KLT_AUTOMATIC, CV_KLT_PORTABLE or CV_KLT_OPENCV (got %d)",
           implementation);
    }
    if (count == 0) return CV_OK;
    // The pyramids calcOpticalFlowPyrLK builds from images: levels bordered by the window, and the
    // previous image's Scharr derivatives (zero outside the image).
    std::vector<cv::Mat> previous_levels, next_levels;
    const cv::Size window(params.window, params.window);
    cv::buildOpticalFlowPyramid(prev_mat, previous_levels, window, params.levels, true);
    cv::buildOpticalFlowPyramid(next_mat, next_levels, window, params.levels, false);
    return track_klt(previous_levels, next_levels, next.width, next.height, previous_points, count, params,
                     next_points, found, error, false, implementation);
  });
}

extern "C" int32_t cv_track_klt(cv_gray_image previous, cv_gray_image next, const float *previous_points,
                                int32_t count, cv_klt_params params, float *next_points, uint8_t *found,
                                float *error, cv_status *status) noexcept {
  return cv_track_klt_using(previous, next, previous_points, count, params, next_points, found, error,
                            CV_KLT_AUTOMATIC, status);
}

extern "C" int32_t cv_klt_vectorised(void) noexcept { return cvision::lk_avx2_available() ? 1 : 0; }

extern "C" void cv_set_klt_threads(int32_t threads) noexcept {
  cvision::set_klt_thread_count(threads);
}

extern "C" cv_pyramid *cv_pyramid_build(cv_gray_image image, int32_t window, int32_t levels,
                                        cv_status *status) noexcept {
  cv_pyramid *built = nullptr;
  cvision::guarded(status, "cv_pyramid_build", [&](cv_status *) -> int32_t {
    const cv::Mat mat = cvision::wrap_gray(image, "image");
    if (window < 5 || window % 2 == 0) {
      fail(CV_ERR_INVALID_ARGUMENT, "window must be odd and at least 5 (got %d)", window);
    }
    if (levels < 0 || levels > 10) fail(CV_ERR_INVALID_ARGUMENT, "levels must be in 0...10 (got %d)", levels);
    auto pyramid = std::make_unique<cv_pyramid>();
    pyramid->width = image.width;
    pyramid->height = image.height;
    pyramid->window = window;
    pyramid->levels_above_base = levels;
    // The pyramid keeps a view of its input only when the input is a submatrix with a border of a
    // window's width around it (OpenCV's tryReuseInputImage); the caller's buffer, wrapped whole, is
    // none, so level 0 is a bordered copy of it and the buffer is not kept (no copy of it needed).
    cv::buildOpticalFlowPyramid(mat, pyramid->levels, cv::Size(window, window), levels, true);
    built = pyramid.release();
    return CV_OK;
  });
  return built;
}

extern "C" void cv_pyramid_free(cv_pyramid *pyramid) noexcept { delete pyramid; }

extern "C" int32_t cv_track_klt_pyramids(const cv_pyramid *previous, const cv_pyramid *next,
                                         const float *previous_points, int32_t count, cv_klt_params params,
                                         float *next_points, uint8_t *found, float *error,
                                         cv_status *status) noexcept {
  return cvision::guarded(status, "cv_track_klt_pyramids", [&](cv_status *) -> int32_t {
    cvision::require_pointer(previous, "previous");
    cvision::require_pointer(next, "next");
    if (previous->width != next->width || previous->height != next->height) {
      fail(CV_ERR_INVALID_ARGUMENT, "previous (%d x %d) and next (%d x %d) must have the same size",
           previous->width, previous->height, next->width, next->height);
    }
    check_klt_params(params, count);
    if (params.window != previous->window || params.window != next->window ||
        params.levels > previous->levels_above_base || params.levels > next->levels_above_base) {
      fail(CV_ERR_INVALID_ARGUMENT, "params (window %d, levels %d) do not match the pyramids (window %d, levels %d)",
           params.window, params.levels, previous->window, previous->levels_above_base);
    }
    return track_klt(previous->levels, next->levels, next->width, next->height, previous_points, count, params,
                     next_points, found, error, true, CV_KLT_AUTOMATIC);
  });
}
