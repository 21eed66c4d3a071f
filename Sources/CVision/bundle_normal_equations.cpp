// The bundle adjuster's normal equations at a state (see bundle.cpp for the method): the
// IRLS-weighted blocks of the observations and the rotation priors' blocks.

#include <algorithm>
#include <cmath>
#include <vector>

#include <Eigen/Dense>

#include "bundle_adjuster.hpp"

namespace cvision::bundle {

void BundleAdjuster::linearise(const State &state) {
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

void BundleAdjuster::linearise_priors(const State &state) {
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

void BundleAdjuster::add_prior_block(int32_t c, const double J[3][3], const double r[3]) {
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

}  // namespace cvision::bundle
