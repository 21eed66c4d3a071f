// Sliding-window bundle adjustment: Levenberg-Marquardt with Huber weights on camera poses
// (SE(3)) and points (R^3), solved through the Schur complement on the points (plain fixed-size
// blocks; Eigen's LDLT for the reduced camera system).
//
// Residuals are pixel reprojection errors r = pi(R X + t) - u, and for observations with a measured
// depth d of standard deviation sigma also rd = ((R X + t).z - d) / sigma (its own Huber threshold,
// in standard deviations: a depth prior weighted by the sensor's noise). Rotation priors between two
// cameras (a gyroscope's turn Q between them) add r = log(Q^T R_a R_b^T) / sigma, plain least squares,
// whose derivatives by the two rotation increments (Jr^-1(r) R_b R_a^T and -Jr^-1(r)) fill the two
// rotation blocks and, when both cameras are free, the block between them in the reduced camera
// system. Each linearisation builds the normal equations of the IRLS-weighted problem (Huber weight 1
// up to delta, delta / |r| beyond):
//
//   [ U   W ] [dc]   [-g_c]        U: 6x6 block per free camera, V: 3x3 block per point,
//   [ W^T V ] [dp] = [-g_p]        W: 6x3 block per observation of a free camera.
//
// Both diagonals are damped (Marquardt: H_ii += lambda * max(H_ii, kDiagonalFloor)), every
// damped point block is inverted directly, and the reduced camera system
// (U - W V^-1 W^T) dc = -g_c + W V^-1 g_p is dense and solved with LDLT; then
// dp = V^-1 (-g_p - W^T dc). Camera increments are left perturbations,
// R <- exp(omega) R, t <- exp(omega) t + dt (as in refine.cpp). A step is kept when it lowers
// the robust cost (lambda / 10), otherwise lambda grows tenfold and the step is recomputed.
// Everything runs on the calling thread in a fixed order, so results are bit-reproducible.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include <Eigen/Dense>

#include "bundle_adjuster.hpp"
#include "cvision_solvers.h"
#include "geometry.hpp"
#include "status.hpp"

namespace {

using namespace cvision::bundle;

void validate_params(const cv_bundle_params &p) {
  if (p.iterations < 0 || p.iterations > 1000) {
    fail(CV_ERR_INVALID_ARGUMENT, "params.iterations must be in 0...1000 (got %d)", p.iterations);
  }
  if (std::isnan(p.huber_delta) || p.huber_delta <= 0) {
    fail(CV_ERR_INVALID_ARGUMENT, "params.huber_delta must be positive (got %g)", p.huber_delta);
  }
  if (!std::isfinite(p.initial_lambda) || p.initial_lambda <= 0) {
    fail(CV_ERR_INVALID_ARGUMENT, "params.initial_lambda must be positive and finite (got %g)",
         p.initial_lambda);
  }
}

void validate_depth_params(const cv_bundle_params &p) {
  if (std::isnan(p.depth_huber_delta) || p.depth_huber_delta <= 0) {
    fail(CV_ERR_INVALID_ARGUMENT, "params.depth_huber_delta must be positive (got %g)", p.depth_huber_delta);
  }
}

}  // namespace

extern "C" int32_t cv_bundle_adjust(cv_pose *camera_from_world, int32_t n_cameras, const uint8_t *camera_fixed,
                                    double *points, int32_t n_points, const int32_t *obs_camera,
                                    const int32_t *obs_point, const double *obs_pixels,
                                    const double *obs_depths, int32_t n_observations,
                                    const cv_rotation_prior *rotation_priors, int32_t n_rotation_priors,
                                    cv_intrinsics intrinsics, cv_bundle_params params, cv_bundle_result *result,
                                    cv_status *status) noexcept {
  return cvision::guarded(status, "cv_bundle_adjust", [&](cv_status *) -> int32_t {
    cvision::require_count(n_cameras, 1, "n_cameras");
    cvision::require_count(n_points, 1, "n_points");
    cvision::require_count(n_observations, 1, "n_observations");
    cvision::require_pointer(camera_from_world, "camera_from_world");
    cvision::require_pointer(camera_fixed, "camera_fixed");
    cvision::require_pointer(points, "points");
    cvision::require_pointer(obs_camera, "obs_camera");
    cvision::require_pointer(obs_point, "obs_point");
    cvision::require_pointer(obs_pixels, "obs_pixels");
    cvision::require_intrinsics(intrinsics);
    validate_params(params);
    if (obs_depths != nullptr) validate_depth_params(params);

    State state;
    state.poses.resize(size_t(n_cameras));
    std::vector<int32_t> free_index(size_t(n_cameras), -1);
    int32_t free_count = 0;
    for (int32_t i = 0; i < n_cameras; ++i) {
      char name[48];
      std::snprintf(name, sizeof(name), "camera_from_world[%d]", i);
      state.poses[size_t(i)] = cvision::read_pose(camera_from_world[i], name);
      if (camera_fixed[i] == 0) free_index[size_t(i)] = free_count++;
    }
    if (free_count == n_cameras) {
      fail(CV_ERR_INVALID_ARGUMENT,
           "at least one camera must be fixed (camera_fixed is 0 for all %d cameras): the gauge is free", n_cameras);
    }
    if (free_count > kMaxFreeCameras) {
      fail(CV_ERR_INVALID_ARGUMENT, "at most %d cameras may be free (got %d)", kMaxFreeCameras, free_count);
    }
    cvision::require_finite_array(points, n_points, 3, "points");
    state.points.resize(size_t(n_points));
    for (int32_t j = 0; j < n_points; ++j) {
      const double *p = points + 3 * size_t(j);
      state.points[size_t(j)] = Eigen::Vector3d(p[0], p[1], p[2]);
    }
    cvision::require_finite_array(obs_pixels, n_observations, 2, "obs_pixels");
    std::vector<Observation> observations(static_cast<size_t>(n_observations));
    for (int32_t i = 0; i < n_observations; ++i) {
      if (obs_camera[i] < 0 || obs_camera[i] >= n_cameras) {
        fail(CV_ERR_INVALID_ARGUMENT, "obs_camera[%d] = %d is outside 0..<%d", i, obs_camera[i], n_cameras);
      }
      if (obs_point[i] < 0 || obs_point[i] >= n_points) {
        fail(CV_ERR_INVALID_ARGUMENT, "obs_point[%d] = %d is outside 0..<%d", i, obs_point[i], n_points);
      }
      observations[size_t(i)] =
          Observation{obs_camera[i], obs_point[i], obs_pixels[2 * size_t(i)], obs_pixels[2 * size_t(i) + 1]};
      if (obs_depths == nullptr || std::isnan(obs_depths[2 * size_t(i)])) continue;
      const double depth = obs_depths[2 * size_t(i)], sigma = obs_depths[2 * size_t(i) + 1];
      if (!std::isfinite(depth) || !(depth > 0) || !std::isfinite(sigma) || !(sigma > 0)) {
        fail(CV_ERR_INVALID_ARGUMENT, "obs_depths[%d] = (%g, %g): the depth and its sigma must be finite and positive",
             i, depth, sigma);
      }
      observations[size_t(i)].depth = depth;
      observations[size_t(i)].inverse_sigma = 1 / sigma;
    }

    if (n_rotation_priors < 0) fail(CV_ERR_INVALID_ARGUMENT, "n_rotation_priors is negative (%d)", n_rotation_priors);
    if (n_rotation_priors > 0) cvision::require_pointer(rotation_priors, "rotation_priors");
    std::vector<RotationPrior> priors;
    for (int32_t k = 0; k < n_rotation_priors; ++k) {
      const cv_rotation_prior &p = rotation_priors[k];
      if (p.first < 0 || p.first >= n_cameras || p.second < 0 || p.second >= n_cameras || p.first == p.second) {
        fail(CV_ERR_INVALID_ARGUMENT, "rotation_priors[%d] joins cameras %d and %d (two of 0..<%d)", k, p.first,
             p.second, n_cameras);
      }
      if (!std::isfinite(p.inverse_sigma) || !(p.inverse_sigma > 0)) {
        fail(CV_ERR_INVALID_ARGUMENT, "rotation_priors[%d].inverse_sigma must be positive and finite (got %g)", k,
             p.inverse_sigma);
      }
      char name[48];
      std::snprintf(name, sizeof(name), "rotation_priors[%d]", k);
      cv_pose rotation{};
      for (int i = 0; i < 9; ++i) rotation.r[i] = p.rotation[i];
      const cvision::Pose read = cvision::read_pose(rotation, name);
      if (camera_fixed[p.first] != 0 && camera_fixed[p.second] != 0) continue;  // a constant
      priors.push_back(RotationPrior{p.first, p.second, read.R, p.inverse_sigma});
    }

    BundleAdjuster adjuster(std::move(observations), free_index, free_count, n_points, intrinsics,
                            params.huber_delta, obs_depths != nullptr ? params.depth_huber_delta : 1.0);
    adjuster.set_rotation_priors(std::move(priors));
    const double outlier_threshold = 3 * params.huber_delta;
    double initial_rms = 0;
    int32_t in_front = 0, outliers = 0;
    adjuster.statistics(state, outlier_threshold, &initial_rms, &in_front, &outliers);
    if (in_front == 0) fail(CV_ERR_NOT_ENOUGH_DATA, "no observation lies in front of its camera");

    BundleAdjuster::Cost cost = adjuster.cost(state);
    double lambda = params.initial_lambda;
    int32_t accepted = 0;
    Eigen::VectorXd camera_step;
    std::vector<Eigen::Vector3d> point_step(static_cast<size_t>(n_points), Eigen::Vector3d::Zero());
    for (int32_t iteration = 0; iteration < params.iterations; ++iteration) {
      adjuster.linearise(state);
      bool improved = false, converged = false;
      for (int attempt = 0; attempt < kMaxAttempts && !improved && !converged && lambda <= kMaxLambda; ++attempt) {
        if (!adjuster.solve(lambda, camera_step, point_step)) {
          lambda *= 10;
          continue;
        }
        // The decrease the (IRLS-weighted) quadratic model predicts; when even that is negligible, the
        // state is at a minimum to numerical precision and evaluating the step is pointless.
        const double predicted = adjuster.predicted_decrease(lambda, camera_step, point_step);
        if (!(predicted > kRelativeTolerance * cost.in_front)) {
          converged = true;
          break;
        }
        State candidate = adjuster.apply(state, camera_step, point_step);
        const BundleAdjuster::Cost candidate_cost = adjuster.cost(candidate);
        if (candidate_cost.total < cost.total) {
          const double decrease = cost.total - candidate_cost.total;
          state = std::move(candidate);
          cost = candidate_cost;
          lambda = std::max(lambda / 10, kMinLambda);
          improved = true;
          ++accepted;
          converged = decrease <= kRelativeTolerance * cost.in_front;
        } else {
          lambda *= 10;
        }
      }
      if (!improved || converged) break;  // at a minimum (to numerical precision)
    }

    double final_rms = 0;
    adjuster.statistics(state, outlier_threshold, &final_rms, &in_front, &outliers);
    if (accepted > 0) {
      // Fixed cameras are not written back, so they stay bit-identical.
      for (int32_t i = 0; i < n_cameras; ++i) {
        if (free_index[size_t(i)] >= 0) cvision::write_pose(state.poses[size_t(i)], &camera_from_world[i]);
      }
      for (int32_t j = 0; j < n_points; ++j) {
        for (int d = 0; d < 3; ++d) points[3 * size_t(j) + size_t(d)] = state.points[size_t(j)](d);
      }
    }
    if (result != nullptr) {
      result->initial_rms = initial_rms;
      result->final_rms = final_rms;
      result->iterations = accepted;
      result->outliers = outliers;
    }
    return CV_OK;
  });
}
