// Two-view geometry: essential-matrix pose and triangulation (PnP is in geometry.cpp).
//
// The RANSAC loop is our own so that `seed` really selects the samples; OpenCV
// provides the five-point solver.

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

using cvision::draw_sample;
using cvision::fail;
using cvision::needed_iterations;
using cvision::Pose;
using cvision::Score;
using cvision::validate_ransac;

struct EssentialProblem {
  const std::vector<Eigen::Vector2d> &a;  // pixels
  const std::vector<Eigen::Vector2d> &b;
  cv_intrinsics k;
  double threshold2;

  /// Fundamental matrix (pixels) of an essential matrix (normalised coordinates).
  Eigen::Matrix3d fundamental(const Eigen::Matrix3d &E) const {
    Eigen::Matrix3d Kinv;
    Kinv << 1 / k.fx, 0, -k.cx / k.fx, 0, 1 / k.fy, -k.cy / k.fy, 0, 0, 1;
    return Kinv.transpose() * E * Kinv;
  }

  /// Signed Sampson error in pixels of correspondence i under F.
  static double sampson(const Eigen::Matrix3d &F, const Eigen::Vector2d &pa, const Eigen::Vector2d &pb) {
    const Eigen::Vector3d x1(pa.x(), pa.y(), 1), x2(pb.x(), pb.y(), 1);
    const Eigen::Vector3d Fx1 = F * x1, Ftx2 = F.transpose() * x2;
    const double denominator = Fx1.x() * Fx1.x() + Fx1.y() * Fx1.y() + Ftx2.x() * Ftx2.x() + Ftx2.y() * Ftx2.y();
    if (!(denominator > 0)) return std::numeric_limits<double>::infinity();
    return x2.dot(Fx1) / std::sqrt(denominator);
  }

  Score score(const Eigen::Matrix3d &E, std::vector<uint8_t> *mask) const {
    const Eigen::Matrix3d F = fundamental(E);
    Score s;
    s.cost = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      const double e = sampson(F, a[i], b[i]);
      const double e2 = std::min(threshold2, e * e);
      const bool inlier = e * e < threshold2;
      if (inlier) ++s.inliers;
      if (mask != nullptr) (*mask)[i] = inlier ? 1 : 0;
      s.cost += e2;
    }
    return s;
  }
};

/// Depths of correspondence (fa, fb) (normalised, z = 1) in cameras a and b
/// under b_from_a, from the least-squares intersection of the two rays.
Eigen::Vector2d ray_depths(const Pose &b_from_a, const Eigen::Vector3d &fa, const Eigen::Vector3d &fb) {
  // lambda_b * fb = R * (lambda_a * fa) + t
  Eigen::Matrix<double, 3, 2> A;
  A.col(0) = b_from_a.R * fa;
  A.col(1) = -fb;
  const Eigen::Vector2d lambda = A.colPivHouseholderQr().solve(-b_from_a.t);
  return lambda;
}

/// Refines (R, t) with |t| = 1 by Levenberg-Marquardt on the Sampson errors of the inliers.
Pose refine_relative_pose(const Pose &start, const EssentialProblem &problem, const std::vector<uint8_t> &mask) {
  std::vector<size_t> indices;
  for (size_t i = 0; i < mask.size(); ++i)
    if (mask[i] != 0) indices.push_back(i);
  if (indices.size() < 6) return start;

  auto residuals = [&](const Pose &pose) {
    const Eigen::Matrix3d F = problem.fundamental(cvision::skew(pose.t) * pose.R);
    Eigen::VectorXd r(indices.size());
    for (size_t j = 0; j < indices.size(); ++j) r(Eigen::Index(j)) = EssentialProblem::sampson(F, problem.a[indices[j]], problem.b[indices[j]]);
    return r;
  };
  // Local parameters: rotation increment (left, so(3)) and two tangent directions of t.
  auto retract = [](const Pose &pose, const Eigen::Matrix<double, 5, 1> &delta) {
    Eigen::Vector3d u = pose.t.unitOrthogonal();
    Eigen::Vector3d v = pose.t.cross(u).normalized();
    Pose next;
    next.R = cvision::so3_exp(delta.head<3>()) * pose.R;
    next.t = (pose.t + delta(3) * u + delta(4) * v).normalized();
    return next;
  };

  Pose pose = start;
  Eigen::VectorXd r = residuals(pose);
  double cost = r.squaredNorm();
  double lambda = 1e-3;
  for (int iteration = 0; iteration < 30; ++iteration) {
    Eigen::MatrixXd J(r.size(), 5);
    for (int p = 0; p < 5; ++p) {
      Eigen::Matrix<double, 5, 1> step = Eigen::Matrix<double, 5, 1>::Zero();
      const double h = 1e-7;
      step(p) = h;
      const Eigen::VectorXd plus = residuals(retract(pose, step));
      step(p) = -h;
      const Eigen::VectorXd minus = residuals(retract(pose, step));
      J.col(p) = (plus - minus) / (2 * h);
    }
    const Eigen::Matrix<double, 5, 5> H = J.transpose() * J;
    const Eigen::Matrix<double, 5, 1> g = J.transpose() * r;
    bool improved = false;
    for (int attempt = 0; attempt < 10 && !improved; ++attempt) {
      Eigen::Matrix<double, 5, 5> damped = H;
      damped.diagonal() += lambda * H.diagonal().cwiseMax(1e-12);
      const Eigen::Matrix<double, 5, 1> delta = damped.ldlt().solve(-g);
      if (!delta.allFinite()) break;
      const Pose candidate = retract(pose, delta);
      const Eigen::VectorXd candidate_r = residuals(candidate);
      const double candidate_cost = candidate_r.squaredNorm();
      if (std::isfinite(candidate_cost) && candidate_cost < cost) {
        const double decrease = cost - candidate_cost;
        pose = candidate;
        r = candidate_r;
        cost = candidate_cost;
        lambda = std::max(lambda / 10, 1e-12);
        improved = true;
        if (delta.norm() < 1e-12 || decrease < 1e-14 * cost) return pose;
      } else {
        lambda *= 10;
      }
    }
    if (!improved) break;
  }
  return pose;
}

}  // namespace

extern "C" int32_t cv_essential_pose(const double *points_a, const double *points_b, int32_t count,
                                     cv_intrinsics intrinsics, cv_ransac_params params, cv_pose *b_from_a,
                                     uint8_t *inliers, int32_t *inlier_count, cv_status *status) noexcept {
  return cvision::guarded(status, "cv_essential_pose", [&](cv_status *) -> int32_t {
    cvision::require_count(count, 5, "count");
    cvision::require_pointer(points_a, "points_a");
    cvision::require_pointer(points_b, "points_b");
    cvision::require_pointer(b_from_a, "b_from_a");
    cvision::require_intrinsics(intrinsics);
    validate_ransac(params);
    cvision::require_finite_array(points_a, count, 2, "points_a");
    cvision::require_finite_array(points_b, count, 2, "points_b");
    if (inlier_count != nullptr) *inlier_count = 0;

    const size_t n = size_t(count);
    std::vector<Eigen::Vector2d> a(n), b(n);
    std::vector<cv::Point2d> na(n), nb(n);  // normalised coordinates
    for (size_t i = 0; i < n; ++i) {
      a[i] = Eigen::Vector2d(points_a[2 * i], points_a[2 * i + 1]);
      b[i] = Eigen::Vector2d(points_b[2 * i], points_b[2 * i + 1]);
      const Eigen::Vector2d xa = cvision::normalize(intrinsics, a[i].x(), a[i].y());
      const Eigen::Vector2d xb = cvision::normalize(intrinsics, b[i].x(), b[i].y());
      na[i] = cv::Point2d(xa.x(), xa.y());
      nb[i] = cv::Point2d(xb.x(), xb.y());
    }
    const EssentialProblem problem{a, b, intrinsics, params.threshold * params.threshold};

    // RANSAC over five-point samples (OpenCV's five-point solver returns up to 10 solutions).
    const int sample_size = 5;
    cv::RNG rng(params.seed);
    std::vector<int> sample;
    std::vector<cv::Point2d> sa(sample_size), sb(sample_size);
    Eigen::Matrix3d best_E = Eigen::Matrix3d::Zero();
    Score best_score;
    bool have_model = false;
    int iterations = params.max_iterations;
    const cv::Mat identity = cv::Mat::eye(3, 3, CV_64F);
    for (int iteration = 0; iteration < iterations; ++iteration) {
      draw_sample(rng, count, sample_size, sample);
      for (int j = 0; j < sample_size; ++j) {
        sa[j] = na[size_t(sample[j])];
        sb[j] = nb[size_t(sample[j])];
      }
      cv::Mat solutions;
      try {
        solutions = cv::findEssentialMat(sa, sb, identity, cv::RANSAC, 0.99, 1.0);
      } catch (const cv::Exception &) {
        continue;  // degenerate sample
      }
      for (int s = 0; s + 3 <= solutions.rows; s += 3) {
        Eigen::Matrix3d E;
        cv::cv2eigen(cv::Mat(solutions.rowRange(s, s + 3)), E);
        if (!E.allFinite()) continue;
        const Score score = problem.score(E, nullptr);
        if (score.cost < best_score.cost) {
          best_E = E;
          best_score = score;
          have_model = true;
          iterations = std::min(iterations, needed_iterations(params.confidence, double(score.inliers) / count,
                                                              sample_size, params.max_iterations));
        }
      }
    }
    if (!have_model || best_score.inliers < 5) {
      fail(CV_ERR_NOT_ENOUGH_DATA, "essential-matrix RANSAC found no model with at least 5 inliers (best: %d of %d)",
           have_model ? best_score.inliers : 0, count);
    }

    // Decompose with a cheirality vote on the inliers.
    std::vector<uint8_t> mask(n);
    problem.score(best_E, &mask);
    std::vector<cv::Point2d> in_a, in_b;
    for (size_t i = 0; i < n; ++i) {
      if (mask[i] == 0) continue;
      in_a.push_back(na[i]);
      in_b.push_back(nb[i]);
    }
    cv::Mat E_cv, R_cv, t_cv;
    cv::eigen2cv(best_E, E_cv);
    const int in_front = cv::recoverPose(E_cv, in_a, in_b, identity, R_cv, t_cv);
    if (in_front <= 0) fail(CV_ERR_NOT_ENOUGH_DATA, "no inlier lies in front of both cameras");
    Pose pose;
    Eigen::Matrix3d R;
    Eigen::Vector3d t;
    cv::cv2eigen(R_cv, R);
    cv::cv2eigen(t_cv, t);
    pose.R = cvision::nearest_rotation(R);
    pose.t = t.normalized();

    pose = refine_relative_pose(pose, problem, mask);

    // Inliers: within the threshold and in front of both cameras.
    const Eigen::Matrix3d F = problem.fundamental(cvision::skew(pose.t) * pose.R);
    int32_t survivors = 0;
    for (size_t i = 0; i < n; ++i) {
      const double e = EssentialProblem::sampson(F, a[i], b[i]);
      bool inlier = e * e < problem.threshold2;
      if (inlier) {
        const Eigen::Vector2d depths =
            ray_depths(pose, Eigen::Vector3d(na[i].x, na[i].y, 1), Eigen::Vector3d(nb[i].x, nb[i].y, 1));
        inlier = depths.x() > 0 && depths.y() > 0;
      }
      mask[i] = inlier ? 1 : 0;
      survivors += inlier ? 1 : 0;
    }
    if (survivors < 5) {
      fail(CV_ERR_NOT_ENOUGH_DATA, "only %d correspondences are inliers in front of both cameras", survivors);
    }
    cvision::write_pose(pose, b_from_a);
    if (inliers != nullptr) std::copy(mask.begin(), mask.end(), inliers);
    if (inlier_count != nullptr) *inlier_count = survivors;
    return CV_OK;
  });
}

// MARK: - Triangulation

extern "C" int32_t cv_triangulate(const double *points_a, const double *points_b, int32_t count,
                                  cv_intrinsics intrinsics, cv_pose a_from_world, cv_pose b_from_world,
                                  double min_parallax_degrees, double *world_points, uint8_t *valid,
                                  cv_status *status) noexcept {
  return cvision::guarded(status, "cv_triangulate", [&](cv_status *) -> int32_t {
    if (count < 0) fail(CV_ERR_INVALID_ARGUMENT, "count must not be negative (got %d)", count);
    cvision::require_intrinsics(intrinsics);
    const Pose pa = cvision::read_pose(a_from_world, "a_from_world");
    const Pose pb = cvision::read_pose(b_from_world, "b_from_world");
    if (!std::isfinite(min_parallax_degrees) || min_parallax_degrees < 0 || min_parallax_degrees >= 180) {
      fail(CV_ERR_INVALID_ARGUMENT, "min_parallax_degrees must be in [0, 180) (got %g)", min_parallax_degrees);
    }
    if (count == 0) return CV_OK;
    cvision::require_pointer(points_a, "points_a");
    cvision::require_pointer(points_b, "points_b");
    cvision::require_pointer(world_points, "world_points");
    cvision::require_pointer(valid, "valid");
    cvision::require_finite_array(points_a, count, 2, "points_a");
    cvision::require_finite_array(points_b, count, 2, "points_b");

    Eigen::Matrix<double, 3, 4> Pa, Pb;
    Pa << pa.R, pa.t;
    Pb << pb.R, pb.t;
    const Eigen::Vector3d centre_a = -pa.R.transpose() * pa.t;
    const Eigen::Vector3d centre_b = -pb.R.transpose() * pb.t;
    const double min_cos = std::cos(min_parallax_degrees * M_PI / 180.0);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (int32_t i = 0; i < count; ++i) {
      const Eigen::Vector2d xa = cvision::normalize(intrinsics, points_a[2 * i], points_a[2 * i + 1]);
      const Eigen::Vector2d xb = cvision::normalize(intrinsics, points_b[2 * i], points_b[2 * i + 1]);
      // Linear (DLT) triangulation in normalised coordinates.
      Eigen::Matrix4d A;
      A.row(0) = xa.x() * Pa.row(2) - Pa.row(0);
      A.row(1) = xa.y() * Pa.row(2) - Pa.row(1);
      A.row(2) = xb.x() * Pb.row(2) - Pb.row(0);
      A.row(3) = xb.y() * Pb.row(2) - Pb.row(1);
      for (int row = 0; row < 4; ++row) A.row(row).normalize();
      Eigen::JacobiSVD<Eigen::Matrix4d> svd(A, Eigen::ComputeFullV);
      const Eigen::Vector4d X = svd.matrixV().col(3);
      double *out = world_points + 3 * size_t(i);
      bool ok = std::abs(X(3)) > 1e-12 * X.head<3>().norm() && X.allFinite();
      Eigen::Vector3d point(nan, nan, nan);
      if (ok) {
        point = X.head<3>() / X(3);
        const double depth_a = (pa.R * point + pa.t).z();
        const double depth_b = (pb.R * point + pb.t).z();
        const Eigen::Vector3d ray_a = point - centre_a, ray_b = point - centre_b;
        const double cos_parallax = ray_a.dot(ray_b) / (ray_a.norm() * ray_b.norm());
        ok = depth_a > 0 && depth_b > 0 && (min_parallax_degrees == 0 || cos_parallax <= min_cos);
      }
      out[0] = point.x();
      out[1] = point.y();
      out[2] = point.z();
      valid[i] = ok ? 1 : 0;
    }
    return CV_OK;
  });
}
