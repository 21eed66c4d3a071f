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

/// FFmpeg's entry points CVision calls, for the X macro that declares and loads them.
#define CVISION_FFMPEG_FUNCTIONS(X) \
  X(av_d2q) \
  X(av_dict_free) \
  X(av_dict_set) \
  X(av_find_best_stream) \
  X(av_frame_alloc) \
  X(av_frame_free) \
  X(av_frame_get_buffer) \
  X(av_frame_make_writable) \
  X(av_frame_unref) \
  X(av_get_pix_fmt_name) \
  X(av_guess_frame_rate) \
  X(av_interleaved_write_frame) \
  X(av_log_set_level) \
  X(av_packet_alloc) \
  X(av_packet_free) \
  X(av_packet_rescale_ts) \
  X(av_packet_unref) \
  X(av_pix_fmt_desc_get) \
  X(av_read_frame) \
  X(av_strerror) \
  X(av_write_trailer) \
  X(avcodec_alloc_context3) \
  X(avcodec_find_encoder_by_name) \
  X(avcodec_free_context) \
  X(avcodec_open2) \
  X(avcodec_parameters_from_context) \
  X(avcodec_parameters_to_context) \
  X(avcodec_receive_frame) \
  X(avcodec_receive_packet) \
  X(avcodec_send_frame) \
  X(avcodec_send_packet) \
  X(avformat_alloc_output_context2) \
  X(avformat_close_input) \
  X(avformat_find_stream_info) \
  X(avformat_free_context) \
  X(avformat_new_stream) \
  X(avformat_open_input) \
  X(avformat_write_header) \
  X(avio_closep) \
  X(avio_open) \
  X(sws_freeContext) \
  X(sws_getCachedContext) \
  X(sws_getCoefficients) \
  X(sws_getContext) \
  X(sws_scale) \
  X(sws_setColorspaceDetails)

/// FFmpeg's libraries are loaded on first use (dlopen), not at start-up: libavformat and libavcodec
/// pull in over a hundred codec, network and GPU libraries that a replay of an image recording
/// never needs. One pointer per entry point, named as the function.
struct Api {
#define CVISION_FFMPEG_POINTER(name) decltype(&::name) name = nullptr;
  CVISION_FFMPEG_FUNCTIONS(CVISION_FFMPEG_POINTER)
#undef CVISION_FFMPEG_POINTER
};

/// The loaded entry points; the first call loads FFmpeg's libraries (the sonames these headers
/// declare). Throws CV_ERR_IO naming the library or entry point when one does not load.
const Api &api();

struct CodecDeleter {
  void operator()(AVCodecContext *context) const noexcept { api().avcodec_free_context(&context); }
};
struct FrameDeleter {
  void operator()(AVFrame *frame) const noexcept { api().av_frame_free(&frame); }
};
struct PacketDeleter {
  void operator()(AVPacket *packet) const noexcept { api().av_packet_free(&packet); }
};
struct ScaleDeleter {
  void operator()(SwsContext *context) const noexcept { api().sws_freeContext(context); }
};
using Codec = std::unique_ptr<AVCodecContext, CodecDeleter>;
using Frame = std::unique_ptr<AVFrame, FrameDeleter>;
using Packet = std::unique_ptr<AVPacket, PacketDeleter>;
using Scale = std::unique_ptr<SwsContext, ScaleDeleter>;

/// FFmpeg's text for an error code.
inline std::string describe(int error) {
  char text[AV_ERROR_MAX_STRING_SIZE] = {0};
  api().av_strerror(error, text, sizeof(text));
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
  Frame frame{allocated(api().av_frame_alloc())};
  Packet packet{allocated(api().av_packet_alloc())};
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
  api().sws_setColorspaceDetails(context, source_matrix, source_full ? 1 : 0, target_matrix, target_full ? 1 : 0,
                           kNeutralBrightness, kNeutralContrast, kNeutralSaturation);
}

/// FFmpeg's own log is off (errors come back as codes and are reported in statuses). The first call
/// of a video's opening: it loads FFmpeg, and throws (CV_ERR_IO) when FFmpeg does not load.
inline void quiet() { api().av_log_set_level(AV_LOG_QUIET); }

}  // namespace cvision::ffmpeg

#endif
