// Internal to bundle.cpp: the sliding-window bundle adjuster (see bundle.cpp for the method,
// the normal equations and the damping). Its normal equations are built in
// bundle_normal_equations.cpp, its damped step solved in bundle_solve.cpp.
//
// The per-observation and per-point arithmetic (the inner loops) is written out on fixed-size double
// arrays rather than Eigen expressions: a debug build compiles C++ without optimisation, where every
// Eigen expression is a chain of calls, and an app's test build runs this code at -O0. Only the dense
// reduced camera system (one LDLT per damped solve) uses Eigen.

#ifndef ARSIM_CVISION_BUNDLE_ADJUSTER_HPP
#define ARSIM_CVISION_BUNDLE_ADJUSTER_HPP

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include <Eigen/Dense>

#include "cvision_solvers.h"
#include "geometry.hpp"
#include "status.hpp"

namespace cvision::bundle {

using cvision::fail;
using cvision::Pose;

/// Points closer to the image plane than this (metres, along z) count as behind the camera.
constexpr double kMinDepth = 1e-9;
/// Smallest diagonal entry the damping scales (keeps directions without curvature damped).
constexpr double kDiagonalFloor = 1e-9;
/// Bounds of the damping factor; beyond kMaxLambda no step can lower the cost.
constexpr double kMinLambda = 1e-12;
constexpr double kMaxLambda = 1e16;
/// Damped solves tried per linearisation before giving up (lambda grows tenfold each time).
constexpr int kMaxAttempts = 10;
/// Converged when a step lowers (or is predicted to lower) the cost by less than this fraction.
constexpr double kRelativeTolerance = 1e-10;
/// Largest number of cameras that are not fixed (the reduced camera system is dense).
constexpr int32_t kMaxFreeCameras = 1000;

/// Row-major fixed-size blocks.
using Block66 = std::array<double, 36>;
using Block33 = std::array<double, 9>;
using Vec6 = std::array<double, 6>;
using Vec3 = std::array<double, 3>;

struct Observation {
  int32_t camera;
  int32_t point;
  double u, v;  // observed pixel
  /// Measured z-depth of the point in the camera (metres) and its inverse standard deviation (1/m);
  /// inverse_sigma 0: no depth prior.
  double depth = 0;
  double inverse_sigma = 0;
};

/// A prior on the relative rotation of two cameras (a gyroscope's turn between them): the residual
/// r = log(Q^T R_a R_b^T) * inverse_sigma (radians over their standard deviation), with R the cameras'
/// camera-from-world rotations and Q the measured camera-a-from-camera-b rotation. Plain least squares.
struct RotationPrior {
  int32_t a, b;
  Eigen::Matrix3d Q;
  double inverse_sigma;
};

/// The linearisation of one rotation prior: r and its derivatives by the two cameras' rotation
/// increments (left perturbations), already scaled by the inverse sigma.
struct LinearisedPrior {
  double Ja[3][3], Jb[3][3];
  double r[3];
};

struct State {
  std::vector<Pose> poses;
  std::vector<Eigen::Vector3d> points;
};

/// The linearisation of one observation at the current state.
struct Linearised {
  double Jc[2][6];  // d r / d (omega, dt) of its camera
  double Jp[2][3];  // d r / d X of its point
  double r[2];
  double w = 0;     // Huber (IRLS) weight; 0 when the point is behind the camera
  double Jcd[6];    // d rd / d (omega, dt) of the depth residual (when a prior)
  double Jpd[3];    // d rd / d X
  double rd = 0;    // depth residual, standard deviations: (z - depth) * inverse_sigma
  double wd = 0;    // its Huber (IRLS) weight; 0 without a prior
  double W[6][3];   // w Jc^T Jp (only for cameras that are not fixed)
  double T[6][3];   // W V^-1 of the current damped system
};

/// `pose` applied to `x`: R x + t (Eigen's storage is column-major).
inline void transform(const Pose &pose, const Eigen::Vector3d &x, double p[3]) {
  const double *R = pose.R.data(), *t = pose.t.data(), *X = x.data();
  for (int i = 0; i < 3; ++i) p[i] = R[i] * X[0] + R[i + 3] * X[1] + R[i + 6] * X[2] + t[i];
}

/// The inverse of a symmetric positive definite 3x3 block by cofactors; false when it is not
/// (numerically) positive definite or the inverse is not finite.
inline bool invert(const Block33 &m, Block33 &inverse) {
  const double c00 = m[4] * m[8] - m[5] * m[7], c01 = m[5] * m[6] - m[3] * m[8], c02 = m[3] * m[7] - m[4] * m[6];
  const double det = m[0] * c00 + m[1] * c01 + m[2] * c02;
  if (!(det > 0) || !std::isfinite(det)) return false;
  const double s = 1 / det;
  inverse = {c00 * s, (m[2] * m[7] - m[1] * m[8]) * s, (m[1] * m[5] - m[2] * m[4]) * s,
             c01 * s, (m[0] * m[8] - m[2] * m[6]) * s, (m[2] * m[3] - m[0] * m[5]) * s,
             c02 * s, (m[1] * m[6] - m[0] * m[7]) * s, (m[0] * m[4] - m[1] * m[3]) * s};
  for (double x : inverse) {
    if (!std::isfinite(x)) return false;
  }
  return true;
}

class BundleAdjuster {
 public:
  BundleAdjuster(std::vector<Observation> observations, std::vector<int32_t> free_index, int32_t free_count,
                 int32_t point_count, cv_intrinsics k, double delta, double depth_delta)
      : observations_(std::move(observations)),
        free_index_(std::move(free_index)),
        free_count_(free_count),
        point_count_(point_count),
        k_(k),
        delta_(delta),
        depth_delta_(depth_delta) {
    // Observations grouped by point (counting sort: stable, so the order is deterministic).
    point_offsets_.assign(size_t(point_count_) + 1, 0);
    for (const Observation &o : observations_) ++point_offsets_[size_t(o.point) + 1];
    for (size_t j = 0; j < size_t(point_count_); ++j) point_offsets_[j + 1] += point_offsets_[j];
    by_point_.resize(observations_.size());
    std::vector<int32_t> next(point_offsets_.begin(), point_offsets_.end() - 1);
    for (size_t i = 0; i < observations_.size(); ++i) {
      by_point_[size_t(next[size_t(observations_[i].point)]++)] = int32_t(i);
    }
    linearised_.resize(observations_.size());
    U_.resize(size_t(free_count_));
    gc_.resize(size_t(free_count_));
    V_.resize(size_t(point_count_));
    gp_.resize(size_t(point_count_));
    Vinv_.resize(size_t(point_count_));
    point_active_.resize(size_t(point_count_));
  }

  /// Sets the rotation priors (their cameras in range and not both fixed: checked by the caller).
  void set_rotation_priors(std::vector<RotationPrior> priors) {
    priors_ = std::move(priors);
    linearised_priors_.resize(priors_.size());
  }

  /// R_a R_b^T at `state`: the rotation from camera b's frame to camera a's that prior `p` measures.
  static Eigen::Matrix3d prior_rotation(const RotationPrior &p, const State &state) {
    return state.poses[size_t(p.a)].R * state.poses[size_t(p.b)].R.transpose();
  }

  /// The residual of rotation prior `p` at `state` (standard deviations per axis).
  static Eigen::Vector3d prior_residual(const RotationPrior &p, const State &state) {
    return p.inverse_sigma * so3_log(p.Q.transpose() * prior_rotation(p, state));
  }

  /// Half the squared norm of the rotation priors' residuals.
  double prior_cost(const State &state) const {
    double sum = 0;
    for (const RotationPrior &p : priors_) sum += 0.5 * prior_residual(p, state).squaredNorm();
    return sum;
  }

  /// Huber loss of an error of `e` pixels.
  double huber(double e) const { return huber(e, delta_); }
  /// Huber loss of an error `e` with threshold `delta`.
  static double huber(double e, double delta) { return e <= delta ? 0.5 * e * e : delta * (e - 0.5 * delta); }

  /// The reprojection error (pixels) of observation `o` at camera-frame position `p` (in front).
  double pixel_error(const Observation &o, const double p[3], double r[2]) const {
    r[0] = k_.fx * p[0] / p[2] + k_.cx - o.u;
    r[1] = k_.fy * p[1] / p[2] + k_.cy - o.v;
    return std::sqrt(r[0] * r[0] + r[1] * r[1]);
  }

  /// The Huber loss of an observation's depth residual (0 without a prior); `p` in the camera.
  double depth_cost(const Observation &o, const double p[3]) const {
    return o.inverse_sigma > 0 ? huber(std::abs((p[2] - o.depth) * o.inverse_sigma), depth_delta_) : 0.0;
  }

  /// Robust cost: the Huber loss of the observations in front of their camera (`in_front`) plus a
  /// fixed penalty per observation behind its camera, so that a step cannot lower the cost by pushing
  /// points behind cameras. The convergence tests use `in_front` only.
  struct Cost {
    double total = 0;
    double in_front = 0;
  };

  Cost cost(const State &state) const {
    const double behind_penalty = huber(1e4);
    Cost c;
    int32_t behind = 0;
    for (const Observation &o : observations_) {
      double p[3], r[2];
      transform(state.poses[size_t(o.camera)], state.points[size_t(o.point)], p);
      if (p[2] > kMinDepth) {
        c.in_front += huber(pixel_error(o, p, r)) + depth_cost(o, p);
      } else {
        ++behind;
      }
    }
    c.in_front += prior_cost(state);
    c.total = c.in_front + behind * behind_penalty;
    return c;
  }

  /// Plain RMS reprojection error (pixels) over observations in front of their camera, the number of
  /// those, and the number of outliers (error above `outlier_threshold`, or behind the camera).
  void statistics(const State &state, double outlier_threshold, double *rms, int32_t *in_front,
                  int32_t *outliers) const {
    double sum = 0;
    int32_t used = 0, rejected = 0;
    for (const Observation &o : observations_) {
      double p[3], r[2];
      transform(state.poses[size_t(o.camera)], state.points[size_t(o.point)], p);
      if (p[2] <= kMinDepth) {
        ++rejected;
        continue;
      }
      const double e = pixel_error(o, p, r);
      sum += e * e;
      ++used;
      if (e > outlier_threshold) ++rejected;
    }
    *rms = used > 0 ? std::sqrt(sum / used) : 0.0;
    *in_front = used;
    *outliers = rejected;
  }

  /// Builds the undamped normal equations at `state`.
  void linearise(const State &state);

  /// Adds the rotation priors to the camera blocks and gradients; their cross terms between two free
  /// cameras are kept for `solve` (linearised_priors_).
  void linearise_priors(const State &state);

  /// Adds J^T J and J^T r of one camera's part of a rotation prior to its rotation block.
  void add_prior_block(int32_t c, const double J[3][3], const double r[3]);

  /// Solves the damped normal equations by the Schur complement on the points. Returns false when
  /// the reduced camera system cannot be solved or the step is not finite.
  bool solve(double lambda, Eigen::VectorXd &camera_step, std::vector<Eigen::Vector3d> &point_step);

  /// The decrease of the damped quadratic model for a step of the last `solve`:
  /// -g^T d - 1/2 d^T H d = 1/2 d^T (lambda D d - g), with D the floored diagonal of H.
  double predicted_decrease(double lambda, const Eigen::VectorXd &camera_step,
                            const std::vector<Eigen::Vector3d> &point_step) const;

  /// `state` moved by a step (cameras by left SE(3) increments, points additively).
  State apply(const State &state, const Eigen::VectorXd &camera_step,
              const std::vector<Eigen::Vector3d> &point_step) const {
    State next = state;
    for (size_t i = 0; i < state.poses.size(); ++i) {
      const int32_t c = free_index_[i];
      if (c < 0) continue;
      const Eigen::Matrix<double, 6, 1> xi = camera_step.segment<6>(6 * c);
      const Eigen::Matrix3d dR = cvision::so3_exp(xi.head<3>());
      next.poses[i].R = cvision::nearest_rotation(dR * state.poses[i].R);
      next.poses[i].t = dR * state.poses[i].t + xi.tail<3>();
    }
    for (size_t j = 0; j < state.points.size(); ++j) {
      if (point_active_[j] == 0) continue;
      double *p = next.points[j].data();
      const double *d = point_step[j].data();
      for (int k = 0; k < 3; ++k) p[k] += d[k];
    }
    return next;
  }

 private:
  std::vector<Observation> observations_;
  std::vector<int32_t> free_index_;  // per camera: index among the free cameras, -1 when fixed
  int32_t free_count_;
  int32_t point_count_;
  cv_intrinsics k_;
  double delta_;
  double depth_delta_;
  std::vector<int32_t> point_offsets_, by_point_;
  std::vector<Linearised> linearised_;
  std::vector<Block66> U_;
  std::vector<Vec6> gc_;
  std::vector<Block33> V_, Vinv_;
  std::vector<Vec3> gp_;
  std::vector<uint8_t> point_active_;
  std::vector<RotationPrior> priors_;
  std::vector<LinearisedPrior> linearised_priors_;
  Eigen::MatrixXd S_;
  Eigen::VectorXd b_;
};

}  // namespace cvision::bundle

#endif
