// Video reading through FFmpeg's libraries (libavformat demuxes, libavcodec decodes). Grey frames
// are the decoded luma plane itself, expanded from the stream's range: no round trip through RGB.

#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <memory>

#include "cvision.h"
#include "ffmpeg.hpp"
#include "status.hpp"

using cvision::fail;
namespace av = cvision::ffmpeg;

/// The decoder (`codec`) and a conversion (`scale`) of frames to RGB24 (or to GRAY8 from formats whose
/// first plane is not 8-bit luma), over the demuxer.
struct cv_video : av::Coding {
  AVFormatContext *format = nullptr;
  int stream = -1;
  AVRational time_base{0, 1};
  int64_t start = 0;
  double fps = 0;
  int64_t next_index = 0;
  /// True once the demuxer is exhausted and the decoder has been told to flush.
  bool flushing = false;
  /// False once the container proved not to carry usable timestamps.
  bool container_timestamps = true;
  double last_timestamp = -1;

  ~cv_video() { av::api().avformat_close_input(&format); }
};

namespace {

/// Decodes the next frame into video.frame; false at the end of the stream.
bool decode_next(cv_video &video) {
  AVCodecContext *decoder = video.codec.get();
  for (;;) {
    const int received = av::api().avcodec_receive_frame(decoder, video.frame.get());
    if (received == 0) return true;
    if (received == AVERROR_EOF) return false;
    if (received != AVERROR(EAGAIN)) {
      av::check(received, CV_ERR_DECODE, "frame %lld cannot be decoded", (long long)video.next_index);
    }
    if (video.flushing) return false;
    const int read = av::api().av_read_frame(video.format, video.packet.get());
    if (read == AVERROR_EOF) {
      video.flushing = true;
      av::check(av::api().avcodec_send_packet(decoder, nullptr), CV_ERR_DECODE, "flushing the decoder");
      continue;
    }
    av::check(read, CV_ERR_IO, "reading the video after frame %lld", (long long)video.next_index);
    int sent = 0;
    if (video.packet->stream_index == video.stream) sent = av::api().avcodec_send_packet(decoder, video.packet.get());
    av::api().av_packet_unref(video.packet.get());
    av::check(sent, CV_ERR_DECODE, "frame %lld cannot be decoded", (long long)video.next_index);
  }
}

/// Whether the frame's samples use the limited ("MPEG", 16-235 luma) range: as tagged, and when
/// untagged, limited for YUV (what encoders write unless told otherwise), full for grey and YUVJ.
bool limited_range(const AVFrame &frame, const AVPixFmtDescriptor &descriptor) {
  if (frame.color_range == AVCOL_RANGE_MPEG) return true;
  if (frame.color_range == AVCOL_RANGE_JPEG) return false;
  const auto format = AVPixelFormat(frame.format);
  const bool jpeg = format == AV_PIX_FMT_YUVJ420P || format == AV_PIX_FMT_YUVJ422P ||
                    format == AV_PIX_FMT_YUVJ444P || format == AV_PIX_FMT_YUVJ440P ||
                    format == AV_PIX_FMT_YUVJ411P;
  return !jpeg && descriptor.nb_components >= 3 && (descriptor.flags & AV_PIX_FMT_FLAG_RGB) == 0;
}

/// Whether the first plane holds 8-bit luma, one byte per pixel (yuv420p, nv12, gray, ...).
bool luma_plane(const AVPixFmtDescriptor &descriptor) {
  const AVComponentDescriptor &y = descriptor.comp[0];
  const uint64_t excluded = AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_PAL | AV_PIX_FMT_FLAG_BITSTREAM |
                            AV_PIX_FMT_FLAG_HWACCEL | AV_PIX_FMT_FLAG_BE;
  return (descriptor.flags & excluded) == 0 && y.plane == 0 && y.step == 1 && y.offset == 0 && y.shift == 0 &&
         y.depth == 8;
}

/// Converts video.frame into `out` (tightly packed) through swscale, to `target` (RGB24 or GRAY8,
/// full range) with the colour matrix the stream is tagged with (BT.601 when untagged).
void convert(cv_video &video, const AVPixFmtDescriptor &descriptor, AVPixelFormat target, uint8_t *out) {
  const AVFrame &frame = *video.frame;
  SwsContext *context =
      av::api().sws_getCachedContext(video.scale.release(), frame.width, frame.height, AVPixelFormat(frame.format),
                           frame.width, frame.height, target, SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT,
                           nullptr, nullptr, nullptr);
  video.scale.reset(context);
  if (context == nullptr) {
    fail(CV_ERR_DECODE, "frame %lld: no conversion from %s", (long long)video.next_index,
         av::api().av_get_pix_fmt_name(AVPixelFormat(frame.format)));
  }
  const int colorspace = frame.colorspace == AVCOL_SPC_UNSPECIFIED ? SWS_CS_DEFAULT : int(frame.colorspace);
  av::set_colour(context, av::api().sws_getCoefficients(colorspace), !limited_range(frame, descriptor),
                 av::api().sws_getCoefficients(SWS_CS_DEFAULT), true);
  uint8_t *planes[4] = {out, nullptr, nullptr, nullptr};
  int strides[4] = {frame.width * (target == AV_PIX_FMT_RGB24 ? 3 : 1), 0, 0, 0};
  const int rows = av::api().sws_scale(context, frame.data, frame.linesize, 0, frame.height, planes, strides);
  if (rows != frame.height) fail(CV_ERR_DECODE, "frame %lld could not be converted", (long long)video.next_index);
}

/// The grey image: the luma plane, expanded from the limited range (Y' 16-235) when the stream
/// uses it, through a table (exact rounding); other formats through swscale.
void gray(cv_video &video, const AVPixFmtDescriptor &descriptor, uint8_t *out) {
  const AVFrame &frame = *video.frame;
  if (!luma_plane(descriptor)) {
    convert(video, descriptor, AV_PIX_FMT_GRAY8, out);
    return;
  }
  uint8_t table[256];
  const bool limited = limited_range(frame, descriptor);
  for (int v = 0; v < 256; ++v) {
    const long expanded = limited ? std::lround((v - 16) * 255.0 / 219.0) : v;
    table[v] = uint8_t(std::min(255L, std::max(0L, expanded)));
  }
  for (int y = 0; y < frame.height; ++y) {
    const uint8_t *row = frame.data[0] + ptrdiff_t(y) * frame.linesize[0];
    uint8_t *target = out + size_t(y) * frame.width;
    for (int x = 0; x < frame.width; ++x) target[x] = table[row[x]];
  }
}

}  // namespace

extern "C" cv_video *cv_video_open(const char *path, cv_video_info *info, cv_status *status) noexcept {
  cv_video *result = nullptr;
  cvision::guarded(status, "cv_video_open", [&](cv_status *) -> int32_t {
    cvision::require_pointer(path, "path");
    cvision::require_pointer(info, "info");
    std::memset(info, 0, sizeof(*info));
    auto video = std::make_unique<cv_video>();
    struct stat file_status;
    if (::stat(path, &file_status) != 0) fail(CV_ERR_IO, "could not open video %s: %s", path, std::strerror(errno));
    if (!S_ISREG(file_status.st_mode)) fail(CV_ERR_IO, "video %s is not a regular file", path);
    av::quiet();
    av::check(av::api().avformat_open_input(&video->format, path, nullptr, nullptr), CV_ERR_IO,
              "could not open video %s (FFmpeg cannot read it)", path);
    av::check(av::api().avformat_find_stream_info(video->format, nullptr), CV_ERR_DECODE, "video %s", path);
    const AVCodec *codec = nullptr;
    video->stream = av::api().av_find_best_stream(video->format, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
    if (video->stream < 0 || codec == nullptr) {
      fail(CV_ERR_DECODE, "video %s has no video stream that FFmpeg can decode", path);
    }
    AVStream *stream = video->format->streams[video->stream];
    video->width = stream->codecpar->width;
    video->height = stream->codecpar->height;
    if (video->width <= 0 || video->height <= 0) {
      fail(CV_ERR_DECODE, "video %s reports no frame size (%d x %d)", path, video->width, video->height);
    }
    if (video->width > CV_IMAGE_MAX_DIMENSION || video->height > CV_IMAGE_MAX_DIMENSION ||
        int64_t(video->width) * video->height > int64_t(CV_IMAGE_MAX_PIXELS)) {
      fail(CV_ERR_DECODE, "video %s has %d x %d frames, more than the %d pixels accepted", path, video->width,
           video->height, CV_IMAGE_MAX_PIXELS);
    }
    video->codec.reset(av::allocated(av::api().avcodec_alloc_context3(codec)));
    av::check(av::api().avcodec_parameters_to_context(video->codec.get(), stream->codecpar), CV_ERR_DECODE, "%s", path);
    video->codec->thread_count = 1;
    av::check(av::api().avcodec_open2(video->codec.get(), codec, nullptr), CV_ERR_DECODE, "video %s: cannot open its decoder",
              path);
    video->time_base = stream->time_base;
    video->start = stream->start_time == AV_NOPTS_VALUE ? 0 : stream->start_time;
    const AVRational rate = av::api().av_guess_frame_rate(video->format, stream, nullptr);
    video->fps = rate.num > 0 && rate.den > 0 ? av_q2d(rate) : 0;
    info->width = video->width;
    info->height = video->height;
    info->fps = video->fps;
    info->frame_count = stream->nb_frames > 0 ? stream->nb_frames : 0;
    result = video.release();
    return CV_OK;
  });
  return result;
}

extern "C" int32_t cv_video_read(cv_video *video, int32_t mode, uint8_t *out, size_t capacity,
                                 double *timestamp_seconds, cv_status *status) noexcept {
  int32_t outcome = -1;
  cvision::guarded(status, "cv_video_read", [&](cv_status *) -> int32_t {
    cvision::require_pointer(video, "video");
    cvision::require_pointer(out, "out");
    cvision::require_pointer(timestamp_seconds, "timestamp_seconds");
    if (mode != CV_DECODE_GRAY8 && mode != CV_DECODE_RGB8) {
      fail(CV_ERR_INVALID_ARGUMENT, "mode must be CV_DECODE_GRAY8 or CV_DECODE_RGB8 (got %d)", mode);
    }
    const int channels = mode == CV_DECODE_RGB8 ? 3 : 1;
    const size_t needed = size_t(video->width) * video->height * channels;
    if (capacity < needed) {
      fail(CV_ERR_BUFFER_TOO_SMALL, "output buffer holds %zu bytes; a frame needs %zu", capacity, needed);
    }
    if (!decode_next(*video)) {
      outcome = 0;
      return CV_OK;
    }
    const AVFrame &frame = *video->frame;
    if (frame.width != video->width || frame.height != video->height) {
      fail(CV_ERR_DECODE, "frame %lld is %d x %d but the video is %d x %d", (long long)video->next_index,
           frame.width, frame.height, video->width, video->height);
    }
    const AVPixFmtDescriptor *descriptor = av::api().av_pix_fmt_desc_get(AVPixelFormat(frame.format));
    if (descriptor == nullptr) {
      fail(CV_ERR_DECODE, "frame %lld has an unknown pixel format", (long long)video->next_index);
    }
    if (channels == 1) gray(*video, *descriptor, out);
    else convert(*video, *descriptor, AV_PIX_FMT_RGB24, out);

    // Presentation time: the container's, unless it has none (then index / fps).
    const int64_t index = video->next_index++;
    const int64_t stamp = frame.best_effort_timestamp;
    double timestamp = stamp == AV_NOPTS_VALUE ? NAN : double(stamp - video->start) * av_q2d(video->time_base);
    if (video->container_timestamps &&
        (!std::isfinite(timestamp) || timestamp < 0 || (index > 0 && timestamp <= video->last_timestamp))) {
      video->container_timestamps = false;
    }
    if (!video->container_timestamps) {
      if (video->fps <= 0) {
        fail(CV_ERR_DECODE, "video has neither timestamps nor a frame rate (frame %lld)", (long long)index);
      }
      timestamp = double(index) / video->fps;
    }
    av::api().av_frame_unref(video->frame.get());
    video->last_timestamp = timestamp;
    *timestamp_seconds = timestamp;
    outcome = 1;
    return CV_OK;
  });
  return outcome;
}

extern "C" void cv_video_close(cv_video *video) noexcept { delete video; }
