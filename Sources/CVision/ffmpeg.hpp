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

/// Throws `code` with "what: FFmpeg's message" when `result` is a negative FFmpeg error.
inline int check(int result, int32_t code, const char *what) {
  if (result < 0) fail(code, "%s: %s", what, describe(result).c_str());
  return result;
}

/// Allocations that return NULL only when memory is exhausted.
template <typename T>
T *allocated(T *pointer) {
  if (pointer == nullptr) throw std::bad_alloc();
  return pointer;
}

/// FFmpeg's own log is off (errors come back as codes and are reported in statuses).
inline void quiet() noexcept { av_log_set_level(AV_LOG_QUIET); }

}  // namespace cvision::ffmpeg

#endif
