// Feature detection (FAST, ORB, GFTT), KLT tracking and ORB descriptor matching.

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <functional>
#include <numeric>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/features2d.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/video/tracking.hpp>

#include "cvision.h"
#include "klt.hpp"
#include "status.hpp"

namespace {

using cvision::fail;

constexpr int kDescriptorBytes = 32;

/// The nearest and second nearest descriptor of one in the other set, by Hamming distance.
struct Nearest {
  int index = -1;
  int best = INT32_MAX;
  int second = INT32_MAX;
};

inline void offer(Nearest &n, int d, int index) {
  if (d < n.best) {
    n.second = n.best;
    n.best = d;
    n.index = index;
  } else if (d < n.second) {
    n.second = d;
  }
}

/// Fills `forward[i]` with the nearest rows of `b` to row i of `a` and, when `backward` is not
/// null, `backward[j]` with the nearest rows of `a` to row j of `b` (ties: the lowest index), each
/// distance computed once, as the popcount of the XOR of four 64-bit words, inlined: a call of
/// cv::hal::normHamming per pair (a call and a trace region for 32 bytes) and the distance matrix
/// computed twice for the cross check made matching most of loop closure's cost.
template <bool Backward>
inline __attribute__((always_inline)) void scan_pairs(const uint8_t *a, int32_t count_a, const uint64_t *words_b,
                                                      int32_t count_b, Nearest *forward, Nearest *backward) {
  for (int32_t i = 0; i < count_a; ++i) {
    uint64_t x[4];
    std::memcpy(x, a + size_t(i) * kDescriptorBytes, kDescriptorBytes);
    Nearest &n = forward[i];
    const uint64_t *y = words_b;
    for (int32_t j = 0; j < count_b; ++j, y += 4) {
      const int d = __builtin_popcountll(x[0] ^ y[0]) + __builtin_popcountll(x[1] ^ y[1]) +
                    __builtin_popcountll(x[2] ^ y[2]) + __builtin_popcountll(x[3] ^ y[3]);
      offer(n, d, j);
      if constexpr (Backward) offer(backward[j], d, i);
    }
  }
}

void scan_portable(const uint8_t *a, int32_t count_a, const uint64_t *words_b, int32_t count_b, Nearest *forward,
                   Nearest *backward) {
  if (backward != nullptr) {
    scan_pairs<true>(a, count_a, words_b, count_b, forward, backward);
  } else {
    scan_pairs<false>(a, count_a, words_b, count_b, forward, backward);
  }
}

#if defined(__x86_64__)
/// ``scan_portable`` compiled with the POPCNT instruction (every x86-64 CPU of the last 15 years).
__attribute__((target("popcnt"))) void scan_popcnt(const uint8_t *a, int32_t count_a, const uint64_t *words_b,
                                                   int32_t count_b, Nearest *forward, Nearest *backward) {
  if (backward != nullptr) {
    scan_pairs<true>(a, count_a, words_b, count_b, forward, backward);
  } else {
    scan_pairs<false>(a, count_a, words_b, count_b, forward, backward);
  }
}
#endif

void nearest_pairs(const uint8_t *a, int32_t count_a, const uint8_t *b, int32_t count_b, Nearest *forward,
                   Nearest *backward) {
  std::vector<uint64_t> words_b(size_t(count_b) * 4);
  std::memcpy(words_b.data(), b, size_t(count_b) * kDescriptorBytes);
#if defined(__x86_64__)
  static const bool has_popcnt = __builtin_cpu_supports("popcnt");
  if (has_popcnt) return scan_popcnt(a, count_a, words_b.data(), count_b, forward, backward);
#endif
  scan_portable(a, count_a, words_b.data(), count_b, forward, backward);
}

/// Strongest first; ties broken by y, then x, so that the order is reproducible.
bool stronger(const cv::KeyPoint &a, const cv::KeyPoint &b) {
  if (a.response != b.response) return a.response > b.response;
  if (a.pt.y != b.pt.y) return a.pt.y < b.pt.y;
  if (a.pt.x != b.pt.x) return a.pt.x < b.pt.x;
  return a.octave < b.octave;
}

bool masked_out(const uint8_t *mask, int width, int height, const cv::Point2f &point) {
  if (mask == nullptr) return false;
  int x = std::clamp(int(std::lround(point.x)), 0, width - 1);
  int y = std::clamp(int(std::lround(point.y)), 0, height - 1);
  return mask[size_t(y) * width + x] == 0;
}

void validate_feature_params(const cv_feature_params &p) {
  if (p.method != CV_FEATURE_FAST && p.method != CV_FEATURE_ORB && p.method != CV_FEATURE_GFTT) {
    fail(CV_ERR_INVALID_ARGUMENT, "params.method must be CV_FEATURE_FAST, CV_FEATURE_ORB or CV_FEATURE_GFTT (got %d)",
         p.method);
  }
  cvision::require_count(p.max_features, 1, "params.max_features");
  cvision::require_finite(p.threshold, "params.threshold");
  if (p.method == CV_FEATURE_GFTT) {
    if (p.threshold <= 0 || p.threshold >= 1) {
      fail(CV_ERR_INVALID_ARGUMENT, "params.threshold (GFTT quality level) must be in (0, 1) (got %g)",
           double(p.threshold));
    }
    cvision::require_finite(p.min_response, "params.min_response");
    if (p.min_response < 0) {
      fail(CV_ERR_INVALID_ARGUMENT, "params.min_response must not be negative (got %g)", double(p.min_response));
    }
    cvision::require_finite(p.min_distance, "params.min_distance");
    if (p.min_distance < 0) {
      fail(CV_ERR_INVALID_ARGUMENT, "params.min_distance must not be negative (got %g)", double(p.min_distance));
    }
  } else if (p.threshold < 0 || p.threshold > 255) {
    fail(CV_ERR_INVALID_ARGUMENT, "params.threshold (FAST threshold) must be in 0...255 (got %g)", double(p.threshold));
  }
  if (p.method == CV_FEATURE_ORB) {
    if (p.pyramid_levels < 1 || p.pyramid_levels > 16) {
      fail(CV_ERR_INVALID_ARGUMENT, "params.pyramid_levels must be in 1...16 (got %d)", p.pyramid_levels);
    }
    if (!std::isfinite(p.scale_factor) || p.scale_factor <= 1 || p.scale_factor > 4) {
      fail(CV_ERR_INVALID_ARGUMENT, "params.scale_factor must be in (1, 4] (got %g)", double(p.scale_factor));
    }
  }
}

}  // namespace

extern "C" int32_t cv_detect_features(cv_gray_image image, const uint8_t *mask, cv_feature_params params,
                                      cv_keypoint *keypoints, uint8_t *descriptors, int32_t capacity,
                                      int32_t *count, cv_status *status) noexcept {
  return cvision::guarded(status, "cv_detect_features", [&](cv_status *) -> int32_t {
    cvision::require_pointer(count, "count");
    *count = 0;
    const cv::Mat gray = cvision::wrap_gray(image, "image");
    validate_feature_params(params);
    if (capacity < 0) fail(CV_ERR_INVALID_ARGUMENT, "capacity must not be negative (got %d)", capacity);
    if (capacity > 0) cvision::require_pointer(keypoints, "keypoints");
    if (descriptors != nullptr && params.method != CV_FEATURE_ORB) {
      fail(CV_ERR_INVALID_ARGUMENT, "descriptors are only computed for CV_FEATURE_ORB; pass NULL");
    }
    const int width = image.width, height = image.height;
    const size_t limit = size_t(std::min(params.max_features, capacity));

    std::vector<cv::KeyPoint> found;
    cv::Mat found_descriptors;
    switch (params.method) {
      case CV_FEATURE_FAST: {
        cv::FAST(gray, found, int(std::lround(params.threshold)), true);
        found.erase(std::remove_if(found.begin(), found.end(),
                                   [&](const cv::KeyPoint &k) { return masked_out(mask, width, height, k.pt); }),
                    found.end());
        break;
      }
      case CV_FEATURE_ORB: {
        cv::Mat mask_mat;
        if (mask != nullptr) mask_mat = cv::Mat(height, width, CV_8UC1, const_cast<uint8_t *>(mask));
        auto orb = cv::ORB::create(params.max_features, params.scale_factor, params.pyramid_levels, 31, 0, 2,
                                   cv::ORB::HARRIS_SCORE, 31, int(std::lround(params.threshold)));
        if (descriptors != nullptr) {
          orb->detectAndCompute(gray, mask_mat, found, found_descriptors);
          if (!found.empty() &&
              (found_descriptors.rows != int(found.size()) || found_descriptors.cols != kDescriptorBytes ||
               found_descriptors.type() != CV_8UC1)) {
            fail(CV_ERR_INTERNAL, "ORB returned %d x %d descriptors for %zu keypoints", found_descriptors.rows,
                 found_descriptors.cols, found.size());
          }
        } else {
          orb->detect(gray, found, mask_mat);
        }
        break;
      }
      default: {  // CV_FEATURE_GFTT
        cv::Mat mask_mat;
        if (mask != nullptr) mask_mat = cv::Mat(height, width, CV_8UC1, const_cast<uint8_t *>(mask));
        const int block_size = 3;
        std::vector<cv::Point2f> corners;
        std::vector<float> strength;
        // The overload with corner qualities returns each corner's min-eigenvalue response, so the
        // image's eigenvalues are computed once.
        cv::goodFeaturesToTrack(gray, corners, params.max_features, params.threshold, params.min_distance, mask_mat,
                                strength, block_size, 3, false, 0.04);
        found.reserve(corners.size());
        for (size_t i = 0; i < corners.size(); ++i) {
          if (strength[i] < params.min_response) continue;
          found.emplace_back(corners[i], float(block_size), -1.0f, strength[i], 0);
        }
        break;
      }
    }

    std::vector<size_t> order(found.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return stronger(found[a], found[b]); });
    const size_t n = std::min(limit, order.size());
    for (size_t i = 0; i < n; ++i) {
      const cv::KeyPoint &k = found[order[i]];
      keypoints[i] = cv_keypoint{k.pt.x, k.pt.y, k.response, k.size, k.angle, int32_t(k.octave)};
      if (descriptors != nullptr) {
        std::memcpy(descriptors + i * kDescriptorBytes, found_descriptors.ptr(int(order[i])), kDescriptorBytes);
      }
    }
    *count = int32_t(n);
    return CV_OK;
  });
}

struct cv_pyramid {
  std::vector<cv::Mat> levels;
  int32_t width;
  int32_t height;
  int32_t window;
  int32_t levels_above_base;
};

namespace {

void check_klt_params(const cv_klt_params &params, int32_t count) {
  if (count < 0) fail(CV_ERR_INVALID_ARGUMENT, "count must not be negative (got %d)", count);
  if (params.window < 5 || params.window % 2 == 0) {
    fail(CV_ERR_INVALID_ARGUMENT, "params.window must be odd and at least 5 (got %d)", params.window);
  }
  if (params.levels < 0 || params.levels > 10) {
    fail(CV_ERR_INVALID_ARGUMENT, "params.levels must be in 0...10 (got %d)", params.levels);
  }
  cvision::require_count(params.max_iterations, 1, "params.max_iterations");
  if (!std::isfinite(params.epsilon) || params.epsilon <= 0) {
    fail(CV_ERR_INVALID_ARGUMENT, "params.epsilon must be positive and finite (got %g)", double(params.epsilon));
  }
  if (std::isnan(params.max_error) || params.max_error <= 0) {
    fail(CV_ERR_INVALID_ARGUMENT, "params.max_error must be positive (got %g)", double(params.max_error));
  }
}

/// Points per share when KLT shares its points with a helper thread (``cv_set_klt_threads``): about a
/// tenth of a frame's 300 tracks, so shares even out between the threads, and a share is the most a
/// helper descheduled mid-share can hold the caller up.
constexpr size_t kKLTShare = 32;
/// The smallest share: the last shares shrink to a quarter of the points left (``klt_share_starts``).
constexpr size_t kKLTLastShare = 8;

/// Where each share of `count` points starts, then `count`: shares of ``kKLTShare`` points while
/// more than four of them are left, then a quarter of what is left, down to ``kKLTLastShare``. The
/// share the other thread is still tracking when a thread finds none open, and tracks again itself,
/// is then a small one: with equal shares to the end, that last share can cost the two threads more
/// KLT time than one thread alone on a loaded machine (`arsim bench --threads 1` against 2).
std::vector<size_t> klt_share_starts(size_t count) {
  std::vector<size_t> starts{0};
  for (size_t begin = 0; begin < count;) {
    const size_t left = count - begin;
    begin += std::min(left, std::clamp(left / 4, kKLTLastShare, kKLTShare));
    starts.push_back(begin);
  }
  return starts;
}

/// Threads a KLT call tracks its points on (1: the calling thread alone; 2: with a helper).
std::atomic<int32_t> klt_threads{1};

/// One KLT call's points as the helper thread may take them: the pyramids (their levels' headers,
/// which keep the pixels alive however long the helper takes), the inputs, and where results go.
struct KLTCall {
  std::vector<cv::Mat> previous, next;
  const std::vector<cv::Point2f> *from = nullptr, *guesses = nullptr;
  std::vector<cv::Point2f> *to = nullptr;
  std::vector<uchar> *tracked = nullptr;
  std::vector<float> *errors = nullptr;
  cvision::LKSettings settings;
  cvision::LKKernels kernels = cvision::LKKernels::automatic;
  size_t count = 0;
  /// Where each share starts, then `count` (``klt_share_starts``).
  const std::vector<size_t> *starts = nullptr;
};

/// One share's tracked points, their found flags and errors.
struct KLTShareResult {
  std::vector<cv::Point2f> to;
  std::vector<uchar> tracked;
  std::vector<float> errors;
};

/// Share `share`'s first index and its points' starts and guesses, copied out of `call`.
struct KLTShareInput {
  size_t begin;
  std::vector<cv::Point2f> from, to;
};

KLTShareInput klt_share_input(const KLTCall &call, size_t share) {
  const size_t begin = (*call.starts)[share], end = (*call.starts)[share + 1];
  return {begin,
          std::vector<cv::Point2f>(call.from->begin() + long(begin), call.from->begin() + long(end)),
          std::vector<cv::Point2f>(call.guesses->begin() + long(begin), call.guesses->begin() + long(end))};
}

/// Tracks one share's points (`from`, starting at the guesses `to`) with `call`'s settings.
KLTShareResult track_klt_share(const std::vector<cv::Mat> &previous, const std::vector<cv::Mat> &next,
                               const KLTCall &call, std::vector<cv::Point2f> from, std::vector<cv::Point2f> to) {
  KLTShareResult result;
  result.tracked.resize(from.size());
  result.errors.resize(from.size());
  cvision::track_lk(previous, next, from.data(), to.data(), result.tracked.data(), result.errors.data(), from.size(),
                    call.settings, call.kernels);
  result.to = std::move(to);
  return result;
}

/// A thread that helps KLT calls on pyramids (`cv_set_klt_threads(2)`): started on first use, it takes
/// shares of a call's points while the caller takes them too. The caller never waits for it: once no
/// share is left to take, the caller tracks again itself any share the helper has not finished (the
/// same bits: each point is tracked on its own), and the first result in is kept. So a helper that a
/// loaded machine does not schedule costs the caller nothing but its wake-up. Never destroyed.
class KLTHelper {
 public:
  static KLTHelper &shared() {
    static KLTHelper *helper = new KLTHelper();
    return *helper;
  }

  /// Tracks every share of `call` between this thread and the helper, into the call's outputs. While
  /// another thread's call has the helper (two sessions tracking at once), this thread tracks alone.
  void run(const KLTCall &call, size_t shares) {
    std::unique_lock<std::mutex> turn(turn_, std::try_to_lock);
    std::unique_lock<std::mutex> lock(mutex_);
    if (turn.owns_lock() && !started_) {
      try {
        std::thread([this] { serve(); }).detach();
        started_ = true;
      } catch (const std::system_error &) {
        // No thread to be had: this thread takes every share.
      }
    }
    if (!turn.owns_lock() || !started_) {
      lock.unlock();
      for (size_t share = 0; share < shares; ++share) track(call, share, call.previous, call.next, nullptr);
      return;
    }
    call_ = &call;
    state_.assign(shares, Share::open);
    left_ = shares;
    ++generation_;
    lock.unlock();
    work_.notify_one();
    lock.lock();
    try {
      while (left_ > 0) {
        // An open share, else one the helper has not finished.
        size_t share = shares;
        for (size_t k = 0; k < shares && share == shares; ++k) share = state_[k] == Share::open ? k : shares;
        for (size_t k = 0; k < shares && share == shares; ++k) share = state_[k] == Share::taken ? k : shares;
        if (share == shares) break;
        if (state_[share] == Share::open) state_[share] = Share::taken;
        lock.unlock();
        track(call, share, call.previous, call.next, &lock);
      }
    } catch (...) {
      if (!lock.owns_lock()) lock.lock();
      call_ = nullptr;
      throw;
    }
    call_ = nullptr;
  }

 private:
  enum class Share : uint8_t { open, taken, done };

  KLTHelper() = default;

  /// Tracks share `share` of `call` and, unless it is done already, stores it (under `lock` when given:
  /// taken on return; else the share is this thread's alone).
  void track(const KLTCall &call, size_t share, const std::vector<cv::Mat> &previous,
             const std::vector<cv::Mat> &next, std::unique_lock<std::mutex> *lock) {
    KLTShareInput input = klt_share_input(call, share);
    KLTShareResult result = track_klt_share(previous, next, call, std::move(input.from), std::move(input.to));
    if (lock != nullptr) {
      lock->lock();
      if (state_[share] == Share::done) return;
      state_[share] = Share::done;
      --left_;
    }
    store(call, input.begin, result);
  }

  static void store(const KLTCall &call, size_t begin, const KLTShareResult &result) {
    std::copy(result.to.begin(), result.to.end(), call.to->begin() + long(begin));
    std::copy(result.tracked.begin(), result.tracked.end(), call.tracked->begin() + long(begin));
    std::copy(result.errors.begin(), result.errors.end(), call.errors->begin() + long(begin));
  }

  /// The helper's loop: waits for a call, then takes its open shares. It copies what it reads of the
  /// call while holding the lock (the call lives until the caller has every share), and stores a result
  /// only while its call is on and the share not done.
  void serve() {
    std::unique_lock<std::mutex> lock(mutex_);
    uint64_t seen = 0;
    while (true) {
      work_.wait(lock, [&] { return generation_ != seen && call_ != nullptr; });
      seen = generation_;
      const KLTCall *call = call_;
      const std::vector<cv::Mat> previous = call->previous, next = call->next;
      while (call_ == call && generation_ == seen) {
        const auto open = std::find(state_.begin(), state_.end(), Share::open);
        if (open == state_.end()) break;
        *open = Share::taken;
        const size_t share = size_t(open - state_.begin());
        KLTShareInput input = klt_share_input(*call, share);
        const KLTCall settings = {{},     {},           nullptr,        nullptr, nullptr, nullptr, nullptr,
                                  call->settings, call->kernels, call->count, nullptr};
        lock.unlock();
        KLTShareResult result;
        bool ok = true;
        try {
          result = track_klt_share(previous, next, settings, std::move(input.from), std::move(input.to));
        } catch (...) {
          ok = false;  // The caller tracks the share itself and meets the error there.
        }
        lock.lock();
        if (!ok || call_ != call || generation_ != seen || state_[share] == Share::done) continue;
        state_[share] = Share::done;
        --left_;
        store(*call, input.begin, result);
      }
    }
  }

  /// Held by the call that has the helper, for its length.
  std::mutex turn_;
  /// Guards what follows.
  std::mutex mutex_;
  std::condition_variable work_;
  bool started_ = false;
  const KLTCall *call_ = nullptr;
  std::vector<Share> state_;
  size_t left_ = 0;
  uint64_t generation_ = 0;
};

/// The common body of the KLT entry points: `previous` is a pyramid with derivatives, `next` one with or
/// without (cv::buildOpticalFlowPyramid's). When `shared`, the helper thread may take a share of the
/// points (``cv_set_klt_threads``). `implementation` is a CV_KLT_* value.
int32_t track_klt(const std::vector<cv::Mat> &previous, const std::vector<cv::Mat> &next, int32_t width,
                  int32_t height, const float *previous_points, int32_t count, const cv_klt_params &params,
                  float *next_points, uint8_t *found, float *error, bool shared, int32_t implementation) {
  if (count == 0) return CV_OK;
  cvision::require_pointer(previous_points, "previous_points");
  cvision::require_pointer(next_points, "next_points");
  cvision::require_pointer(found, "found");

  std::vector<cv::Point2f> from(static_cast<size_t>(count)), to;
  for (int32_t i = 0; i < count; ++i) {
    from[i] = cv::Point2f(previous_points[2 * i], previous_points[2 * i + 1]);
    if (!std::isfinite(from[i].x) || !std::isfinite(from[i].y)) {
      fail(CV_ERR_INVALID_ARGUMENT, "previous_points[%d] is not finite", i);
    }
  }
  if (params.use_initial != 0) {
    to.resize(size_t(count));
    for (int32_t i = 0; i < count; ++i) {
      to[i] = cv::Point2f(next_points[2 * i], next_points[2 * i + 1]);
      if (!std::isfinite(to[i].x) || !std::isfinite(to[i].y)) {
        fail(CV_ERR_INVALID_ARGUMENT, "next_points[%d] (initial guess) is not finite", i);
      }
    }
  }
  to.resize(size_t(count));
  std::vector<uchar> tracked(static_cast<size_t>(count));
  std::vector<float> errors(static_cast<size_t>(count));
  cvision::LKSettings settings;
  settings.window = params.window;
  settings.levels = params.levels;
  settings.max_iterations = params.max_iterations;
  settings.epsilon = double(params.epsilon);
  settings.use_initial = params.use_initial != 0;
  const cvision::LKKernels kernels =
      implementation == CV_KLT_PORTABLE ? cvision::LKKernels::portable : cvision::LKKernels::automatic;
  const std::vector<size_t> starts = klt_share_starts(size_t(count));
  const size_t shares = starts.size() - 1;
  if (implementation == CV_KLT_OPENCV) {
    const cv::TermCriteria criteria(cv::TermCriteria::COUNT | cv::TermCriteria::EPS, params.max_iterations,
                                    double(params.epsilon));
    cv::calcOpticalFlowPyrLK(previous, next, from, to, tracked, errors, cv::Size(params.window, params.window),
                             params.levels, criteria, settings.use_initial ? cv::OPTFLOW_USE_INITIAL_FLOW : 0,
                             double(settings.min_eigenvalue));
  } else if (!shared || klt_threads.load(std::memory_order_relaxed) < 2 || shares < 2) {
    cvision::track_lk(previous, next, from.data(), to.data(), tracked.data(), errors.data(), size_t(count), settings,
                      kernels);
  } else {
    // Each point is tracked from its own start and guess alone, so sharing the points out between
    // this thread and the helper gives the same result, bit for bit.
    const std::vector<cv::Point2f> guesses = to;
    KLTCall call;
    call.previous = previous;
    call.next = next;
    call.from = &from;
    call.guesses = &guesses;
    call.to = &to;
    call.tracked = &tracked;
    call.errors = &errors;
    call.settings = settings;
    call.kernels = kernels;
    call.count = size_t(count);
    call.starts = &starts;
    KLTHelper::shared().run(call, shares);
  }
  const float max_x = float(width - 1), max_y = float(height - 1);
  for (int32_t i = 0; i < count; ++i) {
    const cv::Point2f p = to[i];
    const bool inside = std::isfinite(p.x) && std::isfinite(p.y) && p.x >= 0 && p.y >= 0 && p.x <= max_x &&
                        p.y <= max_y;
    const bool ok = tracked[i] != 0 && inside && errors[i] <= params.max_error;
    next_points[2 * i] = p.x;
    next_points[2 * i + 1] = p.y;
    found[i] = ok ? 1 : 0;
    if (error != nullptr) error[i] = errors[i];
  }
  return CV_OK;
}

}  // namespace

extern "C" int32_t cv_track_klt_using(cv_gray_image previous, cv_gray_image next, const float *previous_points,
                                      int32_t count, cv_klt_params params, float *next_points, uint8_t *found,
                                      float *error, int32_t implementation, cv_status *status) noexcept {
  return cvision::guarded(status, "cv_track_klt", [&](cv_status *) -> int32_t {
    const cv::Mat prev_mat = cvision::wrap_gray(previous, "previous");
    const cv::Mat next_mat = cvision::wrap_gray(next, "next");
    if (previous.width != next.width || previous.height != next.height) {
      fail(CV_ERR_INVALID_ARGUMENT, "previous (%d x %d) and next (%d x %d) must have the same size", previous.width,
           previous.height, next.width, next.height);
    }
    check_klt_params(params, count);
    if (implementation != CV_KLT_AUTOMATIC && implementation != CV_KLT_PORTABLE && implementation != CV_KLT_OPENCV) {
      fail(CV_ERR_INVALID_ARGUMENT, "implementation must be CV_KLT_AUTOMATIC, CV_KLT_PORTABLE or CV_KLT_OPENCV (got %d)",
           implementation);
    }
    if (count == 0) return CV_OK;
    // The pyramids calcOpticalFlowPyrLK builds from images: levels bordered by the window, and the
    // previous image's Scharr derivatives (zero outside the image).
    std::vector<cv::Mat> previous_levels, next_levels;
    const cv::Size window(params.window, params.window);
    cv::buildOpticalFlowPyramid(prev_mat, previous_levels, window, params.levels, true);
    cv::buildOpticalFlowPyramid(next_mat, next_levels, window, params.levels, false);
    return track_klt(previous_levels, next_levels, next.width, next.height, previous_points, count, params,
                     next_points, found, error, false, implementation);
  });
}

extern "C" int32_t cv_track_klt(cv_gray_image previous, cv_gray_image next, const float *previous_points,
                                int32_t count, cv_klt_params params, float *next_points, uint8_t *found,
                                float *error, cv_status *status) noexcept {
  return cv_track_klt_using(previous, next, previous_points, count, params, next_points, found, error,
                            CV_KLT_AUTOMATIC, status);
}

extern "C" int32_t cv_klt_vectorised(void) noexcept { return cvision::lk_avx2_available() ? 1 : 0; }

extern "C" void cv_set_klt_threads(int32_t threads) noexcept {
  klt_threads.store(std::clamp(threads, int32_t(1), int32_t(2)), std::memory_order_relaxed);
}

extern "C" cv_pyramid *cv_pyramid_build(cv_gray_image image, int32_t window, int32_t levels,
                                        cv_status *status) noexcept {
  cv_pyramid *built = nullptr;
  cvision::guarded(status, "cv_pyramid_build", [&](cv_status *) -> int32_t {
    const cv::Mat mat = cvision::wrap_gray(image, "image");
    if (window < 5 || window % 2 == 0) {
      fail(CV_ERR_INVALID_ARGUMENT, "window must be odd and at least 5 (got %d)", window);
    }
    if (levels < 0 || levels > 10) fail(CV_ERR_INVALID_ARGUMENT, "levels must be in 0...10 (got %d)", levels);
    auto pyramid = std::make_unique<cv_pyramid>();
    pyramid->width = image.width;
    pyramid->height = image.height;
    pyramid->window = window;
    pyramid->levels_above_base = levels;
    // The pyramid keeps a view of its input only when the input is a submatrix with a border of a
    // window's width around it (OpenCV's tryReuseInputImage); the caller's buffer, wrapped whole, is
    // none, so level 0 is a bordered copy of it and the buffer is not kept (no copy of it needed).
    cv::buildOpticalFlowPyramid(mat, pyramid->levels, cv::Size(window, window), levels, true);
    built = pyramid.release();
    return CV_OK;
  });
  return built;
}

extern "C" void cv_pyramid_free(cv_pyramid *pyramid) noexcept { delete pyramid; }

extern "C" int32_t cv_track_klt_pyramids(const cv_pyramid *previous, const cv_pyramid *next,
                                         const float *previous_points, int32_t count, cv_klt_params params,
                                         float *next_points, uint8_t *found, float *error,
                                         cv_status *status) noexcept {
  return cvision::guarded(status, "cv_track_klt_pyramids", [&](cv_status *) -> int32_t {
    cvision::require_pointer(previous, "previous");
    cvision::require_pointer(next, "next");
    if (previous->width != next->width || previous->height != next->height) {
      fail(CV_ERR_INVALID_ARGUMENT, "previous (%d x %d) and next (%d x %d) must have the same size",
           previous->width, previous->height, next->width, next->height);
    }
    check_klt_params(params, count);
    if (params.window != previous->window || params.window != next->window ||
        params.levels > previous->levels_above_base || params.levels > next->levels_above_base) {
      fail(CV_ERR_INVALID_ARGUMENT, "params (window %d, levels %d) do not match the pyramids (window %d, levels %d)",
           params.window, params.levels, previous->window, previous->levels_above_base);
    }
    return track_klt(previous->levels, next->levels, next->width, next->height, previous_points, count, params,
                     next_points, found, error, true, CV_KLT_AUTOMATIC);
  });
}

extern "C" int32_t cv_match_descriptors(const uint8_t *a, int32_t count_a, const uint8_t *b, int32_t count_b,
                                        int32_t max_distance, float ratio, int32_t cross_check, int32_t *pairs,
                                        int32_t *distances, int32_t capacity, int32_t *count, cv_status *status) noexcept {
  return cvision::guarded(status, "cv_match_descriptors", [&](cv_status *) -> int32_t {
    cvision::require_pointer(count, "count");
    *count = 0;
    if (count_a < 0) fail(CV_ERR_INVALID_ARGUMENT, "count_a must not be negative (got %d)", count_a);
    if (count_b < 0) fail(CV_ERR_INVALID_ARGUMENT, "count_b must not be negative (got %d)", count_b);
    if (count_a > 0) cvision::require_pointer(a, "a");
    if (count_b > 0) cvision::require_pointer(b, "b");
    if (max_distance < 0 || max_distance > 256) {
      fail(CV_ERR_INVALID_ARGUMENT, "max_distance must be in 0...256 (got %d)", max_distance);
    }
    if (!(ratio > 0 && ratio <= 1)) fail(CV_ERR_INVALID_ARGUMENT, "ratio must be in (0, 1] (got %g)", double(ratio));
    if (capacity < 0) fail(CV_ERR_INVALID_ARGUMENT, "capacity must not be negative (got %d)", capacity);
    if (capacity > 0) cvision::require_pointer(pairs, "pairs");
    if (count_a == 0 || count_b == 0) return CV_OK;

    // Best and second best of each row of `a` in `b` and, with the cross check, of each row of `b`
    // in `a` (ties: lowest index), from one pass over the distance matrix.
    std::vector<Nearest> forward(static_cast<size_t>(count_a));
    std::vector<Nearest> backward(cross_check != 0 ? static_cast<size_t>(count_b) : 0);
    nearest_pairs(a, count_a, b, count_b, forward.data(), cross_check != 0 ? backward.data() : nullptr);

    std::vector<std::array<int32_t, 3>> matches;
    for (int32_t i = 0; i < count_a; ++i) {
      const Nearest &n = forward[i];
      if (n.index < 0 || n.best > max_distance) continue;
      if (ratio < 1 && n.second != INT32_MAX && !(double(n.best) < double(ratio) * double(n.second))) continue;
      if (cross_check != 0 && backward[n.index].index != i) continue;
      matches.push_back({i, n.index, n.best});
    }
    *count = int32_t(matches.size());
    if (int64_t(matches.size()) > capacity) {
      fail(CV_ERR_BUFFER_TOO_SMALL, "capacity %d is too small for %zu matches", capacity, matches.size());
    }
    for (size_t k = 0; k < matches.size(); ++k) {
      pairs[2 * k] = matches[k][0];
      pairs[2 * k + 1] = matches[k][1];
      if (distances != nullptr) distances[k] = matches[k][2];
    }
    return CV_OK;
  });
}
