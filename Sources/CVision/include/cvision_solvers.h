// CVision's dense solvers: depth alignment (point-to-plane ICP) and bundle adjustment, under
// the rules and conventions stated in cvision.h.

#ifndef ARSIM_CVISION_SOLVERS_H
#define ARSIM_CVISION_SOLVERS_H

#include "cvision.h"

#ifdef __cplusplus
extern "C" {
#endif

// MARK: - Depth alignment

/// Robust loss of the depth alignment's point-to-plane residuals.
enum {
  CV_ROBUST_HUBER = 0,  ///< weight 1 up to `robust_scale`, then robust_scale / |r|
  CV_ROBUST_TUKEY = 1   ///< weight (1 - (r / robust_scale)^2)^2 below `robust_scale`, then 0
};

/// Most pyramid levels cv_depth_align accepts.
#define CV_DEPTH_ALIGN_MAX_LEVELS 5

typedef struct cv_depth_align_params {
  /// Pyramid levels, 1...CV_DEPTH_ALIGN_MAX_LEVELS; level 0 is the full resolution, each
  /// further level halves width and height (2x2 blocks; the last odd row / column is dropped).
  int32_t levels;
  /// Gauss-Newton iterations per level, 0...100; index 0 is the FINEST level (entries at
  /// `levels` and beyond are ignored). A level with 0 iterations is skipped.
  int32_t iterations[CV_DEPTH_ALIGN_MAX_LEVELS];
  /// Correspondences further apart than this (metres, 3D distance) are rejected at level 0;
  /// doubled at every coarser level.
  double max_distance;
  /// Correspondences whose normals differ by more than this (degrees, (0, 180]) are rejected.
  double max_normal_angle_degrees;
  /// Only every `stride`-th reference pixel in x and y is used at level 0 (1...16);
  /// coarser levels use every pixel.
  int32_t stride;
  /// Depths outside [min_depth, max_depth] (metres; 0 <= min_depth < max_depth, max_depth may
  /// be +inf) are invalid, like NaN and values <= 0.
  double min_depth;
  double max_depth;
  /// CV_ROBUST_HUBER or CV_ROBUST_TUKEY.
  int32_t robust_loss;
  /// Scale of the robust loss in metres of point-to-plane error at level 0 (> 0), doubled at
  /// every coarser level.
  double robust_scale;
  /// A level stops when an update moves by less than `stop_translation` metres and rotates by
  /// less than `stop_rotation_degrees` (both >= 0).
  double stop_translation;
  double stop_rotation_degrees;
  /// Normals come from the neighbours `normal_radius` pixels away (1...16) at level 0, half as
  /// far (at least 1) at each coarser level: larger values average out depth noise.
  int32_t normal_radius;
  /// Weight (>= 0; 0: none) of a prior that holds the rotation at the initial pose's (for example
  /// one integrated from a gyroscope): the cost gains rotation_prior_weight * sum(w) * |log(R R0^T)|^2
  /// (R0 the initial rotation, radians), so per unit of inlier weight 1 rad away from R0 costs as
  /// much as a point-to-plane residual of sqrt(rotation_prior_weight) metres. Ignored without an
  /// initial pose.
  double rotation_prior_weight;
  /// Weight (>= 0; 0: none) of a prior that holds the translation at the initial pose's (one
  /// predicted from an accelerometer, say): the cost gains translation_prior_weight * sum(w) *
  /// |t - t0|^2 (t0 the initial translation, metres), so per unit of inlier weight it is as strong as
  /// the point-to-plane residuals of a surface seen with that fraction of its points facing the
  /// motion: directions the geometry leaves free stay at t0. Ignored without an initial pose.
  double translation_prior_weight;
} cv_depth_align_params;

typedef struct cv_depth_align_result {
  /// RMS point-to-plane error of the inlier correspondences, metres.
  double rms_error;
  /// Correspondences that pass the distance, normal (and, for Tukey, residual) tests, at the
  /// finest level used (the finest level with iterations > 0).
  int32_t inlier_count;
  /// inlier_count divided by the number of valid reference pixels sampled at that level
  /// (with its stride), 0...1.
  double inlier_fraction;
  /// Eigenvalues, ascending, of sum(w J^T J) / sum(w) over the inliers (w: robust weight, so
  /// with all weights 1 it is J^T J / inlier_count), where J = [(m x c)^T, -m^T] is the row of
  /// one correspondence: c the current point (current frame, metres), m the reference normal
  /// rotated into the current frame. The first three directions are rotations (m^2), the last
  /// three translations (dimensionless), mixed by the eigen-decomposition. A value near 0 marks a
  /// motion the geometry does not constrain (one plane leaves 3 of the 6 near 0); noise in the
  /// normals lifts such values somewhat.
  double eigenvalues[6];
  /// Gauss-Newton iterations performed, summed over levels.
  int32_t iterations;
  /// The level at which the statistics were measured (0 = full resolution).
  int32_t level;
} cv_depth_align_result;

/// Aligns two depth maps of the same camera by point-to-plane ICP: finds the rigid transform
/// `current_from_reference` (optical frames, x right, y down, z forward; x_current = R x_ref + t,
/// metres) that puts the reference surface onto the current one.
///
/// Depth maps are z-depth in metres (not range along the ray), `width * height` floats,
/// row-major, tightly packed; NaN, values <= 0 and values outside [min_depth, max_depth] are
/// invalid. Pixel coordinates follow OpenCV (origin at the centre of the top-left pixel).
///
/// Method: a pyramid of `params.levels` levels per map (2x2 blocks averaging the valid depths;
/// a block whose valid depths differ by more than a slope-based threshold is a depth
/// discontinuity and becomes invalid; fx, fy halved and cx' = (cx - 0.5) / 2 per level);
/// reference points and normals (cross product of the central differences of the back-projected
/// neighbours; none at depth edges or next to invalid pixels) computed once per level; coarse to
/// fine, projective data association (each reference point is transformed, projected into the
/// current map and paired with the point at the nearest pixel, whose normal is computed the same
/// way), rejection by 3D distance and normal angle, Huber or Tukey weights on the point-to-plane
/// residual, and Gauss-Newton on SE(3) (6x6 normal equations, LDLT, a tiny damping so that
/// unconstrained directions do not move). Statistics come from the last association at the final
/// level; when that level stopped on a small update, that association saw the pose before the
/// update (closer than the stop thresholds), otherwise one more association at the final pose is
/// made. Single-threaded and deterministic: the same inputs give bit-identical outputs. Scratch
/// buffers (some 10...40 bytes per pixel, depending on the stride) are kept per thread between
/// calls.
///
/// `initial_current_from_reference` (optional; identity when NULL) starts the search; it may
/// point to the same struct as `current_from_reference`. `result` is optional.
/// CV_ERR_INVALID_ARGUMENT for bad sizes, intrinsics, poses or parameters (including an image
/// too small for the requested levels: the coarsest level must be at least 4 x 4 pixels);
/// CV_ERR_NOT_ENOUGH_DATA when fewer than 6 correspondences support the final pose (the outputs
/// are then not written).
int32_t cv_depth_align(const float *reference_depth, const float *current_depth, int32_t width,
                       int32_t height, cv_intrinsics intrinsics, cv_depth_align_params params,
                       const cv_pose *initial_current_from_reference, cv_pose *current_from_reference,
                       cv_depth_align_result *result, cv_status *status) CVISION_NOEXCEPT;

// MARK: - Bundle adjustment

/// Parameters of cv_bundle_adjust.
typedef struct cv_bundle_params {
  int32_t iterations;     ///< most Levenberg-Marquardt iterations (linearisations), 0...1000; 10 is typical
  double huber_delta;     ///< Huber threshold on the reprojection error, pixels (> 0; +inf: plain least squares)
  double initial_lambda;  ///< initial damping, relative to the diagonal (finite, > 0); 1e-4 is typical
  /// Huber threshold on the depth priors' residuals, in standard deviations (> 0; +inf: plain least
  /// squares); read only when `obs_depths` is given. 2 is typical.
  double depth_huber_delta;
} cv_bundle_params;

/// Outcome of cv_bundle_adjust.
typedef struct cv_bundle_result {
  /// RMS reprojection error in pixels (plain, unweighted, outliers included) over the observations in
  /// front of their camera, before and after the adjustment.
  double initial_rms;
  double final_rms;
  /// Iterations whose step lowered the robust cost (and was kept).
  int32_t iterations;
  /// Observations treated as outliers at the end: reprojection error above 3 * huber_delta, or
  /// behind their camera.
  int32_t outliers;
} cv_bundle_result;

/// A prior on the relative rotation of two cameras of cv_bundle_adjust (e.g. a gyroscope's turn
/// between them): the residual log(Q^T R_first R_second^T) * inverse_sigma joins the cost (plain least
/// squares), R the cameras' camera-from-world rotations, Q the measured rotation from camera
/// `second`'s frame to camera `first`'s (row-major, proper).
typedef struct cv_rotation_prior {
  int32_t first;         ///< index of the first camera
  int32_t second;        ///< index of the second camera (not `first`)
  double rotation[9];    ///< Q, row-major
  double inverse_sigma;  ///< 1 / the standard deviation per axis, 1/radians (finite, > 0)
} cv_rotation_prior;

/// Sliding-window bundle adjustment: jointly refines the poses of the cameras that are not fixed
/// and all observed points by minimising the Huber loss of the reprojection errors (pixels) plus,
/// for observations with a measured depth (RGB-D), the Huber loss of the depth residual in standard
/// deviations, (z - depth) / sigma, z the point's z-depth in the observing camera.
///
/// - `camera_from_world` (in/out, `n_cameras` >= 1): camera-from-world poses, optical frame. Cameras
///   with `camera_fixed[i]` non-zero are held constant and never written (they stay bit-identical).
///   At least one camera must be fixed, else CV_ERR_INVALID_ARGUMENT: the gauge (the world frame)
///   is not otherwise defined. With monocular data the scale is a gauge freedom too: fix two
///   cameras (simplest: the first two of the window), since with a single fixed camera nothing but
///   the damping holds the scale. At most 1000 cameras may be free (the reduced system is dense).
/// - `points` (in/out, `n_points` >= 1): world points, x, y, z triples (metres). A point without an
///   observation in front of a camera is left unchanged.
/// - Observation k (`n_observations` >= 1) is point `obs_point[k]` seen by camera `obs_camera[k]` at
///   pixel (`obs_pixels[2k]`, `obs_pixels[2k + 1]`) (undistorted, origin at the centre of the
///   top-left pixel). Indices must be in range, pixels, points and poses finite, rotations proper.
///   Observations whose point is behind their camera (depth <= 1e-9) get weight 0.
/// - `obs_depths` (optional, 2 per observation): the measured z-depth of observation k's point in its
///   camera (`obs_depths[2k]`, metres) and its standard deviation (`obs_depths[2k + 1]`, metres); a
///   NaN depth means no prior for that observation, else both must be finite and positive. With
///   depth priors the scale is held by them and one fixed camera suffices.
/// - `rotation_priors` (optional, `n_rotation_priors` >= 0): priors on two cameras' relative rotation
///   (cv_rotation_prior); those between two fixed cameras are ignored.
/// - `result` (optional) receives the statistics.
///
/// Method: Levenberg-Marquardt with Huber (IRLS) weights; camera updates are left SE(3) increments
/// (R <- exp(omega) R, t <- exp(omega) t + dt), point updates additive; the normal equations are
/// reduced by the Schur complement on the points (3x3 point blocks inverted directly, the dense
/// reduced camera system solved by Eigen's LDLT); Marquardt damping lambda * diag. A step is kept
/// only when it lowers the robust cost. Single-threaded and deterministic: the same inputs give
/// bit-identical outputs. When no step is kept the buffers are not written.
/// CV_ERR_INVALID_ARGUMENT for bad arguments; CV_ERR_NOT_ENOUGH_DATA when no observation lies in
/// front of its camera (nothing is written then).
int32_t cv_bundle_adjust(cv_pose *camera_from_world, int32_t n_cameras, const uint8_t *camera_fixed,
                         double *points, int32_t n_points, const int32_t *obs_camera,
                         const int32_t *obs_point, const double *obs_pixels, const double *obs_depths,
                         int32_t n_observations, const cv_rotation_prior *rotation_priors,
                         int32_t n_rotation_priors, cv_intrinsics intrinsics, cv_bundle_params params,
                         cv_bundle_result *result, cv_status *status) CVISION_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif  // ARSIM_CVISION_SOLVERS_H
