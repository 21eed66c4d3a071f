// cv_gray_reduce: block means for tracking at a fraction of an image's size.

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "cvision.h"
#include "status.hpp"

extern "C" int32_t cv_gray_reduce(cv_gray_image image, int32_t factor, uint8_t *out, size_t capacity,
                                  cv_status *status) noexcept {
  return cvision::guarded(status, "cv_gray_reduce", [&](cv_status *) -> int32_t {
    const cv::Mat mat = cvision::wrap_gray(image, "image");
    if (factor < 1 || factor > 64) cvision::fail(CV_ERR_INVALID_ARGUMENT, "factor must be in 1...64 (got %d)", factor);
    const int width = image.width / factor;
    const int height = image.height / factor;
    if (width == 0 || height == 0) return CV_OK;
    if (out == nullptr || capacity < size_t(width) * size_t(height)) {
      cvision::fail(CV_ERR_INVALID_ARGUMENT, "output holds %zu bytes, %d x %d needed", capacity, width, height);
    }
    cv::Mat reduced(height, width, CV_8UC1, out);
    // Whole blocks only, so that INTER_AREA's integer-factor path takes exact block means.
    cv::resize(mat(cv::Rect(0, 0, width * factor, height * factor)), reduced, reduced.size(), 0, 0, cv::INTER_AREA);
    return CV_OK;
  });
}
