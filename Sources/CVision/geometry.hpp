// Internal helpers for the geometry translation units: poses as Eigen types,
// the so(3) exponential map and pinhole projection.

#ifndef ARSIM_CVISION_GEOMETRY_HPP
#define ARSIM_CVISION_GEOMETRY_HPP

#include <cmath>

#include <Eigen/Dense>

#include "cvision.h"
#include "status.hpp"

namespace cvision {

/// A rigid transform x_to = R * x_from + t.
struct Pose {
  Eigen::Matrix3d R = Eigen::Matrix3d::Identity();
  Eigen::Vector3d t = Eigen::Vector3d::Zero();
};

inline Eigen::Matrix3d skew(const Eigen::Vector3d &v) {
  Eigen::Matrix3d m;
  m << 0, -v.z(), v.y(), v.z(), 0, -v.x(), -v.y(), v.x(), 0;
  return m;
}

/// exp: so(3) -> SO(3) (Rodrigues' formula, with a series near zero).
inline Eigen::Matrix3d so3_exp(const Eigen::Vector3d &omega) {
  const double theta2 = omega.squaredNorm();
  const Eigen::Matrix3d W = skew(omega);
  double a, b;
  if (theta2 < 1e-12) {
    a = 1.0 - theta2 / 6.0;
    b = 0.5 - theta2 / 24.0;
  } else {
    const double theta = std::sqrt(theta2);
    a = std::sin(theta) / theta;
    b = (1.0 - std::cos(theta)) / theta2;
  }
  return Eigen::Matrix3d::Identity() + a * W + b * W * W;
}

/// log: SO(3) -> so(3) (through the quaternion: accurate for small angles).
inline Eigen::Vector3d so3_log(const Eigen::Matrix3d &R) {
  const Eigen::Quaterniond q(R);
  const double w = q.w() < 0 ? -q.w() : q.w();
  const Eigen::Vector3d v = q.w() < 0 ? Eigen::Vector3d(-q.vec()) : Eigen::Vector3d(q.vec());
  const double s = v.norm();
  if (s < 1e-12) return 2 * v;
  return (2 * std::atan2(s, w) / s) * v;
}

/// The inverse of SO(3)'s right Jacobian at `phi`: log(exp(phi) exp(d)) = phi + Jr^-1(phi) d + O(d^2).
inline Eigen::Matrix3d so3_right_jacobian_inverse(const Eigen::Vector3d &phi) {
  const double theta2 = phi.squaredNorm();
  const Eigen::Matrix3d W = skew(phi);
  double c;
  if (theta2 < 1e-8) {
    c = 1.0 / 12.0 + theta2 / 720.0;
  } else {
    const double theta = std::sqrt(theta2);
    c = 1 / theta2 - (1 + std::cos(theta)) / (2 * theta * std::sin(theta));
  }
  return Eigen::Matrix3d::Identity() + 0.5 * W + c * W * W;
}

/// The rotation nearest to `m` in the Frobenius norm.
inline Eigen::Matrix3d nearest_rotation(const Eigen::Matrix3d &m) {
  Eigen::JacobiSVD<Eigen::Matrix3d> svd(m, Eigen::ComputeFullU | Eigen::ComputeFullV);
  Eigen::Matrix3d d = Eigen::Matrix3d::Identity();
  if ((svd.matrixU() * svd.matrixV().transpose()).determinant() < 0) d(2, 2) = -1;
  return svd.matrixU() * d * svd.matrixV().transpose();
}

/// Reads and validates a pose argument: finite, with a proper rotation
/// (orthonormal to 1e-6, determinant +1), re-orthonormalised exactly.
inline Pose read_pose(const cv_pose &pose, const char *name) {
  Pose result;
  for (int i = 0; i < 9; ++i) {
    if (!std::isfinite(pose.r[i])) fail(CV_ERR_INVALID_ARGUMENT, "%s.r[%d] is not finite", name, i);
    result.R(i / 3, i % 3) = pose.r[i];
  }
  for (int i = 0; i < 3; ++i) {
    if (!std::isfinite(pose.t[i])) fail(CV_ERR_INVALID_ARGUMENT, "%s.t[%d] is not finite", name, i);
    result.t(i) = pose.t[i];
  }
  const double orthogonality = (result.R.transpose() * result.R - Eigen::Matrix3d::Identity()).norm();
  if (orthogonality > 1e-6 || result.R.determinant() < 0) {
    fail(CV_ERR_INVALID_ARGUMENT, "%s.r is not a rotation matrix (|R^T R - I| = %.3g, det = %.6g)", name,
         orthogonality, result.R.determinant());
  }
  result.R = nearest_rotation(result.R);
  return result;
}

inline void write_pose(const Pose &pose, cv_pose *out) {
  for (int i = 0; i < 9; ++i) out->r[i] = pose.R(i / 3, i % 3);
  for (int i = 0; i < 3; ++i) out->t[i] = pose.t(i);
}

/// Pixel coordinates of a point in the camera's optical frame (z forward).
inline Eigen::Vector2d project(const cv_intrinsics &k, const Eigen::Vector3d &p) {
  return Eigen::Vector2d(k.fx * p.x() / p.z() + k.cx, k.fy * p.y() / p.z() + k.cy);
}

/// The normalised image coordinates (z = 1) of a pixel.
inline Eigen::Vector2d normalize(const cv_intrinsics &k, double u, double v) {
  return Eigen::Vector2d((u - k.cx) / k.fx, (v - k.cy) / k.fy);
}

/// Levenberg-Marquardt on SE(3) from `pose` (refine.cpp, `cv_refine_pose`'s solver): Huber-weighted
/// pixel reprojection errors of `count` points (`world_points` x, y, z; `image_points` u, v; `weights`
/// per point or nullptr for 1), plus, where `depth_priors` gives one (depth, inverse sigma; nullptr:
/// none), each point's camera z-depth against it, plus, with `rotation_prior` (nullptr: none), the
/// rotation's left error log(R Rp^T) times `rotation_inverse_sigma` (not robustified). `huber_delta`
/// infinite: plain least squares. Stops after `iterations` steps, at convergence, or when no step lowers
/// the cost. Inputs are not validated.
Pose refine_pose_lm(const double *world_points, const double *image_points, const double *weights,
                    const double *depth_priors, int32_t count, const cv_intrinsics &intrinsics, double huber_delta,
                    double depth_huber_delta, int iterations, Pose pose,
                    const Eigen::Matrix3d *rotation_prior = nullptr, double rotation_inverse_sigma = 0);

}  // namespace cvision

#endif  // ARSIM_CVISION_GEOMETRY_HPP
