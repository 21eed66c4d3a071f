// FFmpeg's libraries loaded on first use (see ffmpeg.hpp): a process that never reads or writes
// video does not load them, nor the hundred-odd libraries they depend on.

#include <dlfcn.h>

#include <array>
#include <string>

#include "ffmpeg.hpp"

namespace cvision::ffmpeg {
namespace {

#define CVISION_STRINGIFY_VALUE(value) #value
#define CVISION_STRINGIFY(value) CVISION_STRINGIFY_VALUE(value)

/// The sonames of the FFmpeg these headers are from (each library's major version).
constexpr std::array<const char *, 4> kLibraries = {
    "libavformat.so." CVISION_STRINGIFY(LIBAVFORMAT_VERSION_MAJOR),
    "libavcodec.so." CVISION_STRINGIFY(LIBAVCODEC_VERSION_MAJOR),
    "libswscale.so." CVISION_STRINGIFY(LIBSWSCALE_VERSION_MAJOR),
    "libavutil.so." CVISION_STRINGIFY(LIBAVUTIL_VERSION_MAJOR),
};

/// Loads the libraries and every entry point into `api`; returns what went wrong, or an empty string.
std::string load(Api &api) {
  std::array<void *, kLibraries.size()> handles{};
  for (size_t i = 0; i < kLibraries.size(); i++) {
    handles[i] = dlopen(kLibraries[i], RTLD_NOW | RTLD_LOCAL);
    if (handles[i] == nullptr) {
      const char *error = dlerror();
      return std::string("FFmpeg (needed for video) does not load: ") +
             (error != nullptr ? error : kLibraries[i]) + "; install libavformat, libavcodec, libswscale and libavutil";
    }
  }
  auto find = [&](const char *name) -> void * {
    for (void *handle : handles) {
      if (void *symbol = dlsym(handle, name)) return symbol;
    }
    return nullptr;
  };
#define CVISION_FFMPEG_LOAD(name)                                                  \
  api.name = reinterpret_cast<decltype(api.name)>(find(#name));                    \
  if (api.name == nullptr) return "FFmpeg (needed for video) lacks " #name " in " + \
                                  std::string(kLibraries[0]) + " and the libraries beside it";
  CVISION_FFMPEG_FUNCTIONS(CVISION_FFMPEG_LOAD)
#undef CVISION_FFMPEG_LOAD
  return "";
}

}  // namespace

const Api &api() { return loaded_once<Api>(CV_ERR_IO, load); }

}  // namespace cvision::ffmpeg
