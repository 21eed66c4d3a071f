// CVision: ARSim's only contact with OpenCV and Eigen.
//
// Plain C on the outside, C++ on the inside. Rules every entry point keeps:
//   * it never throws: C++ exceptions are caught and turned into a status;
//   * it never keeps a pointer it was lent: buffers belong to the caller and are
//     read or written only for the duration of the call;
//   * results go into caller-allocated buffers, sized by the caller; where the
//     size is not known in advance the call reports the size it needs;
//   * images are row-major with an explicit stride in bytes.
// Conventions: pixel coordinates have their origin at the top-left corner of the
// top-left pixel's centre (OpenCV's); camera poses are camera-from-world in the
// optical frame (x right, y down, z forward); 3x3 matrices are row-major.

#ifndef ARSIM_CVISION_H
#define ARSIM_CVISION_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
/// Every entry point is noexcept: C++ exceptions never cross this boundary.
#define CVISION_NOEXCEPT noexcept
#else
#define CVISION_NOEXCEPT
#endif

// MARK: - Status

/// Result codes. 0 is success; everything else carries a message.
enum {
  CV_OK = 0,
  CV_ERR_INVALID_ARGUMENT = 1,
  CV_ERR_DECODE = 2,
  CV_ERR_BUFFER_TOO_SMALL = 3,
  CV_ERR_IO = 4,
  CV_ERR_OPENCV = 5,
  CV_ERR_NOT_ENOUGH_DATA = 6,
  CV_ERR_INTERNAL = 7
};

/// Outcome of a call: `code` is one of the CV_* values, `message` a
/// NUL-terminated English sentence (empty on success).
typedef struct cv_status {
  int32_t code;
  char message[240];
} cv_status;

// MARK: - Images

/// How to decode an image.
enum {
  CV_DECODE_GRAY8 = 0,   ///< 8-bit, 1 channel (colour input is converted).
  CV_DECODE_RGB8 = 1,    ///< 8-bit, 3 channels in R, G, B order.
  CV_DECODE_DEPTH16 = 2, ///< 16-bit unsigned, 1 channel, as stored (no conversion).
  CV_DECODE_FLOAT32 = 3  ///< 32-bit float, 1 channel (OpenEXR; half-float channels widened exactly).
};

/// The largest image side decoded, in pixels, and the largest pixel count (64 Mi): checked from
/// the PNG, JPEG or EXR header before anything is allocated.
enum { CV_IMAGE_MAX_DIMENSION = 16384, CV_IMAGE_MAX_PIXELS = 1 << 26 };

/// Size and layout of a decoded image.
typedef struct cv_image_info {
  int32_t width;
  int32_t height;
  int32_t channels;
  int32_t bytes_per_channel;
  /// Bytes the decoded image needs: width * height * channels * bytes_per_channel.
  int64_t byte_count;
} cv_image_info;

/// Decodes an encoded image (PNG, JPEG or OpenEXR, recognised by their magic bytes; other formats
/// give CV_ERR_DECODE naming them) into `out`, tightly packed. The size is read from the header
/// first: a side over CV_IMAGE_MAX_DIMENSION or more than CV_IMAGE_MAX_PIXELS pixels, or an
/// unreadable header, gives CV_ERR_DECODE before any allocation. What libpng, libjpeg or OpenEXR
/// print while decoding is captured and appended to the status message, never shown on stderr.
/// Truncated PNG and JPEG data is rejected (libjpeg would otherwise fill the
/// missing rows with grey): PNG must reach its IEND chunk, JPEG must end with the
/// FFD9 marker (zero padding after it is accepted). Empty, unknown or corrupt data
/// gives CV_ERR_DECODE. When `capacity` is too small, fills `info` and returns
/// CV_ERR_BUFFER_TOO_SMALL without writing `out`; for PNG and JPEG the size comes
/// from the header, so a size query (`out` NULL, `capacity` 0) does not decode.
/// DEPTH16 rejects images that are not single-channel 16-bit (CV_ERR_DECODE naming
/// the actual OpenCV type). EXIF orientation is ignored (pixels as stored).
int32_t cv_image_decode(const uint8_t *data, size_t size, int32_t mode, uint8_t *out,
                        size_t capacity, cv_image_info *info, cv_status *status) CVISION_NOEXCEPT;

/// Encodes a tightly packed image and writes it to `path`. The format follows
/// the extension (.png, .jpg/.jpeg, or .exr for one 32-bit float channel).
/// `bytes_per_channel` is 1 or 2 (2 only for PNG) or 4 (float, only for EXR);
/// 3-channel input is in R, G, B order. `quality` is the JPEG quality
/// (1...100) or the PNG compression level (0...9). Unsupported extensions and
/// out-of-range arguments give CV_ERR_INVALID_ARGUMENT; a failed write CV_ERR_IO.
int32_t cv_image_write(const char *path, const uint8_t *pixels, int32_t width, int32_t height,
                       int32_t channels, int32_t bytes_per_channel, int32_t quality,
                       cv_status *status) CVISION_NOEXCEPT;

// MARK: - Video

typedef struct cv_video cv_video;

typedef struct cv_video_info {
  int32_t width;
  int32_t height;
  double fps;
  /// Frame count as the container reports it; may be 0 or approximate.
  int64_t frame_count;
} cv_video_info;

/// Opens a video file (a regular file, through OpenCV's FFmpeg backend only; frames of at most
/// CV_IMAGE_MAX_PIXELS) for reading. Returns NULL (and a status) on failure; what FFmpeg prints
/// while probing is captured into the status message, never shown.
cv_video *cv_video_open(const char *path, cv_video_info *info, cv_status *status) CVISION_NOEXCEPT;

/// Reads the next frame into `out` (tightly packed, GRAY8 or RGB8) and its
/// presentation time in seconds (the container's; frame index / fps when the
/// container has no increasing timestamps). Returns 1 when a frame was read, 0 at
/// the end of the stream, -1 on error (with status). A `capacity` below
/// width * height * channels is an error that does not consume a frame.
int32_t cv_video_read(cv_video *video, int32_t mode, uint8_t *out, size_t capacity,
                      double *timestamp_seconds, cv_status *status) CVISION_NOEXCEPT;

void cv_video_close(cv_video *video) CVISION_NOEXCEPT;

typedef struct cv_video_writer cv_video_writer;

/// Opens an MP4 (mp4v) writer for RGB8 frames of the given size.
cv_video_writer *cv_video_writer_open(const char *path, int32_t width, int32_t height, double fps,
                                      cv_status *status) CVISION_NOEXCEPT;
int32_t cv_video_writer_write(cv_video_writer *writer, const uint8_t *rgb, cv_status *status) CVISION_NOEXCEPT;
void cv_video_writer_close(cv_video_writer *writer) CVISION_NOEXCEPT;

// MARK: - Features

/// A borrowed 8-bit single-channel image.
typedef struct cv_gray_image {
  const uint8_t *pixels;
  int32_t width;
  int32_t height;
  int32_t stride;  ///< bytes per row, >= width
} cv_gray_image;

enum { CV_FEATURE_FAST = 0, CV_FEATURE_ORB = 1, CV_FEATURE_GFTT = 2 };

typedef struct cv_feature_params {
  int32_t method;          ///< CV_FEATURE_*
  int32_t max_features;    ///< upper bound on the number returned
  float threshold;         ///< FAST threshold 0...255, rounded (FAST, ORB) or quality level in (0, 1) (GFTT)
  float min_distance;      ///< GFTT minimum distance in pixels; ignored otherwise
  int32_t pyramid_levels;  ///< ORB levels (>= 1); ignored otherwise
  float scale_factor;      ///< ORB pyramid scale (> 1); ignored otherwise
  /// GFTT only: absolute minimum corner strength (the smaller eigenvalue of the gradient
  /// structure tensor over a 3x3 block, as cv::cornerMinEigenVal scales it for 8-bit images:
  /// textured surfaces give about 0.005 to 0.1, sensor noise on a blank wall about 1e-4).
  /// Corners below it are dropped whatever the quality level. 0 disables it.
  float min_response;
} cv_feature_params;

/// A detected feature: position in pixels, response, size and angle (degrees,
/// -1 when not computed), pyramid level (octave).
typedef struct cv_keypoint {
  float x;
  float y;
  float response;
  float size;
  float angle;
  int32_t octave;
} cv_keypoint;

/// Detects features, strongest first (ties: smaller y, then smaller x), at most
/// `capacity` (and at most params.max_features). `mask` (optional, width * height
/// bytes, tightly packed) keeps only pixels where it is non-zero. For ORB,
/// `descriptors` (optional; must be NULL for other methods) receives 32 bytes per
/// keypoint. GFTT responses are the minimum eigenvalue at the corner. Returns the
/// count in `count`.
int32_t cv_detect_features(cv_gray_image image, const uint8_t *mask, cv_feature_params params,
                           cv_keypoint *keypoints, uint8_t *descriptors, int32_t capacity,
                           int32_t *count, cv_status *status) CVISION_NOEXCEPT;

typedef struct cv_klt_params {
  int32_t window;          ///< window side in pixels (odd, >= 5)
  int32_t levels;          ///< pyramid levels above the base (>= 0)
  int32_t max_iterations;  ///< per level
  float epsilon;           ///< convergence threshold in pixels
  float max_error;         ///< points whose mean absolute patch error exceeds it are lost
  int32_t use_initial;     ///< non-zero: `next_points` holds initial guesses
} cv_klt_params;

/// Tracks `count` points (x, y pairs) from `previous` to `next` with pyramidal
/// Lucas-Kanade. `found[i]` is 1 when point i was tracked and stays inside the
/// image, else 0. `error` (optional) receives the patch error per point. Input
/// points (and initial guesses) must be finite.
int32_t cv_track_klt(cv_gray_image previous, cv_gray_image next, const float *previous_points,
                     int32_t count, cv_klt_params params, float *next_points, uint8_t *found,
                     float *error, cv_status *status) CVISION_NOEXCEPT;

/// An image pyramid prepared for KLT (levels with their Scharr derivatives), so that a
/// frame's pyramid is built once and serves as `next` for one call and `previous` for the next.
typedef struct cv_pyramid cv_pyramid;

/// Builds the pyramid of `image` (copied: the caller's buffer is not kept) for tracking with
/// `window` (odd, >= 5) and `levels` (0...10) levels above the base. NULL with a status on failure.
cv_pyramid *cv_pyramid_build(cv_gray_image image, int32_t window, int32_t levels,
                             cv_status *status) CVISION_NOEXCEPT;

/// Frees a pyramid (NULL is fine).
void cv_pyramid_free(cv_pyramid *pyramid) CVISION_NOEXCEPT;

/// `cv_track_klt` between two prebuilt pyramids of the same size, built with the window and
/// levels given in `params`.
int32_t cv_track_klt_pyramids(const cv_pyramid *previous, const cv_pyramid *next,
                              const float *previous_points, int32_t count, cv_klt_params params,
                              float *next_points, uint8_t *found, float *error,
                              cv_status *status) CVISION_NOEXCEPT;

/// Matches ORB descriptors (32 bytes each) from `a` to `b` by Hamming distance.
/// Keeps a match when its distance is <= max_distance, passes Lowe's ratio test
/// (ratio in (0, 1]; 1 disables it) and, if `cross_check`, is mutual.
/// Ties go to the lower index. `pairs` receives (index in a, index in b) sorted
/// by index in a and `distances` (optional) the distance. When more than
/// `capacity` matches pass, `count` holds the number needed and the call returns
/// CV_ERR_BUFFER_TOO_SMALL without writing (capacity count_a always suffices).
int32_t cv_match_descriptors(const uint8_t *a, int32_t count_a, const uint8_t *b,
                             int32_t count_b, int32_t max_distance, float ratio,
                             int32_t cross_check, int32_t *pairs, int32_t *distances,
                             int32_t capacity, int32_t *count, cv_status *status) CVISION_NOEXCEPT;

// MARK: - Geometry

/// Pinhole intrinsics in pixels.
typedef struct cv_intrinsics {
  double fx;
  double fy;
  double cx;
  double cy;
} cv_intrinsics;

/// A rigid transform x_to = R * x_from + t (R row-major).
typedef struct cv_pose {
  double r[9];
  double t[3];
} cv_pose;

typedef struct cv_ransac_params {
  double threshold;       ///< inlier threshold in pixels
  double confidence;      ///< in (0, 1)
  int32_t max_iterations;
  uint64_t seed;          ///< random seed: same seed, same result (our own RANSAC loop
                          ///< draws the samples with cv::RNG(seed); no global state)
} cv_ransac_params;

/// Camera pose from 3D-2D correspondences: `world_points` (x, y, z triples) and
/// `image_points` (x, y pairs, undistorted pixels). On success `camera_from_world`
/// holds the pose (refined on the inliers), `inliers[i]` is 1 for inliers, and
/// `inlier_count` their number (both optional). At least 4 points are required.
/// `initial` (optional) is scored as the first hypothesis. Method: MSAC over P3P
/// samples of 4 points with adaptive stopping, then Levenberg-Marquardt
/// (cv::solvePnPRefineLM) on the inliers, re-selecting them until stable.
/// CV_ERR_NOT_ENOUGH_DATA when no hypothesis has 4 inliers.
int32_t cv_solve_pnp_ransac(const double *world_points, const double *image_points, int32_t count,
                            cv_intrinsics intrinsics, cv_ransac_params params,
                            const cv_pose *initial, cv_pose *camera_from_world, uint8_t *inliers,
                            int32_t *inlier_count, cv_status *status) CVISION_NOEXCEPT;

/// Relative pose from 2D-2D correspondences through the essential matrix
/// (five-point RANSAC, then cheirality). `b_from_a` maps points in camera a to
/// camera b; its translation has unit length (scale is unobservable).
/// At least 5 points are required. `params.threshold` bounds the Sampson error in
/// pixels. Method: MSAC over OpenCV's five-point solver, cv::recoverPose on the
/// inliers, then Levenberg-Marquardt of (R, t) on their Sampson errors. Inliers
/// (optional) are within the threshold and triangulate in front of both cameras.
int32_t cv_essential_pose(const double *points_a, const double *points_b, int32_t count,
                          cv_intrinsics intrinsics, cv_ransac_params params, cv_pose *b_from_a,
                          uint8_t *inliers, int32_t *inlier_count, cv_status *status) CVISION_NOEXCEPT;

/// Triangulates `count` correspondences seen from two poses (camera-from-world);
/// `world_points` receives x, y, z triples, `valid[i]` is 1 when the point lies in
/// front of both cameras with a parallax of at least `min_parallax_degrees`
/// (0 disables the parallax test). Linear (DLT) triangulation in normalised
/// coordinates; points of invalid correspondences are still written (NaN when
/// the point is at infinity).
int32_t cv_triangulate(const double *points_a, const double *points_b, int32_t count,
                       cv_intrinsics intrinsics, cv_pose a_from_world, cv_pose b_from_world,
                       double min_parallax_degrees, double *world_points, uint8_t *valid,
                       cv_status *status) CVISION_NOEXCEPT;

typedef struct cv_refine_params {
  int32_t iterations;      ///< Gauss-Newton / Levenberg-Marquardt iterations
  double huber_delta;      ///< Huber threshold on the reprojection error, pixels (> 0; +inf: plain least squares)
} cv_refine_params;

/// Refines a camera pose by robust (Huber) least squares on reprojection
/// errors with Eigen, starting from `camera_from_world`. `weights` (optional,
/// finite, >= 0) scales each squared residual. Levenberg-Marquardt on SE(3) with a
/// left increment (R <- exp(w) R, t <- exp(w) t + dt); points at or behind the
/// camera get zero weight. At least 3 points are required. Writes the final RMS
/// reprojection error in pixels over the weighted points in front of the camera.
int32_t cv_refine_pose(const double *world_points, const double *image_points,
                       const double *weights, int32_t count, cv_intrinsics intrinsics,
                       cv_refine_params params, cv_pose *camera_from_world, double *rms_error,
                       cv_status *status) CVISION_NOEXCEPT;

/// Sets the number of threads OpenCV may use (1 for reproducible timing).
void cv_set_num_threads(int32_t threads) CVISION_NOEXCEPT;

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

/// Sliding-window bundle adjustment: jointly refines the poses of the cameras that are not fixed
/// and all observed points by minimising the Huber loss of the reprojection errors (pixels).
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
                         const int32_t *obs_point, const double *obs_pixels, int32_t n_observations,
                         cv_intrinsics intrinsics, cv_bundle_params params, cv_bundle_result *result,
                         cv_status *status) CVISION_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif  // ARSIM_CVISION_H
