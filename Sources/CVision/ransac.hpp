// Internal helpers shared by the RANSAC loops of the geometry translation units
// (PnP in geometry.cpp, the essential matrix in twoview.cpp): argument checks, the
// adaptive iteration count, sampling and the MSAC score.

#ifndef ARSIM_CVISION_RANSAC_HPP
#define ARSIM_CVISION_RANSAC_HPP

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <opencv2/core.hpp>

#include "cvision.h"
#include "status.hpp"

namespace cvision {

inline void validate_ransac(const cv_ransac_params &p) {
  if (!std::isfinite(p.threshold) || p.threshold <= 0) {
    cvision::fail(CV_ERR_INVALID_ARGUMENT, "params.threshold must be positive and finite (got %g)", p.threshold);
  }
  if (!(p.confidence > 0 && p.confidence < 1)) {
    cvision::fail(CV_ERR_INVALID_ARGUMENT, "params.confidence must be in (0, 1) (got %g)", p.confidence);
  }
  cvision::require_count(p.max_iterations, 1, "params.max_iterations");
}

/// Iterations needed to draw one all-inlier sample of `sample_size` with
/// probability `confidence` when a fraction `inlier_ratio` are inliers.
inline int needed_iterations(double confidence, double inlier_ratio, int sample_size, int maximum) {
  const double all_inliers = std::pow(inlier_ratio, sample_size);
  if (all_inliers >= 1) return 0;
  if (all_inliers <= std::numeric_limits<double>::min()) return maximum;
  const double k = std::log(1 - confidence) / std::log(1 - all_inliers);
  if (!std::isfinite(k) || k >= maximum) return maximum;
  return std::max(0, int(std::ceil(k)));
}

/// Draws `n` distinct indices below `count`.
inline void draw_sample(cv::RNG &rng, int count, int n, std::vector<int> &sample) {
  sample.clear();
  while (int(sample.size()) < n) {
    int index = int(rng.uniform(0, count));
    if (std::find(sample.begin(), sample.end(), index) == sample.end()) sample.push_back(index);
  }
}

/// MSAC score of a model: truncated squared errors (lower is better) and the inlier mask.
struct Score {
  double cost = std::numeric_limits<double>::infinity();
  int inliers = 0;
};

}  // namespace cvision

#endif
