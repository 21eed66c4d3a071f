// Internal to bundle.cpp: the sliding-window bundle adjuster (see bundle.cpp for the method,
// the normal equations and the damping).

#ifndef ARSIM_CVISION_BUNDLE_ADJUSTER_HPP
#define ARSIM_CVISION_BUNDLE_ADJUSTER_HPP

#include <algorithm>
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

using Matrix26 = Eigen::Matrix<double, 2, 6>;
using Matrix23 = Eigen::Matrix<double, 2, 3>;
using Matrix63 = Eigen::Matrix<double, 6, 3>;
using Matrix66 = Eigen::Matrix<double, 6, 6>;
using Vector6 = Eigen::Matrix<double, 6, 1>;

struct Observation {
  int32_t camera;
  int32_t point;
  Eigen::Vector2d pixel;
  /// Measured z-depth of the point in the camera (metres) and its inverse standard deviation (1/m);
  /// inverse_sigma 0: no depth prior.
  double depth = 0;
  double inverse_sigma = 0;
};

struct State {
  std::vector<Pose> poses;
  std::vector<Eigen::Vector3d> points;
};

/// The linearisation of one observation at the current state.
struct Linearised {
  Matrix26 Jc;      // d r / d (omega, dt) of its camera
  Matrix23 Jp;      // d r / d X of its point
  Eigen::Vector2d r;
  double w = 0;     // Huber (IRLS) weight; 0 when the point is behind the camera
  Eigen::Matrix<double, 1, 6> Jcd;  // d rd / d (omega, dt) of the depth residual (when a prior)
  Eigen::RowVector3d Jpd;           // d rd / d X
  double rd = 0;    // depth residual, standard deviations: (z - depth) * inverse_sigma
  double wd = 0;    // its Huber (IRLS) weight; 0 without a prior
  Matrix63 W;       // w Jc^T Jp (only for cameras that are not fixed)
  Matrix63 T;       // W V^-1 of the current damped system
};

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

  /// Huber loss of an error of `e` pixels.
  double huber(double e) const { return huber(e, delta_); }
  /// Huber loss of an error `e` with threshold `delta`.
  static double huber(double e, double delta) { return e <= delta ? 0.5 * e * e : delta * (e - 0.5 * delta); }

  /// The Huber loss of an observation's depth residual (0 without a prior); `p` in the camera.
  double depth_cost(const Observation &o, const Eigen::Vector3d &p) const {
    return o.inverse_sigma > 0 ? huber(std::abs((p.z() - o.depth) * o.inverse_sigma), depth_delta_) : 0.0;
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
      const Pose &pose = state.poses[size_t(o.camera)];
      const Eigen::Vector3d p = pose.R * state.points[size_t(o.point)] + pose.t;
      if (p.z() > kMinDepth) {
        c.in_front += huber((cvision::project(k_, p) - o.pixel).norm()) + depth_cost(o, p);
      } else {
        ++behind;
      }
    }
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
      const Pose &pose = state.poses[size_t(o.camera)];
      const Eigen::Vector3d p = pose.R * state.points[size_t(o.point)] + pose.t;
      if (p.z() <= kMinDepth) {
        ++rejected;
        continue;
      }
      const double e2 = (cvision::project(k_, p) - o.pixel).squaredNorm();
      sum += e2;
      ++used;
      if (std::sqrt(e2) > outlier_threshold) ++rejected;
    }
    *rms = used > 0 ? std::sqrt(sum / used) : 0.0;
    *in_front = used;
    *outliers = rejected;
  }

  /// Builds the undamped normal equations at `state`.
  void linearise(const State &state) {
    for (auto &U : U_) U.setZero();
    for (auto &g : gc_) g.setZero();
    for (auto &V : V_) V.setZero();
    for (auto &g : gp_) g.setZero();
    std::fill(point_active_.begin(), point_active_.end(), 0);
    for (size_t i = 0; i < observations_.size(); ++i) {
      const Observation &o = observations_[i];
      Linearised &l = linearised_[i];
      const Pose &pose = state.poses[size_t(o.camera)];
      const Eigen::Vector3d p = pose.R * state.points[size_t(o.point)] + pose.t;
      if (!(p.z() > kMinDepth)) {
        l.w = 0;  // behind the camera: ignored
        l.wd = 0;
        continue;
      }
      l.r = cvision::project(k_, p) - o.pixel;
      const double e = l.r.norm();
      l.w = e <= delta_ ? 1.0 : delta_ / e;
      const double z_inv = 1.0 / p.z();
      Matrix23 d_proj;
      d_proj << k_.fx * z_inv, 0, -k_.fx * p.x() * z_inv * z_inv,  //
          0, k_.fy * z_inv, -k_.fy * p.y() * z_inv * z_inv;
      l.Jp.noalias() = d_proj * pose.R;
      // The depth prior: rd = (z - depth) / sigma, z the third row of R X + t.
      l.wd = 0;
      if (o.inverse_sigma > 0) {
        l.rd = (p.z() - o.depth) * o.inverse_sigma;
        const double ed = std::abs(l.rd);
        l.wd = ed <= depth_delta_ ? 1.0 : depth_delta_ / ed;
        l.Jpd = o.inverse_sigma * pose.R.row(2);
        // d z / d omega = row 2 of -[p]x = (p.y, -p.x, 0); d z / d dt = (0, 0, 1).
        l.Jcd << p.y(), -p.x(), 0, 0, 0, 1;
        l.Jcd *= o.inverse_sigma;
      }
      const int32_t c = free_index_[size_t(o.camera)];
      if (c >= 0) {
        l.Jc.leftCols<3>().noalias() = -d_proj * cvision::skew(p);  // d(exp(omega) p)/d omega at 0
        l.Jc.rightCols<3>() = d_proj;
        U_[size_t(c)].noalias() += l.w * l.Jc.transpose() * l.Jc;
        gc_[size_t(c)].noalias() += l.w * l.Jc.transpose() * l.r;
        l.W.noalias() = l.w * l.Jc.transpose() * l.Jp;
        if (l.wd > 0) {
          U_[size_t(c)].noalias() += l.wd * l.Jcd.transpose() * l.Jcd;
          gc_[size_t(c)].noalias() += (l.wd * l.rd) * l.Jcd.transpose();
          l.W.noalias() += l.wd * l.Jcd.transpose() * l.Jpd;
        }
      }
      V_[size_t(o.point)].noalias() += l.w * l.Jp.transpose() * l.Jp;
      gp_[size_t(o.point)].noalias() += l.w * l.Jp.transpose() * l.r;
      if (l.wd > 0) {
        V_[size_t(o.point)].noalias() += l.wd * l.Jpd.transpose() * l.Jpd;
        gp_[size_t(o.point)].noalias() += (l.wd * l.rd) * l.Jpd.transpose();
      }
      point_active_[size_t(o.point)] = 1;
    }
  }

  /// Solves the damped normal equations by the Schur complement on the points. Returns false when
  /// the reduced camera system cannot be solved or the step is not finite.
  bool solve(double lambda, Eigen::VectorXd &camera_step, std::vector<Eigen::Vector3d> &point_step) {
    const Eigen::Index dim = 6 * Eigen::Index(free_count_);
    S_.setZero(dim, dim);
    b_.setZero(dim);
    for (int32_t c = 0; c < free_count_; ++c) {
      Matrix66 U = U_[size_t(c)];
      for (int d = 0; d < 6; ++d) U(d, d) += lambda * std::max(U(d, d), kDiagonalFloor);
      S_.block<6, 6>(6 * c, 6 * c) = U;
      b_.segment<6>(6 * c) = -gc_[size_t(c)];
    }
    for (int32_t j = 0; j < point_count_; ++j) {
      Eigen::Matrix3d &Vinv = Vinv_[size_t(j)];
      if (point_active_[size_t(j)] == 0) {
        Vinv.setZero();  // no observation in front of a camera: the point stays where it is
        continue;
      }
      Eigen::Matrix3d V = V_[size_t(j)];
      for (int d = 0; d < 3; ++d) V(d, d) += lambda * std::max(V(d, d), kDiagonalFloor);
      const double det = V.determinant();
      if (!(det > 0) || !std::isfinite(det)) {
        Vinv.setZero();  // not positive definite (numerically): hold the point for this step
        continue;
      }
      Vinv = V.inverse();
      if (!Vinv.allFinite()) {
        Vinv.setZero();
        continue;
      }
      if (free_count_ == 0) continue;
      const int32_t begin = point_offsets_[size_t(j)], end = point_offsets_[size_t(j) + 1];
      for (int32_t a = begin; a < end; ++a) {
        const int32_t ia = by_point_[size_t(a)];
        Linearised &la = linearised_[size_t(ia)];
        const int32_t ca = free_index_[size_t(observations_[size_t(ia)].camera)];
        if (ca < 0 || la.w == 0) continue;
        la.T.noalias() = la.W * Vinv;
        b_.segment<6>(6 * ca).noalias() += la.T * gp_[size_t(j)];
      }
      // Only the lower triangle of the reduced system is filled (LDLT reads only that one).
      for (int32_t a = begin; a < end; ++a) {
        const int32_t ia = by_point_[size_t(a)];
        const Linearised &la = linearised_[size_t(ia)];
        const int32_t ca = free_index_[size_t(observations_[size_t(ia)].camera)];
        if (ca < 0 || la.w == 0) continue;
        for (int32_t b = begin; b < end; ++b) {
          const int32_t ib = by_point_[size_t(b)];
          const Linearised &lb = linearised_[size_t(ib)];
          const int32_t cb = free_index_[size_t(observations_[size_t(ib)].camera)];
          if (cb < 0 || lb.w == 0 || cb > ca) continue;
          S_.block<6, 6>(6 * ca, 6 * cb).noalias() -= la.T * lb.W.transpose();
        }
      }
    }

    camera_step.setZero(dim);
    if (free_count_ > 0) {
      Eigen::LDLT<Eigen::MatrixXd, Eigen::Lower> ldlt(S_);
      if (ldlt.info() != Eigen::Success) return false;
      camera_step = ldlt.solve(b_);
      if (!camera_step.allFinite()) return false;
    }
    for (int32_t j = 0; j < point_count_; ++j) {
      Eigen::Vector3d rhs = -gp_[size_t(j)];
      const int32_t begin = point_offsets_[size_t(j)], end = point_offsets_[size_t(j) + 1];
      for (int32_t a = begin; a < end; ++a) {
        const int32_t ia = by_point_[size_t(a)];
        const Linearised &la = linearised_[size_t(ia)];
        const int32_t ca = free_index_[size_t(observations_[size_t(ia)].camera)];
        if (ca < 0 || la.w == 0) continue;
        rhs.noalias() -= la.W.transpose() * camera_step.segment<6>(6 * ca);
      }
      point_step[size_t(j)].noalias() = Vinv_[size_t(j)] * rhs;
      if (!point_step[size_t(j)].allFinite()) return false;
    }
    return true;
  }

  /// The decrease of the damped quadratic model for a step of the last `solve`:
  /// -g^T d - 1/2 d^T H d = 1/2 d^T (lambda D d - g), with D the floored diagonal of H.
  double predicted_decrease(double lambda, const Eigen::VectorXd &camera_step,
                            const std::vector<Eigen::Vector3d> &point_step) const {
    double sum = 0;
    for (int32_t c = 0; c < free_count_; ++c) {
      const Vector6 d = camera_step.segment<6>(6 * c);
      for (int k = 0; k < 6; ++k) {
        sum += d(k) * (lambda * std::max(U_[size_t(c)](k, k), kDiagonalFloor) * d(k) - gc_[size_t(c)](k));
      }
    }
    for (int32_t j = 0; j < point_count_; ++j) {
      if (point_active_[size_t(j)] == 0) continue;
      const Eigen::Vector3d &d = point_step[size_t(j)];
      for (int k = 0; k < 3; ++k) {
        sum += d(k) * (lambda * std::max(V_[size_t(j)](k, k), kDiagonalFloor) * d(k) - gp_[size_t(j)](k));
      }
    }
    return 0.5 * sum;
  }

  /// `state` moved by a step (cameras by left SE(3) increments, points additively).
  State apply(const State &state, const Eigen::VectorXd &camera_step,
              const std::vector<Eigen::Vector3d> &point_step) const {
    State next = state;
    for (size_t i = 0; i < state.poses.size(); ++i) {
      const int32_t c = free_index_[i];
      if (c < 0) continue;
      const Vector6 xi = camera_step.segment<6>(6 * c);
      const Eigen::Matrix3d dR = cvision::so3_exp(xi.head<3>());
      next.poses[i].R = cvision::nearest_rotation(dR * state.poses[i].R);
      next.poses[i].t = dR * state.poses[i].t + xi.tail<3>();
    }
    for (size_t j = 0; j < state.points.size(); ++j) {
      if (point_active_[j] != 0) next.points[j] += point_step[j];
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
  std::vector<Matrix66> U_;
  std::vector<Vector6> gc_;
  std::vector<Eigen::Matrix3d> V_, Vinv_;
  std::vector<Eigen::Vector3d> gp_;
  std::vector<uint8_t> point_active_;
  Eigen::MatrixXd S_;
  Eigen::VectorXd b_;
};

}  // namespace cvision::bundle

#endif
