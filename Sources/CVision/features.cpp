// Feature detection (FAST, ORB, GFTT).

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/features2d.hpp>
#include <opencv2/imgproc.hpp>

#include "cvision.h"
#include "descriptors.hpp"
#include "status.hpp"

namespace {

using cvision::fail;
using cvision::kDescriptorBytes;

/// Strongest first; ties broken by y, then x, so that the order is reproducible.
bool stronger(const cv::KeyPoint &a, const cv::KeyPoint &b) {
  if (a.response != b.response) return a.response > b.response;
  if (a.pt.y != b.pt.y) return a.pt.y < b.pt.y;
  if (a.pt.x != b.pt.x) return a.pt.x < b.pt.x;
  return a.octave < b.octave;
}

bool masked_out(const uint8_t *mask, int width, int height, const cv::Point2f &point) {
  if (mask == nullptr) return false;
  int x = std::clamp(int(std::lround(point.x)), 0, width - 1);
  int y = std::clamp(int(std::lround(point.y)), 0, height - 1);
  return mask[size_t(y) * width + x] == 0;
}

void validate_feature_params(const cv_feature_params &p) {
  if (p.method != CV_FEATURE_FAST && p.method != CV_FEATURE_ORB && p.method != CV_FEATURE_GFTT) {
    fail(CV_ERR_INVALID_ARGUMENT, "params.method must be CV_FEATURE_FAST, CV_FEATURE_ORB or CV_FEATURE_GFTT (got %d)",
         p.method);
  }
  cvision::require_count(p.max_features, 1, "params.max_features");
  cvision::require_finite(p.threshold, "params.threshold");
  if (p.method == CV_FEATURE_GFTT) {
    if (p.threshold <= 0 || p.threshold >= 1) {
      fail(CV_ERR_INVALID_ARGUMENT, "params.threshold (GFTT quality level) must be in (0, 1) (got %g)",
           double(p.threshold));
    }
    cvision::require_finite(p.min_response, "params.min_response");
    if (p.min_response < 0) {
      fail(CV_ERR_INVALID_ARGUMENT, "params.min_response must not be negative (got %g)", double(p.min_response));
    }
    cvision::require_finite(p.min_distance, "params.min_distance");
    if (p.min_distance < 0) {
      fail(CV_ERR_INVALID_ARGUMENT, "params.min_distance must not be negative (got %g)", double(p.min_distance));
    }
  } else if (p.threshold < 0 || p.threshold > 255) {
    fail(CV_ERR_INVALID_ARGUMENT, "params.threshold (FAST threshold) must be in 0...255 (got %g)", double(p.threshold));
  }
  if (p.method == CV_FEATURE_ORB) {
    if (p.pyramid_levels < 1 || p.pyramid_levels > 16) {
      fail(CV_ERR_INVALID_ARGUMENT, "params.pyramid_levels must be in 1...16 (got %d)", p.pyramid_levels);
    }
    if (!std::isfinite(p.scale_factor) || p.scale_factor <= 1 || p.scale_factor > 4) {
      fail(CV_ERR_INVALID_ARGUMENT, "params.scale_factor must be in (1, 4] (got %g)", double(p.scale_factor));
    }
  }
}

}  // namespace

extern "C" int32_t cv_detect_features(cv_gray_image image, const uint8_t *mask, cv_feature_params params,
                                      cv_keypoint *keypoints, uint8_t *descriptors, int32_t capacity,
                                      int32_t *count, cv_status *status) noexcept {
  return cvision::guarded(status, "cv_detect_features", [&](cv_status *) -> int32_t {
    cvision::require_pointer(count, "count");
    *count = 0;
    const cv::Mat gray = cvision::wrap_gray(image, "image");
    validate_feature_params(params);
    if (capacity < 0) fail(CV_ERR_INVALID_ARGUMENT, "capacity must not be negative (got %d)", capacity);
    if (capacity > 0) cvision::require_pointer(keypoints, "keypoints");
    if (descriptors != nullptr && params.method != CV_FEATURE_ORB) {
      fail(CV_ERR_INVALID_ARGUMENT, "descriptors are only computed for CV_FEATURE_ORB; pass NULL");
    }
    const int width = image.width, height = image.height;
    const size_t limit = size_t(std::min(params.max_features, capacity));

    std::vector<cv::KeyPoint> found;
    cv::Mat found_descriptors;
    switch (params.method) {
      case CV_FEATURE_FAST: {
        cv::FAST(gray, found, int(std::lround(params.threshold)), true);
        found.erase(std::remove_if(found.begin(), found.end(),
                                   [&](const cv::KeyPoint &k) { return masked_out(mask, width, height, k.pt); }),
                    found.end());
        break;
      }
      case CV_FEATURE_ORB: {
        cv::Mat mask_mat;
        if (mask != nullptr) mask_mat = cv::Mat(height, width, CV_8UC1, const_cast<uint8_t *>(mask));
        auto orb = cv::ORB::create(params.max_features, params.scale_factor, params.pyramid_levels, 31, 0, 2,
                                   cv::ORB::HARRIS_SCORE, 31, int(std::lround(params.threshold)));
        if (descriptors != nullptr) {
          orb->detectAndCompute(gray, mask_mat, found, found_descriptors);
          if (!found.empty() &&
              (found_descriptors.rows != int(found.size()) || found_descriptors.cols != kDescriptorBytes ||
               found_descriptors.type() != CV_8UC1)) {
            fail(CV_ERR_INTERNAL, "ORB returned %d x %d descriptors for %zu keypoints", found_descriptors.rows,
                 found_descriptors.cols, found.size());
          }
        } else {
          orb->detect(gray, found, mask_mat);
        }
        break;
      }
      default: {  // CV_FEATURE_GFTT
        cv::Mat mask_mat;
        if (mask != nullptr) mask_mat = cv::Mat(height, width, CV_8UC1, const_cast<uint8_t *>(mask));
        const int block_size = 3;
        std::vector<cv::Point2f> corners;
        std::vector<float> strength;
        // The overload with corner qualities returns each corner's min-eigenvalue response, so the
        // image's eigenvalues are computed once.
        cv::goodFeaturesToTrack(gray, corners, params.max_features, params.threshold, params.min_distance, mask_mat,
                                strength, block_size, 3, false, 0.04);
        found.reserve(corners.size());
        for (size_t i = 0; i < corners.size(); ++i) {
          if (strength[i] < params.min_response) continue;
          found.emplace_back(corners[i], float(block_size), -1.0f, strength[i], 0);
        }
        break;
      }
    }

    std::vector<size_t> order(found.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return stronger(found[a], found[b]); });
    const size_t n = std::min(limit, order.size());
    for (size_t i = 0; i < n; ++i) {
      const cv::KeyPoint &k = found[order[i]];
      keypoints[i] = cv_keypoint{k.pt.x, k.pt.y, k.response, k.size, k.angle, int32_t(k.octave)};
      if (descriptors != nullptr) {
        std::memcpy(descriptors + i * kDescriptorBytes, found_descriptors.ptr(int(order[i])), kDescriptorBytes);
      }
    }
    *count = int32_t(n);
    return CV_OK;
  });
}
