// Sharing one KLT call's points between the calling thread and a helper thread (see klt_helper.hpp).

#include "klt_helper.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <system_error>
#include <thread>

namespace cvision {

namespace {

/// Points per share when KLT shares its points with a helper thread (``cv_set_klt_threads``): about a
/// tenth of a frame's 300 tracks, so shares even out between the threads, and a share is the most a
/// helper descheduled mid-share can hold the caller up.
constexpr size_t kKLTShare = 32;
/// The smallest share: the last shares shrink to a quarter of the points left (``klt_share_starts``).
constexpr size_t kKLTLastShare = 8;

/// Threads a KLT call tracks its points on (1: the calling thread alone; 2: with a helper).
std::atomic<int32_t> klt_threads{1};

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
  track_lk(previous, next, from.data(), to.data(), result.tracked.data(), result.errors.data(), from.size(),
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

}  // namespace

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

int32_t klt_thread_count() { return klt_threads.load(std::memory_order_relaxed); }

void set_klt_thread_count(int32_t threads) {
  klt_threads.store(std::clamp(threads, int32_t(1), int32_t(2)), std::memory_order_relaxed);
}

void track_klt_shared(const KLTCall &call, size_t shares) { KLTHelper::shared().run(call, shares); }

}  // namespace cvision
