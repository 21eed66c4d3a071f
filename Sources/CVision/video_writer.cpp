// Video writing through FFmpeg's libraries: RGB frames converted to 8-bit 4:2:0 YUV (BT.601,
// limited range, tagged so in the stream), encoded by libx265 (HEVC), libx264 or FFmpeg's MPEG-4
// Part 2 encoder at a set quality, muxed into MP4.

#include <cmath>
#include <cstring>
#include <memory>

#include "cvision.h"
#include "ffmpeg.hpp"
#include "status.hpp"

using cvision::fail;
namespace av = cvision::ffmpeg;

/// The encoder (`codec`) and the conversion (`scale`) of RGB frames to its YUV, over the muxer.
struct cv_video_writer : av::Coding {
  AVFormatContext *format = nullptr;
  AVStream *stream = nullptr;
  int64_t next_pts = 0;
  /// True once the trailer is written (or writing failed): later writes are refused.
  bool finished = false;

  ~cv_video_writer() {
    if (format != nullptr && (format->oformat->flags & AVFMT_NOFILE) == 0) av::api().avio_closep(&format->pb);
    av::api().avformat_free_context(format);
  }
};

namespace {

/// Constant rate factor of the HEVC (x265) and H.264 (x264) encoders. 18 is x264's and x265's
/// "visually lossless" setting, finer than the 23 and 28 they default to: a high-quality phone
/// recording, not a lossless one. Coarser settings move a replayed RGB-D trajectory off the one from
/// lossless colour, most on small images; this setting's cost is `arsim eval` on an `arsim generate
/// --format stray` export against the same scene's lossless recording.
constexpr const char *kConstantRateFactor = "18";
/// MPEG-4 Part 2's fixed quantiser (2 is finest, 31 coarsest).
constexpr int kMPEG4Quantiser = 3;

/// Sends `input` (NULL flushes) to the encoder and muxes every packet it returns.
void encode(cv_video_writer &writer, const AVFrame *input) {
  AVCodecContext *encoder = writer.codec.get();
  av::check(av::api().avcodec_send_frame(encoder, input), CV_ERR_IO, "encoding a frame");
  for (;;) {
    const int received = av::api().avcodec_receive_packet(encoder, writer.packet.get());
    if (received == AVERROR(EAGAIN) || received == AVERROR_EOF) return;
    av::check(received, CV_ERR_IO, "encoding a frame");
    // One frame period each (the encoder's time base is 1 / fps): without it the last frame has
    // no duration, falls outside the MP4's edit list and readers drop it.
    writer.packet->duration = 1;
    av::api().av_packet_rescale_ts(writer.packet.get(), encoder->time_base, writer.stream->time_base);
    writer.packet->stream_index = writer.stream->index;
    av::check(av::api().av_interleaved_write_frame(writer.format, writer.packet.get()), CV_ERR_IO, "writing the video");
  }
}

/// Flushes the encoder and writes the MP4 index; the file is complete afterwards.
void finish(cv_video_writer &writer) {
  if (writer.finished) return;
  writer.finished = true;
  encode(writer, nullptr);
  av::check(av::api().av_write_trailer(writer.format), CV_ERR_IO, "writing the video's index");
  av::check(av::api().avio_closep(&writer.format->pb), CV_ERR_IO, "closing the video");
}

/// The first encoder this FFmpeg has among `names`.
const AVCodec *encoder_named(std::initializer_list<const char *> names) {
  for (const char *name : names) {
    if (const AVCodec *codec = av::api().avcodec_find_encoder_by_name(name)) return codec;
  }
  return nullptr;
}

}  // namespace

extern "C" cv_video_writer *cv_video_writer_open(const char *path, int32_t width, int32_t height, double fps,
                                                 int32_t codec, cv_status *status) noexcept {
  cv_video_writer *result = nullptr;
  cvision::guarded(status, "cv_video_writer_open", [&](cv_status *) -> int32_t {
    cvision::require_pointer(path, "path");
    if (width <= 0 || height <= 0 || width % 2 != 0 || height % 2 != 0) {
      fail(CV_ERR_INVALID_ARGUMENT, "width and height must be positive and even (got %d x %d)", width, height);
    }
    if (!std::isfinite(fps) || fps <= 0) fail(CV_ERR_INVALID_ARGUMENT, "fps must be positive and finite (got %g)", fps);
    if (codec != CV_VIDEO_CODEC_MPEG4 && codec != CV_VIDEO_CODEC_HEVC) {
      fail(CV_ERR_INVALID_ARGUMENT, "codec must be CV_VIDEO_CODEC_MPEG4 or CV_VIDEO_CODEC_HEVC (got %d)", codec);
    }
    av::quiet();
    const bool hevc = codec == CV_VIDEO_CODEC_HEVC;
    const AVCodec *encoder = hevc ? encoder_named({"libx265", "libx264"}) : encoder_named({"mpeg4"});
    if (encoder == nullptr) {
      fail(CV_ERR_IO, "could not open an %s video writer for %s: this FFmpeg has no such encoder",
           hevc ? "HEVC (libx265) or H.264 (libx264)" : "MPEG-4 (mp4v)", path);
    }
    auto writer = std::make_unique<cv_video_writer>();
    writer->width = width;
    writer->height = height;
    av::check(av::api().avformat_alloc_output_context2(&writer->format, nullptr, "mp4", path), CV_ERR_IO, "%s", path);
    writer->stream = av::allocated(av::api().avformat_new_stream(writer->format, nullptr));
    writer->codec.reset(av::allocated(av::api().avcodec_alloc_context3(encoder)));
    AVCodecContext *context = writer->codec.get();
    context->width = width;
    context->height = height;
    context->pix_fmt = AV_PIX_FMT_YUV420P;
    context->framerate = av::api().av_d2q(fps, 1 << 20);
    context->time_base = av_inv_q(context->framerate);
    context->color_range = AVCOL_RANGE_MPEG;
    context->colorspace = AVCOL_SPC_SMPTE170M;
    context->color_primaries = AVCOL_PRI_SMPTE170M;
    context->color_trc = AVCOL_TRC_SMPTE170M;
    if (writer->format->oformat->flags & AVFMT_GLOBALHEADER) context->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    AVDictionary *options = nullptr;
    const std::string name = encoder->name;
    if (name == "libx265") {
      av::api().av_dict_set(&options, "crf", kConstantRateFactor, 0);
      av::api().av_dict_set(&options, "x265-params", "log-level=none", 0);
    } else if (name == "libx264") {
      av::api().av_dict_set(&options, "crf", kConstantRateFactor, 0);
    } else {
      context->flags |= AV_CODEC_FLAG_QSCALE;
      context->global_quality = FF_QP2LAMBDA * kMPEG4Quantiser;
    }
    const int opened = av::api().avcodec_open2(context, encoder, &options);
    av::api().av_dict_free(&options);
    av::check(opened, CV_ERR_IO, "could not open the %s encoder for %s", encoder->name, path);
    av::check(av::api().avcodec_parameters_from_context(writer->stream->codecpar, context), CV_ERR_IO, "%s", path);
    writer->stream->time_base = context->time_base;
    // Apple's tag for HEVC in MP4, as iPhones write it (FFmpeg's default, hev1, QuickTime does not play).
    if (name == "libx265") writer->stream->codecpar->codec_tag = MKTAG('h', 'v', 'c', '1');
    av::check(av::api().avio_open(&writer->format->pb, path, AVIO_FLAG_WRITE), CV_ERR_IO, "could not create video %s", path);
    av::check(av::api().avformat_write_header(writer->format, nullptr), CV_ERR_IO, "%s", path);
    writer->frame->format = context->pix_fmt;
    writer->frame->width = width;
    writer->frame->height = height;
    av::check(av::api().av_frame_get_buffer(writer->frame.get(), 0), CV_ERR_INTERNAL, "allocating a frame");
    // RGB to BT.601 limited-range YUV, chroma from every input pixel, exact rounding.
    writer->scale.reset(av::api().sws_getContext(width, height, AV_PIX_FMT_RGB24, width, height, AV_PIX_FMT_YUV420P,
                                       SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INP, nullptr, nullptr,
                                       nullptr));
    if (!writer->scale) fail(CV_ERR_INTERNAL, "no RGB to YUV conversion for %d x %d", width, height);
    const int *bt601 = av::api().sws_getCoefficients(SWS_CS_ITU601);
    av::set_colour(writer->scale.get(), bt601, true, bt601, false);
    result = writer.release();
    return CV_OK;
  });
  return result;
}

extern "C" int32_t cv_video_writer_write(cv_video_writer *writer, const uint8_t *rgb, cv_status *status) noexcept {
  return cvision::guarded(status, "cv_video_writer_write", [&](cv_status *) -> int32_t {
    cvision::require_pointer(writer, "writer");
    cvision::require_pointer(rgb, "rgb");
    if (writer->finished) fail(CV_ERR_INVALID_ARGUMENT, "the video writer has already finished");
    AVFrame *frame = writer->frame.get();
    av::check(av::api().av_frame_make_writable(frame), CV_ERR_INTERNAL, "allocating a frame");
    const uint8_t *planes[4] = {rgb, nullptr, nullptr, nullptr};
    const int strides[4] = {3 * writer->width, 0, 0, 0};
    av::api().sws_scale(writer->scale.get(), planes, strides, 0, writer->height, frame->data, frame->linesize);
    frame->pts = writer->next_pts++;
    try {
      encode(*writer, frame);
    } catch (...) {
      writer->finished = true;
      throw;
    }
    return CV_OK;
  });
}

extern "C" int32_t cv_video_writer_finish(cv_video_writer *writer, cv_status *status) noexcept {
  return cvision::guarded(status, "cv_video_writer_finish", [&](cv_status *) -> int32_t {
    cvision::require_pointer(writer, "writer");
    finish(*writer);
    return CV_OK;
  });
}

extern "C" void cv_video_writer_close(cv_video_writer *writer) noexcept {
  if (writer == nullptr) return;
  cv_video_writer_finish(writer, nullptr);
  delete writer;
}
