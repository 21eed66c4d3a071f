// The bundle adjuster's damped step (see bundle.cpp for the method): the Schur complement on the
// points, the dense reduced camera system solved with LDLT, and the decrease the step predicts.

#include <algorithm>
#include <cmath>
#include <vector>

#include <Eigen/Dense>

#include "bundle_adjuster.hpp"

namespace cvision::bundle {

bool BundleAdjuster::solve(double lambda, Eigen::VectorXd &camera_step, std::vector<Eigen::Vector3d> &point_step) {
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

double BundleAdjuster::predicted_decrease(double lambda, const Eigen::VectorXd &camera_step,
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

}  // namespace cvision::bundle
