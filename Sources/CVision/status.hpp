// Internal helpers shared by CVision's translation units: statuses, argument
// checks and the exception barrier every entry point goes through.

#ifndef ARSIM_CVISION_STATUS_HPP
#define ARSIM_CVISION_STATUS_HPP

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <exception>
#include <mutex>
#include <new>
#include <string>

#include <opencv2/core.hpp>

#include "cvision.h"

namespace cvision {

/// An error raised inside CVision; the barrier turns it into a status.
struct Failure {
  int32_t code;
  std::string message;
};

/// Writes `code` and a printf-style message into `status` (which may be null).
inline void set_status(cv_status *status, int32_t code, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

inline void set_status(cv_status *status, int32_t code, const char *format, ...) {
  if (status == nullptr) return;
  status->code = code;
  va_list args;
  va_start(args, format);
  std::vsnprintf(status->message, sizeof(status->message), format, args);
  va_end(args);
}

inline void set_ok(cv_status *status) {
  if (status == nullptr) return;
  status->code = CV_OK;
  status->message[0] = '\0';
}

/// Throws a Failure with a printf-style message.
[[noreturn]] inline void fail(int32_t code, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

[[noreturn]] inline void fail(int32_t code, const char *format, ...) {
  char buffer[sizeof(cv_status::message)];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, sizeof(buffer), format, args);
  va_end(args);
  throw Failure{code, buffer};
}

/// Silences OpenCV's logger once per process; called by the image entry points before they
/// touch the library.
void quiet_libraries() noexcept;

/// Redirects stderr (fd 2) to a memory file while alive, so that what libpng, libjpeg or FFmpeg
/// print there is captured instead of shown; `finish()` restores stderr and returns the text as one
/// line. Captures are serialised by a process-wide mutex; anything another thread prints to stderr
/// meanwhile is captured too (and dropped).
class StderrCapture {
 public:
  StderrCapture() noexcept;
  ~StderrCapture();
  StderrCapture(const StderrCapture &) = delete;
  StderrCapture &operator=(const StderrCapture &) = delete;
  /// Restores stderr (once) and returns what was captured, newlines replaced by "; ".
  std::string finish() noexcept;

 private:
  int file_ = -1;
  int saved_ = -1;
  bool finished_ = false;
};

/// Runs `body` (which returns CV_OK or another code after setting the status
/// itself) and converts every exception into a status. Returns the status code.
template <typename Body>
int32_t guarded(cv_status *status, const char *function, Body &&body) noexcept {
  cv_status local;
  cv_status *target = status != nullptr ? status : &local;
  set_ok(target);
  try {
    return body(target);
  } catch (const Failure &failure) {
    set_status(target, failure.code, "%s", failure.message.c_str());
    return failure.code;
  } catch (const cv::Exception &error) {
    set_status(target, CV_ERR_OPENCV, "%s: OpenCV error: %s", function, error.what());
    return CV_ERR_OPENCV;
  } catch (const std::bad_alloc &) {
    set_status(target, CV_ERR_INTERNAL, "%s: out of memory", function);
    return CV_ERR_INTERNAL;
  } catch (const std::exception &error) {
    set_status(target, CV_ERR_INTERNAL, "%s: %s", function, error.what());
    return CV_ERR_INTERNAL;
  } catch (...) {
    set_status(target, CV_ERR_INTERNAL, "%s: unknown C++ exception", function);
    return CV_ERR_INTERNAL;
  }
}

/// A library loaded on first use (dlopen), for the process's lifetime: `load` fills a `T` once and
/// returns what went wrong, or an empty string. Every call after a failed load fails with `code` and
/// that text, so the problem is reported wherever the library is needed, never at start-up.
template <typename T, typename Load>
const T &loaded_once(int32_t code, Load load) {
  static std::once_flag once;
  static T loaded;
  static std::string problem;
  std::call_once(once, [&] { problem = load(loaded); });
  if (!problem.empty()) fail(code, "%s", problem.c_str());
  return loaded;
}

// MARK: - Argument checks (each throws CV_ERR_INVALID_ARGUMENT naming the argument)

inline void require_pointer(const void *pointer, const char *name) {
  if (pointer == nullptr) fail(CV_ERR_INVALID_ARGUMENT, "%s must not be NULL", name);
}

inline void require_finite(double value, const char *name) {
  if (!std::isfinite(value)) fail(CV_ERR_INVALID_ARGUMENT, "%s must be finite (got %g)", name, value);
}

inline void require_count(int32_t count, int32_t minimum, const char *name) {
  if (count < minimum) {
    fail(CV_ERR_INVALID_ARGUMENT, "%s must be at least %d (got %d)", name, minimum, count);
  }
}

/// Checks that `count` pairs or triples of `values` are finite.
inline void require_finite_array(const double *values, int32_t count, int32_t dimension, const char *name) {
  for (int32_t i = 0; i < count; ++i) {
    for (int32_t k = 0; k < dimension; ++k) {
      double value = values[static_cast<size_t>(i) * dimension + k];
      if (!std::isfinite(value)) {
        fail(CV_ERR_INVALID_ARGUMENT, "%s[%d] is not finite (component %d is %g)", name, i, k, value);
      }
    }
  }
}

inline void require_intrinsics(const cv_intrinsics &k) {
  require_finite(k.fx, "intrinsics.fx");
  require_finite(k.fy, "intrinsics.fy");
  require_finite(k.cx, "intrinsics.cx");
  require_finite(k.cy, "intrinsics.cy");
  if (k.fx <= 0) fail(CV_ERR_INVALID_ARGUMENT, "intrinsics.fx must be positive (got %g)", k.fx);
  if (k.fy <= 0) fail(CV_ERR_INVALID_ARGUMENT, "intrinsics.fy must be positive (got %g)", k.fy);
}

/// Validates a borrowed gray image and wraps it in a cv::Mat header (no copy).
inline cv::Mat wrap_gray(const cv_gray_image &image, const char *name) {
  if (image.pixels == nullptr) fail(CV_ERR_INVALID_ARGUMENT, "%s.pixels must not be NULL", name);
  if (image.width <= 0 || image.height <= 0) {
    fail(CV_ERR_INVALID_ARGUMENT, "%s size must be positive (got %d x %d)", name, image.width,
         image.height);
  }
  if (image.stride < image.width) {
    fail(CV_ERR_INVALID_ARGUMENT, "%s.stride (%d) must be at least its width (%d)", name, image.stride,
         image.width);
  }
  return cv::Mat(image.height, image.width, CV_8UC1, const_cast<uint8_t *>(image.pixels),
                 static_cast<size_t>(image.stride));
}

}  // namespace cvision

#endif  // ARSIM_CVISION_STATUS_HPP
