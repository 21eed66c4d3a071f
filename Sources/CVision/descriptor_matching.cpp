// ORB descriptor matching by Hamming distance: nearest and second nearest, ratio test, cross check.

#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

#include "cvision.h"
#include "descriptors.hpp"
#include "status.hpp"

namespace {

using cvision::fail;
using cvision::kDescriptorBytes;

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

}  // namespace

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
