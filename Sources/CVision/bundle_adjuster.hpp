// Internal to bundle.cpp: the sliding-window bundle adjuster (see bundle.cpp for the method,
// the normal equations and the damping).
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
  void linearise(const State &state) {
    for (auto &U : U_) U.fill(0);
    for (auto &g : gc_) g.fill(0);
    for (auto &V : V_) V.fill(0);
    for (auto &g : gp_) g.fill(0);
    std::fill(point_active_.begin(), point_active_.end(), 0);
    for (size_t i = 0; i < observations_.size(); ++i) {
      const Observation &o = observations_[i];
      Linearised &l = linearised_[i];
      const Pose &pose = state.poses[size_t(o.camera)];
      double p[3];
      transform(pose, state.points[size_t(o.point)], p);
      if (!(p[2] > kMinDepth)) {
        l.w = 0;  // behind the camera: ignored
        l.wd = 0;
        continue;
      }
      const double e = pixel_error(o, p, l.r);
      l.w = e <= delta_ ? 1.0 : delta_ / e;
      const double z_inv = 1.0 / p[2];
      const double d_proj[2][3] = {{k_.fx * z_inv, 0, -k_.fx * p[0] * z_inv * z_inv},
                                   {0, k_.fy * z_inv, -k_.fy * p[1] * z_inv * z_inv}};
      const double *R = pose.R.data();  // column-major: R(i, j) = R[i + 3 j]
      for (int a = 0; a < 2; ++a) {
        for (int j = 0; j < 3; ++j) {
          l.Jp[a][j] = d_proj[a][0] * R[3 * j] + d_proj[a][1] * R[1 + 3 * j] + d_proj[a][2] * R[2 + 3 * j];
        }
      }
      // The depth prior: rd = (z - depth) / sigma, z the third row of R X + t.
      l.wd = 0;
      if (o.inverse_sigma > 0) {
        const double s = o.inverse_sigma;
        l.rd = (p[2] - o.depth) * s;
        const double ed = std::abs(l.rd);
        l.wd = ed <= depth_delta_ ? 1.0 : depth_delta_ / ed;
        for (int j = 0; j < 3; ++j) l.Jpd[j] = s * R[2 + 3 * j];
        // d z / d omega = row 2 of -[p]x = (p.y, -p.x, 0); d z / d dt = (0, 0, 1).
        const double jcd[6] = {p[1] * s, -p[0] * s, 0, 0, 0, s};
        std::copy(jcd, jcd + 6, l.Jcd);
      }
      const int32_t c = free_index_[size_t(o.camera)];
      if (c >= 0) {
        // d(exp(omega) p)/d omega at 0 = -[p]x, so the rotation columns are -d_proj [p]x.
        const double skew[3][3] = {{0, -p[2], p[1]}, {p[2], 0, -p[0]}, {-p[1], p[0], 0}};
        for (int a = 0; a < 2; ++a) {
          for (int j = 0; j < 3; ++j) {
            l.Jc[a][j] = -(d_proj[a][0] * skew[0][j] + d_proj[a][1] * skew[1][j] + d_proj[a][2] * skew[2][j]);
            l.Jc[a][3 + j] = d_proj[a][j];
          }
        }
        Block66 &U = U_[size_t(c)];
        Vec6 &g = gc_[size_t(c)];
        for (int m = 0; m < 6; ++m) {
          const double a0 = l.w * l.Jc[0][m], a1 = l.w * l.Jc[1][m];
          for (int n = 0; n < 6; ++n) U[6 * m + n] += a0 * l.Jc[0][n] + a1 * l.Jc[1][n];
          g[m] += a0 * l.r[0] + a1 * l.r[1];
          for (int j = 0; j < 3; ++j) l.W[m][j] = a0 * l.Jp[0][j] + a1 * l.Jp[1][j];
        }
        if (l.wd > 0) {
          for (int m = 0; m < 6; ++m) {
            const double a = l.wd * l.Jcd[m];
            for (int n = 0; n < 6; ++n) U[6 * m + n] += a * l.Jcd[n];
            g[m] += a * l.rd;
            for (int j = 0; j < 3; ++j) l.W[m][j] += a * l.Jpd[j];
          }
        }
      }
      Block33 &V = V_[size_t(o.point)];
      Vec3 &g = gp_[size_t(o.point)];
      for (int j = 0; j < 3; ++j) {
        const double a0 = l.w * l.Jp[0][j], a1 = l.w * l.Jp[1][j];
        for (int k = 0; k < 3; ++k) V[3 * j + k] += a0 * l.Jp[0][k] + a1 * l.Jp[1][k];
        g[j] += a0 * l.r[0] + a1 * l.r[1];
        if (l.wd > 0) {
          const double a = l.wd * l.Jpd[j];
          for (int k = 0; k < 3; ++k) V[3 * j + k] += a * l.Jpd[k];
          g[j] += a * l.rd;
        }
      }
      point_active_[size_t(o.point)] = 1;
    }
    linearise_priors(state);
  }

  /// Adds the rotation priors to the camera blocks and gradients; their cross terms between two free
  /// cameras are kept for `solve` (linearised_priors_).
  void linearise_priors(const State &state) {
    for (size_t k = 0; k < priors_.size(); ++k) {
      const RotationPrior &p = priors_[k];
      LinearisedPrior &l = linearised_priors_[k];
      const Eigen::Matrix3d A = prior_rotation(p, state);
      const Eigen::Vector3d phi = so3_log(p.Q.transpose() * A);
      // Q^T exp(wa) A exp(-wb) = (Q^T A) exp(A^T wa - wb) to first order.
      const Eigen::Matrix3d Jinv = p.inverse_sigma * so3_right_jacobian_inverse(phi);
      const Eigen::Matrix3d Ja = Jinv * A.transpose();
      for (int i = 0; i < 3; ++i) {
        l.r[i] = p.inverse_sigma * phi(i);
        for (int j = 0; j < 3; ++j) {
          l.Ja[i][j] = Ja(i, j);
          l.Jb[i][j] = -Jinv(i, j);
        }
      }
      add_prior_block(free_index_[size_t(p.a)], l.Ja, l.r);
      add_prior_block(free_index_[size_t(p.b)], l.Jb, l.r);
    }
  }

  /// Adds J^T J and J^T r of one camera's part of a rotation prior to its rotation block.
  void add_prior_block(int32_t c, const double J[3][3], const double r[3]) {
    if (c < 0) return;
    Block66 &U = U_[size_t(c)];
    Vec6 &g = gc_[size_t(c)];
    for (int m = 0; m < 3; ++m) {
      for (int n = 0; n < 3; ++n) {
        U[6 * m + n] += J[0][m] * J[0][n] + J[1][m] * J[1][n] + J[2][m] * J[2][n];
      }
      g[m] += J[0][m] * r[0] + J[1][m] * r[1] + J[2][m] * r[2];
    }
  }

  /// Solves the damped normal equations by the Schur complement on the points. Returns false when
  /// the reduced camera system cannot be solved or the step is not finite.
  bool solve(double lambda, Eigen::VectorXd &camera_step, std::vector<Eigen::Vector3d> &point_step) {
    const Eigen::Index dim = 6 * Eigen::Index(free_count_);
    S_.setZero(dim, dim);
    b_.setZero(dim);
    double *S = S_.data();  // column-major: S(r, c) = S[r + dim c]
    double *b = b_.data();
    for (int32_t c = 0; c < free_count_; ++c) {
      const Block66 &U = U_[size_t(c)];
      for (int m = 0; m < 6; ++m) {
        for (int n = 0; n < 6; ++n) S[(6 * c + m) + dim * (6 * c + n)] = U[6 * m + n];
        S[(6 * c + m) * (dim + 1)] += lambda * std::max(U[7 * m], kDiagonalFloor);
        b[6 * c + m] = -gc_[size_t(c)][m];
      }
    }
    // The rotation priors' cross terms between two free cameras (lower triangle: row block > column).
    for (size_t k = 0; k < priors_.size(); ++k) {
      const int32_t ca = free_index_[size_t(priors_[k].a)], cb = free_index_[size_t(priors_[k].b)];
      if (ca < 0 || cb < 0 || ca == cb) continue;
      const LinearisedPrior &l = linearised_priors_[k];
      const bool a_below = ca > cb;
      const int32_t row = a_below ? ca : cb, column = a_below ? cb : ca;
      const auto &Jr = a_below ? l.Ja : l.Jb;
      const auto &Jc = a_below ? l.Jb : l.Ja;
      for (int m = 0; m < 3; ++m) {
        for (int n = 0; n < 3; ++n) {
          S[(6 * row + m) + dim * (6 * column + n)] += Jr[0][m] * Jc[0][n] + Jr[1][m] * Jc[1][n] + Jr[2][m] * Jc[2][n];
        }
      }
    }
    for (int32_t j = 0; j < point_count_; ++j) {
      Block33 &Vinv = Vinv_[size_t(j)];
      if (point_active_[size_t(j)] == 0) {
        Vinv.fill(0);  // no observation in front of a camera: the point stays where it is
        continue;
      }
      Block33 V = V_[size_t(j)];
      for (int d = 0; d < 3; ++d) V[4 * d] += lambda * std::max(V[4 * d], kDiagonalFloor);
      if (!invert(V, Vinv)) {
        Vinv.fill(0);  // not positive definite (numerically): hold the point for this step
        continue;
      }
      if (free_count_ == 0) continue;
      const Vec3 &gp = gp_[size_t(j)];
      const int32_t begin = point_offsets_[size_t(j)], end = point_offsets_[size_t(j) + 1];
      for (int32_t a = begin; a < end; ++a) {
        const int32_t ia = by_point_[size_t(a)];
        Linearised &la = linearised_[size_t(ia)];
        const int32_t ca = free_index_[size_t(observations_[size_t(ia)].camera)];
        if (ca < 0 || la.w == 0) continue;
        for (int m = 0; m < 6; ++m) {
          for (int k = 0; k < 3; ++k) {
            la.T[m][k] = la.W[m][0] * Vinv[k] + la.W[m][1] * Vinv[3 + k] + la.W[m][2] * Vinv[6 + k];
          }
          b[6 * ca + m] += la.T[m][0] * gp[0] + la.T[m][1] * gp[1] + la.T[m][2] * gp[2];
        }
      }
      // Only the lower triangle of the reduced system is filled (LDLT reads only that one).
      for (int32_t a = begin; a < end; ++a) {
        const int32_t ia = by_point_[size_t(a)];
        const Linearised &la = linearised_[size_t(ia)];
        const int32_t ca = free_index_[size_t(observations_[size_t(ia)].camera)];
        if (ca < 0 || la.w == 0) continue;
        for (int32_t bb = begin; bb < end; ++bb) {
          const int32_t ib = by_point_[size_t(bb)];
          const Linearised &lb = linearised_[size_t(ib)];
          const int32_t cb = free_index_[size_t(observations_[size_t(ib)].camera)];
          if (cb < 0 || lb.w == 0 || cb > ca) continue;
          for (int n = 0; n < 6; ++n) {
            double *column = S + dim * (6 * cb + n) + 6 * ca;
            for (int m = 0; m < 6; ++m) {
              column[m] -= la.T[m][0] * lb.W[n][0] + la.T[m][1] * lb.W[n][1] + la.T[m][2] * lb.W[n][2];
            }
          }
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
    const double *dc = camera_step.data();
    for (int32_t j = 0; j < point_count_; ++j) {
      const Vec3 &gp = gp_[size_t(j)];
      double rhs[3] = {-gp[0], -gp[1], -gp[2]};
      const int32_t begin = point_offsets_[size_t(j)], end = point_offsets_[size_t(j) + 1];
      for (int32_t a = begin; a < end; ++a) {
        const int32_t ia = by_point_[size_t(a)];
        const Linearised &la = linearised_[size_t(ia)];
        const int32_t ca = free_index_[size_t(observations_[size_t(ia)].camera)];
        if (ca < 0 || la.w == 0) continue;
        for (int m = 0; m < 6; ++m) {
          for (int k = 0; k < 3; ++k) rhs[k] -= la.W[m][k] * dc[6 * ca + m];
        }
      }
      const Block33 &Vinv = Vinv_[size_t(j)];
      double *step = point_step[size_t(j)].data();
      for (int k = 0; k < 3; ++k) {
        step[k] = Vinv[3 * k] * rhs[0] + Vinv[3 * k + 1] * rhs[1] + Vinv[3 * k + 2] * rhs[2];
        if (!std::isfinite(step[k])) return false;
      }
    }
    return true;
  }

  /// The decrease of the damped quadratic model for a step of the last `solve`:
  /// -g^T d - 1/2 d^T H d = 1/2 d^T (lambda D d - g), with D the floored diagonal of H.
  double predicted_decrease(double lambda, const Eigen::VectorXd &camera_step,
                            const std::vector<Eigen::Vector3d> &point_step) const {
    double sum = 0;
    const double *dc = camera_step.data();
    for (int32_t c = 0; c < free_count_; ++c) {
      for (int k = 0; k < 6; ++k) {
        const double d = dc[6 * c + k];
        sum += d * (lambda * std::max(U_[size_t(c)][7 * k], kDiagonalFloor) * d - gc_[size_t(c)][k]);
      }
    }
    for (int32_t j = 0; j < point_count_; ++j) {
      if (point_active_[size_t(j)] == 0) continue;
      const double *d = point_step[size_t(j)].data();
      for (int k = 0; k < 3; ++k) {
        sum += d[k] * (lambda * std::max(V_[size_t(j)][4 * k], kDiagonalFloor) * d[k] - gp_[size_t(j)][k]);
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
