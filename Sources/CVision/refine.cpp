// Robust pose refinement: Levenberg-Marquardt on SE(3) with Huber weights (Eigen).
//
// Parametrisation: camera_from_world (R, t) is updated by a left increment,
// R <- exp(omega) R, t <- exp(omega) t + dt, i.e. T <- exp(xi) T on SE(3) with
// the rotation part applied through the so(3) exponential map. Residuals are
// pixel reprojection errors, plus (RGB-D) each point's z-depth in the camera
// against a measured depth in standard deviations; points at or behind the
// camera get zero weight.

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <Eigen/Dense>

#include "cvision.h"
#include "geometry.hpp"
#include "status.hpp"

namespace {

using cvision::fail;
using cvision::Pose;

/// Points closer to the image plane than this (metres, along z) count as behind the camera.
constexpr double kMinDepth = 1e-9;

struct Problem {
  const double *world;
  const double *image;
  const double *weights;
  const double *depths;  // (depth, inverse sigma) per point, inverse sigma 0: none; nullptr: none at all
  int32_t count;
  cv_intrinsics k;
  double delta;
  double depth_delta;
  const Eigen::Matrix3d *rotation_prior;  // camera-from-world rotation prior; nullptr: none
  double rotation_inverse_sigma;

  Eigen::Vector3d point(int32_t i) const { return Eigen::Vector3d(world[3 * i], world[3 * i + 1], world[3 * i + 2]); }
  Eigen::Vector2d observation(int32_t i) const { return Eigen::Vector2d(image[2 * i], image[2 * i + 1]); }
  double weight(int32_t i) const { return weights == nullptr ? 1.0 : weights[i]; }

  /// Huber loss of an error of `e` pixels.
  double huber(double e) const { return huber(e, delta); }
  static double huber(double e, double d) { return e <= d ? 0.5 * e * e : d * (e - 0.5 * d); }
  /// The depth residual of point `i` at camera-frame position `p`, standard deviations (0 without a prior).
  double depth_residual(int32_t i, const Eigen::Vector3d &p) const {
    return depths == nullptr || depths[2 * i + 1] == 0 ? 0.0 : (p.z() - depths[2 * i]) * depths[2 * i + 1];
  }
  /// The rotation prior's residual at rotation `R`, standard deviations per axis (0 without a prior).
  Eigen::Vector3d rotation_residual(const Eigen::Matrix3d &R) const {
    if (rotation_prior == nullptr) return Eigen::Vector3d::Zero();
    return rotation_inverse_sigma * cvision::so3_log(R * rotation_prior->transpose());
  }

  /// Robust cost; points behind the camera contribute a fixed penalty so that
  /// a step cannot lower the cost by pushing points behind the camera.
  double cost(const Pose &pose) const {
    const double behind_penalty = huber(1e4);
    double total = 0;
    for (int32_t i = 0; i < count; ++i) {
      const double w = weight(i);
      if (w == 0) continue;
      const Eigen::Vector3d p = pose.R * point(i) + pose.t;
      total += w * (p.z() > kMinDepth ? huber((cvision::project(k, p) - observation(i)).norm()) +
                                            huber(std::abs(depth_residual(i, p)), depth_delta)
                                      : behind_penalty);
    }
    return total + 0.5 * rotation_residual(pose.R).squaredNorm();
  }
};

Pose apply_increment(const Pose &pose, const Eigen::Matrix<double, 6, 1> &xi) {
  const Eigen::Matrix3d dR = cvision::so3_exp(xi.head<3>());
  Pose next;
  next.R = cvision::nearest_rotation(dR * pose.R);
  next.t = dR * pose.t + xi.tail<3>();
  return next;
}

}  // namespace

namespace cvision {

Pose refine_pose_lm(const double *world_points, const double *image_points, const double *weights,
                    const double *depth_priors, int32_t count, const cv_intrinsics &intrinsics, double huber_delta,
                    double depth_huber_delta, int iterations, Pose pose, const Eigen::Matrix3d *rotation_prior,
                    double rotation_inverse_sigma) {
  const Problem problem{world_points, image_points,      weights,        depth_priors,          count, intrinsics,
                        huber_delta,  depth_huber_delta, rotation_prior, rotation_inverse_sigma};
  double cost = problem.cost(pose);
  double lambda = 1e-4;
  for (int iteration = 0; iteration < iterations; ++iteration) {
    // Normal equations of the IRLS-weighted problem at the current pose.
    Eigen::Matrix<double, 6, 6> H = Eigen::Matrix<double, 6, 6>::Zero();
    Eigen::Matrix<double, 6, 1> g = Eigen::Matrix<double, 6, 1>::Zero();
    int used = 0;
    for (int32_t i = 0; i < count; ++i) {
      const double w_user = problem.weight(i);
      if (w_user == 0) continue;
      const Eigen::Vector3d p = pose.R * problem.point(i) + pose.t;
      if (p.z() <= kMinDepth) continue;
      const Eigen::Vector2d r = cvision::project(intrinsics, p) - problem.observation(i);
      const double e = r.norm();
      const double w = w_user * (e <= huber_delta ? 1.0 : huber_delta / e);
      const double z_inv = 1.0 / p.z();
      Eigen::Matrix<double, 2, 3> d_proj;
      d_proj << intrinsics.fx * z_inv, 0, -intrinsics.fx * p.x() * z_inv * z_inv,  //
          0, intrinsics.fy * z_inv, -intrinsics.fy * p.y() * z_inv * z_inv;
      Eigen::Matrix<double, 3, 6> d_point;
      d_point.leftCols<3>() = -cvision::skew(p);  // d(exp(w) p)/dw at 0
      d_point.rightCols<3>() = Eigen::Matrix3d::Identity();
      const Eigen::Matrix<double, 2, 6> J = d_proj * d_point;
      H += w * J.transpose() * J;
      g += w * J.transpose() * r;
      if (const double rd = problem.depth_residual(i, p); rd != 0) {
        // d z / d omega = row 2 of -[p]x = (p.y, -p.x, 0); d z / d dt = (0, 0, 1).
        const double inverse_sigma = depth_priors[2 * i + 1];
        Eigen::Matrix<double, 6, 1> Jd;
        Jd << p.y(), -p.x(), 0, 0, 0, 1;
        Jd *= inverse_sigma;
        const double ed = std::abs(rd);
        const double wd = w_user * (ed <= depth_huber_delta ? 1.0 : depth_huber_delta / ed);
        H += wd * Jd * Jd.transpose();
        g += (wd * rd) * Jd;
      }
      ++used;
    }
    if (used < 3) break;
    if (rotation_prior != nullptr) {
      // r(w) = s log(exp(w) R Rp^T) = r + s Jl^-1(r / s) w, Jl^-1(phi) = Jr^-1(-phi).
      const Eigen::Vector3d r = problem.rotation_residual(pose.R);
      const Eigen::Matrix3d Jr =
          rotation_inverse_sigma * cvision::so3_right_jacobian_inverse(-r / rotation_inverse_sigma);
      H.topLeftCorner<3, 3>() += Jr.transpose() * Jr;
      g.head<3>() += Jr.transpose() * r;
    }
    bool improved = false;
    for (int attempt = 0; attempt < 10 && !improved; ++attempt) {
      Eigen::Matrix<double, 6, 6> damped = H;
      damped.diagonal() += lambda * H.diagonal().cwiseMax(1e-9);
      const Eigen::Matrix<double, 6, 1> xi = damped.ldlt().solve(-g);
      if (!xi.allFinite()) break;
      const Pose candidate = apply_increment(pose, xi);
      const double candidate_cost = problem.cost(candidate);
      if (candidate_cost < cost) {
        const double decrease = cost - candidate_cost;
        pose = candidate;
        cost = candidate_cost;
        lambda = std::max(lambda / 10, 1e-12);
        improved = true;
        if (xi.norm() < 1e-12 || decrease <= 1e-15 * cost) iteration = iterations;  // converged
      } else {
        lambda *= 10;
      }
    }
    if (!improved) break;  // no step lowers the cost: at a minimum (to numerical precision)
  }
  return pose;
}

}  // namespace cvision

extern "C" int32_t cv_refine_pose(const double *world_points, const double *image_points, const double *weights,
                                  const double *depth_priors, int32_t count, cv_intrinsics intrinsics,
                                  cv_refine_params params,
                                  cv_pose *camera_from_world, double *rms_error, cv_status *status) noexcept {
  return cvision::guarded(status, "cv_refine_pose", [&](cv_status *) -> int32_t {
    cvision::require_count(count, 3, "count");
    cvision::require_pointer(world_points, "world_points");
    cvision::require_pointer(image_points, "image_points");
    cvision::require_pointer(camera_from_world, "camera_from_world");
    cvision::require_pointer(rms_error, "rms_error");
    cvision::require_intrinsics(intrinsics);
    if (params.iterations < 0 || params.iterations > 1000) {
      fail(CV_ERR_INVALID_ARGUMENT, "params.iterations must be in 0...1000 (got %d)", params.iterations);
    }
    if (std::isnan(params.huber_delta) || params.huber_delta <= 0) {
      fail(CV_ERR_INVALID_ARGUMENT, "params.huber_delta must be positive (got %g)", params.huber_delta);
    }
    cvision::require_finite_array(world_points, count, 3, "world_points");
    cvision::require_finite_array(image_points, count, 2, "image_points");
    if (weights != nullptr) {
      for (int32_t i = 0; i < count; ++i) {
        if (!std::isfinite(weights[i]) || weights[i] < 0) {
          fail(CV_ERR_INVALID_ARGUMENT, "weights[%d] must be finite and non-negative (got %g)", i, weights[i]);
        }
      }
    }
    if (depth_priors != nullptr) {
      if (std::isnan(params.depth_huber_delta) || params.depth_huber_delta <= 0) {
        fail(CV_ERR_INVALID_ARGUMENT, "params.depth_huber_delta must be positive (got %g)", params.depth_huber_delta);
      }
      for (int32_t i = 0; i < count; ++i) {
        const double d = depth_priors[2 * i], inverse_sigma = depth_priors[2 * i + 1];
        if (!std::isfinite(inverse_sigma) || inverse_sigma < 0 || (inverse_sigma > 0 && !(d > 0 && std::isfinite(d)))) {
          fail(CV_ERR_INVALID_ARGUMENT, "depth_priors[%d] must be a positive depth and a finite inverse sigma >= 0 (got %g, %g)",
               i, d, inverse_sigma);
        }
      }
    }
    if (!std::isfinite(params.rotation_prior_inverse_sigma) || params.rotation_prior_inverse_sigma < 0) {
      fail(CV_ERR_INVALID_ARGUMENT, "params.rotation_prior_inverse_sigma must be finite and >= 0 (got %g)",
           params.rotation_prior_inverse_sigma);
    }
    Eigen::Matrix3d prior;
    if (params.rotation_prior_inverse_sigma > 0) {
      prior = cvision::read_pose(params.rotation_prior, "params.rotation_prior").R;
    }
    const Eigen::Matrix3d *rotation_prior = params.rotation_prior_inverse_sigma > 0 ? &prior : nullptr;
    Pose pose = cvision::read_pose(*camera_from_world, "camera_from_world");
    // For the RMS below (reprojection only).
    const Problem problem{world_points, image_points, weights, depth_priors, count, intrinsics,
                          params.huber_delta, params.depth_huber_delta, nullptr, 0};

    pose = cvision::refine_pose_lm(world_points, image_points, weights, depth_priors, count, intrinsics,
                                   params.huber_delta, params.depth_huber_delta, params.iterations, pose,
                                   rotation_prior, params.rotation_prior_inverse_sigma);

    // RMS over the points in front of the camera that have a non-zero weight.
    double sum = 0;
    int used = 0;
    for (int32_t i = 0; i < count; ++i) {
      if (problem.weight(i) == 0) continue;
      const Eigen::Vector3d p = pose.R * problem.point(i) + pose.t;
      if (p.z() <= kMinDepth) continue;
      sum += (cvision::project(intrinsics, p) - problem.observation(i)).squaredNorm();
      ++used;
    }
    if (used == 0) fail(CV_ERR_NOT_ENOUGH_DATA, "no weighted point lies in front of the camera");
    cvision::write_pose(pose, camera_from_world);
    *rms_error = std::sqrt(sum / used);
    return CV_OK;
  });
}
