// Dense depth alignment: coarse-to-fine point-to-plane ICP with projective data association.
//
// Unknown: T = current_from_reference (R, t), updated by a left increment
// T <- exp(xi) T (R <- exp(omega) R, t <- exp(omega) t + v). A reference point p with unit
// normal n (reference frame) maps to q = T p with normal m = R n and is paired with the current
// point c at the pixel where q projects. The residual is r = m . (c - q) (equal to
// n . (T^-1 c - p)), and its Jacobian with respect to xi = (omega, v) is J = [(m x c)^T, -m^T].
// An optional prior holds R near the initial rotation R0 (a gyroscope's, say): it adds
// lambda |log(R R0^T)|^2, lambda = rotation_prior_weight * sum(w), to the cost; another holds t
// near the initial t0 (an accelerometer's prediction, say): mu |t - t0|^2, mu =
// translation_prior_weight * sum(w) (first order in the increment: t + v - t0).
//
// Speed: depth maps are copied once into float buffers in which 0 marks an invalid pixel;
// reference points and normals are computed once per level; the association loop handles four
// points at a time with GCC/Clang vector extensions (SSE on x86-64, NEON on ARM64) in single
// precision, with sums carried into doubles every few hundred points. The buffers live in a
// per-thread workspace that keeps its capacity between calls (fresh multi-megabyte allocations
// cost more in page faults than a level of ICP).
//
// Determinism: one thread, a fixed order of operations, no global state besides the scratch
// buffers (fully rewritten by every call): the same inputs give bit-identical outputs.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include <Eigen/Dense>

#include "cvision_solvers.h"
#include "depth_levels.hpp"
#include "geometry.hpp"
#include "status.hpp"

namespace {

using namespace cvision::icp;

// MARK: Association

/// What one pass over the correspondences accumulates: the upper triangle of the weighted 6x6
/// normal matrix, the weighted gradient, the sum of weights and the unweighted squared residuals.
struct Accumulator {
  double H[21] = {};
  double g[6] = {};
  double weight = 0;
  double squared_error = 0;
  int count = 0;

  Eigen::Matrix<double, 6, 6> hessian() const {
    Eigen::Matrix<double, 6, 6> m;
    int k = 0;
    for (int i = 0; i < 6; ++i) {
      for (int j = i; j < 6; ++j) {
        m(i, j) = H[k];
        m(j, i) = H[k];
        ++k;
      }
    }
    return m;
  }
};

struct Gates {
  double max_distance2;   // squared, metres^2
  double min_cos_normal;  // cos of the largest normal angle
  double cos2_normal;     // its square
  int robust_loss;        // CV_ROBUST_*
  double robust_scale;    // metres
};

/// One pass of projective data association at the pose T = current_from_reference, accumulating
/// the robustly weighted normal equations of the correspondences that pass the gates.
///
/// Four reference points at a time in single precision (branch-free, rejected lanes get weight
/// 0); the sums are kept per lane in floats for blocks of kBlock points and then added, in a
/// fixed order, into doubles.
Accumulator associate(const ReferenceSamples &reference, const DepthLevel &current, const Pose &T,
                      const Gates &gates) {
  const Float4 r00 = splat(T.R(0, 0)), r01 = splat(T.R(0, 1)), r02 = splat(T.R(0, 2));
  const Float4 r10 = splat(T.R(1, 0)), r11 = splat(T.R(1, 1)), r12 = splat(T.R(1, 2));
  const Float4 r20 = splat(T.R(2, 0)), r21 = splat(T.R(2, 1)), r22 = splat(T.R(2, 2));
  const Float4 t0 = splat(T.t(0)), t1 = splat(T.t(1)), t2 = splat(T.t(2));
  const int width = current.width;
  const int step = current.normal_step;
  const ptrdiff_t vertical = ptrdiff_t(step) * width;
  const Float4 fx = splat(current.fx), fy = splat(current.fy);
  const Float4 inverse_fx = splat(1.0 / current.fx), inverse_fy = splat(1.0 / current.fy);
  const Float4 cx = splat(current.cx), cy = splat(current.cy);
  // +0.5 so that truncation gives the nearest pixel.
  const Float4 cx_round = splat(current.cx + 0.5), cy_round = splat(current.cy + 0.5);
  // The normal needs the four neighbours: stay `step` pixels inside the border.
  const Float4 min_u = splat(step), min_v = splat(step);
  const Float4 max_u = splat(current.width - step), max_v = splat(current.height - step);
  const Float4 step_x = splat(step / current.fx), step_y = splat(step / current.fy);
  const Float4 edge_tolerance = splat(current.edge_ratio * step);
  const Float4 max_distance2 = splat(gates.max_distance2);
  const bool acute = gates.min_cos_normal >= 0;
  const Float4 cos2 = splat(gates.cos2_normal);
  const bool huber = gates.robust_loss == CV_ROBUST_HUBER;
  const Float4 scale = splat(gates.robust_scale), inverse_scale = splat(1.0 / gates.robust_scale);
  const Float4 zero = Float4{}, one = splat(1.0);
  const float *const depth = current.depth.data();

  Accumulator total;
  // Per-lane partial sums of one block: H (21), g (6), weights, squared residuals.
  Float4 h[21], g[6], weight_sum, squared_error;
  Int4 count = Int4{};
  auto clear = [&] {
    for (Float4 &x : h) x = zero;
    for (Float4 &x : g) x = zero;
    weight_sum = zero;
    squared_error = zero;
  };
  auto flush = [&] {
    for (int k = 0; k < 21; ++k) total.H[k] += sum(h[k]);
    for (int k = 0; k < 6; ++k) total.g[k] += sum(g[k]);
    total.weight += sum(weight_sum);
    total.squared_error += sum(squared_error);
    clear();
  };
  clear();

  const size_t padded = reference.px.size();
  for (size_t i = 0; i < padded; i += kLanes) {
    if (i % kBlock == 0 && i > 0) flush();
    const Float4 p0 = load4(&reference.px[i]), p1 = load4(&reference.py[i]), p2 = load4(&reference.pz[i]);
    // q = T p, projected to the nearest pixel.
    const Float4 q0 = r00 * p0 + r01 * p1 + r02 * p2 + t0;
    const Float4 q1 = r10 * p0 + r11 * p1 + r12 * p2 + t1;
    const Float4 q2 = r20 * p0 + r21 * p1 + r22 * p2 + t2;
    const Float4 inverse_z = one / q2;
    Float4 uf = fx * q0 * inverse_z + cx_round;
    Float4 vf = fy * q1 * inverse_z + cy_round;
    Int4 ok = (q2 > zero) & (uf >= min_u) & (vf >= min_v) & (uf < max_u) & (vf < max_v);
    if (!any(ok)) continue;
    // Rejected lanes read a harmless pixel; truncation of a positive value rounds down.
    uf = select(ok, uf, min_u);
    vf = select(ok, vf, min_v);
    const Int4 u = __builtin_convertvector(uf, Int4);
    const Int4 v = __builtin_convertvector(vf, Int4);
    alignas(16) float centre[kLanes], left[kLanes], right[kLanes], up[kLanes], down[kLanes];
    for (int lane = 0; lane < kLanes; ++lane) {
      const float *at = depth + ptrdiff_t(v[lane]) * width + u[lane];
      centre[lane] = at[0];
      left[lane] = at[-step];
      right[lane] = at[step];
      up[lane] = at[-vertical];
      down[lane] = at[vertical];
    }
    // The current point c, the residual vector e = c - q, and the current normal k.
    const Float4 d = load4(centre);
    const Float4 x = (__builtin_convertvector(u, Float4) - cx) * inverse_fx;
    const Float4 y = (__builtin_convertvector(v, Float4) - cy) * inverse_fy;
    const Float4 c0 = x * d, c1 = y * d, c2 = d;
    const Float4 e0 = c0 - q0, e1 = c1 - q1, e2 = c2 - q2;
    ok &= (d > zero) & (e0 * e0 + e1 * e1 + e2 * e2 <= max_distance2);
    const Normals4 k =
        normals4(x, y, step_x, step_y, d, load4(left), load4(right), load4(up), load4(down), edge_tolerance * d);
    ok &= k.ok;
    // m = R n; angle test m . k >= cos * |k| (|m| = 1) without a square root.
    const Float4 n0 = load4(&reference.nx[i]), n1 = load4(&reference.ny[i]), n2 = load4(&reference.nz[i]);
    const Float4 m0 = r00 * n0 + r01 * n1 + r02 * n2;
    const Float4 m1 = r10 * n0 + r11 * n1 + r12 * n2;
    const Float4 m2 = r20 * n0 + r21 * n1 + r22 * n2;
    const Float4 dot = m0 * k.x + m1 * k.y + m2 * k.z;
    const Float4 bound2 = cos2 * (k.x * k.x + k.y * k.y + k.z * k.z);
    if (acute) {
      ok &= (dot > zero) & (dot * dot >= bound2);
    } else {
      ok &= ~((dot < zero) & (dot * dot > bound2));
    }
    Float4 r = m0 * e0 + m1 * e1 + m2 * e2;
    Float4 w;
    if (huber) {
      const Float4 a = abs4(r);
      const Int4 large = a > scale;
      w = select(large, scale / select(large, a, one), one);
    } else {
      const Float4 t = r * inverse_scale;
      const Float4 s = one - t * t;
      ok &= s > zero;  // Tukey: zero weight, not an inlier
      w = s * s;
    }
    // Rejected lanes (possibly NaN) contribute nothing.
    w = select(ok, w, zero);
    r = select(ok, r, zero);
    // J = [m x c, -m].
    const Float4 J[6] = {m1 * c2 - m2 * c1, m2 * c0 - m0 * c2, m0 * c1 - m1 * c0, zero - m0, zero - m1, zero - m2};
    int entry = 0;
    for (int a = 0; a < 6; ++a) {
      const Float4 wJ = w * J[a];
      g[a] += wJ * r;
      for (int b = a; b < 6; ++b) h[entry++] += wJ * J[b];
    }
    weight_sum += w;
    squared_error += r * r;
    count -= ok;
  }
  flush();
  total.count = count[0] + count[1] + count[2] + count[3];
  return total;
}

/// Buffers reused across calls on one thread (see the file comment).
struct Workspace {
  std::vector<DepthLevel> reference;
  std::vector<DepthLevel> current;
  ReferenceSamples samples;
};

void validate(const cv_depth_align_params &p) {
  if (p.levels < 1 || p.levels > CV_DEPTH_ALIGN_MAX_LEVELS) {
    fail(CV_ERR_INVALID_ARGUMENT, "params.levels must be in 1...%d (got %d)", CV_DEPTH_ALIGN_MAX_LEVELS, p.levels);
  }
  for (int l = 0; l < p.levels; ++l) {
    if (p.iterations[l] < 0 || p.iterations[l] > 100) {
      fail(CV_ERR_INVALID_ARGUMENT, "params.iterations[%d] must be in 0...100 (got %d)", l, p.iterations[l]);
    }
  }
  if (!std::isfinite(p.max_distance) || p.max_distance <= 0) {
    fail(CV_ERR_INVALID_ARGUMENT, "params.max_distance must be positive and finite (got %g)", p.max_distance);
  }
  if (!(p.max_normal_angle_degrees > 0 && p.max_normal_angle_degrees <= 180)) {
    fail(CV_ERR_INVALID_ARGUMENT, "params.max_normal_angle_degrees must be in (0, 180] (got %g)",
         p.max_normal_angle_degrees);
  }
  if (p.stride < 1 || p.stride > 16) {
    fail(CV_ERR_INVALID_ARGUMENT, "params.stride must be in 1...16 (got %d)", p.stride);
  }
  if (!std::isfinite(p.min_depth) || p.min_depth < 0) {
    fail(CV_ERR_INVALID_ARGUMENT, "params.min_depth must be finite and non-negative (got %g)", p.min_depth);
  }
  if (std::isnan(p.max_depth) || p.max_depth <= p.min_depth) {
    fail(CV_ERR_INVALID_ARGUMENT, "params.max_depth (%g) must exceed params.min_depth (%g)", p.max_depth,
         p.min_depth);
  }
  if (p.robust_loss != CV_ROBUST_HUBER && p.robust_loss != CV_ROBUST_TUKEY) {
    fail(CV_ERR_INVALID_ARGUMENT, "params.robust_loss must be CV_ROBUST_HUBER or CV_ROBUST_TUKEY (got %d)",
         p.robust_loss);
  }
  if (!std::isfinite(p.robust_scale) || p.robust_scale <= 0) {
    fail(CV_ERR_INVALID_ARGUMENT, "params.robust_scale must be positive and finite (got %g)", p.robust_scale);
  }
  if (!std::isfinite(p.stop_translation) || p.stop_translation < 0) {
    fail(CV_ERR_INVALID_ARGUMENT, "params.stop_translation must be finite and non-negative (got %g)",
         p.stop_translation);
  }
  if (!std::isfinite(p.stop_rotation_degrees) || p.stop_rotation_degrees < 0) {
    fail(CV_ERR_INVALID_ARGUMENT, "params.stop_rotation_degrees must be finite and non-negative (got %g)",
         p.stop_rotation_degrees);
  }
  if (!std::isfinite(p.rotation_prior_weight) || p.rotation_prior_weight < 0) {
    fail(CV_ERR_INVALID_ARGUMENT, "params.rotation_prior_weight must be finite and non-negative (got %g)",
         p.rotation_prior_weight);
  }
  if (!std::isfinite(p.translation_prior_weight) || p.translation_prior_weight < 0) {
    fail(CV_ERR_INVALID_ARGUMENT, "params.translation_prior_weight must be finite and non-negative (got %g)",
         p.translation_prior_weight);
  }
  if (p.normal_radius < 1 || p.normal_radius > 16) {
    fail(CV_ERR_INVALID_ARGUMENT, "params.normal_radius must be in 1...16 (got %d)", p.normal_radius);
  }
}

}  // namespace

extern "C" int32_t cv_depth_align(const float *reference_depth, const float *current_depth, int32_t width,
                                  int32_t height, cv_intrinsics intrinsics, cv_depth_align_params params,
                                  const cv_pose *initial_current_from_reference, cv_pose *current_from_reference,
                                  cv_depth_align_result *result, cv_status *status) noexcept {
  return cvision::guarded(status, "cv_depth_align", [&](cv_status *) -> int32_t {
    cvision::require_pointer(reference_depth, "reference_depth");
    cvision::require_pointer(current_depth, "current_depth");
    cvision::require_pointer(current_from_reference, "current_from_reference");
    if (width <= 0 || height <= 0) {
      fail(CV_ERR_INVALID_ARGUMENT, "depth map size must be positive (got %d x %d)", width, height);
    }
    cvision::require_intrinsics(intrinsics);
    validate(params);
    const int levels = params.levels;
    if ((width >> (levels - 1)) < kMinLevelSize || (height >> (levels - 1)) < kMinLevelSize) {
      fail(CV_ERR_INVALID_ARGUMENT, "a %d x %d depth map is too small for %d pyramid levels (the coarsest must be "
           "at least %d x %d)", width, height, levels, kMinLevelSize, kMinLevelSize);
    }
    Pose T;  // current_from_reference
    if (initial_current_from_reference != nullptr) {
      T = cvision::read_pose(*initial_current_from_reference, "initial_current_from_reference");
    }
    const Eigen::Matrix3d prior_rotation = T.R;
    const bool rotation_prior = initial_current_from_reference != nullptr && params.rotation_prior_weight > 0;
    const Eigen::Vector3d prior_translation = T.t;
    const bool translation_prior =
        initial_current_from_reference != nullptr && params.translation_prior_weight > 0;

    // The finest level that iterates is where the result is measured.
    int final_level = 0;
    for (int l = levels - 1; l >= 0; --l) {
      if (params.iterations[l] > 0) final_level = l;
    }

    // Pyramids of both maps.
    thread_local Workspace workspace;
    std::vector<DepthLevel> &reference = workspace.reference;
    std::vector<DepthLevel> &current = workspace.current;
    reference.resize(size_t(levels));
    current.resize(size_t(levels));
    load_level0(reference_depth, width, height, params.min_depth, params.max_depth, reference[0]);
    load_level0(current_depth, width, height, params.min_depth, params.max_depth, current[0]);
    for (DepthLevel *pyramid : {reference.data(), current.data()}) {
      pyramid[0].set_intrinsics(intrinsics.fx, intrinsics.fy, intrinsics.cx, intrinsics.cy);
      for (int l = 1; l < levels; ++l) downsample(pyramid[l - 1], pyramid[l]);
      for (int l = 0; l < levels; ++l) pyramid[l].normal_step = std::max(1, params.normal_radius >> l);
    }

    const double min_cos_normal = std::cos(params.max_normal_angle_degrees * M_PI / 180.0);
    const double stop_rotation = params.stop_rotation_degrees * M_PI / 180.0;
    int iterations_used = 0;
    // The last association at the final level, and whether the pose moved after it by more than
    // the stop thresholds (then the statistics are measured again at the final pose).
    Accumulator last;
    bool moved_since_last = true;
    ReferenceSamples &samples = workspace.samples;
    for (int l = levels - 1; l >= final_level; --l) {
      if (params.iterations[l] == 0 && l != final_level) continue;
      const DepthLevel &level = current[size_t(l)];
      sample_reference(reference[size_t(l)], l == 0 ? params.stride : 1, samples);
      const double scale = std::ldexp(1.0, l);
      const double max_distance = params.max_distance * scale;
      const Gates gates{max_distance * max_distance, min_cos_normal, min_cos_normal * min_cos_normal,
                        params.robust_loss, params.robust_scale * scale};
      moved_since_last = true;
      for (int iteration = 0; iteration < params.iterations[l]; ++iteration) {
        last = associate(samples, level, T, gates);
        moved_since_last = false;
        if (last.count < kMinCorrespondences) break;
        ++iterations_used;
        Eigen::Matrix<double, 6, 6> H = last.hessian();
        Eigen::Matrix<double, 6, 1> g;
        for (int i = 0; i < 6; ++i) g(i) = last.g[i];
        if (rotation_prior) {
          // Residual log(R R0^T) + omega after the left increment (first order): adds lambda I
          // to the rotation block and lambda log(R R0^T) to its gradient.
          const double lambda = params.rotation_prior_weight * last.weight;
          const Eigen::AngleAxisd away(T.R * prior_rotation.transpose());
          H.topLeftCorner<3, 3>().diagonal().array() += lambda;
          g.head<3>() += lambda * away.angle() * away.axis();
        }
        if (translation_prior) {
          const double mu = params.translation_prior_weight * last.weight;
          H.bottomRightCorner<3, 3>().diagonal().array() += mu;
          g.tail<3>() += mu * (T.t - prior_translation);
        }
        // A tiny damping keeps directions the geometry leaves free from moving; it does not
        // change the fixed point (g = 0) of the iteration.
        H.diagonal().array() += 1e-9 * H.trace() + 1e-12;
        const Eigen::Matrix<double, 6, 1> xi = H.ldlt().solve(-g);
        if (!xi.allFinite()) break;
        const Eigen::Matrix3d dR = cvision::so3_exp(xi.head<3>());
        T.R = cvision::nearest_rotation(dR * T.R);
        T.t = dR * T.t + xi.tail<3>();
        const bool converged = xi.tail<3>().norm() < params.stop_translation && xi.head<3>().norm() < stop_rotation;
        moved_since_last = !converged;
        if (converged) break;
      }
      if (l == final_level && moved_since_last) {
        last = associate(samples, level, T, gates);
      }
    }

    if (last.count < kMinCorrespondences) {
      fail(CV_ERR_NOT_ENOUGH_DATA,
           "depth alignment found only %d correspondences at level %d (of %d valid reference pixels, %zu with "
           "normals)",
           last.count, final_level, samples.valid_pixels, samples.count);
    }
    cvision::write_pose(T, current_from_reference);
    if (result != nullptr) {
      const Eigen::Matrix<double, 6, 6> information = last.hessian() / last.weight;
      Eigen::SelfAdjointEigenSolver<Eigen::Matrix<double, 6, 6>> solver(information, Eigen::EigenvaluesOnly);
      for (int i = 0; i < 6; ++i) result->eigenvalues[i] = solver.eigenvalues()(i);
      result->rms_error = std::sqrt(last.squared_error / last.count);
      result->inlier_count = last.count;
      result->inlier_fraction = double(last.count) / double(samples.valid_pixels);
      result->iterations = iterations_used;
      result->level = final_level;
    }
    return CV_OK;
  });
}
