// Camera pose from 2D-3D matches: PnP RANSAC (the two-view solvers are in twoview.cpp).
//
// The RANSAC loops are our own so that `seed` really selects the samples
// (OpenCV 4.6's RANSAC uses a fixed internal seed); OpenCV provides the minimal
// solvers (P3P, five-point) and the final Levenberg-Marquardt PnP refinement.

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <Eigen/Dense>
#include <opencv2/calib3d.hpp>
#include <opencv2/core.hpp>
#include <opencv2/core/eigen.hpp>

#include "cvision.h"
#include "geometry.hpp"
#include "ransac.hpp"
#include "status.hpp"

namespace {

using cvision::fail;
using cvision::Pose;

using cvision::draw_sample;
using cvision::needed_iterations;
using cvision::Score;
using cvision::validate_ransac;


cv::Matx33d camera_matrix(const cv_intrinsics &k) { return cv::Matx33d(k.fx, 0, k.cx, 0, k.fy, k.cy, 0, 0, 1); }

Pose pose_from_rvec(const cv::Mat &rvec, const cv::Mat &tvec) {
  cv::Matx33d R;
  cv::Rodrigues(rvec, R);
  Pose pose;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) pose.R(i, j) = R(i, j);
    pose.t(i) = tvec.at<double>(i);
  }
  pose.R = cvision::nearest_rotation(pose.R);
  return pose;
}

// MARK: PnP

struct PnPProblem {
  const std::vector<Eigen::Vector3d> &world;
  const std::vector<Eigen::Vector2d> &image;
  cv_intrinsics k;
  double threshold2;

  Score score(const Pose &pose, std::vector<uint8_t> *mask) const {
    Score s;
    s.cost = 0;
    for (size_t i = 0; i < world.size(); ++i) {
      const Eigen::Vector3d p = pose.R * world[i] + pose.t;
      double e2 = threshold2;
      if (p.z() > 0) e2 = std::min(threshold2, (cvision::project(k, p) - image[i]).squaredNorm());
      const bool inlier = p.z() > 0 && e2 < threshold2;
      if (inlier) ++s.inliers;
      if (mask != nullptr) (*mask)[i] = inlier ? 1 : 0;
      s.cost += e2;
    }
    return s;
  }
};

}  // namespace

extern "C" int32_t cv_solve_pnp_ransac(const double *world_points, const double *image_points, int32_t count,
                                       cv_intrinsics intrinsics, cv_ransac_params params, const cv_pose *initial,
                                       cv_pose *camera_from_world, uint8_t *inliers, int32_t *inlier_count,
                                       cv_status *status) noexcept {
  return cvision::guarded(status, "cv_solve_pnp_ransac", [&](cv_status *) -> int32_t {
    cvision::require_count(count, 4, "count");
    cvision::require_pointer(world_points, "world_points");
    cvision::require_pointer(image_points, "image_points");
    cvision::require_pointer(camera_from_world, "camera_from_world");
    cvision::require_intrinsics(intrinsics);
    validate_ransac(params);
    cvision::require_finite_array(world_points, count, 3, "world_points");
    cvision::require_finite_array(image_points, count, 2, "image_points");
    Pose initial_pose;
    if (initial != nullptr) initial_pose = cvision::read_pose(*initial, "initial");
    if (inlier_count != nullptr) *inlier_count = 0;

    const size_t n = size_t(count);
    std::vector<Eigen::Vector3d> world(n);
    std::vector<Eigen::Vector2d> image(n);
    for (size_t i = 0; i < n; ++i) {
      world[i] = Eigen::Vector3d(world_points[3 * i], world_points[3 * i + 1], world_points[3 * i + 2]);
      image[i] = Eigen::Vector2d(image_points[2 * i], image_points[2 * i + 1]);
    }
    const PnPProblem problem{world, image, intrinsics, params.threshold * params.threshold};
    const cv::Matx33d K = camera_matrix(intrinsics);

    Pose best;
    Score best_score;
    bool have_model = false;
    if (initial != nullptr) {
      best = initial_pose;
      best_score = problem.score(best, nullptr);
      have_model = true;
    }

    // Minimal samples of four points (P3P plus one point to choose among its solutions).
    const int sample_size = 4;
    cv::RNG rng(params.seed);
    std::vector<int> sample;
    std::vector<cv::Point3d> sample_world(sample_size);
    std::vector<cv::Point2d> sample_image(sample_size);
    int iterations = params.max_iterations;
    if (have_model) {
      iterations = needed_iterations(params.confidence, double(best_score.inliers) / count, sample_size,
                                     params.max_iterations);
    }
    for (int iteration = 0; iteration < iterations; ++iteration) {
      draw_sample(rng, count, sample_size, sample);
      for (int j = 0; j < sample_size; ++j) {
        const size_t i = size_t(sample[j]);
        sample_world[j] = cv::Point3d(world[i].x(), world[i].y(), world[i].z());
        sample_image[j] = cv::Point2d(image[i].x(), image[i].y());
      }
      cv::Mat rvec, tvec;
      bool solved = false;
      try {
        solved = cv::solvePnP(sample_world, sample_image, K, cv::noArray(), rvec, tvec, false, cv::SOLVEPNP_P3P);
      } catch (const cv::Exception &) {
        solved = false;  // degenerate sample
      }
      if (!solved || rvec.empty() || !cv::checkRange(rvec) || !cv::checkRange(tvec)) continue;
      const Pose hypothesis = pose_from_rvec(rvec, tvec);
      const Score s = problem.score(hypothesis, nullptr);
      if (s.cost < best_score.cost) {
        best = hypothesis;
        best_score = s;
        have_model = true;
        iterations = std::min(iterations, needed_iterations(params.confidence, double(s.inliers) / count,
                                                            sample_size, params.max_iterations));
      }
    }
    if (!have_model || best_score.inliers < 4) {
      fail(CV_ERR_NOT_ENOUGH_DATA, "PnP RANSAC found no pose with at least 4 inliers (best: %d of %d)",
           have_model ? best_score.inliers : 0, count);
    }

    // Refine on the inliers, re-select them, and repeat while the set changes.
    std::vector<uint8_t> mask(n), refined_mask(n);
    best_score = problem.score(best, &mask);
    for (int round = 0; round < 5; ++round) {
      std::vector<double> in_world, in_image;
      for (size_t i = 0; i < n; ++i) {
        if (mask[i] == 0) continue;
        in_world.insert(in_world.end(), {world[i].x(), world[i].y(), world[i].z()});
        in_image.insert(in_image.end(), {image[i].x(), image[i].y()});
      }
      const int32_t used = int32_t(in_image.size() / 2);
      if (used < 4) break;
      // Least squares on the inliers (an infinite Huber threshold), as cv::solvePnPRefineLM did at ten
      // times the cost: OpenCV's projectPoints with its Jacobians per point and step.
      const Pose refined = cvision::refine_pose_lm(in_world.data(), in_image.data(), nullptr, nullptr, used, intrinsics,
                                                   std::numeric_limits<double>::infinity(), 1, 50, best);
      if (!refined.R.allFinite() || !refined.t.allFinite()) break;
      const Score s = problem.score(refined, &refined_mask);
      if (s.cost > best_score.cost || s.inliers < 4) break;
      const bool unchanged = refined_mask == mask;
      best = refined;
      best_score = s;
      mask.swap(refined_mask);
      if (unchanged) break;
    }

    cvision::write_pose(best, camera_from_world);
    if (inliers != nullptr) std::copy(mask.begin(), mask.end(), inliers);
    if (inlier_count != nullptr) *inlier_count = best_score.inliers;
    return CV_OK;
  });
}

// MARK: - Essential matrix
