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
/// unreadable header, gives CV_ERR_DECODE before any allocation. PNG (libdeflate) and JPEG
/// (libjpeg-turbo) are decoded without OpenCV and print nothing (libjpeg's message goes into the
/// status); what OpenEXR prints is captured and appended to the status message, never shown on
/// stderr.
/// Truncated PNG and JPEG data is rejected (libjpeg would otherwise fill the
/// missing rows with grey): PNG must reach its IEND chunk, JPEG must end with the
/// FFD9 marker (zero padding after it is accepted). OpenEXR is read only as a single-part
/// scanline image (no tiles, deep data or several parts) whose whole header is checked first: the
/// required attributes once each with valid values, 1 to 64 channels of known pixel types, both
/// windows within the limits above, at most 4 * CV_IMAGE_MAX_PIXELS bytes of pixels, and a
/// line-offset table whose entries all point at chunks of the right scanline within the data, each
/// no larger than its pixels and not smaller than its compression can reach. Empty, unknown or corrupt data
/// gives CV_ERR_DECODE. When `capacity` is too small, fills `info` and returns
/// CV_ERR_BUFFER_TOO_SMALL without writing `out`; for PNG and JPEG the size comes
/// from the header, so a size query (`out` NULL, `capacity` 0) does not decode.
/// DEPTH16 rejects images that are not single-channel 16-bit (CV_ERR_DECODE naming
/// the actual type). EXIF orientation is ignored (pixels as stored).
int32_t cv_image_decode(const uint8_t *data, size_t size, int32_t mode, uint8_t *out,
                        size_t capacity, cv_image_info *info, cv_status *status) CVISION_NOEXCEPT;

/// OpenEXR sample types for cv_exr_encode (the file format's own codes).
enum { CV_EXR_UINT = 0, CV_EXR_HALF = 1, CV_EXR_FLOAT = 2 };

/// Encodes `channel_count` (1...8) channels of `width` x `height` samples as single-part scanline
/// OpenEXR data (OpenEXR's own library, in memory) into `out`. `values` holds the channels one after
/// another, each row-major; channel i is named `names[i]` (1...255 bytes, distinct) and every
/// channel is stored as `pixel_type`: HALF rounds to the nearest half float (beyond 65504:
/// infinity), UINT truncates (NaN and negatives: 0). `compression` is OpenEXR's code: 0 NONE, 1 RLE,
/// 2 ZIPS, 3 ZIP, 4 PIZ. `*size` receives the bytes the data takes; when `capacity` is smaller,
/// returns CV_ERR_BUFFER_TOO_SMALL without writing `out`. Out-of-range arguments give
/// CV_ERR_INVALID_ARGUMENT.
///
/// cv_image_decode reads such data back in mode CV_DECODE_FLOAT32 through the same library: the
/// depth channel is a lone channel whatever its name, or among several the one named Z, D or depth
/// (any case) when exactly one is (else CV_ERR_DECODE naming the channels); HALF or FLOAT samples
/// (UINT is refused), HALF widened exactly.
int32_t cv_exr_encode(const float *values, int32_t width, int32_t height, const char *const *names,
                      int32_t channel_count, int32_t pixel_type, int32_t compression, uint8_t *out,
                      size_t capacity, size_t *size, cv_status *status) CVISION_NOEXCEPT;

/// cv_image_decode with a JPEG reduced by `reduction` (1, 2, 4 or 8) in each direction as it is
/// decoded (libjpeg-turbo's DCT scaling: each 8x8 block's inverse DCT yields 8/reduction pixels a
/// side, about the means of the pixels they replace), to ceil(width / reduction) x
/// ceil(height / reduction) pixels, in GRAY8 or RGB8. Reduction 1 is cv_image_decode; other formats
/// and other reductions give CV_ERR_INVALID_ARGUMENT.
int32_t cv_image_decode_reduced(const uint8_t *data, size_t size, int32_t mode, int32_t reduction, uint8_t *out,
                                size_t capacity, cv_image_info *info, cv_status *status) CVISION_NOEXCEPT;

/// cv_image_decode with PNG and JPEG decoded by OpenCV's codecs (`imdecode`: libpng, libjpeg), as
/// OpenEXR is: the reference CVision's own PNG and JPEG decoders are checked against (same checks
/// before decoding, same output layout). Slower; for tests and comparisons.
int32_t cv_image_decode_reference(const uint8_t *data, size_t size, int32_t mode, uint8_t *out,
                                  size_t capacity, cv_image_info *info, cv_status *status) CVISION_NOEXCEPT;

/// Makes the process-wide settings the decoders need once (OpenCV's logger silenced, its
/// environment settings for FFmpeg, image limits and OpenEXR set), so that a decode on another
/// thread later changes no environment variable while this one may read it. Call it before the
/// first decode on a second thread; cv_image_decode and the video reader also do it on first use.
void cv_image_prepare(void) CVISION_NOEXCEPT;

/// Makes the C allocator keep freed memory for reuse (glibc: a fixed 32 MB mmap threshold and a
/// 128 MB trim threshold) instead of returning the top of its heap to the system, which faults the
/// pages in again, zeroed, when the next frame allocates the same buffers. Process-wide: for
/// programs that replay frame after frame (the `arsim` tool calls it at start); does nothing
/// where the C library has no such settings.
void cv_keep_freed_memory(void) CVISION_NOEXCEPT;

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

/// Opens a video file (a regular file, through FFmpeg's libavformat and libavcodec; frames of at
/// most CV_IMAGE_MAX_PIXELS) for reading. Returns NULL (and a status) on failure; FFmpeg's own log
/// is silenced, its errors come back in the status message.
cv_video *cv_video_open(const char *path, cv_video_info *info, cv_status *status) CVISION_NOEXCEPT;

/// Reads the next frame into `out` (tightly packed, GRAY8 or RGB8) and its
/// presentation time in seconds (the container's; frame index / fps when the
/// container has no increasing timestamps). Returns 1 when a frame was read, 0 at
/// the end of the stream, -1 on error (with status). A `capacity` below
/// width * height * channels is an error that does not consume a frame.
/// GRAY8 is the decoded luma plane (Y', in the stream's own colour matrix) expanded from the
/// limited range 16-235 to 0-255 when the stream uses it; RGB8 is converted with the colour matrix
/// and range the stream is tagged with (BT.601 limited when untagged).
int32_t cv_video_read(cv_video *video, int32_t mode, uint8_t *out, size_t capacity,
                      double *timestamp_seconds, cv_status *status) CVISION_NOEXCEPT;

void cv_video_close(cv_video *video) CVISION_NOEXCEPT;

typedef struct cv_video_writer cv_video_writer;

/// Video codecs of cv_video_writer_open, all in an MP4 container, 8-bit 4:2:0 YUV (BT.601,
/// limited range, tagged so), through FFmpeg's libraries.
enum {
  /// MPEG-4 Part 2 (`mp4v`, FFmpeg's encoder at a fixed quantiser of 3): fast, lossy.
  CV_VIDEO_CODEC_MPEG4 = 0,
  /// HEVC (`hvc1`, libx265 at constant rate factor 18), what iPhones record; H.264 (`avc1`,
  /// libx264 at CRF 18) when this FFmpeg cannot encode HEVC. Slower than CV_VIDEO_CODEC_MPEG4
  /// and closer to the frames written; the encoders' log lines are not shown.
  CV_VIDEO_CODEC_HEVC = 1
};

/// Opens an MP4 writer for RGB8 frames of the given size (positive, even) with `codec`
/// (CV_VIDEO_CODEC_*); frame i is stamped i / fps seconds. CV_ERR_IO when no encoder for the
/// codec can be opened for `path`.
cv_video_writer *cv_video_writer_open(const char *path, int32_t width, int32_t height, double fps,
                                      int32_t codec, cv_status *status) CVISION_NOEXCEPT;
/// Encodes one RGB8 frame of the writer's size (tightly packed). After an error the writer
/// refuses further frames.
int32_t cv_video_writer_write(cv_video_writer *writer, const uint8_t *rgb, cv_status *status) CVISION_NOEXCEPT;
/// Flushes the encoder and writes the MP4 index: the file is complete when this returns CV_OK.
/// Later writes fail; calling it again does nothing.
int32_t cv_video_writer_finish(cv_video_writer *writer, cv_status *status) CVISION_NOEXCEPT;
/// Finishes (errors ignored: call cv_video_writer_finish to see them) and frees the writer.
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
/// Lucas-Kanade (CVision's own, see CV_KLT_AUTOMATIC). `found[i]` is 1 when point i was
/// tracked and stays inside the image, else 0. `error` (optional) receives the patch error
/// per point. Input points (and initial guesses) must be finite.
int32_t cv_track_klt(cv_gray_image previous, cv_gray_image next, const float *previous_points,
                     int32_t count, cv_klt_params params, float *next_points, uint8_t *found,
                     float *error, cv_status *status) CVISION_NOEXCEPT;

/// Implementations `cv_track_klt_using` can run. CVision's own tracker (the first two) follows
/// OpenCV's cv::calcOpticalFlowPyrLK step for step but sums window products exactly in integers, so
/// its results are the same bits on every CPU and differ from OpenCV's by its float rounding only.
enum {
  CV_KLT_AUTOMATIC = 0,  ///< CVision's tracker, AVX2 where the CPU has it (what every other call uses)
  CV_KLT_PORTABLE = 1,   ///< CVision's tracker, portable code only (the same bits)
  CV_KLT_OPENCV = 2      ///< OpenCV's cv::calcOpticalFlowPyrLK (a reference for tests)
};

/// `cv_track_klt` with a chosen implementation (CV_KLT_*), for tests.
int32_t cv_track_klt_using(cv_gray_image previous, cv_gray_image next, const float *previous_points,
                           int32_t count, cv_klt_params params, float *next_points, uint8_t *found,
                           float *error, int32_t implementation, cv_status *status) CVISION_NOEXCEPT;

/// 1 when CV_KLT_AUTOMATIC runs AVX2 code on this CPU, else 0.
int32_t cv_klt_vectorised(void) CVISION_NOEXCEPT;

/// Feature alignment (`cv_align_features`).
typedef struct cv_align_params {
  int32_t half_patch;      ///< the aligned patch is (2 half_patch)² pixels, 2...16
  int32_t max_iterations;  ///< Gauss-Newton steps, 1...100
  float epsilon;           ///< converged when a step moves the point less than this, pixels
  float max_shift;         ///< a point that moves farther from its start fails, pixels
  float min_eigenvalue;    ///< smallest eigenvalue of the template's gradient matrix per pixel
} cv_align_params;

/// Aligns `count` features to their reference patches (SVO's feature alignment): `regions` holds
/// `region_count` row-major float regions of `region_size²` (intensities; negative: unknown), feature
/// f's reference is region `slots[f]` (0...region_count - 1; features may share one), and
/// `warps + 6 f` holds [a b c d ox oy]: the region pixel seen at image offset (dx, dy)
/// from the feature is (ox + a dx + b dy, oy + c dx + d dy). Starting at `points[2f...]`, the patch
/// is aligned in translation with a gain and an offset; `aligned[f]` is 1 and the point moved when
/// it converged within `max_shift`, else 0 and the point left as it was.
int32_t cv_align_features(cv_gray_image image, const float *regions, int32_t region_count, int32_t region_size,
                          const int32_t *slots, const float *warps, int32_t count, cv_align_params params,
                          float *points, uint8_t *aligned, cv_status *status) CVISION_NOEXCEPT;

/// Sets how many threads a KLT call on pyramids (`cv_track_klt_pyramids`) tracks its points on,
/// process-wide: 1 (default) the calling thread alone, 2 the calling thread and a helper, each taking
/// shares of the points in turn (the caller never waits for the helper: it tracks again itself a
/// share the helper has not finished). The results are the same either way, bit for bit (each point
/// is tracked on its own). Values outside 1...2 are clamped.
void cv_set_klt_threads(int32_t threads) CVISION_NOEXCEPT;

/// An image pyramid prepared for KLT (levels with their Scharr derivatives), so that a
/// frame's pyramid is built once and serves as `next` for one call and `previous` for the next.
typedef struct cv_pyramid cv_pyramid;

/// Builds the pyramid of `image` (copied: the caller's buffer is not kept) for tracking with
/// `window` (odd, >= 5) and `levels` (0...10) levels above the base. NULL with a status on failure.
cv_pyramid *cv_pyramid_build(cv_gray_image image, int32_t window, int32_t levels,
                             cv_status *status) CVISION_NOEXCEPT;

/// Frees a pyramid (NULL is fine).
void cv_pyramid_free(cv_pyramid *pyramid) CVISION_NOEXCEPT;

/// `image` reduced `factor` times in each direction (`factor` >= 1): each output pixel the mean of a
/// `factor` x `factor` block, rounded to nearest; columns and rows past the last whole block are left
/// out. Writes (width / factor) * (height / factor) bytes, tightly packed, to `out`, which holds
/// `capacity` bytes.
int32_t cv_gray_reduce(cv_gray_image image, int32_t factor, uint8_t *out, size_t capacity,
                       cv_status *status) CVISION_NOEXCEPT;

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
  double depth_huber_delta; ///< Huber threshold on the depth residuals, standard deviations (> 0; read with depth priors)
  cv_pose rotation_prior;   ///< camera-from-world rotation prior (its `r`; `t` is ignored), read when the next is > 0
  double rotation_prior_inverse_sigma; ///< 1 / its standard deviation per axis, 1/radians (finite, >= 0; 0: no prior)
} cv_refine_params;

/// Refines a camera pose by robust (Huber) least squares on reprojection
/// errors with Eigen, starting from `camera_from_world`. `weights` (optional,
/// finite, >= 0) scales each squared residual. Levenberg-Marquardt on SE(3) with a
/// left increment (R <- exp(w) R, t <- exp(w) t + dt); points at or behind the
/// camera get zero weight. `depth_priors` (optional; RGB-D) holds a (depth, inverse
/// sigma) pair per point: the residual (z - depth) * inverse_sigma of the point's
/// z-depth in the camera (metres) joins the cost, Huber-weighted by
/// `params.depth_huber_delta`; inverse sigma 0 gives that point none. With
/// `params.rotation_prior_inverse_sigma` > 0, the rotation's left error
/// log(R Rp^T) against `params.rotation_prior` in its standard deviations joins the
/// cost (a gyroscope's turn; not robustified). At least 3
/// points are required. Writes the final RMS reprojection error in pixels over the
/// weighted points in front of the camera.
int32_t cv_refine_pose(const double *world_points, const double *image_points,
                       const double *weights, const double *depth_priors, int32_t count, cv_intrinsics intrinsics,
                       cv_refine_params params, cv_pose *camera_from_world, double *rms_error,
                       cv_status *status) CVISION_NOEXCEPT;

/// Sets the number of threads OpenCV may use (1 for reproducible timing).
void cv_set_num_threads(int32_t threads) CVISION_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif  // ARSIM_CVISION_H
