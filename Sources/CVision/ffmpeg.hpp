// What video.cpp (reading) and video_writer.cpp (writing) share: FFmpeg's libraries behind
// owning pointers, and their error codes turned into CVision failures.

#ifndef ARSIM_CVISION_FFMPEG_HPP
#define ARSIM_CVISION_FFMPEG_HPP

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
}

#include <cstdarg>
#include <cstdio>
#include <memory>

#include "status.hpp"

namespace cvision::ffmpeg {

struct CodecDeleter {
  void operator()(AVCodecContext *context) const noexcept { avcodec_free_context(&context); }
};
struct FrameDeleter {
  void operator()(AVFrame *frame) const noexcept { av_frame_free(&frame); }
};
struct PacketDeleter {
  void operator()(AVPacket *packet) const noexcept { av_packet_free(&packet); }
};
struct ScaleDeleter {
  void operator()(SwsContext *context) const noexcept { sws_freeContext(context); }
};
using Codec = std::unique_ptr<AVCodecContext, CodecDeleter>;
using Frame = std::unique_ptr<AVFrame, FrameDeleter>;
using Packet = std::unique_ptr<AVPacket, PacketDeleter>;
using Scale = std::unique_ptr<SwsContext, ScaleDeleter>;

/// FFmpeg's text for an error code.
inline std::string describe(int error) {
  char text[AV_ERROR_MAX_STRING_SIZE] = {0};
  av_strerror(error, text, sizeof(text));
  return text;
}

/// Returns `result`, or when it is a negative FFmpeg error throws `code` with the printf-style
/// message followed by ": FFmpeg's text".
[[gnu::format(printf, 3, 4)]] inline int check(int result, int32_t code, const char *format, ...) {
  if (result >= 0) return result;
  char what[sizeof(cv_status::message)];
  va_list args;
  va_start(args, format);
  std::vsnprintf(what, sizeof(what), format, args);
  va_end(args);
  fail(code, "%s: %s", what, describe(result).c_str());
}

/// Allocations that return NULL only when memory is exhausted.
template <typename T>
T *allocated(T *pointer) {
  if (pointer == nullptr) throw std::bad_alloc();
  return pointer;
}

/// What a reader and a writer both hold: the codec (a decoder or an encoder) with its frame and
/// packet, the pixel conversion, and the frame size.
struct Coding {
  Codec codec;
  Frame frame{allocated(av_frame_alloc())};
  Packet packet{allocated(av_packet_alloc())};
  Scale scale;
  int32_t width = 0;
  int32_t height = 0;
};

/// swscale's neutral brightness, contrast and saturation (16.16 fixed point) for
/// sws_setColorspaceDetails.
constexpr int kNeutralBrightness = 0, kNeutralContrast = 1 << 16, kNeutralSaturation = 1 << 16;

/// Sets `context`'s colour matrices (sws_getCoefficients) and ranges (full: 0-255; else limited, luma
/// 16-235), with neither brightness, contrast nor saturation changed.
inline void set_colour(SwsContext *context, const int *source_matrix, bool source_full, const int *target_matrix,
                       bool target_full) noexcept {
  sws_setColorspaceDetails(context, source_matrix, source_full ? 1 : 0, target_matrix, target_full ? 1 : 0,
                           kNeutralBrightness, kNeutralContrast, kNeutralSaturation);
}

/// FFmpeg's own log is off (errors come back as codes and are reported in statuses).
inline void quiet() noexcept { av_log_set_level(AV_LOG_QUIET); }

}  // namespace cvision::ffmpeg

#endif
